ALTER TABLE `evaluator_verdicts` ADD `sample_count` integer;--> statement-breakpoint
ALTER TABLE `evaluator_verdicts` ADD `sample_successes` integer;--> statement-breakpoint
ALTER TABLE `evaluator_verdicts` ADD `sample_failures` integer;--> statement-breakpoint
ALTER TABLE `evaluator_verdicts` ADD `first_failing_step` integer;--> statement-breakpoint
ALTER TABLE `judge_batches` ADD `samples` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
-- Judge measures read samples and failure steps: their updates move the analytics change counter (db/schema/changes.ts).
DROP TRIGGER IF EXISTS `evaluator_verdicts_count_update`;
--> statement-breakpoint
CREATE TRIGGER `evaluator_verdicts_count_update` AFTER UPDATE OF `trajectory_id`, `evaluator_key`, `k`, `prompt_version`, `verdict`, `sample_count`, `sample_successes`, `sample_failures`, `first_failing_step` ON `evaluator_verdicts` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'evaluator_verdicts'; END;

ALTER TABLE `evaluator_verdicts` ADD `change_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `evaluator_verdicts_change_idx` ON `evaluator_verdicts` (`change_version`);--> statement-breakpoint
-- Verdict rows carry the change counter their write left (analytics read only the rows newer than their copy); a
-- second counter moves when a verdict row goes away or changes identity, which a copy cannot patch in.
INSERT INTO `change_counters` (`name`, `version`) VALUES ('evaluator_verdicts_removed', 0);
--> statement-breakpoint
DROP TRIGGER IF EXISTS `evaluator_verdicts_count_insert`;
--> statement-breakpoint
CREATE TRIGGER `evaluator_verdicts_count_insert` AFTER INSERT ON `evaluator_verdicts` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'evaluator_verdicts'; UPDATE `evaluator_verdicts` SET `change_version` = coalesce((SELECT `version` FROM `change_counters` WHERE `name` = 'evaluator_verdicts'), NEW.`change_version`) WHERE `id` = NEW.`id`; END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `evaluator_verdicts_count_update`;
--> statement-breakpoint
CREATE TRIGGER `evaluator_verdicts_count_update` AFTER UPDATE OF `trajectory_id`, `evaluator_key`, `k`, `prompt_version`, `verdict`, `sample_count`, `sample_successes`, `sample_failures`, `first_failing_step` ON `evaluator_verdicts` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'evaluator_verdicts'; UPDATE `evaluator_verdicts` SET `change_version` = coalesce((SELECT `version` FROM `change_counters` WHERE `name` = 'evaluator_verdicts'), NEW.`change_version`) WHERE `id` = NEW.`id`; END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `evaluator_verdicts_count_delete`;
--> statement-breakpoint
CREATE TRIGGER `evaluator_verdicts_count_delete` AFTER DELETE ON `evaluator_verdicts` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` IN ('evaluator_verdicts', 'evaluator_verdicts_removed'); END;
--> statement-breakpoint
CREATE TRIGGER `evaluator_verdicts_count_identity` AFTER UPDATE OF `trajectory_id`, `evaluator_key`, `k`, `prompt_version` ON `evaluator_verdicts` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'evaluator_verdicts_removed'; END;

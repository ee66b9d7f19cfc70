CREATE TABLE `change_counters` (
	`name` text PRIMARY KEY NOT NULL,
	`version` integer DEFAULT 0 NOT NULL
);--> statement-breakpoint
-- Per-table change counters for the analytics cache (db/schema/changes.ts): one row per counted table, bumped by
-- triggers on inserts, deletes and updates of the columns analytics read.
INSERT INTO `change_counters` (`name`, `version`) VALUES ('tasks', 0), ('trajectories', 0), ('evaluator_verdicts', 0), ('labels', 0), ('consolidated_labels', 0);
--> statement-breakpoint
CREATE TRIGGER `tasks_count_insert` AFTER INSERT ON `tasks` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'tasks'; END;
--> statement-breakpoint
CREATE TRIGGER `tasks_count_delete` AFTER DELETE ON `tasks` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'tasks'; END;
--> statement-breakpoint
CREATE TRIGGER `tasks_count_update` AFTER UPDATE OF `site`, `task_set_id`, `difficulty` ON `tasks` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'tasks'; END;
--> statement-breakpoint
CREATE TRIGGER `trajectories_count_insert` AFTER INSERT ON `trajectories` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'trajectories'; END;
--> statement-breakpoint
CREATE TRIGGER `trajectories_count_delete` AFTER DELETE ON `trajectories` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'trajectories'; END;
--> statement-breakpoint
CREATE TRIGGER `trajectories_count_update` AFTER UPDATE OF `run_id`, `task_id`, `step_count` ON `trajectories` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'trajectories'; END;
--> statement-breakpoint
CREATE TRIGGER `evaluator_verdicts_count_insert` AFTER INSERT ON `evaluator_verdicts` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'evaluator_verdicts'; END;
--> statement-breakpoint
CREATE TRIGGER `evaluator_verdicts_count_delete` AFTER DELETE ON `evaluator_verdicts` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'evaluator_verdicts'; END;
--> statement-breakpoint
CREATE TRIGGER `evaluator_verdicts_count_update` AFTER UPDATE OF `trajectory_id`, `evaluator_key`, `k`, `prompt_version`, `verdict` ON `evaluator_verdicts` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'evaluator_verdicts'; END;
--> statement-breakpoint
CREATE TRIGGER `labels_count_insert` AFTER INSERT ON `labels` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'labels'; END;
--> statement-breakpoint
CREATE TRIGGER `labels_count_delete` AFTER DELETE ON `labels` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'labels'; END;
--> statement-breakpoint
CREATE TRIGGER `labels_count_update` AFTER UPDATE OF `campaign_id`, `status`, `annotator_key`, `verdict`, `category`, `item_id`, `trajectory_id`, `first_failing_step` ON `labels` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'labels'; END;
--> statement-breakpoint
CREATE TRIGGER `consolidated_labels_count_insert` AFTER INSERT ON `consolidated_labels` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'consolidated_labels'; END;
--> statement-breakpoint
CREATE TRIGGER `consolidated_labels_count_delete` AFTER DELETE ON `consolidated_labels` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'consolidated_labels'; END;
--> statement-breakpoint
CREATE TRIGGER `consolidated_labels_count_update` AFTER UPDATE OF `campaign_id`, `verdict`, `category`, `trajectory_id`, `first_failing_step` ON `consolidated_labels` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'consolidated_labels'; END;

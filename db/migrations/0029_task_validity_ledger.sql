CREATE TABLE `task_flags` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`task_id` integer NOT NULL,
	`status` text NOT NULL,
	`reason` text NOT NULL,
	`evidence_url` text,
	`user_id` text,
	`user_name` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `task_flags_task_idx` ON `task_flags` (`task_id`,`id`);--> statement-breakpoint
-- The ledger's change counter (db/schema/changes.ts): a flag or its clearing changes which trajectories analytics count.
INSERT INTO `change_counters` (`name`, `version`) VALUES ('task_flags', 0);
--> statement-breakpoint
CREATE TRIGGER `task_flags_count_insert` AFTER INSERT ON `task_flags` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'task_flags'; END;
--> statement-breakpoint
CREATE TRIGGER `task_flags_count_delete` AFTER DELETE ON `task_flags` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'task_flags'; END;
--> statement-breakpoint
CREATE TRIGGER `task_flags_count_update` AFTER UPDATE OF `task_id`, `status` ON `task_flags` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'task_flags'; END;
--> statement-breakpoint
-- Task attributes split every view: an update of them (a re-import that changed a task's fields) must count too.
DROP TRIGGER `tasks_count_update`;
--> statement-breakpoint
CREATE TRIGGER `tasks_count_update` AFTER UPDATE OF `site`, `task_set_id`, `difficulty`, `attributes` ON `tasks` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'tasks'; END;

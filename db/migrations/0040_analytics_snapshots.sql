CREATE TABLE `analytics_snapshots` (
	`key` text PRIMARY KEY NOT NULL,
	`format` text NOT NULL,
	`stamp` text NOT NULL,
	`versions` text NOT NULL,
	`value` blob NOT NULL,
	`written_at` integer NOT NULL
);
--> statement-breakpoint
-- A trajectory's outcome counts as a change of the trajectories (issue 32): an infrastructure error or a blocked page
-- leaves it out of every rate, and the analytics' stored copies must not outlive a live run that ends that way.
DROP TRIGGER IF EXISTS `trajectories_count_update`;
--> statement-breakpoint
CREATE TRIGGER `trajectories_count_update` AFTER UPDATE OF `run_id`, `task_id`, `step_count`, `outcome` ON `trajectories` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'trajectories'; END;

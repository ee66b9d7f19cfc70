CREATE TABLE `automation_rule_hits` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`rule_id` integer NOT NULL,
	`trajectory_id` integer NOT NULL,
	`run_id` integer NOT NULL,
	FOREIGN KEY (`rule_id`) REFERENCES `automation_rules`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`trajectory_id`) REFERENCES `trajectories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `automation_rule_hits_rule_trajectory_uq` ON `automation_rule_hits` (`rule_id`,`trajectory_id`);--> statement-breakpoint
CREATE TABLE `automation_rule_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`rule_id` integer NOT NULL,
	`trigger` text NOT NULL,
	`arrival` text NOT NULL,
	`arrived` integer NOT NULL,
	`matched` integer NOT NULL,
	`sampled` integer NOT NULL,
	`acted` integer NOT NULL,
	`already_done` integer NOT NULL,
	`outcome` text NOT NULL,
	`refusal` text,
	`judge_batch_id` integer,
	`trajectory_ids` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`rule_id`) REFERENCES `automation_rules`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `automation_rule_runs_rule_idx` ON `automation_rule_runs` (`rule_id`,`id`);--> statement-breakpoint
CREATE TABLE `automation_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`filter_text` text NOT NULL,
	`triggers` text NOT NULL,
	`action` text NOT NULL,
	`share_percent` real NOT NULL,
	`seed` integer NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_by` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `automation_rules_name_unique` ON `automation_rules` (`name`);
CREATE TABLE `agent_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_key` text NOT NULL,
	`name` text NOT NULL,
	`agent_name` text NOT NULL,
	`model` text,
	`source_system` text NOT NULL,
	`config` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_runs_run_key_unique` ON `agent_runs` (`run_key`);--> statement-breakpoint
CREATE INDEX `agent_runs_model_idx` ON `agent_runs` (`model`);--> statement-breakpoint
CREATE TABLE `screenshots` (
	`hash` text PRIMARY KEY NOT NULL,
	`mime` text NOT NULL,
	`width` integer NOT NULL,
	`height` integer NOT NULL,
	`bytes` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `steps` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`trajectory_id` integer NOT NULL,
	`idx` integer NOT NULL,
	`screenshot_hash` text,
	`raw_screenshot_hash` text,
	`marks_burned_in` integer DEFAULT false NOT NULL,
	`url` text,
	`thought` text,
	`action_raw` text,
	`action` text NOT NULL,
	`elements` text,
	`error` text,
	`duration_ms` real,
	FOREIGN KEY (`trajectory_id`) REFERENCES `trajectories`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`screenshot_hash`) REFERENCES `screenshots`(`hash`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`raw_screenshot_hash`) REFERENCES `screenshots`(`hash`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `steps_trajectory_idx_uq` ON `steps` (`trajectory_id`,`idx`);--> statement-breakpoint
CREATE TABLE `task_sets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`benchmark` text NOT NULL,
	`description` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `task_sets_name_unique` ON `task_sets` (`name`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`task_set_id` integer NOT NULL,
	`external_id` text NOT NULL,
	`site` text,
	`intent` text NOT NULL,
	`start_url` text,
	`input_images` text DEFAULT '[]' NOT NULL,
	`reference_answers` text DEFAULT '[]' NOT NULL,
	`evaluator_config` text,
	`difficulty` text,
	`tags` text DEFAULT '[]' NOT NULL,
	`extra` text,
	`content_hash` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`task_set_id`) REFERENCES `task_sets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tasks_set_external_uq` ON `tasks` (`task_set_id`,`external_id`);--> statement-breakpoint
CREATE INDEX `tasks_site_idx` ON `tasks` (`site`);--> statement-breakpoint
CREATE TABLE `trajectories` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` integer NOT NULL,
	`task_id` integer NOT NULL,
	`attempt` integer DEFAULT 0 NOT NULL,
	`final_answer` text,
	`outcome` text NOT NULL,
	`outcome_detail` text,
	`step_count` integer NOT NULL,
	`source_format` text NOT NULL,
	`source_path` text,
	`content_hash` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `agent_runs`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE UNIQUE INDEX `trajectories_run_task_attempt_uq` ON `trajectories` (`run_id`,`task_id`,`attempt`);--> statement-breakpoint
CREATE INDEX `trajectories_task_idx` ON `trajectories` (`task_id`);--> statement-breakpoint
CREATE INDEX `trajectories_outcome_idx` ON `trajectories` (`outcome`);--> statement-breakpoint
CREATE INDEX `trajectories_steps_idx` ON `trajectories` (`step_count`);
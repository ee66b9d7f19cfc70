CREATE TABLE `deployment_profiles` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`sites` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deployment_profiles_name_unique` ON `deployment_profiles` (`name`);--> statement-breakpoint
CREATE TABLE `live_step_evidence` (
	`trajectory_id` integer NOT NULL,
	`idx` integer NOT NULL,
	`started_at` integer NOT NULL,
	`tabs` text,
	`prompt` text,
	PRIMARY KEY(`trajectory_id`, `idx`),
	FOREIGN KEY (`trajectory_id`) REFERENCES `trajectories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `live_trajectory_har` (
	`trajectory_id` integer PRIMARY KEY NOT NULL,
	`har_hash` text NOT NULL,
	`bytes` integer NOT NULL,
	`entries` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`trajectory_id`) REFERENCES `trajectories`(`id`) ON UPDATE no action ON DELETE cascade
);

CREATE TABLE `scanner_matches` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`scanner_key` text NOT NULL,
	`trajectory_id` integer NOT NULL,
	`step_index` integer NOT NULL,
	`rule_index` integer NOT NULL,
	`field` text NOT NULL,
	`matched_text` text NOT NULL,
	FOREIGN KEY (`trajectory_id`) REFERENCES `trajectories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `scanner_matches_scanner_trajectory_idx` ON `scanner_matches` (`scanner_key`,`trajectory_id`);--> statement-breakpoint
CREATE INDEX `scanner_matches_trajectory_idx` ON `scanner_matches` (`trajectory_id`,`step_index`);--> statement-breakpoint
CREATE TABLE `scanner_scans` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`scanner_key` text NOT NULL,
	`trajectory_id` integer NOT NULL,
	`definition_hash` text NOT NULL,
	`match_count` integer NOT NULL,
	`problem` text,
	`scanned_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`trajectory_id`) REFERENCES `trajectories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `scanner_scans_scanner_trajectory_uq` ON `scanner_scans` (`scanner_key`,`trajectory_id`);--> statement-breakpoint
CREATE INDEX `scanner_scans_trajectory_idx` ON `scanner_scans` (`trajectory_id`);--> statement-breakpoint
CREATE TABLE `scanners` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`key` text NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`category` text NOT NULL,
	`rules` text NOT NULL,
	`min_consecutive` integer DEFAULT 1 NOT NULL,
	`created_by` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `scanners_key_unique` ON `scanners` (`key`);
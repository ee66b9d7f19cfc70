CREATE TABLE `failure_cluster_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`slice` text NOT NULL,
	`result` text NOT NULL,
	`created_by` text,
	`created_by_name` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);

CREATE TABLE `judge_endpoint_settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`allowed_hosts` text NOT NULL,
	`allow_loopback` integer DEFAULT false NOT NULL,
	`updated_by` text,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);

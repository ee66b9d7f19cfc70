CREATE TABLE `judge_alignments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`judge_config_id` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`k` text NOT NULL,
	`held_out_share` real NOT NULL,
	`seed` integer NOT NULL,
	`calibration_ids` text NOT NULL,
	`held_out_ids` text NOT NULL,
	`strata` text NOT NULL,
	`left_out` text NOT NULL,
	`created_by` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`judge_config_id`) REFERENCES `judge_configs`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`campaign_id`) REFERENCES `annotation_campaigns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `judge_alignments_name_unique` ON `judge_alignments` (`name`);--> statement-breakpoint
CREATE INDEX `judge_alignments_config_idx` ON `judge_alignments` (`judge_config_id`);--> statement-breakpoint
CREATE TABLE `judge_prompt_versions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`alignment_id` integer NOT NULL,
	`number` integer NOT NULL,
	`parent_id` integer,
	`rubric` text,
	`rubric_source` text NOT NULL,
	`examples` text NOT NULL,
	`suggestion` text,
	`note` text,
	`created_by` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`alignment_id`) REFERENCES `judge_alignments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`parent_id`) REFERENCES `judge_prompt_versions`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `judge_prompt_versions_number_uq` ON `judge_prompt_versions` (`alignment_id`,`number`);--> statement-breakpoint
CREATE TABLE `judge_stress_tests` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`judge_config_id` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`prompt_version_id` integer,
	`k` text NOT NULL,
	`seed` integer NOT NULL,
	`perturbations` text NOT NULL,
	`skipped` text NOT NULL,
	`trajectory_ids` text NOT NULL,
	`batch_id` integer,
	`created_by` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`judge_config_id`) REFERENCES `judge_configs`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`campaign_id`) REFERENCES `annotation_campaigns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`prompt_version_id`) REFERENCES `judge_prompt_versions`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`batch_id`) REFERENCES `judge_batches`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `judge_stress_tests_config_idx` ON `judge_stress_tests` (`judge_config_id`);--> statement-breakpoint
ALTER TABLE `judge_batches` ADD `variants` text;--> statement-breakpoint
ALTER TABLE `judge_batches` ADD `alignment_id` integer REFERENCES judge_alignments(id) ON DELETE set null;
CREATE TABLE `label_reveals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`campaign_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`label_id` integer NOT NULL,
	`trajectory_id` integer NOT NULL,
	`annotator_key` text NOT NULL,
	`user_id` text,
	`annotator_name` text NOT NULL,
	`evaluator_id` text NOT NULL,
	`evaluator_name` text NOT NULL,
	`evaluator_verdict` text NOT NULL,
	`evaluator_rationale` text,
	`blind_verdict` text NOT NULL,
	`blind_category` text,
	`blind_first_failing_step` integer,
	`blind_note` text,
	`blind_at` integer NOT NULL,
	`revealed_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`decision` text,
	`informed_verdict` text,
	`informed_category` text,
	`informed_first_failing_step` integer,
	`reason` text,
	`decided_at` integer,
	FOREIGN KEY (`campaign_id`) REFERENCES `annotation_campaigns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `campaign_items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`label_id`) REFERENCES `labels`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`trajectory_id`) REFERENCES `trajectories`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `label_reveals_label_uq` ON `label_reveals` (`label_id`);--> statement-breakpoint
CREATE INDEX `label_reveals_campaign_idx` ON `label_reveals` (`campaign_id`,`evaluator_id`);--> statement-breakpoint
ALTER TABLE `annotation_campaigns` ADD `reveal_evaluator` text;
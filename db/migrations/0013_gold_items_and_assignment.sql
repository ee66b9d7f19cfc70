CREATE TABLE `gold_items` (
	`item_id` integer PRIMARY KEY NOT NULL,
	`campaign_id` integer NOT NULL,
	`verdict` text NOT NULL,
	`category` text,
	`source` text NOT NULL,
	`note` text,
	`created_by` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`item_id`) REFERENCES `campaign_items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`campaign_id`) REFERENCES `annotation_campaigns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `gold_items_campaign_idx` ON `gold_items` (`campaign_id`,`item_id`);--> statement-breakpoint
ALTER TABLE `annotation_campaigns` ADD `assignment_strategy` text DEFAULT 'least_covered' NOT NULL;--> statement-breakpoint
ALTER TABLE `annotation_campaigns` ADD `gold_rate` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `annotation_campaigns` ADD `gold_warn_below` real;--> statement-breakpoint
ALTER TABLE `annotation_campaigns` ADD `gold_block_below` real;--> statement-breakpoint
ALTER TABLE `annotation_campaigns` ADD `gold_min_answered` integer DEFAULT 5 NOT NULL;
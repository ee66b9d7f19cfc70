ALTER TABLE `annotation_campaigns` ADD `qualification_pass_at` real;--> statement-breakpoint
ALTER TABLE `gold_items` ADD `qualification` integer DEFAULT false NOT NULL;
ALTER TABLE `gold_items` ADD `first_failing_step` integer;--> statement-breakpoint
ALTER TABLE `gold_items` ADD `answers` text;
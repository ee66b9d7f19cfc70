CREATE TABLE `campaign_qa_reviewers` (
	`campaign_id` integer NOT NULL,
	`user_id` text NOT NULL,
	`added_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`campaign_id`, `user_id`),
	FOREIGN KEY (`campaign_id`) REFERENCES `annotation_campaigns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `campaign_qa_reviewers_user_idx` ON `campaign_qa_reviewers` (`user_id`);--> statement-breakpoint
ALTER TABLE `annotation_campaigns` ADD `guideline_version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `annotation_campaigns` ADD `template_id` text;--> statement-breakpoint
ALTER TABLE `annotation_campaigns` ADD `template_version` integer;--> statement-breakpoint
ALTER TABLE `campaign_items` ADD `qa_reviewed_at` integer;--> statement-breakpoint
ALTER TABLE `consolidated_labels` ADD `confidence` text;--> statement-breakpoint
ALTER TABLE `consolidated_labels` ADD `disagreement_source` text;--> statement-breakpoint
ALTER TABLE `consolidated_labels` ADD `qa_decision` text;--> statement-breakpoint
ALTER TABLE `consolidated_labels` ADD `qa_reviewer_name` text;--> statement-breakpoint
ALTER TABLE `consolidation_events` ADD `stage` text;--> statement-breakpoint
ALTER TABLE `consolidation_events` ADD `confidence` text;--> statement-breakpoint
ALTER TABLE `consolidation_events` ADD `disagreement_source` text;--> statement-breakpoint
ALTER TABLE `consolidation_events` ADD `qa_decision` text;--> statement-breakpoint
ALTER TABLE `label_revisions` ADD `guideline_version` integer;--> statement-breakpoint
ALTER TABLE `labels` ADD `answers` text;--> statement-breakpoint
ALTER TABLE `labels` ADD `guideline_version` integer;
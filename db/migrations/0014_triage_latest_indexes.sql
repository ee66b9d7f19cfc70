DROP INDEX `campaign_items_trajectory_idx`;--> statement-breakpoint
CREATE INDEX `campaign_items_trajectory_latest_idx` ON `campaign_items` (`trajectory_id`,`campaign_id`,`state`);--> statement-breakpoint
DROP INDEX `consolidated_labels_trajectory_idx`;--> statement-breakpoint
CREATE INDEX `consolidated_labels_trajectory_latest_idx` ON `consolidated_labels` (`trajectory_id`,`campaign_id`,`verdict`,`category`);
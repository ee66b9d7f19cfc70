DROP INDEX `campaign_items_campaign_state_idx`;--> statement-breakpoint
ALTER TABLE `campaign_items` ADD `label_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `campaign_items_queue_idx` ON `campaign_items` (`campaign_id`,`state`,`label_count`);--> statement-breakpoint
UPDATE `campaign_items` SET `label_count` = (SELECT count(*) FROM `labels` l WHERE l.`item_id` = `campaign_items`.`id` AND l.`status` = 'active');

ALTER TABLE `campaign_items` ADD `item_no` integer;--> statement-breakpoint
UPDATE `campaign_items` SET `item_no` = (SELECT n.no FROM (SELECT `id`, row_number() OVER (PARTITION BY `campaign_id` ORDER BY random()) AS no FROM `campaign_items`) n WHERE n.`id` = `campaign_items`.`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `campaign_items_campaign_item_no_uq` ON `campaign_items` (`campaign_id`,`item_no`);--> statement-breakpoint
CREATE INDEX `steps_screenshot_hash_idx` ON `steps` (`screenshot_hash`,`trajectory_id`);--> statement-breakpoint
CREATE INDEX `steps_raw_screenshot_hash_idx` ON `steps` (`raw_screenshot_hash`,`trajectory_id`);
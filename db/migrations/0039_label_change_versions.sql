ALTER TABLE `labels` ADD `change_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `labels_change_idx` ON `labels` (`change_version`);--> statement-breakpoint
-- Label rows carry the change counter their write left, as verdict rows do (0020): the analytics read only the labels
-- written since their copy of a campaign's labels and patch them in (a row is one annotator's label on one item, kept
-- and updated in place). A second counter moves when a label row goes away or changes identity (campaign, item,
-- annotator), which a copy cannot patch in.
INSERT INTO `change_counters` (`name`, `version`) VALUES ('labels_removed', 0);
--> statement-breakpoint
DROP TRIGGER IF EXISTS `labels_count_insert`;
--> statement-breakpoint
CREATE TRIGGER `labels_count_insert` AFTER INSERT ON `labels` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'labels'; UPDATE `labels` SET `change_version` = coalesce((SELECT `version` FROM `change_counters` WHERE `name` = 'labels'), NEW.`change_version`) WHERE `id` = NEW.`id`; END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `labels_count_update`;
--> statement-breakpoint
CREATE TRIGGER `labels_count_update` AFTER UPDATE OF `campaign_id`, `status`, `annotator_key`, `verdict`, `category`, `item_id`, `trajectory_id`, `first_failing_step` ON `labels` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'labels'; UPDATE `labels` SET `change_version` = coalesce((SELECT `version` FROM `change_counters` WHERE `name` = 'labels'), NEW.`change_version`) WHERE `id` = NEW.`id`; END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `labels_count_delete`;
--> statement-breakpoint
CREATE TRIGGER `labels_count_delete` AFTER DELETE ON `labels` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` IN ('labels', 'labels_removed'); END;
--> statement-breakpoint
CREATE TRIGGER `labels_count_identity` AFTER UPDATE OF `campaign_id`, `item_id`, `annotator_key` ON `labels` BEGIN UPDATE `change_counters` SET `version` = `version` + 1 WHERE `name` = 'labels_removed'; END;

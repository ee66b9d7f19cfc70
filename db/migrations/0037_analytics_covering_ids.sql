DROP INDEX `tasks_site_analytics_idx`;--> statement-breakpoint
CREATE INDEX `tasks_site_analytics_idx` ON `tasks` (`site`,`task_set_id`,`difficulty`,`id`);--> statement-breakpoint
DROP INDEX `trajectories_steps_idx`;--> statement-breakpoint
CREATE INDEX `trajectories_steps_idx` ON `trajectories` (`step_count`,`run_id`,`task_id`,`id`);--> statement-breakpoint
DROP INDEX `consolidated_labels_campaign_analytics_idx`;--> statement-breakpoint
CREATE INDEX `consolidated_labels_campaign_analytics_idx` ON `consolidated_labels` (`campaign_id`,`verdict`,`category`,`trajectory_id`,`first_failing_step`,`id`);--> statement-breakpoint
DROP INDEX `labels_campaign_analytics_idx`;--> statement-breakpoint
CREATE INDEX `labels_campaign_analytics_idx` ON `labels` (`campaign_id`,`status`,`annotator_key`,`verdict`,`category`,`item_id`,`trajectory_id`,`first_failing_step`,`id`);
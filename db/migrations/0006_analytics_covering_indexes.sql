DROP INDEX `tasks_site_idx`;--> statement-breakpoint
CREATE INDEX `tasks_site_analytics_idx` ON `tasks` (`site`,`task_set_id`,`difficulty`);--> statement-breakpoint
DROP INDEX `evaluator_verdicts_evaluator_idx`;--> statement-breakpoint
CREATE INDEX `evaluator_verdicts_analytics_idx` ON `evaluator_verdicts` (`evaluator_key`,`k`,`prompt_version`,`verdict`,`trajectory_id`);--> statement-breakpoint
DROP INDEX `consolidated_labels_campaign_idx`;--> statement-breakpoint
CREATE INDEX `consolidated_labels_campaign_analytics_idx` ON `consolidated_labels` (`campaign_id`,`verdict`,`category`,`trajectory_id`,`first_failing_step`);--> statement-breakpoint
DROP INDEX `labels_campaign_idx`;--> statement-breakpoint
CREATE INDEX `labels_campaign_analytics_idx` ON `labels` (`campaign_id`,`status`,`annotator_key`,`verdict`,`category`,`item_id`,`trajectory_id`,`first_failing_step`);--> statement-breakpoint
DROP INDEX `trajectories_steps_idx`;--> statement-breakpoint
CREATE INDEX `trajectories_steps_idx` ON `trajectories` (`step_count`,`run_id`,`task_id`);
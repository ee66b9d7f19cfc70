CREATE TABLE `pairwise_answer_revisions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`answer_id` integer NOT NULL,
	`campaign_id` integer NOT NULL,
	`revision` integer NOT NULL,
	`outcome` text NOT NULL,
	`actor_id` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`answer_id`) REFERENCES `pairwise_answers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`campaign_id`) REFERENCES `annotation_campaigns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`actor_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pairwise_answer_revisions_answer_revision_uq` ON `pairwise_answer_revisions` (`answer_id`,`revision`);--> statement-breakpoint
CREATE TABLE `pairwise_answers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`campaign_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`user_id` text NOT NULL,
	`annotator_name` text NOT NULL,
	`outcome` text NOT NULL,
	`time_spent_ms` integer,
	`revision` integer DEFAULT 1 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`campaign_id`) REFERENCES `annotation_campaigns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `pairwise_items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pairwise_answers_item_user_uq` ON `pairwise_answers` (`item_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `pairwise_answers_campaign_idx` ON `pairwise_answers` (`campaign_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `pairwise_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`campaign_id` integer NOT NULL,
	`item_no` integer NOT NULL,
	`task_id` integer NOT NULL,
	`trajectory_a` integer NOT NULL,
	`trajectory_b` integer NOT NULL,
	`side_seed` integer NOT NULL,
	`answer_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`campaign_id`) REFERENCES `annotation_campaigns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`trajectory_a`) REFERENCES `trajectories`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`trajectory_b`) REFERENCES `trajectories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pairwise_items_campaign_pair_uq` ON `pairwise_items` (`campaign_id`,`trajectory_a`,`trajectory_b`);--> statement-breakpoint
CREATE UNIQUE INDEX `pairwise_items_campaign_item_no_uq` ON `pairwise_items` (`campaign_id`,`item_no`);--> statement-breakpoint
CREATE INDEX `pairwise_items_queue_idx` ON `pairwise_items` (`campaign_id`,`answer_count`);--> statement-breakpoint
ALTER TABLE `annotation_campaigns` ADD `kind` text DEFAULT 'label' NOT NULL;
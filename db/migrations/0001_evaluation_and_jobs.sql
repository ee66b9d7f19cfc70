CREATE TABLE `jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`type` text NOT NULL,
	`group_key` text,
	`dedupe_key` text,
	`payload` text NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`priority` integer DEFAULT 0 NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`max_attempts` integer DEFAULT 3 NOT NULL,
	`run_after` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`lease_owner` text,
	`lease_expires_at` integer,
	`cancel_requested` integer DEFAULT false NOT NULL,
	`error` text,
	`progress` text,
	`result` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`started_at` integer,
	`finished_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_dedupe_key_unique` ON `jobs` (`dedupe_key`);--> statement-breakpoint
CREATE INDEX `jobs_claim_idx` ON `jobs` (`status`,`priority`,`run_after`);--> statement-breakpoint
CREATE INDEX `jobs_group_status_idx` ON `jobs` (`group_key`,`status`);--> statement-breakpoint
CREATE INDEX `jobs_lease_idx` ON `jobs` (`status`,`lease_expires_at`);--> statement-breakpoint
CREATE TABLE `evaluator_verdicts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`trajectory_id` integer NOT NULL,
	`kind` text NOT NULL,
	`origin` text NOT NULL,
	`evaluator_key` text NOT NULL,
	`evaluator_name` text NOT NULL,
	`judge_config_id` integer,
	`batch_id` integer,
	`k` text DEFAULT '' NOT NULL,
	`prompt_version` text DEFAULT '' NOT NULL,
	`step_indices` text,
	`verdict` text NOT NULL,
	`score` real,
	`rationale` text,
	`raw_reply` text,
	`details` text,
	`model` text,
	`input_tokens` integer,
	`output_tokens` integer,
	`latency_ms` integer,
	`cost_usd` real,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`trajectory_id`) REFERENCES `trajectories`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`judge_config_id`) REFERENCES `judge_configs`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`batch_id`) REFERENCES `judge_batches`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `evaluator_verdicts_identity_uq` ON `evaluator_verdicts` (`trajectory_id`,`evaluator_key`,`k`,`prompt_version`);--> statement-breakpoint
CREATE INDEX `evaluator_verdicts_evaluator_idx` ON `evaluator_verdicts` (`evaluator_key`,`k`);--> statement-breakpoint
CREATE INDEX `evaluator_verdicts_batch_idx` ON `evaluator_verdicts` (`batch_id`);--> statement-breakpoint
CREATE TABLE `judge_batches` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`judge_config_id` integer NOT NULL,
	`selection_label` text,
	`trajectory_ids` text NOT NULL,
	`k_values` text NOT NULL,
	`concurrency` integer NOT NULL,
	`force` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`total_pairs` integer DEFAULT 0 NOT NULL,
	`skipped_existing` integer DEFAULT 0 NOT NULL,
	`estimated_calls` integer DEFAULT 0 NOT NULL,
	`estimated_cost_usd` real,
	`succeeded` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`cancelled` integer DEFAULT 0 NOT NULL,
	`error` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	FOREIGN KEY (`judge_config_id`) REFERENCES `judge_configs`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE INDEX `judge_batches_config_idx` ON `judge_batches` (`judge_config_id`);--> statement-breakpoint
CREATE TABLE `judge_config_secrets` (
	`config_id` integer PRIMARY KEY NOT NULL,
	`api_key` text NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`config_id`) REFERENCES `judge_configs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `judge_configs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`base_url` text,
	`model` text NOT NULL,
	`api_key_env` text,
	`temperature` real DEFAULT 0 NOT NULL,
	`seed` integer,
	`max_output_tokens` integer DEFAULT 1024 NOT NULL,
	`timeout_ms` integer DEFAULT 120000 NOT NULL,
	`max_retries` integer DEFAULT 5 NOT NULL,
	`prompt_version` text NOT NULL,
	`options` text NOT NULL,
	`price_input_per_mtok` real,
	`price_output_per_mtok` real,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `judge_configs_name_unique` ON `judge_configs` (`name`);
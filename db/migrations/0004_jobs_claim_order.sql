DROP INDEX `jobs_claim_idx`;--> statement-breakpoint
DROP INDEX `jobs_group_status_idx`;--> statement-breakpoint
CREATE INDEX `jobs_claim_order_idx` ON `jobs` (`status`,"priority" desc,`id`);--> statement-breakpoint
CREATE INDEX `jobs_group_claim_order_idx` ON `jobs` (`group_key`,`status`,"priority" desc,`id`);
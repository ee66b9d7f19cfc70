ALTER TABLE `trajectories` ADD `identity_hash` text;--> statement-breakpoint
CREATE INDEX `trajectories_identity_idx` ON `trajectories` (`identity_hash`);--> statement-breakpoint
CREATE INDEX `trajectories_content_idx` ON `trajectories` (`content_hash`);
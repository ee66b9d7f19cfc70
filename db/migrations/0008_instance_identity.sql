CREATE TABLE `instance_info` (
	`id` text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
-- A random identity for this database (bundles exported from it carry it).
INSERT INTO `instance_info` (`id`) VALUES (lower(hex(randomblob(16))));

CREATE TABLE `verdict_citations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`verdict_id` integer NOT NULL,
	`position` integer NOT NULL,
	`step_number` integer,
	`step_index` integer,
	`box` text,
	`note` text,
	`problem` text,
	FOREIGN KEY (`verdict_id`) REFERENCES `evaluator_verdicts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `verdict_citations_position_uq` ON `verdict_citations` (`verdict_id`,`position`);--> statement-breakpoint
CREATE TABLE `verdict_criteria` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`verdict_id` integer NOT NULL,
	`position` integer NOT NULL,
	`kind` text NOT NULL,
	`text` text NOT NULL,
	`result` text NOT NULL,
	FOREIGN KEY (`verdict_id`) REFERENCES `evaluator_verdicts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `verdict_criteria_position_uq` ON `verdict_criteria` (`verdict_id`,`position`);
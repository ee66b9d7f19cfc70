CREATE TABLE `search_entries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`trajectory_id` integer NOT NULL,
	`step_id` integer,
	`step_index` integer,
	`field` text NOT NULL,
	`source_id` integer,
	`owner` text,
	`body` text NOT NULL,
	FOREIGN KEY (`trajectory_id`) REFERENCES `trajectories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `search_entries_trajectory_idx` ON `search_entries` (`trajectory_id`,`step_index`);--> statement-breakpoint
CREATE INDEX `search_entries_step_idx` ON `search_entries` (`step_id`);--> statement-breakpoint
CREATE INDEX `search_entries_source_idx` ON `search_entries` (`source_id`,`field`);
--> statement-breakpoint
-- Behaviour search (db/schema/search.ts): the full-text index over search_entries, an FTS5 table kept in step by
-- triggers, and the triggers that keep search_entries itself in step with the text's own tables.
CREATE VIRTUAL TABLE `search_fts` USING fts5(`body`, content='search_entries', content_rowid='id', tokenize='unicode61 remove_diacritics 0');
--> statement-breakpoint
CREATE TRIGGER `search_fts_insert` AFTER INSERT ON `search_entries` BEGIN INSERT INTO `search_fts` (rowid, `body`) VALUES (new.`id`, new.`body`); END;
--> statement-breakpoint
CREATE TRIGGER `search_fts_delete` AFTER DELETE ON `search_entries` BEGIN INSERT INTO `search_fts` (`search_fts`, rowid, `body`) VALUES ('delete', old.`id`, old.`body`); END;
--> statement-breakpoint
CREATE TRIGGER `search_fts_update` AFTER UPDATE ON `search_entries` BEGIN INSERT INTO `search_fts` (`search_fts`, rowid, `body`) VALUES ('delete', old.`id`, old.`body`); INSERT INTO `search_fts` (rowid, `body`) VALUES (new.`id`, new.`body`); END;
--> statement-breakpoint
CREATE TRIGGER `steps_search_insert` AFTER INSERT ON `steps` BEGIN
  INSERT INTO `search_entries` (`trajectory_id`, `step_id`, `step_index`, `field`, `body`)
  SELECT new.`trajectory_id`, new.`id`, new.`idx`, f, substr(b, 1, 20000) FROM (
    SELECT 'thought' AS f, new.`thought` AS b
    UNION ALL SELECT 'action', coalesce(nullif(trim(new.`action_raw`), ''), CASE WHEN json_valid(new.`action`) THEN json_extract(new.`action`, '$.type') END)
    UNION ALL SELECT 'url', new.`url`
    UNION ALL SELECT 'error', new.`error`
    UNION ALL SELECT 'element', (SELECT group_concat(json_extract(e.value, '$.text'), ' ') FROM json_each(coalesce(CASE WHEN json_valid(new.`elements`) THEN CASE WHEN json_type(new.`elements`) = 'array' THEN new.`elements` END END, '[]')) e WHERE e.type = 'object')
  ) WHERE b IS NOT NULL AND trim(b) <> '';
END;
--> statement-breakpoint
CREATE TRIGGER `steps_search_delete` AFTER DELETE ON `steps` BEGIN DELETE FROM `search_entries` WHERE `step_id` = old.`id`; END;
--> statement-breakpoint
CREATE TRIGGER `steps_search_update` AFTER UPDATE OF `trajectory_id`, `idx`, `url`, `thought`, `action_raw`, `action`, `elements`, `error` ON `steps` BEGIN
  DELETE FROM `search_entries` WHERE `step_id` = old.`id`;
  INSERT INTO `search_entries` (`trajectory_id`, `step_id`, `step_index`, `field`, `body`)
  SELECT new.`trajectory_id`, new.`id`, new.`idx`, f, substr(b, 1, 20000) FROM (
    SELECT 'thought' AS f, new.`thought` AS b
    UNION ALL SELECT 'action', coalesce(nullif(trim(new.`action_raw`), ''), CASE WHEN json_valid(new.`action`) THEN json_extract(new.`action`, '$.type') END)
    UNION ALL SELECT 'url', new.`url`
    UNION ALL SELECT 'error', new.`error`
    UNION ALL SELECT 'element', (SELECT group_concat(json_extract(e.value, '$.text'), ' ') FROM json_each(coalesce(CASE WHEN json_valid(new.`elements`) THEN CASE WHEN json_type(new.`elements`) = 'array' THEN new.`elements` END END, '[]')) e WHERE e.type = 'object')
  ) WHERE b IS NOT NULL AND trim(b) <> '';
END;
--> statement-breakpoint
CREATE TRIGGER `trajectories_search_insert` AFTER INSERT ON `trajectories` BEGIN
  INSERT INTO `search_entries` (`trajectory_id`, `field`, `body`)
  SELECT new.`id`, f, substr(b, 1, 20000) FROM (
    SELECT 'intent' AS f, (SELECT `intent` FROM `tasks` WHERE `id` = new.`task_id`) AS b
    UNION ALL SELECT 'answer', new.`final_answer`
    UNION ALL SELECT 'error', new.`outcome_detail`
  ) WHERE b IS NOT NULL AND trim(b) <> '';
END;
--> statement-breakpoint
CREATE TRIGGER `trajectories_search_update` AFTER UPDATE OF `task_id`, `final_answer`, `outcome_detail` ON `trajectories` BEGIN
  DELETE FROM `search_entries` WHERE `trajectory_id` = old.`id` AND `step_id` IS NULL AND `field` IN ('intent', 'answer', 'error');
  INSERT INTO `search_entries` (`trajectory_id`, `field`, `body`)
  SELECT new.`id`, f, substr(b, 1, 20000) FROM (
    SELECT 'intent' AS f, (SELECT `intent` FROM `tasks` WHERE `id` = new.`task_id`) AS b
    UNION ALL SELECT 'answer', new.`final_answer`
    UNION ALL SELECT 'error', new.`outcome_detail`
  ) WHERE b IS NOT NULL AND trim(b) <> '';
END;
--> statement-breakpoint
CREATE TRIGGER `tasks_search_update` AFTER UPDATE OF `intent` ON `tasks` BEGIN UPDATE `search_entries` SET `body` = substr(new.`intent`, 1, 20000) WHERE `field` = 'intent' AND `trajectory_id` IN (SELECT `id` FROM `trajectories` WHERE `task_id` = new.`id`); END;
--> statement-breakpoint
CREATE TRIGGER `labels_search_insert` AFTER INSERT ON `labels` BEGIN
  INSERT INTO `search_entries` (`trajectory_id`, `field`, `source_id`, `owner`, `body`)
  SELECT new.`trajectory_id`, 'note', new.`id`, new.`annotator_key`, substr(new.`note`, 1, 20000) WHERE new.`note` IS NOT NULL AND trim(new.`note`) <> '';
END;
--> statement-breakpoint
CREATE TRIGGER `labels_search_delete` AFTER DELETE ON `labels` BEGIN DELETE FROM `search_entries` WHERE `source_id` = old.`id` AND `field` = 'note'; END;
--> statement-breakpoint
CREATE TRIGGER `labels_search_update` AFTER UPDATE OF `note`, `trajectory_id`, `annotator_key` ON `labels` BEGIN
  DELETE FROM `search_entries` WHERE `source_id` = old.`id` AND `field` = 'note';
  INSERT INTO `search_entries` (`trajectory_id`, `field`, `source_id`, `owner`, `body`)
  SELECT new.`trajectory_id`, 'note', new.`id`, new.`annotator_key`, substr(new.`note`, 1, 20000) WHERE new.`note` IS NOT NULL AND trim(new.`note`) <> '';
END;
--> statement-breakpoint
CREATE TRIGGER `evaluator_verdicts_search_insert` AFTER INSERT ON `evaluator_verdicts` BEGIN
  INSERT INTO `search_entries` (`trajectory_id`, `field`, `source_id`, `owner`, `body`)
  SELECT new.`trajectory_id`, 'rationale', new.`id`, new.`evaluator_key`, substr(new.`rationale`, 1, 20000) WHERE new.`rationale` IS NOT NULL AND trim(new.`rationale`) <> '';
END;
--> statement-breakpoint
CREATE TRIGGER `evaluator_verdicts_search_delete` AFTER DELETE ON `evaluator_verdicts` BEGIN DELETE FROM `search_entries` WHERE `source_id` = old.`id` AND `field` = 'rationale'; END;
--> statement-breakpoint
CREATE TRIGGER `evaluator_verdicts_search_update` AFTER UPDATE OF `rationale`, `trajectory_id`, `evaluator_key` ON `evaluator_verdicts` BEGIN
  DELETE FROM `search_entries` WHERE `source_id` = old.`id` AND `field` = 'rationale';
  INSERT INTO `search_entries` (`trajectory_id`, `field`, `source_id`, `owner`, `body`)
  SELECT new.`trajectory_id`, 'rationale', new.`id`, new.`evaluator_key`, substr(new.`rationale`, 1, 20000) WHERE new.`rationale` IS NOT NULL AND trim(new.`rationale`) <> '';
END;
--> statement-breakpoint
-- What was stored before: the same entries the triggers would have written.
INSERT INTO `search_entries` (`trajectory_id`, `step_id`, `step_index`, `field`, `body`)
  SELECT `trajectory_id`, `id`, `idx`, f, substr(b, 1, 20000) FROM (
    SELECT `trajectory_id`, `id`, `idx`, 'thought' AS f, `thought` AS b FROM `steps`
    UNION ALL SELECT `trajectory_id`, `id`, `idx`, 'action', coalesce(nullif(trim(`action_raw`), ''), CASE WHEN json_valid(`action`) THEN json_extract(`action`, '$.type') END) FROM `steps`
    UNION ALL SELECT `trajectory_id`, `id`, `idx`, 'url', `url` FROM `steps`
    UNION ALL SELECT `trajectory_id`, `id`, `idx`, 'error', `error` FROM `steps`
    UNION ALL SELECT s.`trajectory_id`, s.`id`, s.`idx`, 'element', (SELECT group_concat(json_extract(e.value, '$.text'), ' ') FROM json_each(coalesce(CASE WHEN json_valid(s.`elements`) THEN CASE WHEN json_type(s.`elements`) = 'array' THEN s.`elements` END END, '[]')) e WHERE e.type = 'object') FROM `steps` s
  ) WHERE b IS NOT NULL AND trim(b) <> '';
--> statement-breakpoint
INSERT INTO `search_entries` (`trajectory_id`, `field`, `body`)
  SELECT id, f, substr(b, 1, 20000) FROM (
    SELECT t.`id` AS id, 'intent' AS f, k.`intent` AS b FROM `trajectories` t JOIN `tasks` k ON k.`id` = t.`task_id`
    UNION ALL SELECT `id`, 'answer', `final_answer` FROM `trajectories`
    UNION ALL SELECT `id`, 'error', `outcome_detail` FROM `trajectories`
  ) WHERE b IS NOT NULL AND trim(b) <> '';
--> statement-breakpoint
INSERT INTO `search_entries` (`trajectory_id`, `field`, `source_id`, `owner`, `body`)
  SELECT `trajectory_id`, 'note', `id`, `annotator_key`, substr(`note`, 1, 20000) FROM `labels` WHERE `note` IS NOT NULL AND trim(`note`) <> '';
--> statement-breakpoint
INSERT INTO `search_entries` (`trajectory_id`, `field`, `source_id`, `owner`, `body`)
  SELECT `trajectory_id`, 'rationale', `id`, `evaluator_key`, substr(`rationale`, 1, 20000) FROM `evaluator_verdicts` WHERE `rationale` IS NOT NULL AND trim(`rationale`) <> '';
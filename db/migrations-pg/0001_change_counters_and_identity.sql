-- Per-table change counters for the analytics cache (db/schema/changes.ts), as on SQLite (migration 0007 there):
-- one row per counted table, bumped once per inserted or deleted row and per updated row when the UPDATE sets a
-- column analytics read. Row-level triggers, like SQLite's, so the counters move by the same steps on both dialects.
INSERT INTO "change_counters" ("name", "version") VALUES ('tasks', 0), ('trajectories', 0), ('evaluator_verdicts', 0), ('labels', 0), ('consolidated_labels', 0);
--> statement-breakpoint
CREATE FUNCTION "verdict_bump_change_counter"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "change_counters" SET "version" = "version" + 1 WHERE "name" = TG_TABLE_NAME;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "tasks_count_insert" AFTER INSERT ON "tasks" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_change_counter"();
--> statement-breakpoint
CREATE TRIGGER "tasks_count_delete" AFTER DELETE ON "tasks" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_change_counter"();
--> statement-breakpoint
CREATE TRIGGER "tasks_count_update" AFTER UPDATE OF "site", "task_set_id", "difficulty" ON "tasks" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_change_counter"();
--> statement-breakpoint
CREATE TRIGGER "trajectories_count_insert" AFTER INSERT ON "trajectories" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_change_counter"();
--> statement-breakpoint
CREATE TRIGGER "trajectories_count_delete" AFTER DELETE ON "trajectories" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_change_counter"();
--> statement-breakpoint
CREATE TRIGGER "trajectories_count_update" AFTER UPDATE OF "run_id", "task_id", "step_count" ON "trajectories" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_change_counter"();
--> statement-breakpoint
CREATE TRIGGER "evaluator_verdicts_count_insert" AFTER INSERT ON "evaluator_verdicts" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_change_counter"();
--> statement-breakpoint
CREATE TRIGGER "evaluator_verdicts_count_delete" AFTER DELETE ON "evaluator_verdicts" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_change_counter"();
--> statement-breakpoint
CREATE TRIGGER "evaluator_verdicts_count_update" AFTER UPDATE OF "trajectory_id", "evaluator_key", "k", "prompt_version", "verdict" ON "evaluator_verdicts" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_change_counter"();
--> statement-breakpoint
CREATE TRIGGER "labels_count_insert" AFTER INSERT ON "labels" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_change_counter"();
--> statement-breakpoint
CREATE TRIGGER "labels_count_delete" AFTER DELETE ON "labels" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_change_counter"();
--> statement-breakpoint
CREATE TRIGGER "labels_count_update" AFTER UPDATE OF "campaign_id", "status", "annotator_key", "verdict", "category", "item_id", "trajectory_id", "first_failing_step" ON "labels" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_change_counter"();
--> statement-breakpoint
CREATE TRIGGER "consolidated_labels_count_insert" AFTER INSERT ON "consolidated_labels" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_change_counter"();
--> statement-breakpoint
CREATE TRIGGER "consolidated_labels_count_delete" AFTER DELETE ON "consolidated_labels" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_change_counter"();
--> statement-breakpoint
CREATE TRIGGER "consolidated_labels_count_update" AFTER UPDATE OF "campaign_id", "verdict", "category", "trajectory_id", "first_failing_step" ON "consolidated_labels" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_change_counter"();
--> statement-breakpoint
-- A random identity for this database (db/schema/instance.ts), 32 hex digits like SQLite's hex(randomblob(16)).
INSERT INTO "instance_info" ("id") VALUES (replace(gen_random_uuid()::text, '-', ''));

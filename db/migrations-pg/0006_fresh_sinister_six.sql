ALTER TABLE "evaluator_verdicts" ADD COLUMN "change_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "evaluator_verdicts_change_idx" ON "evaluator_verdicts" USING btree ("change_version");--> statement-breakpoint
-- Verdict rows carry the change counter their write left (analytics read only the rows newer than their copy); a
-- second counter moves when a verdict row goes away or changes identity, which a copy cannot patch in. As on SQLite.
INSERT INTO "change_counters" ("name", "version") VALUES ('evaluator_verdicts_removed', 0);
--> statement-breakpoint
CREATE FUNCTION "verdict_stamp_evaluator_verdict"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  stamped bigint;
BEGIN
  UPDATE "change_counters" SET "version" = "version" + 1 WHERE "name" = 'evaluator_verdicts' RETURNING "version" INTO stamped;
  -- No counter row while a copy from another installation refills the counters (migrate-store): the copied stamp stays.
  IF stamped IS NOT NULL THEN
    UPDATE "evaluator_verdicts" SET "change_version" = stamped WHERE "id" = NEW."id";
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION "verdict_bump_verdict_removals"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A deleted row also counts as a write; a changed identity already counted through the update trigger.
  IF TG_OP = 'DELETE' THEN
    UPDATE "change_counters" SET "version" = "version" + 1 WHERE "name" IN ('evaluator_verdicts', 'evaluator_verdicts_removed');
  ELSE
    UPDATE "change_counters" SET "version" = "version" + 1 WHERE "name" = 'evaluator_verdicts_removed';
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "evaluator_verdicts_count_insert" ON "evaluator_verdicts";
--> statement-breakpoint
CREATE TRIGGER "evaluator_verdicts_count_insert" AFTER INSERT ON "evaluator_verdicts" FOR EACH ROW EXECUTE FUNCTION "verdict_stamp_evaluator_verdict"();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "evaluator_verdicts_count_update" ON "evaluator_verdicts";
--> statement-breakpoint
CREATE TRIGGER "evaluator_verdicts_count_update" AFTER UPDATE OF "trajectory_id", "evaluator_key", "k", "prompt_version", "verdict", "sample_count", "sample_successes", "sample_failures", "first_failing_step" ON "evaluator_verdicts" FOR EACH ROW EXECUTE FUNCTION "verdict_stamp_evaluator_verdict"();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "evaluator_verdicts_count_delete" ON "evaluator_verdicts";
--> statement-breakpoint
CREATE TRIGGER "evaluator_verdicts_count_delete" AFTER DELETE ON "evaluator_verdicts" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_verdict_removals"();
--> statement-breakpoint
CREATE TRIGGER "evaluator_verdicts_count_identity" AFTER UPDATE OF "trajectory_id", "evaluator_key", "k", "prompt_version" ON "evaluator_verdicts" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_verdict_removals"();

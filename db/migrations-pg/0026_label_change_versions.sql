ALTER TABLE "labels" ADD COLUMN "change_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "labels_change_idx" ON "labels" USING btree ("change_version");--> statement-breakpoint
-- Label rows carry the change counter their write left, as verdict rows do (0006); a second counter moves when a
-- label row goes away or changes identity (campaign, item, annotator), which a copy cannot patch in. As on SQLite.
INSERT INTO "change_counters" ("name", "version") VALUES ('labels_removed', 0);
--> statement-breakpoint
CREATE FUNCTION "verdict_stamp_label"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  stamped bigint;
BEGIN
  UPDATE "change_counters" SET "version" = "version" + 1 WHERE "name" = 'labels' RETURNING "version" INTO stamped;
  -- No counter row while a copy from another installation refills the counters (migrate-store): the copied stamp stays.
  IF stamped IS NOT NULL THEN
    UPDATE "labels" SET "change_version" = stamped WHERE "id" = NEW."id";
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION "verdict_bump_label_removals"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A deleted row also counts as a write; a changed identity already counted through the update trigger.
  IF TG_OP = 'DELETE' THEN
    UPDATE "change_counters" SET "version" = "version" + 1 WHERE "name" IN ('labels', 'labels_removed');
  ELSE
    UPDATE "change_counters" SET "version" = "version" + 1 WHERE "name" = 'labels_removed';
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "labels_count_insert" ON "labels";
--> statement-breakpoint
CREATE TRIGGER "labels_count_insert" AFTER INSERT ON "labels" FOR EACH ROW EXECUTE FUNCTION "verdict_stamp_label"();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "labels_count_update" ON "labels";
--> statement-breakpoint
CREATE TRIGGER "labels_count_update" AFTER UPDATE OF "campaign_id", "status", "annotator_key", "verdict", "category", "item_id", "trajectory_id", "first_failing_step" ON "labels" FOR EACH ROW EXECUTE FUNCTION "verdict_stamp_label"();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "labels_count_delete" ON "labels";
--> statement-breakpoint
CREATE TRIGGER "labels_count_delete" AFTER DELETE ON "labels" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_label_removals"();
--> statement-breakpoint
CREATE TRIGGER "labels_count_identity" AFTER UPDATE OF "campaign_id", "item_id", "annotator_key" ON "labels" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_label_removals"();

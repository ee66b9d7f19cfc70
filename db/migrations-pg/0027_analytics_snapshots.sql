CREATE TABLE "analytics_snapshots" (
	"key" text PRIMARY KEY NOT NULL,
	"format" text NOT NULL,
	"stamp" text NOT NULL,
	"versions" text NOT NULL,
	"value" "bytea" NOT NULL,
	"written_at" bigint NOT NULL
);
--> statement-breakpoint
-- Stored as it is: the bytes are packed integers that compress little, and decompressing them on every cold read costs CPU.
ALTER TABLE "analytics_snapshots" ALTER COLUMN "value" SET STORAGE EXTERNAL;
--> statement-breakpoint
-- A trajectory's outcome counts as a change of the trajectories, as on SQLite (migration 0040).
DROP TRIGGER IF EXISTS "trajectories_count_update" ON "trajectories";
--> statement-breakpoint
CREATE TRIGGER "trajectories_count_update" AFTER UPDATE OF "run_id", "task_id", "step_count", "outcome" ON "trajectories" FOR EACH ROW EXECUTE FUNCTION "verdict_bump_change_counter"();

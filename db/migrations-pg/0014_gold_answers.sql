ALTER TABLE "gold_items" ADD COLUMN "first_failing_step" integer;--> statement-breakpoint
ALTER TABLE "gold_items" ADD COLUMN "answers" json;
ALTER TABLE "annotation_campaigns" ADD COLUMN "qualification_pass_at" double precision;--> statement-breakpoint
ALTER TABLE "gold_items" ADD COLUMN "qualification" boolean DEFAULT false NOT NULL;
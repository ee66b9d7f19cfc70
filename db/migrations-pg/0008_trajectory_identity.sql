ALTER TABLE "trajectories" ADD COLUMN "identity_hash" text;--> statement-breakpoint
CREATE INDEX "trajectories_identity_idx" ON "trajectories" USING btree ("identity_hash");--> statement-breakpoint
CREATE INDEX "trajectories_content_idx" ON "trajectories" USING btree ("content_hash");
CREATE TABLE "task_input_images" (
	"task_id" integer NOT NULL,
	"source" text NOT NULL,
	"image_hash" text NOT NULL,
	"mime" text NOT NULL,
	"bytes" integer NOT NULL,
	"created_at" bigint DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint NOT NULL,
	CONSTRAINT "task_input_images_task_id_source_pk" PRIMARY KEY("task_id","source")
);
--> statement-breakpoint
ALTER TABLE "task_input_images" ADD CONSTRAINT "task_input_images_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;
CREATE TABLE "analytics_memos" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"memo_key" text NOT NULL,
	"value" text NOT NULL,
	"written_at" bigint NOT NULL
);

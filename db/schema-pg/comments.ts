/** Comment threads and their mentions on PostgreSQL. Mirrors db/schema/comments.ts, which documents them. */
import { boolean, index, integer, pgTable, primaryKey, text, type AnyPgColumn } from "drizzle-orm/pg-core";
import { users } from "./auth";
import { cascadeId, cascadeKey, epochMs, nowMs } from "./columns";
import { trajectories } from "./core";

export const comments = pgTable(
  "comments",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    stepIndex: integer("step_index"),
    parentId: integer("parent_id").references((): AnyPgColumn => comments.id, { onDelete: "cascade" }),
    authorId: text("author_id").references(() => users.id, { onDelete: "set null" }),
    authorName: text("author_name").notNull(),
    body: text("body").notNull(),
    sighted: boolean("sighted").notNull(),
    forBlind: boolean("for_blind").notNull().default(false),
    resolvedAt: epochMs("resolved_at"),
    resolvedBy: text("resolved_by"),
    createdAt: epochMs("created_at").notNull().default(nowMs),
  },
  (t) => [index("comments_trajectory_idx").on(t.trajectoryId, t.stepIndex), index("comments_parent_idx").on(t.parentId)],
);

export const commentMentions = pgTable(
  "comment_mentions",
  {
    commentId: cascadeId("comment_id", () => comments.id),
    userId: cascadeKey("user_id", () => users.id),
    readAt: epochMs("read_at"),
  },
  (t) => [primaryKey({ columns: [t.commentId, t.userId] }), index("comment_mentions_user_idx").on(t.userId, t.readAt)],
);

/**
 * Comment threads on a trajectory or one of its steps: a root comment opens a thread, replies hang off the root
 * (one level), a thread is resolved and reopened as a whole, and every @mention of a user is a row they see in
 * their inbox until they mark it read. Who sees which comment is decided in server/services/comments (the blind):
 * `sighted` records whether the author could see the trajectory's evaluations when writing, and `forBlind` whether
 * a researcher stated that it quotes no evaluation and may be shown to annotators who still label it blind.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, type AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { users } from "./auth";
import { trajectories } from "./core";
import { cascadeId, cascadeKey } from "./columns";

const nowMs = sql`(unixepoch('subsec') * 1000)`;

export const comments = sqliteTable(
  "comments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    trajectoryId: cascadeId("trajectory_id", () => trajectories.id),
    /** The step (0-based) the thread is about; null for the trajectory as a whole. Replies copy their root's. */
    stepIndex: integer("step_index"),
    /** The thread's first comment; null for that first comment itself. */
    parentId: integer("parent_id").references((): AnySQLiteColumn => comments.id, { onDelete: "cascade" }),
    authorId: text("author_id").references(() => users.id, { onDelete: "set null" }),
    authorName: text("author_name").notNull(),
    /** Markdown as written; rendered as text with a small safe subset, never as HTML. */
    body: text("body").notNull(),
    sighted: integer("sighted", { mode: "boolean" }).notNull(),
    forBlind: integer("for_blind", { mode: "boolean" }).notNull().default(false),
    /** Set on a thread's root when it is resolved; cleared when it is reopened. */
    resolvedAt: integer("resolved_at", { mode: "timestamp_ms" }),
    resolvedBy: text("resolved_by"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull().default(nowMs),
  },
  (t) => [index("comments_trajectory_idx").on(t.trajectoryId, t.stepIndex), index("comments_parent_idx").on(t.parentId)],
);

export const commentMentions = sqliteTable(
  "comment_mentions",
  {
    commentId: cascadeId("comment_id", () => comments.id),
    userId: cascadeKey("user_id", () => users.id),
    readAt: integer("read_at", { mode: "timestamp_ms" }),
  },
  (t) => [primaryKey({ columns: [t.commentId, t.userId] }), index("comment_mentions_user_idx").on(t.userId, t.readAt)],
);

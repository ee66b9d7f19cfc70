/**
 * Comment threads on a trajectory or one of its steps: a root comment opens a thread, replies hang off the root
 * (one level), a thread is resolved and reopened as a whole, and every @mention of a user is a row they see in
 * their inbox until they mark it read. Who sees which comment is decided in server/services/comments (the blind):
 * `sighted` records whether the author could see the trajectory's evaluations when writing, and `forBlind` whether
 * a researcher stated that it quotes no evaluation and may be shown to annotators who still label it blind.
 */
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { users } from "./auth";
import { trajectories } from "./core";
import { sqliteKit, type SchemaKit, type TableRefs } from "./columns";

/** The tables this module's tables reference, of the dialect being declared. */
export type CommentRefs = TableRefs<"users" | "trajectories">;

/** The comment tables, declared once for both dialects (db/schema/columns.ts). */
export function commentTables(k: SchemaKit, { users, trajectories }: CommentRefs) {
  const comments = k.table(
    "comments",
    {
      id: k.id(),
      trajectoryId: k.cascadeId("trajectory_id", () => trajectories.id),
      /** The step (0-based) the thread is about; null for the trajectory as a whole. Replies copy their root's. */
      stepIndex: k.integer("step_index"),
      /** The thread's first comment; null for that first comment itself. */
      parentId: k.integer("parent_id").references((): AnySQLiteColumn => comments.id, { onDelete: "cascade" }),
      authorId: k.text("author_id").references(() => users.id, { onDelete: "set null" }),
      authorName: k.text("author_name").notNull(),
      /** Markdown as written; rendered as text with a small safe subset, never as HTML. */
      body: k.text("body").notNull(),
      sighted: k.flag("sighted").notNull(),
      forBlind: k.flag("for_blind").notNull().default(false),
      /** Set on a thread's root when it is resolved; cleared when it is reopened. */
      resolvedAt: k.time("resolved_at"),
      resolvedBy: k.text("resolved_by"),
      createdAt: k.stamp("created_at"),
    },
    (t) => [k.index("comments_trajectory_idx").on(t.trajectoryId, t.stepIndex), k.index("comments_parent_idx").on(t.parentId)],
  );

  const commentMentions = k.table(
    "comment_mentions",
    {
      commentId: k.cascadeId("comment_id", () => comments.id),
      userId: k.cascadeKey("user_id", () => users.id),
      readAt: k.time("read_at"),
    },
    (t) => [k.primaryKey({ columns: [t.commentId, t.userId] }), k.index("comment_mentions_user_idx").on(t.userId, t.readAt)],
  );
  return { comments, commentMentions };
}

export const { comments, commentMentions } = commentTables(sqliteKit, { users, trajectories });

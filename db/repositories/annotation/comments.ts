/** Comment threads and mentions: the queries server/services/annotation/comments.ts runs. */
import { and, asc, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { first, rawAll, tablesOf, type Db } from "../../database";

export interface CommentRow {
  id: number;
  trajectoryId: number;
  stepIndex: number | null;
  parentId: number | null;
  authorId: string | null;
  authorName: string;
  body: string;
  sighted: boolean;
  forBlind: boolean;
  resolvedAt: Date | null;
  resolvedBy: string | null;
  createdAt: Date;
}

export async function insertComment(db: Db, values: Omit<CommentRow, "id" | "resolvedAt" | "resolvedBy" | "createdAt">, mentioned: string[]): Promise<number> {
  const { comments, commentMentions } = tablesOf(db);
  const [row] = await db.insert(comments).values(values).returning({ id: comments.id });
  if (mentioned.length) await db.insert(commentMentions).values(mentioned.map((userId) => ({ commentId: row!.id, userId })));
  return row!.id;
}

export async function commentById(db: Db, id: number): Promise<CommentRow | undefined> {
  const { comments } = tablesOf(db);
  return first(db.select().from(comments).where(eq(comments.id, id)).limit(1));
}

/** Every comment on a trajectory (roots and replies), oldest first. */
export async function commentsOfTrajectory(db: Db, trajectoryId: number): Promise<CommentRow[]> {
  const { comments } = tablesOf(db);
  return db.select().from(comments).where(eq(comments.trajectoryId, trajectoryId)).orderBy(asc(comments.createdAt), asc(comments.id));
}

export async function setThreadResolved(db: Db, rootId: number, resolved: { at: Date; by: string } | null): Promise<void> {
  const { comments } = tablesOf(db);
  await db
    .update(comments)
    .set({ resolvedAt: resolved?.at ?? null, resolvedBy: resolved?.by ?? null })
    .where(eq(comments.id, rootId));
}

/** Who mentioned users are, per comment. */
export async function mentionsOf(db: Db, commentIds: number[]): Promise<{ commentId: number; userId: string; name: string; email: string }[]> {
  if (!commentIds.length) return [];
  const { commentMentions, users } = tablesOf(db);
  return db
    .select({ commentId: commentMentions.commentId, userId: commentMentions.userId, name: users.name, email: users.email })
    .from(commentMentions)
    .innerJoin(users, eq(users.id, commentMentions.userId))
    .where(inArray(commentMentions.commentId, commentIds));
}

/** A user's mentions, unread first then newest, with the comment and its thread's root. */
export async function mentionsOfUser(db: Db, userId: string, limit: number) {
  const { commentMentions, comments, trajectories } = tablesOf(db);
  return db
    .select({ readAt: commentMentions.readAt, comment: comments, contentHash: trajectories.contentHash })
    .from(commentMentions)
    .innerJoin(comments, eq(comments.id, commentMentions.commentId))
    .innerJoin(trajectories, eq(trajectories.id, comments.trajectoryId))
    .where(eq(commentMentions.userId, userId))
    .orderBy(sql`case when ${commentMentions.readAt} is null then 0 else 1 end`, desc(comments.createdAt), desc(comments.id))
    .limit(limit);
}

export async function markMentionsRead(db: Db, userId: string, commentIds: number[]): Promise<void> {
  if (!commentIds.length) return;
  const { commentMentions } = tablesOf(db);
  await db
    .update(commentMentions)
    .set({ readAt: new Date() })
    .where(and(eq(commentMentions.userId, userId), inArray(commentMentions.commentId, commentIds), isNull(commentMentions.readAt)));
}

/** Users who annotate a blind campaign containing the trajectory (its blind cohort). */
export async function blindCohortOf(db: Db, trajectoryId: number): Promise<Set<string>> {
  const rows = await rawAll<{ user_id: string }>(
    db,
    sql`select distinct ca.user_id from campaign_items ci
      join annotation_campaigns c on c.id = ci.campaign_id and c.blind
      join campaign_annotators ca on ca.campaign_id = c.id
      where ci.trajectory_id = ${trajectoryId}`,
  );
  return new Set(rows.map((r) => r.user_id));
}

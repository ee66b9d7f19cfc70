/**
 * Comment threads on trajectories and their steps: write, reply, mention, resolve and reopen, and the inbox of
 * mentions. Who may reach a thread is the browsing scope (assertTrajectoryBrowsable: the same answer for a hidden
 * trajectory and one that does not exist); which comments they read is the blind for comments
 * (server/domain/annotation/comments.ts), applied to every list here, the inbox included.
 */
import type { Db } from "../../../db/database";
import { countSteps } from "../../../db/repositories/trajectories";
import { listUsers } from "../../../db/repositories/accounts/users";
import { isAgentHiddenFor, isBlindedFor, isInAnnotatorCampaigns } from "../../../db/repositories/access/blind-rule";
import {
  blindCohortOf,
  commentById,
  commentsOfTrajectory,
  insertComment,
  markMentionsRead,
  mentionsOf,
  mentionsOfUser,
  setThreadResolved,
  type CommentRow,
} from "../../../db/repositories/annotation/comments";
import { hasRole, type Actor } from "../../domain/access/actor";
import { linkKeyOf, stepLinkPath } from "../../domain/trajectories/step-links";
import {
  checkCommentBody,
  mayViewComment,
  mentionHandle,
  parseMentions,
  MAX_MENTIONS_PER_COMMENT,
  type CommentAudienceFacts,
} from "../../domain/annotation/comments";
import { AppError, ValidationError } from "../../errors";
import { assertTrajectoryBrowsable, seesWholeCatalog } from "../access";
import { itemTrajectoryId } from "./labelling";

/** The one answer for a comment someone may not see, whatever the reason (it does not exist, or is hidden). */
const NO_SUCH_COMMENT = "No such comment, or it is not visible to you";

async function audienceFacts(db: Db, viewer: Actor, trajectoryId: number): Promise<CommentAudienceFacts> {
  return { viewerId: viewer.userId, viewerBlinded: await isBlindedFor(db, viewer.userId, trajectoryId), blindCohort: await blindCohortOf(db, trajectoryId) };
}

export interface CommentView {
  id: number;
  authorName: string;
  own: boolean;
  body: string;
  createdAt: Date;
  forBlind: boolean;
  mentions: { name: string; handle: string }[];
}

export interface ThreadView extends CommentView {
  stepIndex: number | null;
  resolvedAt: Date | null;
  resolvedByName: string | null;
  replies: CommentView[];
}

/**
 * A campaign item as the labelling page addresses it: the annotator reaches its threads through their own campaign
 * (they may label a trajectory blind, so they cannot open it by id), and nothing sent back names the trajectory.
 */
export interface CommentItem {
  campaignId: number;
  itemNo: number;
}

/** The threads on a trajectory the viewer may read, oldest first, each with the replies they may read. */
export async function commentThreads(db: Db, viewer: Actor, trajectoryId: number): Promise<ThreadView[]> {
  await assertTrajectoryBrowsable(db, viewer, trajectoryId);
  return await readableThreads(db, viewer, trajectoryId);
}

/** The threads on a campaign item the annotator may read (the labelling page), under the same blind for comments. */
export async function itemCommentThreads(db: Db, viewer: Actor, item: CommentItem): Promise<ThreadView[]> {
  return await readableThreads(db, viewer, await itemTrajectoryId(db, viewer, item.campaignId, item.itemNo));
}

async function readableThreads(db: Db, viewer: Actor, trajectoryId: number): Promise<ThreadView[]> {
  const facts = await audienceFacts(db, viewer, trajectoryId);
  const visible = (await commentsOfTrajectory(db, trajectoryId)).filter((c) => mayViewComment(c, facts));
  const mentions = await mentionsOf(
    db,
    visible.map((c) => c.id),
  );
  const view = (c: CommentRow): CommentView => ({
    id: c.id,
    authorName: c.authorName,
    own: c.authorId === viewer.userId,
    body: c.body,
    createdAt: c.createdAt,
    forBlind: c.forBlind,
    mentions: mentions.filter((m) => m.commentId === c.id).map((m) => ({ name: m.name, handle: mentionHandle(m.email) })),
  });
  const names = new Map((await listUsers(db)).map((u) => [u.id, u.name]));
  const roots = visible.filter((c) => c.parentId === null);
  return roots.map((root) => ({
    ...view(root),
    stepIndex: root.stepIndex,
    resolvedAt: root.resolvedAt,
    resolvedByName: root.resolvedBy ? (names.get(root.resolvedBy) ?? "a former user") : null,
    replies: visible.filter((c) => c.parentId === root.id).map(view),
  }));
}

export interface NewComment {
  trajectoryId: number;
  /** 0-based step, or null for the trajectory as a whole (ignored for a reply, which joins its thread's step). */
  stepIndex?: number | null;
  /** The thread's first comment, to reply to it. */
  replyTo?: number;
  body: string;
  /** Researchers only: states the comment quotes no evaluation, so annotators still labelling blind may read it. */
  forBlind?: boolean;
}

export interface AddedComment {
  id: number;
  mentioned: number;
  unknownMentions: string[];
}

/** Writes a comment (a new thread, or a reply to one the writer can read) and records its mentions. */
export async function addComment(db: Db, author: Actor, input: NewComment): Promise<AddedComment> {
  await assertTrajectoryBrowsable(db, author, input.trajectoryId);
  return await writeComment(db, author, input, false);
}

/** Writes a comment on a campaign item from the labelling page (see CommentItem). */
export async function addItemComment(db: Db, author: Actor, input: Omit<NewComment, "trajectoryId"> & CommentItem): Promise<AddedComment> {
  const { campaignId, itemNo, ...rest } = input;
  return await writeComment(db, author, { ...rest, trajectoryId: await itemTrajectoryId(db, author, campaignId, itemNo) }, true);
}

/** `reached`: the caller has checked the writer may reach the trajectory (so a reply's thread need not be checked again). */
async function writeComment(db: Db, author: Actor, input: NewComment, reached: boolean): Promise<AddedComment> {
  const checked = checkCommentBody(input.body);
  if ("error" in checked) throw new ValidationError(checked.error, "body");
  if (input.forBlind && !hasRole(author, "researcher")) throw new AppError("FORBIDDEN", "Only researchers and admins can mark a comment for blind annotators");
  let stepIndex = input.stepIndex ?? null;
  let parentId: number | null = null;
  if (input.replyTo !== undefined) {
    const root = await visibleComment(db, author, input.replyTo, reached ? input.trajectoryId : undefined);
    if (root.trajectoryId !== input.trajectoryId) throw new AppError("NOT_FOUND", NO_SUCH_COMMENT);
    if (root.parentId !== null) throw new ValidationError("Reply to the thread's first comment");
    parentId = root.id;
    stepIndex = root.stepIndex;
  } else if (stepIndex !== null) {
    const steps = await countSteps(db, input.trajectoryId);
    if (!Number.isInteger(stepIndex) || stepIndex < 0 || stepIndex >= steps)
      throw new ValidationError(`Step ${stepIndex + 1} does not exist: this trajectory has ${steps} step${steps === 1 ? "" : "s"}`, "stepIndex");
  }
  const { userIds, unknown } = parseMentions(checked.body, await mentionableBy(db, author));
  if (userIds.length > MAX_MENTIONS_PER_COMMENT) throw new ValidationError(`A comment may mention at most ${MAX_MENTIONS_PER_COMMENT} people`, "body");
  const sighted = !(await isBlindedFor(db, author.userId, input.trajectoryId));
  const mentioned = userIds.filter((id) => id !== author.userId);
  const id = await insertComment(
    db,
    {
      trajectoryId: input.trajectoryId,
      stepIndex,
      parentId,
      authorId: author.userId,
      authorName: author.name,
      body: checked.body,
      sighted,
      forBlind: !!input.forBlind,
    },
    mentioned,
  );
  return { id, mentioned: mentioned.length, unknownMentions: unknown };
}

/**
 * A comment the viewer may reach and read; one answer otherwise. `reachedTrajectory`: the trajectory the viewer
 * reached another way (their campaign item); a comment elsewhere is then answered as missing.
 */
async function visibleComment(db: Db, viewer: Actor, commentId: number, reachedTrajectory?: number): Promise<CommentRow> {
  const comment = await commentById(db, commentId);
  if (!comment) throw new AppError("NOT_FOUND", NO_SUCH_COMMENT);
  if (reachedTrajectory !== undefined) {
    if (comment.trajectoryId !== reachedTrajectory) throw new AppError("NOT_FOUND", NO_SUCH_COMMENT);
  } else {
    try {
      await assertTrajectoryBrowsable(db, viewer, comment.trajectoryId);
    } catch {
      throw new AppError("NOT_FOUND", NO_SUCH_COMMENT);
    }
  }
  if (!mayViewComment(comment, await audienceFacts(db, viewer, comment.trajectoryId))) throw new AppError("NOT_FOUND", NO_SUCH_COMMENT);
  return comment;
}

/**
 * Resolves or reopens a thread; anyone who can read its first comment may. `item`: the labelling page's way to the
 * thread (the annotator's campaign item it is on).
 */
export async function setThreadState(db: Db, actor: Actor, rootId: number, resolved: boolean, item?: CommentItem): Promise<void> {
  const reached = item ? await itemTrajectoryId(db, actor, item.campaignId, item.itemNo) : undefined;
  const root = await visibleComment(db, actor, rootId, reached);
  if (root.parentId !== null) throw new ValidationError("Resolve the thread from its first comment");
  await setThreadResolved(db, root.id, resolved ? { at: new Date(), by: actor.userId } : null);
}

/** Whether the user may open the trajectory now (the browsing scope, as a yes/no). */
async function mayBrowse(db: Db, actor: Actor, trajectoryId: number): Promise<boolean> {
  if (await seesWholeCatalog(db, actor)) return true;
  return (await isInAnnotatorCampaigns(db, actor.userId, trajectoryId)) && !(await isAgentHiddenFor(db, actor.userId, trajectoryId));
}

/**
 * The user's mentions they may read now (a mention in a comment the blind hides, or on a trajectory they may not
 * open, stays out until that changes), unread first, and how many are unread. Each links to its step by the
 * trajectory's content (/t/<key>), so a link kept elsewhere still opens the step after the run is imported again.
 */
export async function mentionInbox(db: Db, actor: Actor, limit = 50) {
  const rows = await mentionsOfUser(db, actor.userId, 500);
  const entries: {
    commentId: number;
    trajectoryId: number;
    stepIndex: number | null;
    link: string;
    authorName: string;
    excerpt: string;
    createdAt: Date;
    read: boolean;
  }[] = [];
  const facts = new Map<number, CommentAudienceFacts | null>();
  for (const { comment, readAt, contentHash } of rows) {
    if (!facts.has(comment.trajectoryId))
      facts.set(comment.trajectoryId, (await mayBrowse(db, actor, comment.trajectoryId)) ? await audienceFacts(db, actor, comment.trajectoryId) : null);
    const f = facts.get(comment.trajectoryId);
    if (!f || !mayViewComment(comment, f)) continue;
    if (comment.parentId !== null) {
      const root = await commentById(db, comment.parentId);
      if (!root || !mayViewComment(root, f)) continue;
    }
    entries.push({
      commentId: comment.id,
      trajectoryId: comment.trajectoryId,
      stepIndex: comment.stepIndex,
      link: stepLinkPath({ key: linkKeyOf(contentHash), id: comment.trajectoryId }, (comment.stepIndex ?? 0) + 1),
      authorName: comment.authorName,
      excerpt: comment.body.length > 160 ? `${comment.body.slice(0, 157)}…` : comment.body,
      createdAt: comment.createdAt,
      read: readAt !== null,
    });
  }
  return { unread: entries.filter((e) => !e.read).length, entries: entries.slice(0, limit) };
}

export async function markMentionsSeen(db: Db, actor: Actor, commentIds: number[]): Promise<void> {
  await markMentionsRead(db, actor.userId, commentIds);
}

/**
 * Who `viewer` can mention: for researchers and admins every active user; for an annotator the researchers and admins
 * only. Annotators never learn who else labels (the blind: the list named them to each other), and a guessed handle of
 * another annotator is answered as unknown, like a handle nobody has.
 */
async function mentionableBy(db: Db, viewer: Actor) {
  const active = (await listUsers(db)).filter((u) => !u.banned);
  return hasRole(viewer, "researcher") ? active : active.filter((u) => hasRole(u, "researcher") || u.id === viewer.userId);
}

/** Who `viewer` can mention, by name and handle. */
export async function mentionableUsers(db: Db, viewer: Actor): Promise<{ name: string; handle: string }[]> {
  return (await mentionableBy(db, viewer)).filter((u) => u.id !== viewer.userId).map((u) => ({ name: u.name, handle: mentionHandle(u.email) }));
}

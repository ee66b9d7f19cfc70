/**
 * Comment threads over tRPC: any signed-in user, within what they may browse. Thin: the blind for comments and
 * every check live in server/services/annotation/comments.ts.
 */
import { z } from "zod";
import { MAX_COMMENT_CHARS } from "../../domain/annotation/comments";
import {
  addComment,
  addItemComment,
  commentThreads,
  itemCommentThreads,
  markMentionsSeen,
  mentionableUsers,
  mentionInbox,
  setThreadState,
} from "../../services/annotation";
import { authedProcedure, createTRPCRouter } from "../trpc";

const id = z.number().int().positive();
/** What a new comment says; a reply joins its thread's step. */
const newComment = {
  stepIndex: z.number().int().min(0).nullable().optional(),
  replyTo: id.optional(),
  // A little over the limit so the service's message (with the count) is what the writer reads.
  body: z.string().max(MAX_COMMENT_CHARS * 2),
  forBlind: z.boolean().optional(),
};
/** A campaign item by its number: the labelling page's address, which never names the trajectory. */
const item = { campaignId: id, itemNo: id };

export const commentsRouter = createTRPCRouter({
  threads: authedProcedure.input(z.object({ trajectoryId: id })).query(({ ctx, input }) => commentThreads(ctx.db, ctx.actor, input.trajectoryId)),

  add: authedProcedure.input(z.object({ trajectoryId: id, ...newComment })).mutation(({ ctx, input }) => addComment(ctx.db, ctx.actor, input)),

  /** The labelling page's threads: the annotator's campaign item, under the same blind for comments. */
  itemThreads: authedProcedure.input(z.object(item)).query(({ ctx, input }) => itemCommentThreads(ctx.db, ctx.actor, input)),

  addOnItem: authedProcedure.input(z.object({ ...item, ...newComment })).mutation(({ ctx, input }) => addItemComment(ctx.db, ctx.actor, input)),

  /** `item`: the thread is reached through the annotator's campaign item (the labelling page). */
  setResolved: authedProcedure
    .input(z.object({ commentId: id, resolved: z.boolean(), item: z.object(item).optional() }))
    .mutation(({ ctx, input }) => setThreadState(ctx.db, ctx.actor, input.commentId, input.resolved, input.item)),

  inbox: authedProcedure.query(({ ctx }) => mentionInbox(ctx.db, ctx.actor)),

  markRead: authedProcedure
    .input(z.object({ commentIds: z.array(id).max(500) }))
    .mutation(({ ctx, input }) => markMentionsSeen(ctx.db, ctx.actor, input.commentIds)),

  mentionable: authedProcedure.query(({ ctx }) => mentionableUsers(ctx.db, ctx.actor)),
});

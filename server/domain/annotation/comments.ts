/**
 * Comment threads, the pure part: who a comment may be shown to under the blind, which users a body mentions,
 * and the limits a comment is checked against.
 *
 * The blind for comments (docs/guide/comments.md states it for users). For a viewer V and a trajectory T, the
 * "blind cohort" of T is every annotator of a blind campaign that contains T. A comment C on T is shown to V when
 * C is V's own, or else when both hold:
 *   1. not (V and C's author are both in T's blind cohort): annotators of a blind campaign never read each
 *      other's comments on its items, before or after labelling them;
 *   2. if the blind still hides T's evaluations from V (V labels T blind and has not submitted), C was written by
 *      someone who could not see T's evaluations either, or a researcher marked it "for blind annotators" (a
 *      statement that it quotes no verdict, label or agent). Anything else may quote a judge's verdict.
 * A reply is shown only with its thread's first comment.
 */

export const MAX_COMMENT_CHARS = 4000;
export const MAX_MENTIONS_PER_COMMENT = 20;

export interface CommentAudienceFacts {
  viewerId: string;
  /** True while the blind hides the trajectory's evaluations from the viewer. */
  viewerBlinded: boolean;
  /** Users who annotate a blind campaign containing the trajectory. */
  blindCohort: ReadonlySet<string>;
}

export interface CommentVisibility {
  authorId: string | null;
  /** The author could see the trajectory's evaluations when writing. */
  sighted: boolean;
  forBlind: boolean;
}

export function mayViewComment(comment: CommentVisibility, facts: CommentAudienceFacts): boolean {
  if (comment.authorId !== null && comment.authorId === facts.viewerId) return true;
  const authorInCohort = comment.authorId !== null && facts.blindCohort.has(comment.authorId);
  if (facts.blindCohort.has(facts.viewerId) && authorInCohort) return false;
  if (facts.viewerBlinded && comment.sighted && !comment.forBlind) return false;
  return true;
}

/** The handle a user is mentioned by: the part of their email before "@", lower-cased. */
export function mentionHandle(email: string): string {
  return email.split("@")[0]!.toLowerCase();
}

/**
 * The users a body mentions: each `@handle` (letters, digits, `.`, `_`, `-`; a trailing dot is punctuation)
 * matched to the users whose handle it is. Unknown handles are returned apart, so the writer is told.
 * Inside `code` spans nothing is a mention.
 */
export function parseMentions(body: string, users: readonly { id: string; email: string }[]): { userIds: string[]; unknown: string[] } {
  const byHandle = new Map<string, string[]>();
  for (const u of users) byHandle.set(mentionHandle(u.email), [...(byHandle.get(mentionHandle(u.email)) ?? []), u.id]);
  const withoutCode = body.replace(/`[^`]*`/g, " ");
  const userIds = new Set<string>();
  const unknown = new Set<string>();
  for (const m of withoutCode.matchAll(/(^|[^\w@])@([\w.-]+)/g)) {
    const handle = m[2]!.replace(/[.-]+$/, "").toLowerCase();
    if (!handle) continue;
    const ids = byHandle.get(handle);
    if (ids) for (const id of ids) userIds.add(id);
    else unknown.add(handle);
  }
  return { userIds: [...userIds], unknown: [...unknown] };
}

/** The body as stored: trimmed, line endings unified; an error message when it cannot be stored. */
export function checkCommentBody(body: string): { body: string } | { error: string } {
  const text = body.replace(/\r\n?/g, "\n").trim();
  if (!text) return { error: "A comment needs some text" };
  if (text.length > MAX_COMMENT_CHARS) return { error: `A comment holds at most ${MAX_COMMENT_CHARS} characters (this one has ${text.length})` };
  return { body: text };
}

/**
 * The mention being typed at the caret, for the comment box's completion: the `@` and the handle's start typed so far
 * (the same characters parseMentions reads), or null when the caret is not in one (inside a word, after a space).
 */
export function mentionAtCaret(text: string, caret: number): { start: number; query: string } | null {
  const m = /(^|[^\w@])@([\w.-]*)$/.exec(text.slice(0, caret));
  if (!m) return null;
  return { start: caret - m[2]!.length - 1, query: m[2]!.toLowerCase() };
}

/** The people whose handle or name starts with what was typed (handles first), at most `limit`. */
export function mentionCandidates<T extends { name: string; handle: string }>(people: readonly T[], query: string, limit = 6): T[] {
  const q = query.toLowerCase();
  const byHandle = people.filter((p) => p.handle.startsWith(q));
  const byName = people.filter(
    (p) =>
      !byHandle.includes(p) &&
      p.name
        .toLowerCase()
        .split(/\s+/)
        .some((w) => w.startsWith(q)),
  );
  return [...byHandle, ...byName].slice(0, limit);
}

/** The text with the mention at `start`..`caret` replaced by `@handle ` and where the caret goes after it. */
export function completeMention(text: string, start: number, caret: number, handle: string): { text: string; caret: number } {
  const inserted = `@${handle} `;
  const rest = text
    .slice(caret)
    .replace(/^[\w.-]*/, "")
    .replace(/^ /, "");
  return { text: text.slice(0, start) + inserted + rest, caret: start + inserted.length };
}

/**
 * The blind for comments and mentions, as pure rules: each case names who reads whose comment and why.
 */
import { describe, expect, it } from "vitest";
import { checkCommentBody, MAX_COMMENT_CHARS, mayViewComment, mentionHandle, parseMentions } from "../../server/domain/annotation/comments";

const cohort = new Set(["ann", "bo"]);
const researcherNote = { authorId: "rita", sighted: true, forBlind: false };
const researcherForBlind = { authorId: "rita", sighted: true, forBlind: true };
const annNote = { authorId: "ann", sighted: false, forBlind: false };
const annAfterLabelling = { authorId: "ann", sighted: true, forBlind: false };

describe("who reads a comment", () => {
  it("annotators of a blind campaign never read each other's comments on its items, blinded or not", () => {
    expect(mayViewComment(annNote, { viewerId: "bo", viewerBlinded: true, blindCohort: cohort })).toBe(false);
    expect(mayViewComment(annNote, { viewerId: "bo", viewerBlinded: false, blindCohort: cohort })).toBe(false);
    expect(mayViewComment(annAfterLabelling, { viewerId: "bo", viewerBlinded: false, blindCohort: cohort })).toBe(false);
  });

  it("one's own comments are always there", () => {
    expect(mayViewComment(annAfterLabelling, { viewerId: "ann", viewerBlinded: true, blindCohort: cohort })).toBe(true);
  });

  it("a blinded annotator reads a sighted author's comment only when a researcher marked it for blind annotators", () => {
    expect(mayViewComment(researcherNote, { viewerId: "ann", viewerBlinded: true, blindCohort: cohort })).toBe(false);
    expect(mayViewComment(researcherForBlind, { viewerId: "ann", viewerBlinded: true, blindCohort: cohort })).toBe(true);
    expect(mayViewComment(researcherNote, { viewerId: "ann", viewerBlinded: false, blindCohort: cohort })).toBe(true);
  });

  it("people outside the cohort read annotators' comments; a deleted author's comment follows the same rules", () => {
    expect(mayViewComment(annNote, { viewerId: "rita", viewerBlinded: false, blindCohort: cohort })).toBe(true);
    expect(mayViewComment({ authorId: null, sighted: true, forBlind: false }, { viewerId: "ann", viewerBlinded: true, blindCohort: cohort })).toBe(false);
    expect(mayViewComment({ authorId: null, sighted: true, forBlind: false }, { viewerId: "ann", viewerBlinded: false, blindCohort: cohort })).toBe(true);
  });
});

describe("mentions", () => {
  const users = [
    { id: "u1", email: "Ann.Lee@lab.example" },
    { id: "u2", email: "bo@lab.example" },
    { id: "u3", email: "bo@other.example" },
  ];

  it("matches handles case-insensitively, drops trailing punctuation, ignores emails and code, and reports unknown handles", () => {
    expect(mentionHandle("Ann.Lee@lab.example")).toBe("ann.lee");
    const found = parseMentions("@ann.lee, look at step 3. cc @BO. Not me@lab.example nor `@bo`; who is @zed?", users);
    expect(found.userIds.sort()).toEqual(["u1", "u2", "u3"]);
    expect(found.unknown).toEqual(["zed"]);
    expect(parseMentions("no one here", users)).toEqual({ userIds: [], unknown: [] });
  });
});

describe("comment bodies", () => {
  it("are trimmed with unified line endings, and refused empty or too long", () => {
    expect(checkCommentBody("  one\r\ntwo \r ")).toEqual({ body: "one\ntwo" });
    expect(checkCommentBody(" \n ")).toEqual({ error: "A comment needs some text" });
    expect(checkCommentBody("x".repeat(MAX_COMMENT_CHARS + 1))).toEqual({ error: `A comment holds at most 4000 characters (this one has 4001)` });
  });
});

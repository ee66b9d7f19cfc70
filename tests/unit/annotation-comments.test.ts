/**
 * The blind for comments and mentions, as pure rules: each case names who reads whose comment and why.
 */
import { describe, expect, it } from "vitest";
import {
  checkCommentBody,
  completeMention,
  MAX_COMMENT_CHARS,
  mayViewComment,
  mentionAtCaret,
  mentionCandidates,
  mentionHandle,
  parseMentions,
} from "../../server/domain/annotation/comments";

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

describe("completing a mention in the comment box", () => {
  it("finds the mention being typed at the caret, and nothing inside a word or an email address", () => {
    expect(mentionAtCaret("@", 1)).toEqual({ start: 0, query: "" });
    expect(mentionAtCaret("ask @Ann.L", 10)).toEqual({ start: 4, query: "ann.l" });
    expect(mentionAtCaret("ask @ann now", 12)).toBeNull();
    expect(mentionAtCaret("mail ann@lab", 12)).toBeNull();
    // The caret in the middle of the text: only what is before it counts.
    expect(mentionAtCaret("(@bo) and more", 4)).toEqual({ start: 1, query: "bo" });
  });

  it("lists people by handle first, then by a word of their name, up to the limit", () => {
    const people = [
      { name: "Ann One", handle: "annotator1" },
      { name: "Rae Researcher", handle: "researcher" },
      { name: "Bo Annis", handle: "bo" },
    ];
    expect(mentionCandidates(people, "ann").map((p) => p.handle)).toEqual(["annotator1", "bo"]);
    expect(mentionCandidates(people, "RAE").map((p) => p.handle)).toEqual(["researcher"]);
    expect(mentionCandidates(people, "").length).toBe(3);
    expect(mentionCandidates(people, "", 2).length).toBe(2);
    expect(mentionCandidates(people, "zed")).toEqual([]);
  });

  it("replaces the typed part with the whole handle and a space, keeping the rest", () => {
    expect(completeMention("hi @an", 3, 6, "annotator1")).toEqual({ text: "hi @annotator1 ", caret: 15 });
    // Completing in the middle of a handle drops its old tail, and a following space is not doubled.
    expect(completeMention("hi @anx there", 3, 6, "annotator1")).toEqual({ text: "hi @annotator1 there", caret: 15 });
  });
});

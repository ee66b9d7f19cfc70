/**
 * Comment threads as an attacker would try them, through the tRPC procedures on both engines: nobody reads or
 * answers a thread on a trajectory they may not open (one answer, whatever the reason); annotators of a blind
 * campaign never read each other's comments on its items; a researcher's comment reaches them only when they may
 * see evaluations or it is marked for blind annotators; mentions in the inbox follow the same rules; bodies come
 * back as written (the page renders them as text).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { getTrajectoryHead } from "../../db/repositories/trajectories";
import type { RequestSession } from "../../server/api/trpc";
import { linkKeyOf } from "../../server/domain/trajectories/step-links";
import type { Actor } from "../../server/domain/access/actor";
import { createCampaign, nextItem, submitItemLabel } from "../../server/services/annotation";
import { seedTrajectories } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { callerAs, testUser } from "../helpers/trpc";

describeEachBackend("comment threads and the blind", (backend) => {
  let ctx: TestContext;
  let t1: number;
  let t2: number;
  let campaignId: number;
  const s: Record<"rita" | "ann" | "bo" | "cy", RequestSession> = {} as never;
  const api = (who: keyof typeof s) => callerAs(ctx, s[who]);
  const actor = (who: keyof typeof s): Actor => ({ userId: s[who].userId, name: s[who].name, role: s[who].role });

  async function label(who: "ann" | "bo") {
    const item = await nextItem(ctx.db, actor(who), campaignId);
    await submitItemLabel(ctx.db, actor(who), { campaignId, itemNo: item!.itemNo, verdict: "success", idempotencyKey: `label-${who}-${item!.itemNo}` });
  }

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-comments-");
    s.rita = await testUser(ctx, "researcher", "Rita");
    s.ann = await testUser(ctx, "annotator", "Ann");
    s.bo = await testUser(ctx, "annotator", "Bo");
    s.cy = await testUser(ctx, "annotator", "Cy");
    const ids = await seedTrajectories(ctx.db, 2, { steps: 3 });
    t1 = ids[0]!;
    t2 = ids[1]!;
    const c = await createCampaign(ctx.db, actor("rita"), {
      name: "Blind pair",
      trajectoryIds: [t1!],
      annotatorsPerItem: 2,
      blind: true,
      annotatorIds: [s.ann.userId, s.bo.userId],
    });
    campaignId = c.id;
  }, 120_000);
  afterAll(async () => ctx?.cleanup());

  it("keeps threads on trajectories someone may not open closed to them, with one answer for hidden and missing", async () => {
    const rita = await api("rita");
    const quote = await rita.comments.add({ trajectoryId: t1!, stepIndex: 1, body: "The judge says failure here. @test-annotator-ann agree?" });
    expect(quote).toMatchObject({ mentioned: 1, unknownMentions: [] });
    for (const who of ["ann", "cy"] as const) {
      const them = await api(who);
      await expect(them.comments.threads({ trajectoryId: t1! })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(them.comments.threads({ trajectoryId: 999_999 })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(them.comments.add({ trajectoryId: t1!, body: "hello" })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(them.comments.add({ trajectoryId: t1!, replyTo: quote.id, body: "hello" })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(them.comments.setResolved({ commentId: quote.id, resolved: true })).rejects.toMatchObject({ code: "NOT_FOUND" });
      // The mention waits, unseen, until Ann may open the trajectory.
      expect((await them.comments.inbox()).entries).toEqual([]);
    }
    await expect((await api("cy")).comments.setResolved({ commentId: 999_999, resolved: true })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("never shows annotators of a blind campaign each other's comments; marked and sighted comments follow the rule", async () => {
    const rita = await api("rita");
    await rita.comments.add({ trajectoryId: t1!, body: "Guideline reminder for @test-annotator-bo: read the task twice.", forBlind: true });
    await label("ann");
    const ann = await api("ann");
    // Ann has labelled: she may open the trajectory and read Rita's comments, the quoting one included.
    const threadsForAnn = await ann.comments.threads({ trajectoryId: t1! });
    expect(threadsForAnn.map((t) => t.body)).toEqual([
      "The judge says failure here. @test-annotator-ann agree?",
      "Guideline reminder for @test-annotator-bo: read the task twice.",
    ]);
    const inbox = await ann.comments.inbox();
    expect(inbox).toMatchObject({ unread: 1, entries: [{ trajectoryId: t1!, stepIndex: 1, authorName: "Rita", read: false }] });
    await ann.comments.markRead({ commentIds: [inbox.entries[0]!.commentId] });
    expect((await ann.comments.inbox()).unread).toBe(0);
    const annNote = await ann.comments.add({ trajectoryId: t1!, stepIndex: 2, body: "I said failure: @test-annotator-bo what did you say?" });
    await ann.comments.add({ trajectoryId: t1!, replyTo: threadsForAnn[0]!.id, body: "Agreed." });

    // Bo still labels it blind: no thread, no mention reaches him, whatever he tries.
    const bo = await api("bo");
    await expect(bo.comments.threads({ trajectoryId: t1! })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await bo.comments.inbox()).entries).toEqual([]);
    await label("bo");
    const threadsForBo = await bo.comments.threads({ trajectoryId: t1! });
    expect(threadsForBo.map((t) => t.authorName)).toEqual(["Rita", "Rita"]);
    expect(threadsForBo[0]!.replies).toEqual([]);
    expect((await bo.comments.inbox()).entries.map((e) => e.authorName)).toEqual(["Rita"]);
    await expect(bo.comments.setResolved({ commentId: annNote.id, resolved: true })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(bo.comments.add({ trajectoryId: t1!, replyTo: annNote.id, body: "sneaky" })).rejects.toMatchObject({ code: "NOT_FOUND" });

    // Rita, outside the cohort, reads all of it.
    const all = await rita.comments.threads({ trajectoryId: t1! });
    expect(all.map((t) => [t.authorName, t.stepIndex, t.replies.length])).toEqual([
      ["Rita", 1, 1],
      ["Rita", null, 0],
      ["Ann", 2, 0],
    ]);
  });

  it("on the labelling page (by item number) keeps the same blind between the campaign's annotators and names no trajectory", async () => {
    const [t3] = await seedTrajectories(ctx.db, 1, { steps: 3, taskIds: ["task-labelling-page"] });
    const c2 = await createCampaign(ctx.db, actor("rita"), {
      name: "Blind pair on the labelling page",
      trajectoryIds: [t3!],
      annotatorsPerItem: 2,
      blind: true,
      annotatorIds: [s.ann.userId, s.cy.userId],
    });
    const itemNo = (await nextItem(ctx.db, actor("ann"), c2.id))!.itemNo;
    const item = { campaignId: c2.id, itemNo };
    const [ann, cy, bo, rita] = await Promise.all([api("ann"), api("cy"), api("bo"), api("rita")]);
    const annNote = await ann.comments.addOnItem({ ...item, stepIndex: 1, body: "Step 2 clicks the ad, @test-researcher-rita is that a failure?" });
    expect(annNote).toMatchObject({ mentioned: 1, unknownMentions: [] });
    const guideline = await rita.comments.add({ trajectoryId: t3!, body: "Ads count as failures (guidelines 2.1).", forBlind: true });
    await rita.comments.add({ trajectoryId: t3!, stepIndex: 1, body: "The judge agrees with Ann." });

    // Cy labels the same item blind: Ann's note and Rita's sighted comment stay hidden, the marked one shows.
    const forCy = await cy.comments.itemThreads(item);
    expect(forCy.map((t) => t.body)).toEqual(["Ads count as failures (guidelines 2.1)."]);
    expect(forCy[0]).not.toHaveProperty("trajectoryId");
    await cy.comments.addOnItem({ ...item, replyTo: guideline.id, body: "Thanks" });
    await expect(cy.comments.addOnItem({ ...item, replyTo: annNote.id, body: "sneaky" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(cy.comments.setResolved({ commentId: annNote.id, resolved: true, item })).rejects.toMatchObject({ code: "NOT_FOUND" });
    // A thread on another trajectory is not reached through this item, even one Cy could read elsewhere.
    const elsewhere = (await rita.comments.threads({ trajectoryId: t1! }))[0]!;
    await expect(cy.comments.setResolved({ commentId: elsewhere.id, resolved: true, item })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await cy.comments.setResolved({ commentId: guideline.id, resolved: true, item });

    // Ann reads her own note and the marked thread, without Cy's reply (both label this item blind).
    const forAnn = await ann.comments.itemThreads(item);
    expect(forAnn.map((t) => [t.body, t.replies.length, t.resolvedByName])).toEqual([
      ["Step 2 clicks the ad, @test-researcher-rita is that a failure?", 0, null],
      ["Ads count as failures (guidelines 2.1).", 0, "Cy"],
    ]);
    // Bo is no annotator of this campaign: no way in by item number.
    await expect(bo.comments.itemThreads(item)).rejects.toThrow();
    await expect(bo.comments.addOnItem({ ...item, body: "hello" })).rejects.toThrow();
    // Rita's inbox links Ann's mention to its step by the trajectory's content, which survives a re-import.
    const mention = (await rita.comments.inbox()).entries.find((e) => e.authorName === "Ann" && e.trajectoryId === t3);
    const { trajectory } = (await getTrajectoryHead(ctx.db, t3!))!;
    expect(mention).toMatchObject({ stepIndex: 1, link: `/t/${linkKeyOf(trajectory.contentHash)}?id=${t3}&step=2` });
  });

  it("resolves and reopens a thread, and refuses what a client should not send", async () => {
    const rita = await api("rita");
    const { id } = await rita.comments.add({ trajectoryId: t2!, stepIndex: 0, body: '<img src=x onerror="alert(1)"> **bold** @nobody' });
    const [thread] = await rita.comments.threads({ trajectoryId: t2! });
    expect(thread).toMatchObject({ body: '<img src=x onerror="alert(1)"> **bold** @nobody', resolvedAt: null });
    await rita.comments.setResolved({ commentId: id, resolved: true });
    expect((await rita.comments.threads({ trajectoryId: t2! }))[0]).toMatchObject({ resolvedByName: "Rita" });
    await rita.comments.setResolved({ commentId: id, resolved: false });
    expect((await rita.comments.threads({ trajectoryId: t2! }))[0]).toMatchObject({ resolvedAt: null, resolvedByName: null });

    await expect(rita.comments.add({ trajectoryId: t2!, stepIndex: 3, body: "x" })).rejects.toThrow("Step 4 does not exist: this trajectory has 3 steps");
    await expect(rita.comments.add({ trajectoryId: t2!, body: "   " })).rejects.toThrow("A comment needs some text");
    await expect(rita.comments.add({ trajectoryId: t1!, replyTo: id, body: "wrong trajectory" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const reply = await rita.comments.add({ trajectoryId: t2!, replyTo: id, body: "reply" });
    await expect(rita.comments.add({ trajectoryId: t2!, replyTo: reply.id, body: "reply to a reply" })).rejects.toThrow("Reply to the thread's first comment");
    await expect(rita.comments.setResolved({ commentId: reply.id, resolved: true })).rejects.toThrow("Resolve the thread from its first comment");
    // Ann may open t1 now, but marking a comment for blind annotators is a researcher's statement.
    await expect((await api("ann")).comments.add({ trajectoryId: t1!, body: "trust me", forBlind: true })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});

/**
 * A campaign's qualification phase, attacked through the real tRPC caller on both engines: an annotator cannot label
 * past the qualification items, cannot read a known answer (verdict or the researcher's explanation) through any
 * procedure before their own answer is stored, cannot change or undo an answer once its feedback has shown the known
 * one, and cannot reach the researcher's qualification procedures. The service rules themselves are in
 * tests/integration/annotation-qualification.test.ts; here the surface an annotator's browser calls is checked.
 */
import { TRPCError } from "@trpc/server";
import { afterEach, beforeEach, expect, it } from "vitest";
import { getItemByTrajectory } from "../../db/repositories/annotation/campaigns";
import type { RequestSession } from "../../server/api/trpc";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { seedTrajectories } from "../helpers/annotation-fixture";
import { callerAs, testUser } from "../helpers/trpc";

const EXPLANATION = "gold-explanation-5c1e";

describeEachBackend("qualification through the API", (backend) => {
  let ctx: TestContext;
  let researcher: RequestSession;
  let annotator: RequestSession;
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-qualification-api-");
    researcher = await testUser(ctx, "researcher", "Rita Researcher");
    annotator = await testUser(ctx, "annotator", "Quinn Annotator");
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  async function codeOf(call: () => Promise<unknown>): Promise<string> {
    try {
      await call();
    } catch (e) {
      if (e instanceof TRPCError) return `${e.code}: ${e.message}`;
      throw e;
    }
    return "ok";
  }

  /** Four trajectories; the first two are gold (failure, then success) and make up the qualification, passing at 1 of 2. */
  async function setUp() {
    const ids = await seedTrajectories(ctx.db, 4);
    const r = await callerAs(ctx, researcher);
    const c = await r.campaigns.create({ name: "Qualified", trajectoryIds: ids, annotatorIds: [annotator.userId], annotatorsPerItem: 1 });
    await r.quality.markGold({ campaignId: c.id, trajectoryId: ids[0]!, verdict: "failure", category: "other", note: `${EXPLANATION} first` });
    await r.quality.markGold({ campaignId: c.id, trajectoryId: ids[1]!, verdict: "success", note: `${EXPLANATION} second` });
    expect(await r.quality.setQualification({ campaignId: c.id, passAt: 0.5, trajectoryIds: ids.slice(0, 2) })).toEqual({
      id: c.id,
      qualificationPassAt: 0.5,
    });
    const no = async (t: number) => (await getItemByTrajectory(ctx.db, c.id, t))!.itemNo!;
    // Item numbers are shuffled: the known answer by item number, and the answer that is wrong on each.
    const known = new Map([
      [await no(ids[0]!), "failure"],
      [await no(ids[1]!), "success"],
    ] as const);
    const wrong = (itemNo: number) => (known.get(itemNo) === "failure" ? "success" : "failure");
    return {
      known,
      wrong,
      c,
      ids,
      r,
      qualification: [await no(ids[0]!), await no(ids[1]!)].sort((x, y) => x - y),
      regular: [await no(ids[2]!), await no(ids[3]!)],
    };
  }

  it("hands out only qualification items, hides the known answers until the submit, and freezes an answer once its feedback is shown", async () => {
    const { c, qualification, regular, known, wrong } = await setUp();
    const api = await callerAs(ctx, annotator);

    expect(await api.labelling.qualification({ campaignId: c.id })).toEqual({
      status: "in_progress",
      items: 2,
      answered: 0,
      correct: 0,
      passAt: 0.5,
      nextItemNo: qualification[0],
      askName: "Rita Researcher",
    });
    expect((await api.labelling.next({ campaignId: c.id }))!.itemNo).toBe(qualification[0]);

    // Skipping the qualification: a regular item cannot be labelled, and skipping the qualification item hands it back.
    for (const itemNo of regular) {
      expect(await codeOf(() => api.labelling.submit({ campaignId: c.id, itemNo, verdict: "success", idempotencyKey: `skip-item-${itemNo}` }))).toBe(
        "FORBIDDEN: Answer this campaign's qualification items first (0 of 2 answered)",
      );
    }

    // Everything an annotator can read about the campaign and its items, before answering: no explanation, no "gold".
    const read = JSON.stringify(
      await Promise.all([
        api.labelling.campaign({ id: c.id }),
        api.labelling.myCampaigns(),
        api.labelling.qualification({ campaignId: c.id }),
        api.labelling.done({ campaignId: c.id }),
        ...qualification.flatMap((itemNo) => [
          api.labelling.item({ campaignId: c.id, itemNo }),
          api.labelling.mine({ campaignId: c.id, itemNo }),
          api.labelling.itemSteps({ campaignId: c.id, itemNo, from: 0 }),
        ]),
      ]),
    );
    expect(read).not.toContain(EXPLANATION);
    expect(read).not.toMatch(/gold/i);
    // The researcher's view of the qualification and of gold items is refused.
    expect(await codeOf(() => api.quality.qualification({ campaignId: c.id }))).toMatch(/^FORBIDDEN/);
    expect(await codeOf(() => api.quality.gold({ campaignId: c.id }))).toMatch(/^FORBIDDEN/);
    expect(await codeOf(() => api.quality.setQualification({ campaignId: c.id, passAt: null, trajectoryIds: [] }))).toMatch(/^FORBIDDEN/);

    // A wrong answer: the feedback names the known answer and its explanation, and where the annotator stands.
    const first = await api.labelling.submit({
      campaignId: c.id,
      itemNo: qualification[0]!,
      verdict: wrong(qualification[0]!),
      category: wrong(qualification[0]!) === "failure" ? "other" : null,
      idempotencyKey: "answer-first",
    });
    expect(first.qualification).toEqual({
      correct: false,
      expected: {
        verdict: known.get(qualification[0]!),
        category: known.get(qualification[0]!) === "failure" ? "other" : null,
        note: expect.stringContaining(EXPLANATION),
      },
      standing: { status: "in_progress", items: 2, answered: 1, correct: 0, passAt: 0.5 },
    });
    const answer = first.qualification!.expected;
    // Having read it, the annotator can neither answer again nor undo.
    expect(
      await codeOf(() =>
        api.labelling.submit({
          campaignId: c.id,
          itemNo: qualification[0]!,
          verdict: answer.verdict,
          category: answer.category,
          idempotencyKey: "answer-first-again",
          baseRevision: first.revision,
        }),
      ),
    ).toBe("CONFLICT: A qualification answer cannot be changed once it is submitted");
    expect(await codeOf(() => api.labelling.undo({ campaignId: c.id, idempotencyKey: "undo-first" }))).toBe(
      "CONFLICT: A qualification answer cannot be undone",
    );
    // After a reload the page reads the feedback back: the same known answer, for the answered item only.
    const reread = await api.labelling.mine({ campaignId: c.id, itemNo: qualification[0]! });
    expect(reread.label!.verdict).toBe(wrong(qualification[0]!));
    expect(reread.qualification).toEqual(first.qualification);
    const unanswered = await api.labelling.mine({ campaignId: c.id, itemNo: qualification[1]! });
    expect(unanswered.qualification).toBeNull();
    expect(JSON.stringify(unanswered)).not.toContain(EXPLANATION);
    for (const itemNo of regular) expect((await api.labelling.mine({ campaignId: c.id, itemNo })).qualification).toBeNull();

    expect((await api.labelling.next({ campaignId: c.id }))!.itemNo).toBe(qualification[1]);
    const second = await api.labelling.submit({
      campaignId: c.id,
      itemNo: qualification[1]!,
      verdict: known.get(qualification[1]!)!,
      category: known.get(qualification[1]!) === "failure" ? "other" : null,
      idempotencyKey: "answer-second",
    });
    expect(second.qualification!.correct).toBe(true);
    expect(second.qualification!.standing.status).toBe("passed");
    expect(await api.labelling.qualification({ campaignId: c.id })).toMatchObject({ status: "passed", answered: 2, correct: 1, nextItemNo: null });
    expect(regular).toContain((await api.labelling.next({ campaignId: c.id }))!.itemNo);
  });

  it("stops an annotator who fails and shows the researcher each result beside the threshold", async () => {
    const { c, qualification, regular, r, wrong } = await setUp();
    const api = await callerAs(ctx, annotator);
    for (const [i, itemNo] of qualification.entries()) {
      await api.labelling.submit({
        campaignId: c.id,
        itemNo,
        verdict: wrong(itemNo),
        category: wrong(itemNo) === "failure" ? "other" : null,
        idempotencyKey: `wrong-answer-${i}`,
      });
    }
    expect(await api.labelling.qualification({ campaignId: c.id })).toMatchObject({ status: "failed", answered: 2, correct: 0, nextItemNo: null });
    expect(await codeOf(() => api.labelling.next({ campaignId: c.id }))).toMatch(/^FORBIDDEN: You did not reach the share of right answers/);
    expect(await codeOf(() => api.labelling.submit({ campaignId: c.id, itemNo: regular[0]!, verdict: "success", idempotencyKey: "after-failing" }))).toMatch(
      /^FORBIDDEN: You did not reach/,
    );

    const seen = await r.quality.qualification({ campaignId: c.id });
    expect(seen.passAt).toBe(0.5);
    expect(seen.items.map((i) => i.itemNo)).toEqual(qualification);
    expect(seen.annotators.map((a) => [a.name, a.status, a.correct, a.answered])).toEqual([["Quinn Annotator", "failed", 0, 2]]);
  });

  it("is not shown to someone who is not an annotator of the campaign, and is off until a researcher turns it on", async () => {
    const ids = await seedTrajectories(ctx.db, 2);
    const r = await callerAs(ctx, researcher);
    const c = await r.campaigns.create({ name: "Plain", trajectoryIds: ids, annotatorIds: [annotator.userId], annotatorsPerItem: 1 });
    expect(await (await callerAs(ctx, annotator)).labelling.qualification({ campaignId: c.id })).toBeNull();
    const stranger = await testUser(ctx, "annotator", "Sam Stranger");
    expect(await codeOf(() => callerAs(ctx, stranger).then((s) => s.labelling.qualification({ campaignId: c.id })))).toBe(
      "FORBIDDEN: You are not an annotator of this campaign",
    );
    expect(await codeOf(() => r.quality.setQualification({ campaignId: c.id, passAt: 0.5, trajectoryIds: [] }))).toBe(
      "BAD_REQUEST: trajectoryIds: a qualification needs at least one gold item",
    );
  });
});

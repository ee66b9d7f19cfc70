/**
 * Blind → reveal → revise, tested as an attacker would, on every backend: nothing of the reveal evaluator reaches an
 * annotator before their blind submit (through the reveal procedure, the labelling procedures the page calls or
 * prefetches, nor through another trajectory of the same task), and once it was shown the blind label cannot be
 * rewritten through the API (submit, undo, a second reveal), while the informed stage is decided once with a reason.
 */
import { TRPCError } from "@trpc/server";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { tablesOf } from "../../db/database";
import { getItemByTrajectory } from "../../db/repositories/annotation/campaigns";
import { upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import type { RequestSession } from "../../server/api/trpc";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { callerAs, testUser } from "../helpers/trpc";
import { seedTrajectories } from "../helpers/annotation-fixture";

const RATIONALE = "REVEAL-RATIONALE-SECRET";
const EVALUATOR_NAME = "Reveal Judge Secret";
const EVALUATOR = "judge:7|3|v1";
const hash = (n: number) => `a${n.toString(16).padStart(63, "0")}`;

async function refusal(p: Promise<unknown>): Promise<TRPCError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof TRPCError) return e;
    throw e;
  }
  throw new Error("expected the call to be refused");
}

describeEachBackend("reveal after the blind submit", (backend) => {
  let ctx: TestContext;
  let researcher: RequestSession;
  let ann: RequestSession;
  let other: RequestSession;
  /** Two agents on the same two tasks: a[i] and b[i] share task i. */
  let a: number[];
  let b: number[];
  let campaignId: number;

  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-security-reveal-");
    researcher = await testUser(ctx, "researcher", "Rita Researcher");
    ann = await testUser(ctx, "annotator", "Ann Annotator");
    other = await testUser(ctx, "annotator", "Otto Other");
    a = await seedTrajectories(ctx.db, 2, { taskSet: "Shared", agentName: "agent-a", model: "model-a" });
    b = await seedTrajectories(ctx.db, 2, { taskSet: "Shared", agentName: "agent-b", model: "model-b" });
    const { screenshots, steps } = tablesOf(ctx.db);
    let n = 0;
    for (const t of [...a, ...b]) {
      for (const s of await ctx.db.select({ id: steps.id, index: steps.index }).from(steps).where(eq(steps.trajectoryId, t))) {
        await ctx.db.insert(screenshots).values({ hash: hash(++n), mime: "image/png", width: 10, height: 10, bytes: 1 });
        await ctx.db
          .update(steps)
          .set({ screenshotHash: hash(n) })
          .where(eq(steps.id, s.id));
      }
      await upsertVerdict(ctx.db, {
        trajectoryId: t,
        kind: "judge",
        origin: "verdict",
        evaluatorKey: "judge:7",
        evaluatorName: EVALUATOR_NAME,
        k: "3",
        promptVersion: "v1",
        verdict: "success",
        rationale: `${RATIONALE} ${t}`,
        stepIndices: [2, 3],
      });
    }
    const api = await callerAs(ctx, researcher);
    campaignId = (
      await api.campaigns.create({
        name: "Reveal campaign",
        trajectoryIds: [...a, ...b],
        annotatorsPerItem: 2,
        labelSchema: { categories: ["wrong element"], requireCategory: false },
        annotatorIds: [ann.userId, other.userId],
        revealEvaluator: EVALUATOR,
      })
    ).id;
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  const itemNo = async (t: number) => (await getItemByTrajectory(ctx.db, campaignId, t))!.itemNo!;

  it("before the blind submit: refused, and no procedure the labelling page calls gives the evaluator away", async () => {
    const api = await callerAs(ctx, ann);
    const seen: string[] = [];
    for (const t of [...a, ...b]) {
      const no = await itemNo(t);
      const e = await refusal(api.labelling.reveal({ campaignId, itemNo: no }));
      expect(e.code).toBe("FORBIDDEN");
      expect(e.message).toMatch(/Submit your own label first/);
      seen.push(e.message);
      const d = await refusal(api.labelling.decideReveal({ campaignId, itemNo: no, decision: "keep", reason: "trying" }));
      expect(d.code).toBe("PRECONDITION_FAILED");
      seen.push(d.message);
      // What the page loads and prefetches for an item.
      seen.push(JSON.stringify(await api.labelling.item({ campaignId, itemNo: no })));
      seen.push(JSON.stringify(await api.labelling.mine({ campaignId, itemNo: no })));
      seen.push(JSON.stringify(await api.labelling.itemSteps({ campaignId, itemNo: no, from: 0 })));
    }
    const settings = await api.labelling.campaign({ id: campaignId });
    expect(settings.reveal).toBe(true);
    seen.push(JSON.stringify(settings), JSON.stringify(await api.labelling.myCampaigns()), JSON.stringify(await api.campaigns.list()));
    const text = seen.join("\n");
    expect(text).not.toContain(RATIONALE);
    expect(text).not.toContain(EVALUATOR_NAME);
    expect(text).not.toContain("judge:7");
    // The trajectory-level routes stay closed by the blind rule.
    expect((await refusal(api.judge.verdicts.forTrajectory({ trajectoryId: a[0]! }))).code).toBe("FORBIDDEN");
    // Nothing was recorded: no reveal exists until a blind label does.
    const { labelReveals } = tablesOf(ctx.db);
    expect(await ctx.db.select().from(labelReveals)).toEqual([]);
  });

  it("waits while another trajectory of the same task is still to be labelled blind, then shows verdict, rationale and the screenshots the evaluator saw", async () => {
    const api = await callerAs(ctx, ann);
    await api.labelling.submit({
      campaignId,
      itemNo: await itemNo(a[0]!),
      verdict: "failure",
      category: "wrong element",
      firstFailingStep: 1,
      note: "my own reading",
      idempotencyKey: "ann-a0-blind",
    });
    const waiting = await api.labelling.reveal({ campaignId, itemNo: await itemNo(a[0]!) });
    expect(waiting.status).toBe("waiting");
    expect(JSON.stringify(waiting)).not.toContain(RATIONALE);
    expect(waiting.evaluator).toBeNull();
    // A sibling still blind: its reveal is refused outright.
    expect((await refusal(api.labelling.reveal({ campaignId, itemNo: await itemNo(b[0]!) }))).code).toBe("FORBIDDEN");

    await api.labelling.submit({ campaignId, itemNo: await itemNo(b[0]!), verdict: "success", idempotencyKey: "ann-b0-blind" });
    const shown = await api.labelling.reveal({ campaignId, itemNo: await itemNo(a[0]!) });
    expect(shown.status).toBe("revealed");
    expect(shown.evaluator).toMatchObject({ name: EVALUATOR_NAME, verdict: "success", rationale: `${RATIONALE} ${a[0]}`, k: "3" });
    expect(shown.screenshots.map((s) => s.step)).toEqual([2, 3]);
    expect(shown.screenshots.every((s) => /^a[0-9a-f]{63}$/.test(s.hash))).toBe(true);
    expect(shown.blind).toMatchObject({ verdict: "failure", category: "wrong element", firstFailingStep: 1, note: "my own reading" });
    expect(shown.informed).toBeNull();
    // The other annotator learns nothing from Ann's reveal.
    const otherApi = await callerAs(ctx, other);
    expect((await refusal(otherApi.labelling.reveal({ campaignId, itemNo: await itemNo(a[0]!) }))).code).toBe("FORBIDDEN");
  });

  it("the blind label is final once the evaluator was shown: submit, undo and a second reveal cannot rewrite it", async () => {
    const api = await callerAs(ctx, ann);
    const no = await itemNo(a[1]!);
    await api.labelling.submit({ campaignId, itemNo: await itemNo(b[1]!), verdict: "failure", idempotencyKey: "ann-b1-blind" });
    const blind = await api.labelling.submit({ campaignId, itemNo: no, verdict: "failure", idempotencyKey: "ann-a1-blind" });
    expect((await api.labelling.reveal({ campaignId, itemNo: no })).status).toBe("revealed");

    const rewrite = await refusal(api.labelling.submit({ campaignId, itemNo: no, verdict: "success", idempotencyKey: "ann-a1-rewrite", baseRevision: 1 }));
    expect(rewrite.code).toBe("CONFLICT");
    expect(rewrite.message).toMatch(/^Your blind label on this item is final/);
    const undo = await refusal(api.labelling.undo({ campaignId, revisionId: blind.revisionId, idempotencyKey: "ann-a1-undo" }));
    expect(undo.code).toBe("CONFLICT");
    // Undo without naming a revision goes for the latest submit: this one, refused too.
    expect((await refusal(api.labelling.undo({ campaignId, idempotencyKey: "ann-a1-undo-latest" }))).code).toBe("CONFLICT");
    expect((await api.labelling.mine({ campaignId, itemNo: no })).label).toMatchObject({ verdict: "failure", revision: 1 });
    const again = await api.labelling.reveal({ campaignId, itemNo: no });
    expect(again.blind).toMatchObject({ verdict: "failure" });

    // Informed stage: a reason is required, a "revision" equal to the blind label is refused, and it is decided once.
    expect((await refusal(api.labelling.decideReveal({ campaignId, itemNo: no, decision: "keep", reason: "   " }))).message).toMatch(/^reason: /);
    expect((await refusal(api.labelling.decideReveal({ campaignId, itemNo: no, decision: "revise", verdict: "failure", reason: "same" }))).message).toMatch(
      /same as your blind label/,
    );
    expect(
      (await refusal(api.labelling.decideReveal({ campaignId, itemNo: no, decision: "revise", verdict: "failure", category: "not a category", reason: "x" })))
        .code,
    ).toBe("BAD_REQUEST");
    const informed = await api.labelling.decideReveal({
      campaignId,
      itemNo: no,
      decision: "revise",
      verdict: "success",
      reason: "the answer is on the last screenshot",
    });
    expect(informed).toMatchObject({ decision: "revise", verdict: "success", reason: "the answer is on the last screenshot" });
    const twice = await refusal(api.labelling.decideReveal({ campaignId, itemNo: no, decision: "keep", reason: "changed my mind" }));
    expect(twice.code).toBe("CONFLICT");
    // Both stages kept: the label (blind) is unchanged, the reveal holds the informed one.
    expect((await api.labelling.mine({ campaignId, itemNo: no })).label).toMatchObject({ verdict: "failure", revision: 1 });
    expect((await api.labelling.reveal({ campaignId, itemNo: no })).informed).toMatchObject({ decision: "revise", verdict: "success" });
  });

  it("between the blind submit and the decision only the revealed evaluator is shown: other judges and annotators stay hidden until the annotator keeps or revises", async () => {
    // Another judge on a[1] and the other annotator's label on it: neither may reach Ann before she decides.
    await upsertVerdict(ctx.db, {
      trajectoryId: a[1]!,
      kind: "judge",
      origin: "verdict",
      evaluatorKey: "judge:8",
      evaluatorName: "OTHER-JUDGE-SECRET",
      k: "1",
      promptVersion: "v1",
      verdict: "failure",
      rationale: "OTHER-RATIONALE-SECRET",
    });
    const otherApi = await callerAs(ctx, other);
    await otherApi.labelling.submit({ campaignId, itemNo: await itemNo(a[1]!), verdict: "success", idempotencyKey: "otto-a1-blind" });
    const api = await callerAs(ctx, ann);
    const no = await itemNo(a[1]!);
    await api.labelling.submit({ campaignId, itemNo: await itemNo(b[1]!), verdict: "failure", idempotencyKey: "ann-b1-first" });
    await api.labelling.submit({ campaignId, itemNo: no, verdict: "failure", idempotencyKey: "ann-a1-first" });

    // After the submit, before the reveal was asked for (an attacker skipping the panel), and after it was shown.
    for (const moment of ["before the reveal", "revealed, undecided"]) {
      if (moment === "revealed, undecided") expect((await api.labelling.reveal({ campaignId, itemNo: no })).status).toBe("revealed");
      expect((await refusal(api.judge.verdicts.forTrajectory({ trajectoryId: a[1]! }))).code, moment).toBe("FORBIDDEN");
      const seen = [
        JSON.stringify(await api.labelling.item({ campaignId, itemNo: no })),
        JSON.stringify(await api.labelling.mine({ campaignId, itemNo: no })),
      ].join("\n");
      expect(seen, moment).not.toContain("OTHER-JUDGE-SECRET");
      expect(seen, moment).not.toContain("OTHER-RATIONALE-SECRET");
      expect(seen, moment).not.toContain("Otto Other");
    }

    // Decided: the blind rule as for any labelled trajectory.
    await api.labelling.decideReveal({ campaignId, itemNo: no, decision: "keep", reason: "the judge is wrong here" });
    const verdicts = JSON.stringify(await api.judge.verdicts.forTrajectory({ trajectoryId: a[1]! }));
    expect(verdicts).toContain("OTHER-JUDGE-SECRET");
    expect(verdicts).toContain(EVALUATOR_NAME);
    // The other annotator, who labelled a[1] but has not decided on its reveal, still sees nothing of it.
    expect((await refusal(otherApi.judge.verdicts.forTrajectory({ trajectoryId: a[1]! }))).code).toBe("FORBIDDEN");
  });

  it("a campaign's reveal evaluator must be an evaluator id, on a blind campaign that stays blind", async () => {
    const api = await callerAs(ctx, researcher);
    expect((await refusal(api.campaigns.create({ name: "Bad id", trajectoryIds: a, revealEvaluator: "judge 7" }))).message).toMatch(
      /^revealEvaluator: an evaluator id/,
    );
    expect((await refusal(api.campaigns.create({ name: "Not blind", trajectoryIds: a, blind: false, revealEvaluator: EVALUATOR }))).message).toMatch(
      /^revealEvaluator: .*needs a blind campaign/,
    );
    expect((await refusal(api.campaigns.update({ id: campaignId, blind: false }))).message).toMatch(/^blind: this campaign reveals an evaluator/);
  });
});

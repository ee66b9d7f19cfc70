/**
 * Blind → reveal → revise end to end through the API on every backend: two annotators label four trajectories
 * (four tasks) blind, see the judge, keep or revise; the judge-agreement measures and the blind/informed export
 * are checked against numbers worked by hand below.
 *
 *   judge:  t1 success, t2 failure, t3 failure, t4 success
 *   X:  t1 S → keep S      (agreed, stays)        t2 S → keep S   (disagreed, stays)
 *       t3 F → revise S    (agreed, flips away)   t4 F/"wrong element" → revise S (disagreed, flips toward)
 *   Y:  t1 F → revise S    (disagreed, toward)    t2 F → keep F   (agreed)
 *       t3 F → keep F      (agreed)               t4 S → revealed, not decided yet
 *
 *   revealed 8, decided 7, revised 3; toward 2 of 3 disagreements, away 1 of 4 agreements.
 *   κ before: human×judge [[SS 1, SF 1], [FS 2, FF 3]], P_o = 4/7, P_e = (2·3 + 5·4)/49 = 26/49 → κ = 2/23.
 *   κ after:  [[3, 2], [0, 2]], P_o = 5/7, P_e = (5·3 + 2·4)/49 = 23/49 → κ = 12/26 = 6/13.
 *   Category flips: failure → success ×2, failure "wrong element" → success ×1.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { getItemByTrajectory } from "../../db/repositories/annotation/campaigns";
import { upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import type { RequestSession } from "../../server/api/trpc";
import { parseRevealStages } from "../../server/domain/agreement/reveal-export";
import { seedTrajectories } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { callerAs, testUser } from "../helpers/trpc";

describeEachBackend("reveal measures and export", (backend) => {
  let ctx: TestContext;
  let researcher: RequestSession;
  let x: RequestSession;
  let y: RequestSession;
  let t: number[];
  let campaignId: number;

  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-reveal-measures-");
    researcher = await testUser(ctx, "researcher", "Rita Researcher");
    x = await testUser(ctx, "annotator", "Xena");
    y = await testUser(ctx, "annotator", "Yuri");
    t = await seedTrajectories(ctx.db, 4, { agentName: "agent-r" });
    const judge = ["success", "failure", "failure", "success"] as const;
    for (const [i, id] of t.entries()) {
      await upsertVerdict(ctx.db, {
        trajectoryId: id,
        kind: "judge",
        origin: "verdict",
        evaluatorKey: "judge:3",
        evaluatorName: "GPT judge",
        k: "1",
        promptVersion: "v2",
        verdict: judge[i]!,
        rationale: `judge on ${i + 1}`,
        stepIndices: [3],
      });
      // Another setting of the same judge, not the one the campaign reveals.
      await upsertVerdict(ctx.db, {
        trajectoryId: id,
        kind: "judge",
        origin: "verdict",
        evaluatorKey: "judge:3",
        evaluatorName: "GPT judge",
        k: "full",
        promptVersion: "v2",
        verdict: "failure",
      });
    }
    const api = await callerAs(ctx, researcher);
    campaignId = (
      await api.campaigns.create({
        name: "Calibration",
        trajectoryIds: t,
        annotatorsPerItem: 2,
        labelSchema: { categories: ["wrong element", "no answer"], requireCategory: false },
        annotatorIds: [x.userId, y.userId],
        revealEvaluator: "judge:3|1|v2",
      })
    ).id;
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  const itemNo = async (id: number) => (await getItemByTrajectory(ctx.db, campaignId, id))!.itemNo!;

  type Step = { blind: ["success" | "failure", string | null]; then: "keep" | ["success" | "failure", string | null] | null; reason?: string };
  async function label(who: RequestSession, plan: Step[]) {
    const api = await callerAs(ctx, who);
    for (const [i, s] of plan.entries()) {
      const no = await itemNo(t[i]!);
      await api.labelling.submit({ campaignId, itemNo: no, verdict: s.blind[0], category: s.blind[1], idempotencyKey: `${who.userId}-blind-${i}` });
      const shown = await api.labelling.reveal({ campaignId, itemNo: no });
      expect(shown.status).toBe("revealed");
      if (s.then === null) continue;
      if (s.then === "keep") await api.labelling.decideReveal({ campaignId, itemNo: no, decision: "keep", reason: s.reason ?? "I stand by it" });
      else
        await api.labelling.decideReveal({
          campaignId,
          itemNo: no,
          decision: "revise",
          verdict: s.then[0],
          category: s.then[1],
          reason: s.reason ?? "the judge saw it",
        });
    }
  }

  async function seedAnswers() {
    await label(x, [
      { blind: ["success", null], then: "keep" },
      { blind: ["success", null], then: "keep" },
      { blind: ["failure", null], then: ["success", null] },
      { blind: ["failure", "wrong element"], then: ["success", null], reason: "=SUM(A1) looks like a formula" },
    ]);
    await label(y, [
      { blind: ["failure", null], then: ["success", null] },
      { blind: ["failure", null], then: "keep" },
      { blind: ["failure", null], then: "keep" },
      { blind: ["success", null], then: null },
    ]);
  }

  it("flip rates, κ before and after with task-resampled intervals, and category flips match the hand-worked answers", async () => {
    await seedAnswers();
    const api = await callerAs(ctx, researcher);
    const r = await api.analytics.reveal({ campaignId });
    expect(r.evaluators).toHaveLength(1);
    const [e] = r.evaluators;
    expect(e!.evaluatorId).toBe("judge:3|1|v2");
    expect(e!.evaluatorName).toBe("GPT judge · k = 1");
    expect(e!.annotators).toBe(2);
    const m = e!.measures;
    expect([m.revealed, m.decided, m.revised, m.evaluatorUndecided]).toEqual([8, 7, 3, 0]);
    expect([m.flipToward.successes, m.flipToward.n]).toEqual([2, 3]);
    expect([m.flipAway.successes, m.flipAway.n]).toEqual([1, 4]);
    expect(m.kappaPairs).toBe(7);
    expect(m.kappaTasks).toBe(4);
    expect(m.kappaBefore.estimate.kappa).toBeCloseTo(2 / 23, 10);
    expect(m.kappaAfter.estimate.kappa).toBeCloseTo(6 / 13, 10);
    expect(m.kappaChange.estimate).toBeCloseTo(6 / 13 - 2 / 23, 10);
    expect(m.kappaBefore.low).not.toBeNull();
    expect(m.kappaAfter.high).not.toBeNull();
    expect(m.categoryFlips).toEqual([
      { fromVerdict: "failure", fromCategory: null, toVerdict: "success", toCategory: null, count: 2 },
      { fromVerdict: "failure", fromCategory: "wrong element", toVerdict: "success", toCategory: null, count: 1 },
    ]);
    // Every campaign together gives the same here (one campaign has reveals).
    expect((await api.analytics.reveal({})).evaluators[0]!.measures.flipToward.successes).toBe(2);
  });

  it("an empty campaign gives no evaluators (the view's empty state)", async () => {
    const api = await callerAs(ctx, researcher);
    expect((await api.analytics.reveal({ campaignId })).evaluators).toEqual([]);
  });

  it("export: one row per trajectory, reviewer and stage, CSV and JSONL, reading back to the stored stages", async () => {
    await seedAnswers();
    const api = await callerAs(ctx, researcher);
    const csv = await api.campaigns.exportRevealStages({ id: campaignId, format: "csv" });
    expect(csv.fileName).toBe("calibration-reveal-stages.csv");
    const rows = parseRevealStages(csv.body, "csv", csv.fileName);
    expect(rows).toHaveLength(8 + 7);
    expect(rows.filter((r) => r.stage === "blind")).toHaveLength(8);
    const xt4 = rows.filter((r) => r.trajectoryId === t[3] && r.reviewer === "Xena");
    expect(xt4.map((r) => [r.stage, r.verdict, r.category, r.decision, r.evaluatorShown, r.evaluatorVerdict, r.reasoning])).toEqual([
      ["blind", "failure", "wrong element", null, null, null, null],
      ["informed", "success", null, "revise", "GPT judge · k = 1", "success", "=SUM(A1) looks like a formula"],
    ]);
    expect(Date.parse(xt4[1]!.at)).toBeGreaterThanOrEqual(Date.parse(xt4[0]!.at));
    // Y's undecided item has its blind row only.
    expect(rows.filter((r) => r.trajectoryId === t[3] && r.reviewer === "Yuri").map((r) => r.stage)).toEqual(["blind"]);
    const jsonl = await api.campaigns.exportRevealStages({ id: campaignId, format: "jsonl" });
    expect(parseRevealStages(jsonl.body, "jsonl", jsonl.fileName)).toEqual(rows);
  });
});

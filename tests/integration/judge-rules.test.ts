import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { listVerdicts } from "../../db/repositories/evaluation/verdicts";
import { VWA_RULES_VERSION } from "../../server/domain/evaluation/vwa/evaluate";
import { createJudgeConfig } from "../../server/services/evaluation/judge-configs";
import { evaluateRuleVerdicts, VWA_RULES_EVALUATOR_KEY } from "../../server/services/evaluation/rules";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { LOCAL_JUDGE_ENV, LOCAL_JUDGE_SETTINGS, seedTrajectories } from "../helpers/judge-fixtures";

describeEachBackend("rule verdicts", (backend) => {
  let ctx: TestContext;
  let fake: FakeOpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => fake.close());
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-rules-");
    fake.requests.length = 0;
    fake.setResponder(() => ({ reply: "The reasons agree.\nMatch: YES" }));
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  const deps = () => ({ db: ctx.db, env: LOCAL_JUDGE_ENV, retryPolicy: { baseDelayMs: 5, maxDelayMs: 20 } });

  describe("rule-based verdicts on recorded trajectories", () => {
    it("stores VWA rule verdicts per trajectory, with per-check details and not_evaluable reasons", async () => {
      const trajs = await seedTrajectories(ctx, [
        {
          steps: 2,
          finalAnswer: "It was posted on 1985/04/18.",
          evaluatorConfig: { eval_types: ["string_match"], reference_answers: { must_include: ["1985/04/18"] } },
        },
        { steps: 2, finalAnswer: "1985/04/17", evaluatorConfig: { eval_types: ["string_match"], reference_answers: { must_include: ["1985/04/18"] } } },
        {
          steps: 2,
          urls: ["http://127.0.0.1:9999/f/food", "http://127.0.0.1:9999/f/food/82896/my-post"],
          evaluatorConfig: { eval_types: ["url_match"], reference_url: "__REDDIT__/f/food/82896", url_note: "GOLD in PRED" },
        },
        {
          steps: 1,
          evaluatorConfig: { eval_types: ["program_html"], program_html: [{ url: "last", locator: "", required_contents: { must_include: ["x"] } }] },
        },
        { steps: 1, evaluatorConfig: null },
        { steps: 1, evaluatorConfig: { eval_types: ["string_match"], reference_answers: null } },
      ]);
      const report = await evaluateRuleVerdicts(deps(), { trajectoryIds: trajs.map((t) => t.id) });
      expect(report).toMatchObject({ considered: 6, evaluated: 5, noRuleConfig: 1, byVerdict: { success: 2, failure: 1, not_evaluable: 2 }, errors: [] });
      const byTraj = new Map((await listVerdicts(ctx.db, { evaluatorKey: VWA_RULES_EVALUATOR_KEY })).map((v) => [v.trajectoryId, v]));
      expect(byTraj.get(trajs[0]!.id)).toMatchObject({
        kind: "rule",
        origin: "verdict",
        verdict: "success",
        score: 1,
        k: "",
        promptVersion: VWA_RULES_VERSION,
      });
      const failed = byTraj.get(trajs[1]!.id)!;
      expect(failed).toMatchObject({ verdict: "failure", score: 0 });
      expect(failed.rationale).toBe('string_match: fail (must_include "1985/04/18" vs "1985/04/17")');
      expect(byTraj.get(trajs[2]!.id)!.verdict).toBe("success");
      const live = byTraj.get(trajs[3]!.id)!;
      expect(live).toMatchObject({ verdict: "not_evaluable", score: null });
      expect((live.details as { reason: string }).reason).toMatch(/program_html runs JavaScript locators/);
      const broken = byTraj.get(trajs[5]!.id)!;
      expect(broken.verdict).toBe("not_evaluable");
      expect(broken.rationale).toMatch(/reference_answers.*string_match needs a reference_answers object/);
      expect(byTraj.has(trajs[4]!.id)).toBe(false);

      const again = await evaluateRuleVerdicts(deps(), { trajectoryIds: trajs.map((t) => t.id) });
      expect(again).toMatchObject({ evaluated: 0, skippedExisting: 5 });
      const forced = await evaluateRuleVerdicts(deps(), { trajectoryIds: trajs.map((t) => t.id), force: true, siteUrls: { REDDIT: "http://elsewhere:1" } });
      expect(forced.evaluated).toBe(5);
      expect(await listVerdicts(ctx.db, { evaluatorKey: VWA_RULES_EVALUATOR_KEY })).toHaveLength(5);
      // With the real site URL known and different, the URL no longer matches.
      expect((await listVerdicts(ctx.db, { trajectoryId: trajs[2]!.id }))[0]!.verdict).toBe("failure");
    });

    it("grades unachievable and fuzzy checks through a judge configuration, recording its calls", async () => {
      const judge = await createJudgeConfig(
        ctx.db,
        { name: "fuzzy", baseUrl: fake.baseUrl, model: "grader", priceInputPerMTok: 1, priceOutputPerMTok: 1 },
        LOCAL_JUDGE_SETTINGS,
      );
      const unachievable = { eval_types: ["string_match"], reference_answers: { fuzzy_match: "N/A" }, string_note: "the store sells no purple kettles" };
      const trajs = await seedTrajectories(ctx, [
        { steps: 1, finalAnswer: "N/A", evaluatorConfig: unachievable },
        { steps: 1, finalAnswer: "I could not find any purple kettle", evaluatorConfig: unachievable, intent: "Buy a purple kettle" },
        { steps: 1, finalAnswer: "gave up", evaluatorConfig: unachievable },
      ]);
      fake.script([{ reply: "Match: YES" }, { reply: "Not sure." }]);
      const report = await evaluateRuleVerdicts(deps(), { trajectoryIds: trajs.map((t) => t.id), fuzzyConfig: judge.name });
      expect(report.byVerdict).toEqual({ success: 2, failure: 0, not_evaluable: 1 });
      // "N/A" needs no call; the other two each make one text-only call.
      expect(fake.requests).toHaveLength(2);
      expect(fake.requests[0]!.imageHashes).toEqual([]);
      expect(fake.requests[0]!.body.model).toBe("grader");
      expect(fake.requests[0]!.texts.join("\n")).toContain("Known reason it cannot be done: the store sells no purple kettles");
      expect(fake.requests[0]!.texts.join("\n")).toContain("Agent's reported reason: i could not find any purple kettle");
      const graded = (await listVerdicts(ctx.db, { trajectoryId: trajs[1]!.id }))[0]!;
      expect(graded).toMatchObject({ verdict: "success", inputTokens: 500, outputTokens: 60, costUsd: 560 / 1e6 });
      expect(graded.details).toMatchObject({ fuzzyJudge: "fuzzy", fuzzyCalls: 1 });
      expect((await listVerdicts(ctx.db, { trajectoryId: trajs[0]!.id }))[0]!.inputTokens).toBeNull();
      const unsure = (await listVerdicts(ctx.db, { trajectoryId: trajs[2]!.id }))[0]!;
      expect(unsure.verdict).toBe("not_evaluable");
      expect(unsure.rationale).toMatch(/judge reply unparseable: Not sure/);
    });

    it("stores nothing for a trajectory whose fuzzy call fails, and reports it", async () => {
      const judge = await createJudgeConfig(ctx.db, { name: "down", baseUrl: fake.baseUrl, model: "grader", maxRetries: 1 }, LOCAL_JUDGE_SETTINGS);
      const trajs = await seedTrajectories(ctx, [
        { steps: 1, finalAnswer: "nope", evaluatorConfig: { eval_types: ["string_match"], reference_answers: { fuzzy_match: ["paris"] } } },
      ]);
      fake.setResponder(() => ({ status: 500 }));
      const report = await evaluateRuleVerdicts(deps(), { trajectoryIds: [trajs[0]!.id], fuzzyConfig: judge.id });
      expect(report.evaluated).toBe(0);
      expect(report.errors[0]!.error).toMatch(/judge call failed after 2 attempts: HTTP 500/);
      expect(await listVerdicts(ctx.db)).toHaveLength(0);
    });
  });
});

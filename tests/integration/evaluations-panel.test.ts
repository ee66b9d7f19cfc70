/**
 * The player's evaluations panel (`judge.verdicts.panel`): what a researcher sees of one trajectory, and what
 * the blind rule leaves an annotator before and after they label it. Real SQLite, real rule evaluation, accounts
 * through better-auth, calls through the tRPC router.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { createCaller } from "../../server/api/root";
import type { Actor } from "../../server/domain/access/actor";
import { adjudicate, createCampaign, submitLabel } from "../../server/services/annotation";
import { evaluateRuleVerdicts } from "../../server/services/evaluation/rules";
import type { TestContext } from "../helpers/context";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { makeActor } from "../helpers/annotation-fixture";
import { seedTrajectories } from "../helpers/judge-fixtures";

describeEachBackend("evaluations panel", (backend) => {
  let ctx: TestContext;
  let researcher: Actor;
  let ann: Actor;
  let other: Actor;
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-evaluations-panel-");
    researcher = await makeActor(ctx, "Rita Researcher", "researcher");
    ann = await makeActor(ctx, "Annie Annotator", "annotator");
    other = await makeActor(ctx, "Otto Other", "annotator");
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  function api(actor: Actor) {
    return createCaller({ ...ctx, headers: new Headers(), session: { ...actor, email: `${actor.userId}@test.example` } });
  }

  let keySeq = 0;
  async function label(
    actor: Actor,
    campaignId: number,
    trajectoryId: number,
    v: { verdict: "success" | "failure"; category?: string | null; note?: string; firstFailingStep?: number | null },
  ) {
    return submitLabel(ctx.db, actor, { campaignId, trajectoryId, category: null, ...v, idempotencyKey: `panel-key-${++keySeq}` });
  }

  const MUST_INCLUDE = { eval_types: ["string_match"], reference_answers: { must_include: ["1985/04/18"] } };

  /** One five-step trajectory (step 3 has no screenshot) with a rule result, two judge verdicts and an imported one. */
  async function seedEvaluated() {
    const [t] = await seedTrajectories(ctx, [{ steps: 5, missingScreenshots: [2], finalAnswer: "1985/04/17", evaluatorConfig: MUST_INCLUDE }]);
    const id = t!.id;
    await evaluateRuleVerdicts({ db: ctx.db, env: {} }, { trajectoryIds: [id], force: true });
    await upsertVerdict(ctx.db, {
      trajectoryId: id,
      kind: "judge",
      origin: "verdict",
      evaluatorKey: "judge:9",
      evaluatorName: "GPT judge",
      k: "3",
      promptVersion: "verdict-judge-v1",
      verdict: "failure",
      rationale: "The date differs.",
      rawReply: "Reasoning: The date differs.\nVerdict: FAILURE",
    });
    await upsertVerdict(ctx.db, {
      trajectoryId: id,
      kind: "judge",
      origin: "verdict",
      evaluatorKey: "judge:9",
      evaluatorName: "GPT judge",
      k: "1",
      promptVersion: "verdict-judge-v1",
      stepIndices: [4],
      verdict: "success",
      rationale: "Looks done.",
    });
    await upsertVerdict(ctx.db, {
      trajectoryId: id,
      kind: "judge",
      origin: "import",
      evaluatorKey: "import:webvoyager:auto-eval",
      evaluatorName: "WebVoyager auto-eval",
      k: "full",
      verdict: "failure",
      rawReply: '{"verdict":"NOT SUCCESS"}',
    });
    return id;
  }

  describe("evaluations beside the trajectory", () => {
    it("shows a researcher every verdict with the steps each judge saw, the rule it checked, labels with history and the consolidated label", async () => {
      const id = await seedEvaluated();
      const campaign = await createCampaign(ctx.db, researcher, {
        name: "Panel",
        trajectoryIds: [id],
        annotatorsPerItem: 2,
        annotatorIds: [ann.userId, other.userId],
      });
      await label(ann, campaign.id, id, { verdict: "success" });
      await label(ann, campaign.id, id, { verdict: "failure", category: "other", firstFailingStep: 4, note: "wrong date" });
      await label(other, campaign.id, id, { verdict: "success" });
      await adjudicate(ctx.db, researcher, {
        campaignId: campaign.id,
        trajectoryId: id,
        verdict: "failure",
        category: "other",
        firstFailingStep: 4,
        reason: "The answer has the wrong day",
      });

      const view = await api(researcher).judge.verdicts.panel({ trajectoryId: id });
      if (view.hidden) throw new Error("a researcher should see the evaluations");
      const byKey = (key: string, k: string) => view.verdicts.find((v) => v.evaluatorKey === key && v.k === k)!;

      const rule = byKey("rule:vwa", "");
      expect(rule).toMatchObject({ kind: "rule", verdict: "failure", window: { kind: "none" } });
      expect(view.ruleConfig).toEqual(MUST_INCLUDE);
      // k = 3 over five steps whose third has no screenshot: positions 1, 3 and 4 (steps 2, 4 and 5).
      expect(byKey("judge:9", "3")).toMatchObject({
        verdict: "failure",
        promptVersion: "verdict-judge-v1",
        rawReply: "Reasoning: The date differs.\nVerdict: FAILURE",
        window: { kind: "steps", positions: [1, 3, 4], source: "from-k" },
      });
      expect(byKey("judge:9", "1").window).toEqual({ kind: "steps", positions: [4], source: "recorded" });
      expect(byKey("import:webvoyager:auto-eval", "full")).toMatchObject({ origin: "import", window: { kind: "steps", positions: [0, 1, 3, 4] } });

      const annie = view.labels.find((l) => l.annotatorName === ann.name)!;
      expect(annie).toMatchObject({ verdict: "failure", category: "other", firstFailingStep: 4, note: "wrong date", revision: 2 });
      expect(annie.history.map((h) => [h.revision, h.values.verdict])).toEqual([
        [1, "success"],
        [2, "failure"],
      ]);
      expect(view.labels).toHaveLength(2);
      expect(view.consolidated).toHaveLength(1);
      expect(view.consolidated[0]).toMatchObject({
        campaignName: "Panel",
        verdict: "failure",
        method: "adjudicated",
        adjudicatorName: researcher.name,
        reason: "The answer has the wrong day",
        itemState: "adjudicated",
      });
      expect(view.consolidated[0]!.history.at(-1)).toMatchObject({ state: "adjudicated", actorName: researcher.name });
    });

    it("tells a researcher where the trajectory stands in each campaign (disputed), and annotators nothing of it (review 2, #25)", async () => {
      const id = await seedEvaluated();
      const campaign = await createCampaign(ctx.db, researcher, {
        name: "Split",
        trajectoryIds: [id],
        annotatorsPerItem: 2,
        annotatorIds: [ann.userId, other.userId],
      });
      await label(ann, campaign.id, id, { verdict: "failure", category: "other" });
      await label(other, campaign.id, id, { verdict: "success" });
      const view = await api(researcher).judge.verdicts.panel({ trajectoryId: id });
      if (view.hidden) throw new Error("a researcher should see the evaluations");
      expect(view.items).toEqual([{ campaignId: campaign.id, campaignName: "Split", trajectoryId: id, state: "disputed", qaReviewed: false }]);
      const annotator = await api(ann).judge.verdicts.panel({ trajectoryId: id });
      if (annotator.hidden) throw new Error("the annotator has labelled; evaluations should show");
      expect(annotator.items).toEqual([]);
    });

    it("refuses a blind annotator the evaluations of a trajectory they have not labelled, and shows them once they have", async () => {
      const id = await seedEvaluated();
      const campaign = await createCampaign(ctx.db, researcher, {
        name: "Blind",
        trajectoryIds: [id],
        annotatorsPerItem: 2,
        annotatorIds: [ann.userId, other.userId],
      });
      await label(other, campaign.id, id, { verdict: "success", note: "Otto's secret note" });

      // Before their label the trajectory is theirs only as a campaign item: asked by id, the panel is refused, and
      // the refusal carries nothing of the verdicts or the other label.
      const before = await api(ann)
        .judge.verdicts.panel({ trajectoryId: id })
        .then(
          () => null,
          (e: { code?: string; message?: string }) => e,
        );
      expect(before?.code).toBe("FORBIDDEN");
      expect(JSON.stringify(before?.message)).not.toMatch(/GPT judge|date differs|Otto/);

      await label(ann, campaign.id, id, { verdict: "failure", category: "other" });
      const after = await api(ann).judge.verdicts.panel({ trajectoryId: id });
      if (after.hidden) throw new Error("the annotator has labelled; evaluations should show");
      expect(after.verdicts.map((v) => v.evaluatorName).sort()).toEqual(["GPT judge", "GPT judge", "VisualWebArena rules", "WebVoyager auto-eval"]);
      expect(after.labels.map((l) => [l.annotatorName, l.own])).toEqual([
        [other.name, false],
        [ann.name, true],
      ]);
    });

    it("refuses an annotator a trajectory outside their campaigns", async () => {
      const id = await seedEvaluated();
      await expect(api(ann).judge.verdicts.panel({ trajectoryId: id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    });
  });
});

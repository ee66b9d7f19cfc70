/**
 * Consensus models on the human-agreement view, through the tRPC router on the hand-worked analytics fixture
 * (tests/helpers/analytics-fixture.ts): at the verdict level the majority is clear on every trajectory but T9
 * (ann success, bob failure, cy unsure: a tie), and cy is the only annotator who goes against the majority
 * (T2, T5, T10), so both models must rate cy below ann and bob.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type createCaller } from "../../server/api/root";
import { prepareConsensus } from "../../app/analytics/_lib/humans";
import { tableToCsv } from "../../app/analytics/_lib/table";
import { sql } from "drizzle-orm";
import { rawRun } from "../../db/database";
import type { TestContext } from "../helpers/context";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { callerWithRole } from "../helpers/trpc";
import { seedAnalyticsFixture, type AnalyticsFixture } from "../helpers/analytics-fixture";

describeEachBackend("human consensus", (backend) => {
  let ctx: TestContext;
  let fx: AnalyticsFixture;
  let api: ReturnType<typeof createCaller>;

  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-consensus-");
    fx = await seedAnalyticsFixture(ctx.db);
    api = await callerWithRole(ctx, "researcher");
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  describe("human consensus models", () => {
    it("rates the annotator who leaves the majority lowest and lists the tied trajectory", async () => {
      const c = await api.analytics.humanConsensus({ campaignId: fx.campaignId, level: "verdict" });
      expect(c.classes).toEqual(["success", "failure"]);
      expect(c.items).toBe(12);
      expect(c.noMajority).toBe(1);
      const by = Object.fromEntries(c.annotators.map((a) => [a.name, a]));
      expect([by.ann!.labels, by.bob!.labels, by.cy!.labels]).toEqual([12, 11, 10]);
      // ann and bob side with every majority they meet; cy with 7 of 10.
      expect([by.ann!.majorityAgreement, by.bob!.majorityAgreement, by.cy!.majorityAgreement]).toEqual([1, 1, 0.7]);
      expect(by.cy!.accuracy!).toBeLessThan(Math.min(by.ann!.accuracy!, by.bob!.accuracy!));
      expect(by.cy!.competence!).toBeLessThan(Math.min(by.ann!.competence!, by.bob!.competence!));
      expect(c.dawidSkene.converged && c.mace.converged).toBe(true);
      const t9 = c.departures.find((d) => d.trajectoryId === fx.ids.T9);
      expect(t9).toBeDefined();
      expect(t9!.majority).toBeNull();
      expect(t9!.labels.map((l) => l.verdict).sort()).toEqual(["failure", "success", "unsure"]);
      expect(c.departuresTotal).toBeGreaterThanOrEqual(1);
      expect(c.dawidSkene.classPrior.reduce((s, p) => s + p.share, 0)).toBeCloseTo(1, 10);
    });

    it("follows a label write and a gold item, after a view has fitted the labels before them", async () => {
      const cy = async () => (await api.analytics.humanConsensus({ campaignId: fx.campaignId, level: "verdict" })).annotators.find((a) => a.name === "cy")!;
      expect((await cy()).majorityAgreement).toBeCloseTo(0.7, 12);
      // cy changes T2 from success to failure (navigation stuck), joining the majority.
      await rawRun(
        ctx.db,
        sql`update labels set verdict = 'failure', category = 'navigation stuck' where trajectory_id = ${fx.ids.T2} and annotator_name = 'cy'`,
      );
      expect((await cy()).majorityAgreement).toBeCloseTo(0.8, 12);
      // T2 made a gold item (no change counter follows gold items): it leaves the fit, and cy's label on it with it.
      await rawRun(
        ctx.db,
        sql`insert into gold_items (item_id, campaign_id, verdict, category, source)
            select id, campaign_id, 'failure', 'navigation stuck', 'marked' from campaign_items where campaign_id = ${fx.campaignId} and trajectory_id = ${fx.ids.T2}`,
      );
      const after = await cy();
      expect(after.labels).toBe(9);
      expect(after.majorityAgreement).toBeCloseTo(7 / 9, 12);
    });

    it("works on the combined label with every error category as a class, and exports its tables", async () => {
      const c = await api.analytics.humanConsensus({ campaignId: fx.campaignId, level: "label" });
      expect(c.classes[0]).toBe("success");
      expect(c.classes).toContain("failure: navigation stuck");
      expect(c.classes).toContain("failure (no category)");
      const view = prepareConsensus(c);
      expect(view.annotators.rows).toHaveLength(3);
      const csv = tableToCsv(view.departures);
      expect(csv.split("\n")[0]).toContain("dawid_skene_posterior");
    });

    it("says which campaign is missing", async () => {
      await expect(api.analytics.humanConsensus({ campaignId: 9999, level: "verdict" })).rejects.toThrow(/campaign/);
    });
  });
});

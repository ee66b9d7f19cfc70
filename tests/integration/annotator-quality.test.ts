/**
 * The annotator quality view on a real SQLite database, every figure worked by hand from a small campaign:
 * three annotators, four items and one gold item.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "../../server/domain/access/actor";
import { annotatorQuality } from "../../server/services/analytics/annotator-quality";
import { createCampaign, markGold, submitLabel } from "../../server/services/annotation";
import type { TestContext } from "../helpers/context";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { wilson95 } from "../helpers/intervals";
import { callerAs, testUser } from "../helpers/trpc";
import { makeActor, seedTrajectories } from "../helpers/annotation-fixture";

describeEachBackend("annotator quality", (backend) => {
  let ctx: TestContext;
  let researcher: Actor;
  let A: Actor, B: Actor, C: Actor;
  let campaignId: number;
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-annotator-quality-");
    researcher = await makeActor(ctx, "Rita Researcher", "researcher");
    A = await makeActor(ctx, "Ann", "annotator");
    B = await makeActor(ctx, "Ben", "annotator");
    C = await makeActor(ctx, "Cat", "annotator");
    const ids = await seedTrajectories(ctx.db, 5);
    campaignId = (
      await createCampaign(ctx.db, researcher, { name: "Quality", trajectoryIds: ids, annotatorIds: [A, B, C].map((a) => a.userId), annotatorsPerItem: 3 })
    ).id;
    await markGold(ctx.db, researcher, { campaignId, trajectoryId: ids[4]!, verdict: "success" });
    const S = { verdict: "success" };
    const F = (category: string) => ({ verdict: "failure", category });
    // Rows: items 1–4 then the gold item; columns: A, B, C. Seconds spent; A opened steps 1 and 2 of 4 each time.
    const plan: [Actor, number, { verdict: string; category?: string }, number][] = [
      [A, 0, S, 5],
      [B, 0, S, 60],
      [C, 0, F("other"), 60],
      [A, 1, F("hallucination"), 20],
      [B, 1, F("hallucination"), 60],
      [C, 1, F("other"), 60],
      [A, 2, S, 40],
      [B, 2, F("other"), 60],
      [C, 2, F("other"), 60],
      [A, 3, S, 8],
      [B, 3, S, 60],
      [C, 3, S, 60],
      [A, 4, S, 30],
      [B, 4, F("other"), 60],
      [C, 4, S, 60],
    ];
    let t = 1_700_000_000_000;
    for (const [who, i, v, s] of plan) {
      await submitLabel(
        ctx.db,
        who,
        { campaignId, trajectoryId: ids[i]!, ...v, timeSpentMs: s * 1000, stepsViewed: [0, 1], idempotencyKey: `quality-${(t += 1000)}` },
        { now: t },
      );
    }
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  describe("annotator quality", () => {
    it("computes every figure as worked by hand", async () => {
      const q = await annotatorQuality(ctx.db, { campaignId, model: "majority", tooFastMs: 10_000, window: 2 });
      const ann = q.annotators.find((a) => a.name === "Ann")!;
      const ben = q.annotators.find((a) => a.name === "Ben")!;
      const cat = q.annotators.find((a) => a.name === "Cat")!;
      expect(ann.labels).toBe(5);
      // Time: 5, 8, 20, 30, 40 s → median 20 s, quartiles 8 s and 30 s, two labels under 10 s.
      expect(ann.time).toMatchObject({ timed: 5, medianMs: 20_000, p25Ms: 8_000, p75Ms: 30_000, tooFast: 2 });
      // Bins < 10 s, 10–30 s, 30 s–1 min, …: 5 and 8; 20; 30 and 40.
      expect(ann.time.histogram.map((h) => h.count)).toEqual([2, 1, 2, 0, 0, 0, 0]);
      expect(ann.steps).toEqual({ recorded: 5, medianOpened: 2, medianShare: 0.5 });
      // Majority consensus (gold left out): items 1 success, 2 failure, 3 failure, 4 success.
      // Ann agrees on 1, 2, 4 (3 of 4); Ben on all four; Cat on 2, 3, 4.
      expect(ann.consensus).toMatchObject(wilson95(3, 4));
      expect(ben.consensus).toMatchObject(wilson95(4, 4));
      expect(cat.consensus).toMatchObject(wilson95(3, 4));
      // Drift, window 2, Ann's outcomes in label order 1, 1, 0, 1.
      expect(ann.drift).toEqual([
        { n: 1, rate: 1 },
        { n: 2, rate: 1 },
        { n: 3, rate: 0.5 },
        { n: 4, rate: 0.5 },
      ]);
      // Categories of failures: Ann 1 × hallucination; everyone 2 × hallucination, 5 × other (gold labels count here).
      expect(ann.categories.rows).toEqual([
        { category: "hallucination", own: 1, pooled: 2 / 7 },
        { category: "other", own: 0, pooled: 5 / 7 },
      ]);
      expect(ann.categories.distance).toBeCloseTo(5 / 7, 12);
      // Gold: Ann and Cat right, Ben wrong.
      expect(ann.gold).toMatchObject({ answered: 1, correct: 1 });
      expect(ben.gold).toMatchObject({ answered: 1, correct: 0, accuracy: wilson95(0, 1) });
      // κ Ann–Ben over items 1–4: Ann S F S S, Ben S F F S → table [[2, 1], [0, 1]], p_o = 3/4, p_e = 3/4·2/4 + 1/4·2/4 = 1/2, κ = 1/2.
      const ab = q.pairs.find((p) => p.a === "Ann" && p.b === "Ben")!;
      expect(ab.n).toBe(4);
      expect(ab.kappa).toBeCloseTo(0.5, 12);
      // Fleiss–Cohen–Everitt SE worked by hand for this table: 3/8; the Wald bounds κ ± 1.96·SE, not clipped.
      expect(ab.stdKappa).toBeCloseTo(0.375, 12);
      expect(ab.waldLow).toBeCloseTo(-0.2349865, 6);
      expect(ab.waldHigh).toBeCloseTo(1.2349865, 6);
      expect(ab.interval).toMatchObject({ method: null, note: "no interval (n = 4)" });
      expect(q.pairs).toHaveLength(3);
    });

    it("with Dawid–Skene or MACE as the consensus, and across campaigns (no gold column there)", async () => {
      const ds = await annotatorQuality(ctx.db, { campaignId, model: "dawid_skene", tooFastMs: 10_000, window: 20 });
      // Every item here has a clear majority that both models keep: the same agreement as with the vote.
      expect(ds.annotators.map((a) => a.consensus.successes)).toEqual([3, 4, 3]);
      const mc = await annotatorQuality(ctx.db, { campaignId, model: "mace", tooFastMs: 10_000, window: 20 });
      expect(mc.annotators.map((a) => a.consensus.n)).toEqual([4, 4, 4]);
      const all = await annotatorQuality(ctx.db, { campaignId: null, model: "majority", tooFastMs: 10_000, window: 20 });
      expect(all.annotators.map((a) => [a.name, a.labels, a.gold])).toEqual([
        ["Ann", 5, null],
        ["Ben", 5, null],
        ["Cat", 5, null],
      ]);
    });

    it("is for researchers only", async () => {
      const annotator = await testUser(ctx, "annotator", "Nosy Annotator");
      await expect((await callerAs(ctx, annotator)).quality.annotators({ campaignId })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect((await callerAs(ctx, annotator)).quality.gold({ campaignId })).rejects.toMatchObject({ code: "FORBIDDEN" });
      const r = await testUser(ctx, "researcher", "Another Researcher");
      expect((await (await callerAs(ctx, r)).quality.annotators({ campaignId })).annotators).toHaveLength(3);
    });
  });
});

/**
 * Every annotator's own-label reference computed in one pass (getAnnotatorReferences, the judge page's table of
 * references) equals the same reference computed alone (getReferenceFor with that annotator), on both engines:
 * with a second campaign that relabels some trajectories (the latest campaign's label wins, or only the chosen
 * campaign's), with an annotator who labelled in one campaign only, and after a label changes.
 */
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { rawRun } from "../../db/database";
import { getItemByTrajectory, importedAnnotatorKey, insertCampaign, insertCampaignItems } from "../../db/repositories/annotation/campaigns";
import { insertLabel } from "../../db/repositories/annotation/labels";
import { defaultLabelSchema } from "../../server/domain/annotation/label-schema";
import { getAnnotatorReferences, getReferenceFor } from "../../server/services/analytics/references";
import type { TestContext } from "../helpers/context";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { seedAnalyticsRows, type AnalyticsFixture } from "../helpers/analytics-fixture";

describeEachBackend("annotator references computed together", (backend) => {
  let ctx: TestContext;
  let fx: AnalyticsFixture;
  let second: number;

  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-annotator-refs-");
    fx = await seedAnalyticsRows(ctx.db);
    second = await insertCampaign(ctx.db, {
      name: "Second campaign",
      labelSchema: { ...defaultLabelSchema(), allowUnsure: true, requireCategory: false },
      annotatorsPerItem: 2,
      selection: { description: "a relabelled part" },
      origin: "import",
    });
    const relabelled = ["T1", "T2", "T3", "T5"].map((name) => fx.ids[name]!);
    await insertCampaignItems(ctx.db, second, relabelled);
    for (const [k, trajectoryId] of relabelled.entries()) {
      const itemId = (await getItemByTrajectory(ctx.db, second, trajectoryId))!.id;
      // One annotator of the first campaign and one who labels only here; verdicts and categories that differ.
      for (const name of k % 2 ? ["Newcomer"] : ["Newcomer", "ann"]) {
        const failure = (k + name.length) % 2 === 0;
        await insertLabel(ctx.db, {
          campaignId: second,
          itemId,
          trajectoryId,
          annotatorKey: importedAnnotatorKey(name),
          annotatorName: name,
          origin: "import",
          verdict: failure ? "failure" : "success",
          category: failure ? "navigation_error" : null,
          firstFailingStep: failure ? k : null,
        });
      }
    }
  });
  afterEach(async () => ctx.cleanup());

  async function expectEachEqualsAlone(campaignId: number | undefined, what: string): Promise<number> {
    const together = await getAnnotatorReferences(ctx.db, campaignId);
    for (const { annotator, ref } of together)
      expect(ref, `${annotator.name}, ${what}`).toStrictEqual(await getReferenceFor(ctx.db, campaignId, { kind: "annotator", annotator: annotator.key }));
    return together.length;
  }

  it("gives each annotator the reference computed alone, for the latest campaign and for each campaign, before and after a label", async () => {
    expect(await expectEachEqualsAlone(undefined, "latest campaign")).toBe(4);
    expect(await expectEachEqualsAlone(fx.campaignId, "first campaign")).toBe(3);
    expect(await expectEachEqualsAlone(second, "second campaign")).toBe(2);
    await rawRun(
      ctx.db,
      sql`update labels set verdict = 'success', category = null, first_failing_step = null where campaign_id = ${second} and verdict = 'failure'`,
    );
    expect(await expectEachEqualsAlone(undefined, "after a label")).toBe(4);
    expect(await expectEachEqualsAlone(second, "second campaign after a label")).toBe(2);
  });
});

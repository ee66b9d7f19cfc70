/**
 * Shareable reports as an attacker would try them: an annotator may not build one at all, and a researcher who still
 * labels some trajectories blind gets a report of only what they may browse, with no judge verdict, rationale, human
 * label or agreement figure in any of its files, and may not select by verdicts either.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { tablesOf } from "../../db/database";
import type { Actor } from "../../server/domain/access/actor";
import { createCampaign, nextItem, submitItemLabel } from "../../server/services/annotation";
import { buildReport } from "../../server/services/trajectories/static-report";
import { makeActor } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { seedTrajectories } from "../helpers/judge-fixtures";

const JUDGE_SECRET = "judge-rationale-that-must-not-leak";

describeEachBackend("shareable reports and the blind", (backend) => {
  let ctx: TestContext;
  const people: Record<"researcher" | "blindResearcher" | "annotator", Actor> = {} as never;

  beforeAll(async () => {
    ctx = await createBackendContext(backend);
    people.researcher = await makeActor(ctx, "Rita", "researcher");
    people.blindResearcher = await makeActor(ctx, "Bea", "researcher");
    people.annotator = await makeActor(ctx, "Ann", "annotator");
    const seeded = await seedTrajectories(ctx, [{ steps: 2 }, { steps: 2 }, { steps: 2 }], "report-security");
    const { evaluatorVerdicts } = tablesOf(ctx.db);
    for (const t of seeded) {
      await ctx.db.insert(evaluatorVerdicts).values({
        trajectoryId: t.id,
        kind: "judge",
        origin: "verdict",
        evaluatorKey: "judge:1",
        evaluatorName: "Judge",
        verdict: "failure",
        rationale: JUDGE_SECRET,
      });
    }
    const campaign = await createCampaign(ctx.db, people.researcher, {
      name: "Blind campaign",
      trajectoryIds: [seeded[0]!.id, seeded[1]!.id],
      annotatorsPerItem: 1,
      annotatorIds: [people.blindResearcher.userId, people.annotator.userId],
    });
    // Bea labels one of her two items: the other stays blind for her.
    const item = (await nextItem(ctx.db, people.blindResearcher, campaign.id))!;
    await submitItemLabel(ctx.db, people.blindResearcher, { campaignId: campaign.id, itemNo: item.itemNo, verdict: "success", idempotencyKey: "bea-label-1" });
  });
  afterAll(async () => ctx?.cleanup());

  it("an annotator is refused", async () => {
    await expect(buildReport(ctx.db, people.annotator, { selection: {}, labels: "all", judges: "all" })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("a researcher labelling blind gets only what they may browse and no evaluation at all", async () => {
    const files = await buildReport(ctx.db, people.blindResearcher, { selection: {}, labels: "all", judges: "all", agreement: true, annotatorNames: true });
    expect(files.manifest.counts).toMatchObject({ trajectories: 1, judgeVerdicts: 0, humanLabels: 0 });
    expect(files.manifest.published).toMatchObject({ labels: "none", judges: [], annotatorNames: false, agreement: false });
    expect(files.manifest.withheld.join(" ")).toContain("labels some of these trajectories blind");
    const all = files.docs.map((d) => d.body).join("\n");
    expect(all).not.toContain(JUDGE_SECRET);
    expect(all).not.toContain('"verdict":"failure"');
    expect(all).not.toContain("Bea");
    // The one she labelled, of her campaign's two; never the third, outside her campaigns.
    expect(["Find the answer to question 0", "Find the answer to question 1"]).toContain(files.manifest.trajectories[0]!.task);
  });

  it("a researcher labelling blind may not select by verdicts", async () => {
    await expect(
      buildReport(ctx.db, people.blindResearcher, { selection: { verdict: "failure", evaluator: "judge:1||" }, labels: "none", judges: [] }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("a researcher who sees the whole catalog gets the verdicts", async () => {
    const files = await buildReport(ctx.db, people.researcher, { selection: {}, labels: "all", judges: "all" });
    expect(files.manifest.counts.trajectories).toBe(3);
    expect(files.docs.map((d) => d.body).join("\n")).toContain(JUDGE_SECRET);
  });
});

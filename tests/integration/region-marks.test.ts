/**
 * Region marks on a label, on every database backend: stored with the label in the screenshot's own pixels, kept
 * in its revisions (undo brings the previous marks back), and refused with the mark named when they leave the
 * screenshot, are too small, sit on a step without a screenshot or carry a label the campaign does not offer.
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { tablesOf, type Db } from "../../db/database";
import { addCampaignAnnotators } from "../../db/repositories/annotation/campaigns";
import type { Actor } from "../../server/domain/access/actor";
import { createCampaign, exportCampaignLabels, exportLabelsAs, myLabel, submitLabel, undoSubmit } from "../../server/services/annotation";
import { parseCsvTable } from "../../server/domain/csv";
import { campaignRegionAgreement } from "../../server/services/analytics";
import { callerAs, callerWithRole, testUser } from "../helpers/trpc";
import { ValidationError } from "../../server/errors";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";

describeEachBackend("region marks on labels", (backend) => {
  let ctx: TestContext;
  let db: Db;
  let researcher: Actor;
  let annotator: Actor;
  let trajectoryId: number;
  let seq = 0;

  async function user(name: string, role: Actor["role"]): Promise<Actor> {
    const { users } = tablesOf(db);
    const id = `u-${++seq}-${name.toLowerCase()}`;
    await db.insert(users).values({ id, name, email: `${id}@test.example`, role });
    return { userId: id, name, role };
  }

  /** One trajectory of three steps: a 1280×800 screenshot on steps 1 and 2, none on step 3. */
  async function trajectoryWithScreenshots(): Promise<number> {
    const { taskSets, tasks, agentRuns, trajectories, screenshots, steps } = tablesOf(db);
    const [set] = await db.insert(taskSets).values({ name: "Set", benchmark: "webvoyager" }).returning();
    const [run] = await db.insert(agentRuns).values({ runKey: "run", name: "Run", agentName: "agent", model: "model", sourceSystem: "test" }).returning();
    const [task] = await db
      .insert(tasks)
      .values({ taskSetId: set!.id, externalId: "t", site: "GitHub", intent: "Star a repository", contentHash: "h" })
      .returning();
    const [t] = await db
      .insert(trajectories)
      .values({ runId: run!.id, taskId: task!.id, attempt: 0, outcome: "answered", stepCount: 3, sourceFormat: "test", contentHash: "c" })
      .returning();
    await db.insert(screenshots).values([
      { hash: "a".repeat(64), mime: "image/png", width: 1280, height: 800, bytes: 1000 },
      { hash: "b".repeat(64), mime: "image/png", width: 1024, height: 768, bytes: 1000 },
    ]);
    await db.insert(steps).values([
      { trajectoryId: t!.id, index: 0, screenshotHash: "a".repeat(64), action: { type: "click", raw: "Click [1]" } as never },
      { trajectoryId: t!.id, index: 1, screenshotHash: "b".repeat(64), action: { type: "click", raw: "Click [2]" } as never },
      { trajectoryId: t!.id, index: 2, screenshotHash: null, action: { type: "answer", raw: "ANSWER" } as never },
    ]);
    return t!.id;
  }

  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-region-marks-");
    db = ctx.db;
    researcher = await user("Rita", "researcher");
    annotator = await user("Ann", "annotator");
    trajectoryId = await trajectoryWithScreenshots();
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  async function campaign(markLabels?: string[]): Promise<number> {
    const c = await createCampaign(db, researcher, {
      name: `Campaign ${++seq}`,
      trajectoryIds: [trajectoryId],
      annotatorsPerItem: 2,
      blind: true,
      ...(markLabels ? { labelSchema: { markLabels } } : {}),
    });
    await addCampaignAnnotators(db, c.id, [annotator.userId]);
    return c.id;
  }

  const box = { kind: "box", step: 0, label: "should have clicked", x: 1180, y: 700, width: 100, height: 100 };
  const point = { kind: "point", step: 1, label: "the answer was here", x: 1023, y: 0 };

  it("stores marks with the label and its revision, clears them on a submit without marks and brings them back on undo", async () => {
    const campaignId = await campaign();
    const first = await submitLabel(db, annotator, {
      campaignId,
      trajectoryId,
      verdict: "success",
      marks: [{ ...box, extra: 1 }, point],
      idempotencyKey: "marks-0001",
    });
    expect(first.values.marks).toEqual([box, point]);
    const { labels } = tablesOf(db);
    const [row] = await db.select().from(labels).where(eq(labels.id, first.labelId));
    expect(row!.marks).toEqual([box, point]);

    await submitLabel(db, annotator, { campaignId, trajectoryId, verdict: "success", idempotencyKey: "marks-0002" });
    expect((await myLabel(db, annotator, campaignId, trajectoryId)).label!.marks).toBeNull();
    await undoSubmit(db, annotator, { campaignId, idempotencyKey: "marks-0003" });
    expect((await myLabel(db, annotator, campaignId, trajectoryId)).label!.marks).toEqual([box, point]);
  });

  it("refuses marks outside the screenshot, on a step without one or with a label the campaign lacks, and stores nothing", async () => {
    const campaignId = await campaign();
    const attempts: [unknown[], string][] = [
      [[{ ...box, x: 1181 }], "marks: mark 1 reaches outside the 1280×800 screenshot"],
      [[box, { ...point, x: 1024 }], "marks: mark 2 lies outside the 1024×768 screenshot"],
      [[{ ...point, step: 2 }], "marks: mark 1 is on step 3, which has no screenshot"],
      [[{ ...box, width: 2 }], "marks: mark 1 is smaller than 4×4 pixels"],
      [[{ ...box, label: "menu" }], 'marks: mark 1 has the label "menu", which this campaign does not offer'],
    ];
    for (const [marks, message] of attempts) {
      const error = await submitLabel(db, annotator, { campaignId, trajectoryId, verdict: "success", marks, idempotencyKey: `bad-${++seq}-mark` }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as Error).message).toBe(message);
    }
    expect((await myLabel(db, annotator, campaignId, trajectoryId)).label).toBeNull();
  });

  it("offers the campaign's own mark labels instead of the default list", async () => {
    const campaignId = await campaign(["wrong field", "menu"]);
    const refused = await submitLabel(db, annotator, { campaignId, trajectoryId, verdict: "success", marks: [box], idempotencyKey: "own-0001" }).catch(
      (e: unknown) => e,
    );
    expect((refused as Error).message).toContain('the label "should have clicked", which this campaign does not offer');
    const done = await submitLabel(db, annotator, {
      campaignId,
      trajectoryId,
      verdict: "success",
      marks: [{ ...box, label: "menu" }],
      idempotencyKey: "own-0002",
    });
    expect(done.values.marks).toEqual([{ ...box, label: "menu" }]);
  });
  it("takes a campaign's mark labels through the API a page or script calls, and refuses a setting it does not know by name", async () => {
    const api = await callerWithRole(ctx, "researcher");
    const created = await api.campaigns.create({ name: "Marks through the API", trajectoryIds: [trajectoryId], labelSchema: { markLabels: ["wrong field"] } });
    await addCampaignAnnotators(db, created.id, [annotator.userId]);
    const done = await submitLabel(db, annotator, {
      campaignId: created.id,
      trajectoryId,
      verdict: "success",
      marks: [{ ...box, label: "wrong field" }],
      idempotencyKey: "api-0001",
    });
    expect(done.values.marks).toEqual([{ ...box, label: "wrong field" }]);
    await expect(api.campaigns.create({ name: "Misspelt", trajectoryIds: [trajectoryId], labelSchema: { markLabel: ["menu"] } as never })).rejects.toThrow(
      /markLabel/,
    );
  });

  it("exports each label's marks with step numbers in Verdict's CSV and JSONL, and a revision names the marks change", async () => {
    const campaignId = await campaign();
    await submitLabel(db, annotator, { campaignId, trajectoryId, verdict: "failure", category: "other", firstFailingStep: 0, idempotencyKey: "exp-0001" });
    await submitLabel(db, annotator, {
      campaignId,
      trajectoryId,
      verdict: "failure",
      category: "other",
      firstFailingStep: 0,
      marks: [box, point],
      idempotencyKey: "exp-0002",
    });
    const exported = [
      { kind: "box", step_number: 1, label: "should have clicked", x: 1180, y: 700, width: 100, height: 100 },
      { kind: "point", step_number: 2, label: "the answer was here", x: 1023, y: 0 },
    ];
    const csv = parseCsvTable((await exportCampaignLabels(db, researcher, campaignId, "csv")).body);
    expect(csv.header.at(-1)).toBe("marks");
    expect(JSON.parse(csv.rows[0]![csv.header.indexOf("marks")]!)).toEqual(exported);
    const jsonl = (await exportCampaignLabels(db, researcher, campaignId, "jsonl")).body.trim().split("\n");
    expect(JSON.parse(jsonl[0]!).marks).toEqual(exported);
    const viaFormats = parseCsvTable((await exportLabelsAs(db, researcher, campaignId, "verdict-csv")).body);
    expect(JSON.parse(viaFormats.rows[0]![viaFormats.header.indexOf("marks")]!)).toEqual(exported);

    const { labelRevisions } = tablesOf(db);
    const revisions = await db.select().from(labelRevisions).where(eq(labelRevisions.campaignId, campaignId)).orderBy(labelRevisions.revision);
    expect(revisions.map((r) => r.changes.filter((c) => c.field === "marks"))).toEqual([[], [{ field: "marks", from: [], to: [box, point] }]]);
  });

  it("measures agreement on regions between the annotators of each item, and only researchers not labelling blind may read it", async () => {
    const campaignId = await campaign();
    const other = await user("Otto", "annotator");
    await addCampaignAnnotators(db, campaignId, [other.userId]);
    const at = (step: number, x: number, width: number, height: number) => ({ kind: "box", step, label: "should have clicked", x, y: 0, width, height });
    // Step 1: IoU 1/3 (half shifted) and a point of Ann's inside Otto's box; step 2: IoU 0.9.
    await submitLabel(db, annotator, {
      campaignId,
      trajectoryId,
      verdict: "success",
      marks: [at(0, 0, 100, 100), at(1, 0, 100, 100), { kind: "point", step: 0, label: "should have clicked", x: 60, y: 10 }],
      idempotencyKey: "iou-ann-1",
    });
    await submitLabel(db, other, {
      campaignId,
      trajectoryId,
      verdict: "success",
      marks: [at(0, 50, 100, 100), at(1, 0, 100, 90)],
      idempotencyKey: "iou-otto-1",
    });
    const result = await campaignRegionAgreement(db, campaignId);
    expect(result).toMatchObject({ campaignId, boxComparisons: 2, matchedShare: 0.5, points: 1, pointHitShare: 1, pairs: 1, markedLabels: 2, labels: 2 });
    expect(result.meanIoU).toBeCloseTo((1 / 3 + 0.9) / 2, 10);

    const session = await testUser(ctx, "annotator", "Curious Annotator");
    await expect((await callerAs(ctx, session)).analytics.regions({ campaignId })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const sighted = await testUser(ctx, "researcher", "Sighted Researcher");
    expect((await (await callerAs(ctx, sighted)).analytics.regions({ campaignId })).boxComparisons).toBe(2);
    await expect((await callerAs(ctx, sighted)).analytics.regions({ campaignId: campaignId + 999 })).rejects.toMatchObject({ code: "NOT_FOUND" });

    // Otto takes his marks back: his label still counts against Ann's, whose two boxes now meet nothing (IoU 0); her
    // point has no partner mark on its step to be judged against.
    await submitLabel(db, other, { campaignId, trajectoryId, verdict: "success", marks: [], idempotencyKey: "iou-otto-2" });
    expect(await campaignRegionAgreement(db, campaignId)).toMatchObject({
      boxComparisons: 2,
      meanIoU: 0,
      matchedShare: 0,
      points: 0,
      pointHitShare: null,
      pairs: 1,
      markedLabels: 1,
      labels: 2,
    });
    // Nobody's marks left: both labels still counted, nothing compared.
    await submitLabel(db, annotator, { campaignId, trajectoryId, verdict: "success", marks: [], idempotencyKey: "iou-ann-2" });
    expect(await campaignRegionAgreement(db, campaignId)).toMatchObject({ boxComparisons: 0, meanIoU: null, pairs: 0, markedLabels: 0, labels: 2 });
  });
});

/**
 * The catalogue's read models on every database backend: the player's first view and step windows, the list's
 * search and figures, the task-set and run pages, and the triage filter on the latest human label. Seeded through
 * the catalogue's own repositories (no importer, no tRPC), so what runs here is the catalogue's SQL alone, on
 * SQLite and on PostgreSQL, where counts and averages, JSON columns, text search and "latest row per trajectory"
 * each need their dialect-neutral form.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { tablesOf } from "../../db/database";
import { ensureTaskSet, ensureTaskCreated, upsertRun, upsertTask } from "../../db/repositories/catalog";
import { getStepScreenshotHashes, saveTrajectory } from "../../db/repositories/trajectories";
import { fromJsonText, STEP_WINDOW, unpackStepIndex } from "../../server/domain/player/paging";
import { defaultLabelSchema } from "../../server/domain/annotation/label-schema";
import {
  getStepWindow,
  getTrajectoryForPlayer,
  listTrajectoryPage,
  runList,
  runOverview,
  taskSetList,
  taskSetOverview,
  trajectoryFilterOptions,
  type TrajectoryListQuery,
} from "../../server/services/trajectory-views";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { seedLongTrajectory } from "../helpers/long-trajectory";

const page = (q: Partial<TrajectoryListQuery> = {}): TrajectoryListQuery => ({ sort: "id", dir: "asc", page: 1, pageSize: 50, ...q });

describeEachBackend("catalogue read models", (backend) => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await createBackendContext(backend);
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  it("opens a long trajectory with its index and first window, and reads later windows as JSON", async () => {
    const id = await seedLongTrajectory(ctx.db, { steps: 130, thoughtBytes: 64, marks: 3 });
    const t = await getTrajectoryForPlayer(ctx.db, id);
    expect(t.stepCount).toBe(130);
    expect(unpackStepIndex(fromJsonText(t.index))).toHaveLength(130);
    const first = fromJsonText(t.window.steps);
    expect(first).toHaveLength(STEP_WINDOW);
    // The action and elements are spliced in as stored JSON text: an object here would not parse.
    expect(first[1]!.action).toEqual({ type: "type", target: "1", value: "query 1" });
    expect(first[0]!.elements).toHaveLength(3);
    expect(first[0]!.screenshot).toMatchObject({ width: 1280, height: 800 });
    const last = fromJsonText((await getStepWindow(ctx.db, id, 120, 50)).steps);
    expect(last.map((s) => s.index)).toEqual(Array.from({ length: 10 }, (_, i) => 120 + i));
    expect(last.at(-1)!.action).toEqual({ type: "answer", value: "final answer after 130 steps" });
    await expect(getStepWindow(ctx.db, id, 130, 10)).rejects.toThrow();
    // The first view's screenshots, and all of them, come from one function.
    expect(await getStepScreenshotHashes(ctx.db, id, 4)).toEqual((await getStepScreenshotHashes(ctx.db, id)).slice(0, 4));
  });

  it("searches task text whatever its case, and reports figures as numbers", async () => {
    const a = await seedLongTrajectory(ctx.db, { steps: 3, externalTaskId: "Shop--1", runName: "alpha", model: "m-a" });
    const b = await seedLongTrajectory(ctx.db, { steps: 5, externalTaskId: "Shop--2", runName: "alpha", model: "m-a" });
    const c = await seedLongTrajectory(ctx.db, { steps: 4, externalTaskId: "Shop--3", runName: "beta", model: "m-b" });
    // Sorting by the task's id reads the task beside each trajectory.
    expect((await listTrajectoryPage(ctx.db, page({ sort: "task", dir: "desc" }))).rows.map((r) => r.id)).toEqual([c, b, a]);
    expect((await listTrajectoryPage(ctx.db, page({ sort: "task", dir: "asc" }))).rows.map((r) => r.id)).toEqual([a, b, c]);
    const found = await listTrajectoryPage(ctx.db, page({ q: "FIND THE PRODUCT (3 STEPS)" }));
    expect(found.rows.map((r) => r.id)).toEqual([a]);
    expect(found).toMatchObject({ total: 1, all: 3 });
    // A user's % is a character to find, not a wildcard.
    expect((await listTrajectoryPage(ctx.db, page({ q: "%" }))).total).toBe(0);

    const runs = await runList(ctx.db);
    const alpha = runs.find((r) => r.name === "alpha")!;
    expect(alpha).toMatchObject({ trajectoryCount: 2, answeredCount: 2, meanSteps: 4, taskSetNames: "Long trajectories" });
    const overview = await runOverview(ctx.db, alpha.id);
    expect(overview.outcomes).toEqual({ answered: 2 });
    expect(overview.sites).toEqual([{ site: "LongSite", trajectories: 2, answered: 2, meanSteps: 4 }]);

    const [set] = await taskSetList(ctx.db);
    expect(set).toMatchObject({ taskCount: 3, trajectoryCount: 3, answeredCount: 3, runCount: 2 });
    const setPage = await taskSetOverview(ctx.db, set!.id, { q: "shop--2", page: 1, pageSize: 10 });
    expect(setPage.tasks.rows).toEqual([
      expect.objectContaining({ externalId: "Shop--2", trajectoryCount: 1, answeredCount: 1, meanSteps: 5, referenceCount: 0 }),
    ]);
    expect(setPage.tasks.total).toBe(1);

    const options = await trajectoryFilterOptions(ctx.db);
    expect(options).toMatchObject({ sites: ["LongSite"], models: ["m-a", "m-b"], outcomes: ["answered"] });
    expect(options.taskSets).toEqual([{ id: set!.id, name: "Long trajectories" }]);
    expect(options.runs.map((r) => r.name)).toEqual(["alpha", "beta"]);
  });

  it("names a run's task sets in order, and a task seen twice is created once", async () => {
    const run = await upsertRun(ctx.db, { runKey: "r", name: "r", agentName: "a", model: null, sourceSystem: "test", config: null });
    for (const name of ["Zeta set", "Alpha set"]) {
      const setId = await ensureTaskSet(ctx.db, { name, benchmark: "b" });
      expect(await ensureTaskSet(ctx.db, { name, benchmark: "b" })).toBe(setId);
      const values = { externalId: "t", site: null, intent: "Do it", startUrl: null, contentHash: "h" };
      const once = await ensureTaskCreated(ctx.db, setId, values);
      expect(once.created).toBe(true);
      expect(await ensureTaskCreated(ctx.db, setId, values)).toEqual({ id: once.id, created: false });
      expect((await upsertTask(ctx.db, setId, values)).result).toBe("unchanged");
      await saveTrajectory(ctx.db, {
        runId: run,
        taskId: once.id,
        attempt: 0,
        finalAnswer: null,
        outcome: "unknown",
        outcomeDetail: null,
        stepCount: 0,
        sourceFormat: "test",
        sourcePath: null,
        contentHash: name,
        steps: [],
      });
    }
    expect((await runList(ctx.db))[0]!.taskSetNames).toBe("Alpha set · Zeta set");
  });

  it("filters and sorts by each trajectory's latest consolidated label", async () => {
    const [t1, t2, t3] = [
      await seedLongTrajectory(ctx.db, { steps: 2, externalTaskId: "L--1" }),
      await seedLongTrajectory(ctx.db, { steps: 2, externalTaskId: "L--2" }),
      await seedLongTrajectory(ctx.db, { steps: 2, externalTaskId: "L--3" }),
    ];
    const { annotationCampaigns, campaignItems, consolidatedLabels } = tablesOf(ctx.db);
    const campaign = async (name: string) =>
      (
        await ctx.db
          .insert(annotationCampaigns)
          .values({ name, labelSchema: defaultLabelSchema(), annotatorsPerItem: 1, selection: { description: name } })
          .returning({ id: annotationCampaigns.id })
      )[0]!.id;
    const label = async (campaignId: number, itemNo: number, trajectoryId: number, verdict: "success" | "failure" | "unsure") => {
      const [item] = await ctx.db.insert(campaignItems).values({ campaignId, trajectoryId, itemNo, state: "agreed" }).returning({ id: campaignItems.id });
      await ctx.db
        .insert(consolidatedLabels)
        .values({ campaignId, itemId: item!.id, trajectoryId, verdict, category: null, firstFailingStep: null, method: "unanimous", basedOn: [] });
    };
    const older = await campaign("first look");
    const newer = await campaign("second look");
    await label(older, 1, t1, "failure");
    await label(older, 2, t2, "failure");
    await label(newer, 1, t1, "success");
    // t1's latest label says success, t2's failure; t3 has none.
    const ids = async (q: Partial<TrajectoryListQuery>) => (await listTrajectoryPage(ctx.db, page(q), { triage: true })).rows.map((r) => r.id);
    expect(await ids({ human: "success" })).toEqual([t1]);
    expect(await ids({ human: "failure" })).toEqual([t2]);
    expect(await ids({ human: "none" })).toEqual([t3]);
    expect(await ids({ state: "agreed" })).toEqual([t1, t2]);
    expect(await ids({ sort: "human", dir: "asc" })).toEqual([t2, t1, t3]);
    const withColumns = await listTrajectoryPage(ctx.db, page({ ids: [t1] }), { triage: true });
    expect(withColumns.rows[0]!.triage?.human).toEqual({ verdict: "success", category: null, campaignId: newer });
  });
});

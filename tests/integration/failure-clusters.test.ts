/**
 * Failure clusters over the fixture of tests/helpers/failure-clusters-fixture.ts, on each engine: the failures a
 * slice selects by the human label, by the judge or disputed between them, grouped by what their text says; the run
 * computed by a worker with its progress, saved, named and merged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failureTexts } from "../../db/repositories/analytics/failure-clusters";
import { parseEvaluatorRef } from "../../server/domain/trajectory-list-query";
import { FAILURE_CLUSTERS_JOB_TYPE } from "../../server/services/analytics";
import { computeFailureClusters } from "../../server/services/analytics/failure-clusters";
import { failureClustersJobHandler } from "../../server/services/analytics/failure-clusters-job";
import { runWorker } from "../../server/services/jobs/worker";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { seedClusterFixture, type ClusterFixture } from "../helpers/failure-clusters-fixture";
import { callerWithRole } from "../helpers/trpc";

describeEachBackend("failure clusters", (backend) => {
  let ctx: TestContext;
  let fx: ClusterFixture;
  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-clusters-");
    fx = await seedClusterFixture(ctx.db);
  });
  afterAll(async () => {
    await ctx.cleanup();
  });

  const names = (ids: readonly number[]) => ids.map((id) => Object.entries(fx.ids).find(([, v]) => v === id)![0]).sort();

  it("reads notes, answers and the last three steps, never the earlier ones, and only the chosen judge setting's rationale", async () => {
    const rows = await failureTexts(ctx.db, [fx.ids.C1!], { lastSteps: 3 });
    expect([...new Set(rows.map((r) => r.stepIndex))]).toEqual([null, 2, 3, 4]);
    expect(rows.some((r) => r.body.includes("zebra"))).toBe(false);
    expect(rows.filter((r) => r.field === "answer").map((r) => r.body)).toEqual(["cannot finish"]);
    // Human failures are grouped by what people and the trajectory say: no judge's rationale comes in.
    expect(rows.filter((r) => r.field === "rationale")).toEqual([]);
    const judge = parseEvaluatorRef(fx.evaluator)!;
    const rationales = async (of: { key: string; k: string; pv: string }) =>
      (await failureTexts(ctx.db, [fx.ids.C1!], { lastSteps: 3, rationaleOf: of })).filter((x) => x.field === "rationale").map((x) => x.body);
    expect(await rationales(judge)).toEqual(["The agent was stopped by a captcha and never reached the answer"]);
    // The same judge at another k or prompt version, or another judge, contributes nothing.
    expect(await rationales({ ...judge, k: judge.k === "5" ? "6" : "5" })).toEqual([]);
    expect(await rationales({ ...judge, pv: `${judge.pv}-other` })).toEqual([]);
    expect(await rationales({ ...judge, key: "judge:999" })).toEqual([]);
  });

  it("groups the human failures into their three kinds, with terms, shares and the success left out", async () => {
    const r = await computeFailureClusters(ctx.db, { filter: {}, basis: "human" });
    expect(r.documents).toBe(9);
    expect(r).toMatchObject({ k: 3, chosenBy: "silhouette", unclustered: [] });
    expect(r.clusters.map((c) => names(c.members))).toEqual([
      ["C1", "C2", "C3"],
      ["L1", "L2", "L3"],
      ["O1", "O2", "O3"],
    ]);
    expect(r.clusters[0]!.terms[0]!.term).toBe("captcha");
    expect(r.clusters[1]!.terms.map((t) => t.term)).toContain("login wall");
    expect(r.clusters[0]!.bySite).toEqual([
      { name: "Shop", n: 2 },
      { name: "Maps", n: 1 },
    ]);
    expect(r.clusters[1]!.byRun).toEqual([
      { name: "beta", n: 2 },
      { name: "alpha", n: 1 },
    ]);
    // Same input, same clusters.
    expect(await computeFailureClusters(ctx.db, { filter: {}, basis: "human" })).toEqual(r);
  });

  it("takes the judge's failures, the disputed ones and any list filter", async () => {
    const judge = await computeFailureClusters(ctx.db, { filter: { evaluator: fx.evaluator }, basis: "judge" });
    expect(judge.clusters.map((c) => names(c.members))).toEqual([
      ["C1", "C2", "C3"],
      ["L1", "L2", "L3"],
    ]);
    const disputed = await computeFailureClusters(ctx.db, { filter: { evaluator: fx.evaluator }, basis: "disputed" });
    expect(disputed).toMatchObject({ k: 1, chosenBy: "too few" });
    expect(names(disputed.clusters[0]!.members)).toEqual(["O1", "O2", "O3"]);
    const beta = await computeFailureClusters(ctx.db, { filter: { runId: fx.runIds.beta }, basis: "human", k: 2 });
    expect(beta.documents).toBe(5);
    expect(beta.clusters.flatMap((c) => names(c.members)).sort()).toEqual(["C3", "L2", "L3", "O2", "O3"]);
    const searched = await computeFailureClusters(ctx.db, { filter: { search: "thought:timeout" }, basis: "human" });
    expect(names(searched.clusters.flatMap((c) => c.members))).toEqual(["O1", "O2", "O3"]);
    await expect(computeFailureClusters(ctx.db, { filter: {}, basis: "judge" })).rejects.toThrow("basis judge: choose the evaluator (ev)");
    // A slice with more failures than one run groups is refused with the figure, never cut short without a word.
    await expect(computeFailureClusters(ctx.db, { filter: {}, basis: "human" }, undefined, 8)).rejects.toThrow(
      "this slice has more than 8 failures, more than one run groups: narrow it",
    );
    expect((await computeFailureClusters(ctx.db, { filter: {}, basis: "human" }, undefined, 9)).documents).toBe(9);
    await expect(computeFailureClusters(ctx.db, { filter: { human: "success" }, basis: "human" })).rejects.toThrow(
      "the slice asks for human: success; failures by human need human: failure",
    );
  });

  it("runs as a worker job with progress, saves the run, names and merges its clusters", async () => {
    const researcher = await callerWithRole(ctx, "researcher");
    const { jobId } = await researcher.analytics.clusterStart({ filter: {}, basis: "human" });
    expect(await researcher.analytics.clusterJob({ id: jobId })).toMatchObject({ status: "queued", result: null, progress: null });
    await runWorker({ db: ctx.db, handlers: { [FAILURE_CLUSTERS_JOB_TYPE]: failureClustersJobHandler(ctx) }, concurrency: 1, untilIdle: true });
    const job = await researcher.analytics.clusterJob({ id: jobId });
    expect(job.status, job.error ?? "").toBe("succeeded");
    expect(job.progress).toEqual({ stage: "saving", done: 1 });
    const runId = job.result!.runId;
    const run = await researcher.analytics.clusterRun({ id: runId });
    expect(run.clusters.map((c) => [c.key, c.size, names(c.members)])).toEqual([
      [1, 3, ["C1", "C2", "C3"]],
      [2, 3, ["L1", "L2", "L3"]],
      [3, 3, ["O1", "O2", "O3"]],
    ]);
    expect(run.clusters[0]!.examples.map((e) => e.externalTaskId).sort()).toEqual(["cluster-C1", "cluster-C2", "cluster-C3"]);
    expect(run.createdByName).toBe("Test researcher");
    expect((await researcher.analytics.clusterRuns()).map((r) => r.id)).toContain(runId);

    await researcher.analytics.clusterRename({ runId, key: 1, name: "  Bot   checks " });
    await researcher.analytics.clusterMerge({ runId, into: 1, from: 2 });
    const merged = await researcher.analytics.clusterRun({ id: runId });
    expect(merged.clusters.map((c) => [c.key, c.name, c.size, c.mergedFrom ?? null])).toEqual([
      [4, "Bot checks", 6, [1, 2]],
      [3, null, 3, null],
    ]);
    expect(merged.clusters[0]!.bySite).toEqual([
      { name: "Shop", n: 4 },
      { name: "Maps", n: 2 },
    ]);
    await expect(researcher.analytics.clusterMerge({ runId, into: 4, from: 2 })).rejects.toThrow("cluster 2: there is no such cluster in this run");
    await expect(researcher.analytics.clusterMerge({ runId, into: 3, from: 3 })).rejects.toThrow("merge: choose two different clusters");
    await expect(researcher.analytics.clusterRename({ runId, key: 3, name: "x".repeat(81) })).rejects.toThrow("name: at most 80 characters");
  });

  describe("who may", () => {
    it("refuses annotators every cluster procedure", async () => {
      const annotator = await callerWithRole(ctx, "annotator");
      await expect(annotator.analytics.clusterStart({ filter: {}, basis: "human" })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(annotator.analytics.clusterRuns()).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(annotator.analytics.clusterRun({ id: 1 })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(annotator.analytics.clusterJob({ id: 1 })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(annotator.analytics.clusterRename({ runId: 1, key: 1, name: "x" })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(annotator.analytics.clusterMerge({ runId: 1, into: 1, from: 2 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    });
  });
});

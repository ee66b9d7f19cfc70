/**
 * Failure clusters are made of judges' rationales and humans' labels: annotators may not start, poll or read them,
 * and neither may a researcher while they label blind, including through a run they queued before the blind began
 * (the worker checks again when it runs) or one another researcher saved.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { FAILURE_CLUSTERS_JOB_TYPE } from "../../server/services/analytics";
import { failureClustersJobHandler } from "../../server/services/analytics/failure-clusters-job";
import { createCampaign } from "../../server/services/annotation";
import { runWorker } from "../../server/services/jobs/worker";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { seedClusterFixture, type ClusterFixture } from "../helpers/failure-clusters-fixture";
import { callerAs, testUser } from "../helpers/trpc";

describeEachBackend("failure clusters and the blind", (backend) => {
  let ctx: TestContext;
  let fx: ClusterFixture;
  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-clusters-security-");
    fx = await seedClusterFixture(ctx.db);
  });
  afterAll(async () => {
    await ctx.cleanup();
  });

  const work = () => runWorker({ db: ctx.db, handlers: { [FAILURE_CLUSTERS_JOB_TYPE]: failureClustersJobHandler(ctx) }, concurrency: 1, untilIdle: true });

  it("refuses annotators and researchers labelling blind, and a run queued before the blind began computes nothing", async () => {
    const rita = await callerAs(ctx, await testUser(ctx, "researcher", "Rita"));
    const { jobId } = await rita.analytics.clusterStart({ filter: { evaluator: fx.evaluator }, basis: "judge" });
    await work();
    const runId = (await rita.analytics.clusterJob({ id: jobId })).result!.runId;
    expect((await rita.analytics.clusterRun({ id: runId })).clusters.length).toBeGreaterThan(0);

    const annSession = await testUser(ctx, "annotator", "Ann");
    const ann = await callerAs(ctx, annSession);
    for (const call of [
      () => ann.analytics.clusterStart({ filter: {}, basis: "human" }),
      () => ann.analytics.clusterJob({ id: jobId }),
      () => ann.analytics.clusterRuns(),
      () => ann.analytics.clusterRun({ id: runId }),
      () => ann.analytics.clusterRename({ runId, key: 1, name: "mine" }),
      () => ann.analytics.clusterMerge({ runId, into: 1, from: 2 }),
    ]) {
      const refusal = await call().then(
        () => null,
        (e: { code?: string; message: string }) => e,
      );
      expect(refusal?.code).toBe("FORBIDDEN");
      expect(refusal?.message).not.toMatch(/captcha|login wall/i);
    }

    // Rex queues a run, then is given trajectories to label blind before a worker takes it.
    const rexSession = await testUser(ctx, "researcher", "Rex");
    const rex = await callerAs(ctx, rexSession);
    const queued = await rex.analytics.clusterStart({ filter: {}, basis: "human" });
    await createCampaign(ctx.db, await testUser(ctx, "admin", "Ada"), {
      name: "Rex labels blind",
      trajectoryIds: [fx.ids.C1!, fx.ids.L1!],
      annotatorIds: [rexSession.userId],
      annotatorsPerItem: 1,
      blind: true,
    });
    await work();
    const ada = await callerAs(ctx, await testUser(ctx, "admin", "Ada"));
    const job = await ada.analytics.clusterJob({ id: queued.jobId });
    expect(job.status).toBe("failed");
    expect(job.error).toMatch(/labelling 2 trajectories blind/);
    expect(job.result).toBeNull();
    for (const call of [
      () => rex.analytics.clusterRun({ id: runId }),
      () => rex.analytics.clusterRuns(),
      () => rex.analytics.clusterStart({ filter: {}, basis: "human" }),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: "FORBIDDEN", message: expect.stringMatching(/labelling 2 trajectories blind/) });
    }
    // The run Rita saved is still hers to read.
    expect((await rita.analytics.clusterRun({ id: runId })).id).toBe(runId);
  });
});

/**
 * Reports from the dashboard over real HTTP, as the page and an attacker send them: a researcher starts a report
 * through tRPC, a worker builds it, the page polls its job and lists it, and /api/reports/<id>/download streams
 * the zip with its file name. Another researcher, an annotator, a guessed id, a job of another kind and no session
 * are refused in words; a report past VERDICT_REPORT_RETENTION_DAYS is refused as expired and its zip is removed
 * by the clean-up, which a worker queues itself when it starts and then every period. A campaign page's report holds
 * the campaign's trajectories; its owner removes a report (zip and list entry), nobody else can. On both engines.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import yauzl from "yauzl";
import { tablesOf } from "../../db/database";
import { closeSharedDatabases } from "../../server/context";
import { runWorker } from "../../server/services/jobs/worker";
import { runJobWorker } from "../../server/services/jobs/runtime";
import { createCampaign } from "../../server/services/annotation";
import { reportJobHandler } from "../../server/services/trajectories/report-job";
import { expireReports, REPORT_JOB_TYPE, REPORTS_EXPIRE_JOB_TYPE } from "../../server/services/trajectories/report-jobs";
import { listJobs } from "../../db/repositories/jobs";
import { startDedupe } from "../../server/services/imports";
import { reportFilesFor } from "../../server/storage/report-files";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { pollUntil, signedInClient, type HttpClient } from "../helpers/http-client";
import { seedTrajectories } from "../helpers/judge-fixtures";
import { makeActor } from "../helpers/annotation-fixture";
import { rawRequest, startRouteServer, type RouteServer } from "../helpers/route-server";
import http from "node:http";

/** The body of a GET as bytes (rawRequest reads text), with status and headers. */
function download(url: string, cookie?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: cookie ? { Cookie: cookie } : {}, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

function zipEntries(bytes: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const names: string[] = [];
      zip.on("entry", (e: yauzl.Entry) => {
        names.push(e.fileName);
        zip.readEntry();
      });
      zip.on("end", () => resolve(names));
      zip.on("error", reject);
      zip.readEntry();
    });
  });
}

interface JobView {
  status: string;
  progress: { phase: string; done: number; total: number } | null;
  result: { bytes: number; blind: boolean; manifest: { counts: { trajectories: number } } } | null;
  error: string | null;
}

describeEachBackend("report downloads over HTTP", (backend) => {
  let ctx: TestContext;
  let server: RouteServer;
  const saved = { ...process.env };
  let rita: HttpClient;
  let bea: HttpClient;
  let ann: HttpClient;
  let ada: HttpClient;
  let seeded: number[] = [];
  const work = () => runWorker({ db: ctx.db, handlers: { [REPORT_JOB_TYPE]: reportJobHandler(ctx) }, concurrency: 1, untilIdle: true });
  const url = (id: number | string) => `${server.url}/api/reports/${id}/download`;

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-report-route-");
    process.env.VERDICT_DATA_DIR = ctx.dir;
    process.env.VERDICT_DB = ctx.config.dbPath;
    if (ctx.config.postgresUrl) process.env.VERDICT_DATABASE_URL = ctx.config.postgresUrl;
    else delete process.env.VERDICT_DATABASE_URL;
    seeded = (await seedTrajectories(ctx, [{ steps: 2 }, { steps: 3 }], "report-route")).map((t) => t.id);
    server = await startRouteServer();
    // The first account of an installation is made admin: the admin comes first, so the others keep their roles.
    ada = await signedInClient(ctx, server.url, "admin");
    [rita, bea, ann] = await Promise.all([
      signedInClient(ctx, server.url, "researcher"),
      signedInClient(ctx, server.url, "researcher"),
      signedInClient(ctx, server.url, "annotator"),
    ]);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await closeSharedDatabases();
    await ctx?.cleanup();
    process.env = saved;
  });

  it("a researcher starts a report, follows its job, lists it and downloads the zip; nobody else gets it", async () => {
    const { jobId } = await rita.mutation<{ jobId: number }>("reports.start", { selection: {}, labels: "all", annotatorNames: false, title: "Two runs" });
    expect((await rita.query<JobView>("reports.job", { id: jobId })).status).toBe("queued");
    await work();
    const view = await rita.query<JobView>("reports.job", { id: jobId });
    expect(view).toMatchObject({ status: "succeeded", progress: { phase: "writing", done: 2, total: 2 }, result: { blind: false } });
    const mine = await rita.query<{ id: number; title: string; trajectories: number; expired: boolean; expiresAt: string }[]>("reports.mine");
    expect(mine).toEqual([expect.objectContaining({ id: jobId, title: "Two runs", trajectories: 2, expired: false })]);
    expect(await bea.query<unknown[]>("reports.mine")).toEqual([]);

    const file = await download(url(jobId), rita.cookie);
    expect(file.status).toBe(200);
    expect(file.headers["content-type"]).toBe("application/zip");
    expect(file.headers["content-disposition"]).toBe(`attachment; filename="verdict-report-${jobId}.zip"`);
    expect(file.body.length).toBe(view.result!.bytes);
    expect(Number(file.headers["content-length"])).toBe(view.result!.bytes);
    expect(await zipEntries(file.body)).toEqual(expect.arrayContaining(["index.html", "manifest.json", "t/1.html", "t/2.html"]));

    // Another researcher and an annotator are told there is no such report; the annotator may not start one either.
    for (const someone of [bea, ann]) {
      const refused = await download(url(jobId), someone.cookie);
      expect(refused.status).toBe(404);
      expect(refused.body.toString()).toContain(`No job with id ${jobId}`);
      expect(refused.body.toString()).not.toContain("PK");
    }
    expect((await ann.mutationResponse("reports.start", { selection: {} })).status).toBe(403);
    // No session, a guessed id, a job of another kind, and an id that is not a number.
    expect((await download(url(jobId))).status).toBe(401);
    expect((await download(url(jobId + 1000), rita.cookie)).status).toBe(404);
    const otherKind = await startDedupe(ctx, await makeActor(ctx, "Al", "admin"), { dryRun: true });
    expect((await download(url(otherKind), ada.cookie)).status).toBe(404);
    const notNumber = await rawRequest(url("..%2F..%2Fverdict.db"), { headers: { Cookie: rita.cookie } });
    expect(notNumber.status).toBe(400);
    expect(notNumber.body).toContain("report id: expected a number");
    // An admin may download anyone's report.
    expect((await download(url(jobId), ada.cookie)).body.length).toBe(view.result!.bytes);
  });

  it("a report past its retention is refused as expired and its zip is removed by the clean-up, newer ones kept", async () => {
    const { jobId: old } = await rita.mutation<{ jobId: number }>("reports.start", { selection: {} });
    const { jobId: fresh } = await rita.mutation<{ jobId: number }>("reports.start", { selection: {} });
    await work();
    const { jobs } = tablesOf(ctx.db);
    // Built 31 days ago: one day past the default retention of 30 days.
    await ctx.db
      .update(jobs)
      .set({ finishedAt: new Date(Date.now() - 31 * 86_400_000) })
      .where(eq(jobs.id, old));
    const refused = await download(url(old), rita.cookie);
    expect(refused.status).toBe(404);
    expect(refused.body.toString()).toMatch(new RegExp(`^Report ${old} expired on \\d{4}-\\d\\d-\\d\\d: ask for a new one`));
    const listed = await rita.query<{ id: number; expired: boolean }[]>("reports.mine");
    expect(listed.filter((r) => r.id === old || r.id === fresh)).toEqual([
      expect.objectContaining({ id: fresh, expired: false }),
      expect.objectContaining({ id: old, expired: true }),
    ]);

    const keyOf = async (id: number) => ((await ctx.db.select().from(jobs).where(eq(jobs.id, id)))[0]!.result as { key: string }).key;
    const files = reportFilesFor(ctx.config);
    expect(await expireReports(ctx, { dryRun: true })).toMatchObject({ removed: [old] });
    const stillThere = await files.open(await keyOf(old));
    expect(stillThere).not.toBeNull();
    stillThere!.body.destroy();
    expect(await expireReports(ctx)).toMatchObject({ removed: [old] });
    expect(await files.open(await keyOf(old))).toBeNull();
    const kept = await files.open(await keyOf(fresh));
    expect(kept).not.toBeNull();
    kept!.body.destroy();
    expect((await download(url(fresh), rita.cookie)).status).toBe(200);
  });

  const keyOf = async (id: number) => {
    const { jobs } = tablesOf(ctx.db);
    return ((await ctx.db.select().from(jobs).where(eq(jobs.id, id)))[0]!.result as { key: string }).key;
  };

  it("a campaign's report holds the campaign's trajectories; only its owner removes it, once it is built", async () => {
    const rae = await makeActor(ctx, "Rae Campaigner", "researcher");
    const campaign = await createCampaign(ctx.db, rae, { name: "Reported campaign", trajectoryIds: [seeded[1]!], blind: false });
    const { jobId } = await rita.mutation<{ jobId: number }>("reports.start", { campaignId: campaign.id, title: "The campaign" });
    // Still to be built: not removable (the worker would write its zip after).
    const early = await rita.mutationResponse("reports.remove", { id: jobId });
    expect(early.status).toBe(409);
    expect(early.body).toContain("still being built");
    await work();
    const view = await rita.query<JobView>("reports.job", { id: jobId });
    expect(view).toMatchObject({ status: "succeeded", result: { manifest: { counts: { trajectories: 1 } } } });
    const missing = await rita.mutationResponse("reports.start", { campaignId: 999_999 });
    expect(missing.status).toBe(404);

    // Another researcher cannot remove it (there is no such report for them); an annotator may not ask at all.
    expect((await bea.mutationResponse("reports.remove", { id: jobId })).status).toBe(404);
    expect((await ann.mutationResponse("reports.remove", { id: jobId })).status).toBe(403);
    const key = await keyOf(jobId);
    const files = reportFilesFor(ctx.config);
    const before = await files.open(key);
    expect(before).not.toBeNull();
    before!.body.destroy();

    await rita.mutation("reports.remove", { id: jobId });
    expect(await files.open(key)).toBeNull();
    expect((await rita.query<{ id: number }[]>("reports.mine")).map((r) => r.id)).not.toContain(jobId);
    expect((await download(url(jobId), rita.cookie)).status).toBe(404);
    expect((await rita.mutationResponse("reports.remove", { id: jobId })).status).toBe(404);
  });

  it("a worker queues the expired reports' clean-up when it starts and again every period", async () => {
    const { jobs } = tablesOf(ctx.db);
    const age = async (id: number) =>
      await ctx.db
        .update(jobs)
        .set({ finishedAt: new Date(Date.now() - 31 * 86_400_000) })
        .where(eq(jobs.id, id));
    const { jobId: first } = await rita.mutation<{ jobId: number }>("reports.start", { selection: {} });
    const { jobId: second } = await rita.mutation<{ jobId: number }>("reports.start", { selection: {} });
    await work();
    await age(first);
    const files = reportFilesFor(ctx.config);
    const gone = async (id: number) => (await files.open(await keyOf(id))) === null;
    const stop = new AbortController();
    const lines: string[] = [];
    const worker = runJobWorker({
      ctx,
      env: process.env,
      settings: {
        VERDICT_WORKER_JOBS: ["uploads"],
        VERDICT_WORKER_JUDGE_CONCURRENCY: 1,
        VERDICT_RUNNER_CONCURRENCY: 1,
        VERDICT_RUNNER_LEASE_MS: 60_000,
        VERDICT_RUNNER_HEADLESS: true,
      },
      signal: stop.signal,
      log: (line) => lines.push(line),
      reportsExpireEveryMs: 1_000,
    });
    try {
      // Removed by the job the worker queued as it started; the newer report is kept.
      await pollUntil(() => gone(first), Boolean, "the first expired report's zip removed", 120_000);
      expect(await gone(second)).toBe(false);
      // Expired later, while the worker runs: removed by a later period's job, with no one asking.
      await age(second);
      await pollUntil(() => gone(second), Boolean, "the second expired report's zip removed", 120_000);
    } finally {
      stop.abort();
      await worker;
    }
    const cleanups = (await listJobs(ctx.db, { groupKey: REPORTS_EXPIRE_JOB_TYPE })).filter((j) => j.status === "succeeded");
    expect(cleanups.length).toBeGreaterThanOrEqual(2);
    expect(cleanups.map((j) => (j.result as { removed: number[] }).removed)).toEqual(expect.arrayContaining([expect.arrayContaining([second])]));
    expect(lines.filter((l) => l.includes("could not be queued"))).toEqual([]);
  }, 300_000);
});

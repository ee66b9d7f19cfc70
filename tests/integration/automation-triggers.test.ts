/**
 * The arrivals that start automation rules, each through its real door, on both engines: a zip pushed to
 * `POST /api/v1/imports` with an API token (over HTTP), and a live run of the scripted agent on the bundled demo
 * sites in real Chromium; each queues a `rules.apply` job whose run adds the new trajectories to the rule's campaign
 * and logs the run under its trigger. And nothing silent: when the rules' job cannot be queued, the import still
 * commits and its report says the rules were not run, and why.
 */
import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import type { Browser } from "playwright";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import yazl from "yazl";
import { rawRun } from "../../db/database";
import { campaignItemIds } from "../../db/repositories/annotation/campaigns";
import { listRuleRuns } from "../../db/repositories/automation/rules";
import { ensureTaskSet, upsertTask } from "../../db/repositories/catalog";
import { getJob, listJobs } from "../../db/repositories/jobs";
import { liveGroupKey } from "../../db/repositories/live/runs";
import { launchChromium } from "../../server/browser/launch";
import { loadConfig } from "../../server/config";
import { closeSharedDatabases } from "../../server/context";
import { startDemoSites, type DemoSitesServer } from "../../server/demo-sites/server";
import type { Actor } from "../../server/domain/access/actor";
import type { RuleDraft, RuleTrigger } from "../../server/domain/automation/rules";
import { liveRunRequestSchema } from "../../server/domain/live/settings";
import { createAccount } from "../../server/services/accounts";
import { createApiToken } from "../../server/services/accounts/api-tokens";
import { createCampaign } from "../../server/services/annotation";
import { createRule, RULES_APPLY_JOB_TYPE, rulesApplyJobHandler } from "../../server/services/automation";
import { startImport } from "../../server/services/imports/jobs";
import { taskValues, type ImportReport } from "../../server/services/imports/ingest";
import { liveRunDetail, startLiveRun } from "../../server/services/live/live-runs";
import { runRunnerWorker } from "../../server/services/live/worker";
import { runWorker } from "../../server/services/jobs/worker";
import { seedTrajectories } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { LOCAL_JUDGE_ENV } from "../helpers/judge-fixtures";
import { chromiumSkipReason, titled } from "../helpers/requirements";
import { rawRequest, startRouteServer, type RouteServer } from "../helpers/route-server";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";
import { runQueuedImports } from "../helpers/workers";

const browserConfig = loadConfig();
const noChromium = chromiumSkipReason();

let ctx: TestContext;
let researcher: Actor;

async function zipBuffer(folder: string): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const rel of fs.readdirSync(folder, { recursive: true }) as string[]) {
    const abs = path.join(folder, rel);
    if (fs.statSync(abs).isFile()) zip.addFile(abs, `results/${rel.split(path.sep).join("/")}`);
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** A campaign holding one trajectory of another run, and a rule adding every arrival of `trigger` to it. */
async function campaignRule(trigger: RuleTrigger) {
  const [first] = await seedTrajectories(ctx.db, 1, { model: `seed-${trigger}`, agentName: `seed-${trigger}` });
  const campaign = await createCampaign(ctx.db, researcher, { name: `${trigger} arrivals`, trajectoryIds: [first!], blind: false });
  const draft: RuleDraft = {
    name: `every ${trigger} arrival`,
    filterText: "",
    triggers: [trigger],
    sharePercent: 100,
    seed: 1,
    enabled: true,
    action: { kind: "campaign", campaignId: campaign.id },
  };
  const rule = await createRule(ctx.db, researcher, draft);
  return { campaign, rule };
}

/** Runs the queued rules jobs in this process, as a worker's uploads lane does. */
function runQueuedRules() {
  return runWorker({ db: ctx.db, handlers: { [RULES_APPLY_JOB_TYPE]: rulesApplyJobHandler(ctx) }, concurrency: 1, untilIdle: true });
}

async function rulesJobs() {
  return (await listJobs(ctx.db, { limit: 100 })).filter((j) => j.type === RULES_APPLY_JOB_TYPE);
}

describeEachBackend("automation rules: what starts them", (backend) => {
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-rule-triggers-");
    const { user } = await createAccount(ctx, { email: "rhea@rules.test", name: "Rhea Researcher", role: "researcher", password: "a long password 123" });
    researcher = { userId: user.id, name: user.name, role: user.role };
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  describe("a zip pushed with an API token", () => {
    const saved = { ...process.env };
    let server: RouteServer;
    beforeEach(async () => {
      process.env.VERDICT_DATA_DIR = ctx.dir;
      process.env.VERDICT_DB = ctx.config.dbPath;
      if (ctx.config.postgresUrl) process.env.VERDICT_DATABASE_URL = ctx.config.postgresUrl;
      else delete process.env.VERDICT_DATABASE_URL;
      server = await startRouteServer();
    });
    afterEach(async () => {
      await server?.close();
      await closeSharedDatabases();
      process.env = { ...saved };
    });

    it("queues the push rules, which add its new trajectories to the campaign and log a push run", async () => {
      const { campaign, rule } = await campaignRule("push");
      const src = await writeWebVoyagerFixture(path.join(ctx.dir, "src"), [
        { id: "Pushed--1", intent: "One.", url: "https://push.test/", actions: ["Click [0]", "ANSWER; a"] },
        { id: "Pushed--2", intent: "Two.", url: "https://push.test/", actions: ["Click [1]", "ANSWER; b"] },
      ]);
      const token = (await createApiToken(ctx, researcher, { ownerId: researcher.userId, name: "ci", scope: "read-write" })).token;
      const pushed = await rawRequest(`${server.url}/api/v1/imports?name=pushed.zip`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/zip" },
        body: await zipBuffer(src),
      });
      expect(pushed.status, pushed.body).toBe(202);
      const { jobId } = JSON.parse(pushed.body) as { jobId: number };
      await runQueuedImports(ctx);
      expect((await getJob(ctx.db, jobId))?.status).toBe("succeeded");
      const created = (((await getJob(ctx.db, jobId))?.result as ImportReport).trajectories ?? []).map((t) => t.id).sort((a, b) => a - b);
      expect(created).toHaveLength(2);

      const [queued] = await rulesJobs();
      expect(queued).toMatchObject({ groupKey: `rules:import:${jobId}`, status: "queued", payload: { trigger: "push" } });
      expect(await runQueuedRules()).toMatchObject({ succeeded: 1, failed: 0 });
      const items = (await campaignItemIds(ctx.db, campaign.id)).map((i) => i.trajectoryId);
      expect(items).toHaveLength(3);
      expect(items).toEqual(expect.arrayContaining(created));
      const [run] = await listRuleRuns(ctx.db, rule.id, 10);
      expect(run).toMatchObject({ trigger: "push", arrival: `import job ${jobId} (pushed.zip)`, arrived: 2, matched: 2, acted: 2, outcome: "acted" });
    });
  });

  it("an import whose rules job cannot be queued still commits, and its report says the rules were not run and why", async () => {
    const { campaign, rule } = await campaignRule("import");
    // The queue refuses exactly the rules' job (a full or broken queue, as the import sees it).
    if (backend === "sqlite") {
      await rawRun(
        ctx.db,
        sql.raw(`create trigger refuse_rules before insert on jobs when new.type = 'rules.apply' begin select raise(abort, 'queue refused (test)'); end`),
      );
    } else {
      await rawRun(
        ctx.db,
        sql.raw(`create function refuse_rules() returns trigger language plpgsql as $$ begin
          if new.type = 'rules.apply' then raise exception 'queue refused (test)'; end if; return new; end $$`),
      );
      await rawRun(ctx.db, sql.raw(`create trigger refuse_rules before insert on jobs for each row execute function refuse_rules()`));
    }
    const src = await writeWebVoyagerFixture(path.join(ctx.dir, "src"), [
      { id: "Unruled--1", intent: "One.", url: "https://unruled.test/", actions: ["Click [0]", "ANSWER; a"] },
    ]);
    const zip = path.join(ctx.dir, "unruled.zip");
    fs.writeFileSync(zip, await zipBuffer(src));
    const jobId = await startImport(ctx, { kind: "upload", file: zip, name: "unruled.zip" }, { requestedBy: researcher.userId });
    await runQueuedImports(ctx);
    const job = await getJob(ctx.db, jobId);
    expect(job?.status).toBe("succeeded");
    const report = job!.result as ImportReport;
    expect(report.trajectories.map((t) => t.status)).toEqual(["created"]);
    const warning = report.warnings.find((w) => w.message.startsWith("automation rules were not run on this import"));
    expect(warning, JSON.stringify(report.warnings)).toBeDefined();
    expect(warning!.message).toContain("queue refused (test)");
    expect(warning!.path).toBe("unruled.zip");
    expect(await rulesJobs()).toEqual([]);
    expect(await campaignItemIds(ctx.db, campaign.id)).toHaveLength(1);
    expect(await listRuleRuns(ctx.db, rule.id, 10)).toEqual([]);
  });

  describe.skipIf(noChromium !== null)(titled("a live run", noChromium), () => {
    let sites: DemoSitesServer;
    const browsers: Browser[] = [];
    beforeAll(async () => {
      sites = await startDemoSites();
    });
    afterAll(async () => {
      for (const b of browsers) await b.close().catch(() => undefined);
      await sites?.close();
    });

    it("that has ended queues the live rules, which add its trajectory to the campaign and log a live run", async () => {
      const { campaign, rule } = await campaignRule("live");
      const setId = await ensureTaskSet(ctx.db, { name: "Rule live tasks", benchmark: "adhoc" });
      const task = await upsertTask(
        ctx.db,
        setId,
        taskValues({
          taskSet: { name: "Rule live tasks", benchmark: "adhoc" },
          externalId: "rules.live",
          site: null,
          intent: "Read the recipes page and stop.",
          startUrl: `${sites.baseUrl}/recipes/`,
          inputImages: [],
          referenceAnswers: [],
          evaluatorConfig: null,
          difficulty: null,
          tags: [],
          extra: null,
        }),
      );
      const { runId } = await startLiveRun(
        { db: ctx.db, env: LOCAL_JUDGE_ENV },
        liveRunRequestSchema.parse({
          tasks: { from: "tasks", taskIds: [task.id] },
          policy: { kind: "scripted", source: "actions", actions: ["stop [read]"] },
          settings: { maxSteps: 3 },
        }),
      );
      // Nothing is queued for the rules while the run's task is still to do.
      expect(await rulesJobs()).toEqual([]);
      const summary = await runRunnerWorker({
        ctx,
        env: LOCAL_JUDGE_ENV,
        concurrency: 1,
        groupKey: liveGroupKey(runId),
        untilIdle: true,
        demo: { baseUrl: sites.baseUrl, origins: [`127.0.0.1:${sites.port}`] },
        resolveHost: async () => [],
        launch: async ({ egressProxy }) => {
          const b = await launchChromium({ config: browserConfig, egressProxy });
          browsers.push(b);
          return b;
        },
      });
      expect(summary.succeeded).toBe(1);
      const [t] = (await liveRunDetail({ db: ctx.db, env: {} }, runId)).tasks;
      expect(t?.trajectoryId).toEqual(expect.any(Number));

      const [queued] = await rulesJobs();
      expect(queued).toMatchObject({ status: "queued", payload: { trigger: "live", liveRunId: runId } });
      expect(await runQueuedRules()).toMatchObject({ succeeded: 1, failed: 0 });
      const items = (await campaignItemIds(ctx.db, campaign.id)).map((i) => i.trajectoryId);
      expect(items).toHaveLength(2);
      expect(items).toContain(t!.trajectoryId);
      const [run] = await listRuleRuns(ctx.db, rule.id, 10);
      expect(run).toMatchObject({
        trigger: "live",
        arrival: `live run ${runId}`,
        arrived: 1,
        matched: 1,
        acted: 1,
        outcome: "acted",
        trajectoryIds: [t!.trajectoryId],
      });
    });
  });
});

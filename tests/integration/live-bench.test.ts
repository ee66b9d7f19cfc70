/**
 * Live runs of a VisualWebArena-style task set against a deployment profile, end to end on real Chromium: two local
 * sites that need a login and answer under placeholder URLs, their reset endpoints counting calls, the fake model
 * endpoint for the VLM policy.
 *
 * Covered: login once per run (recipe) and an uploaded storage state; a reset before each task; input images sent to
 * the model; new_tab / tab_focus with tabs recorded per step; the task's rules evaluated live with placeholders
 * substituted; the HAR stored and listing the site's requests; the prompt stored per step; a CAPTCHA page ending as
 * `blocked`; a failing reset ending as `infra_error` after its retries; both left out of the success rate; a profile
 * allowing only its own hosts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { findVerdict, upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { liveGroupKey } from "../../db/repositories/live/runs";
import { stepEvidenceOf, storedInputImage, trajectoryHarOf } from "../../db/repositories/live/evidence";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { launchChromium } from "../../server/browser/launch";
import { loadConfig } from "../../server/config";
import { liveRunRequestSchema, type LiveRunRequestInput } from "../../server/domain/live/settings";
import { runImport } from "../../server/services/imports/ingest";
import { collectUnreferencedObjects } from "../../server/services/operations/garbage";
import { createJudgeConfig } from "../../server/services/evaluation/judge-configs";
import { createDeploymentProfile, listDeploymentProfiles } from "../../server/services/live/deployment-profiles";
import { liveStepEvidence } from "../../server/services/live/evidence";
import { LoginCache } from "../../server/services/live/deployment-runtime";
import { liveRunDetail, startLiveRun } from "../../server/services/live/live-runs";
import { LIVE_RULES_EVALUATOR_KEY } from "../../server/services/live/run-task";
import { runRunnerWorker } from "../../server/services/live/worker";
import { sql } from "drizzle-orm";
import { rawAll } from "../../db/database";
import { createBackendContext, describeEachBackend, onOneEngine } from "../helpers/backends";
import { runCliInProcess, spawnCli } from "../helpers/cli";
import type { TestContext } from "../helpers/context";
import { startFakeOpenAI } from "../helpers/fake-openai";
import { LOCAL_JUDGE_ENV, LOCAL_JUDGE_SETTINGS } from "../helpers/judge-fixtures";
import { callerWithRole } from "../helpers/trpc";
import { SITE_PASSWORD, SITE_USER, startLoginSite, storageStateFileFor, type LoginSite } from "../helpers/login-sites";
import { chromiumSkipReason, titled } from "../helpers/requirements";

const browserConfig = loadConfig();
const chromiumPath = browserConfig.chromiumPath;
const noChromium = chromiumSkipReason();
const haveChromium = noChromium === null;
if (!haveChromium) console.warn(`Skipping benchmark live-run tests: no Chromium at ${chromiumPath} (apt-get install -y chromium, or set CHROMIUM_PATH).`);

let forum: LoginSite;
let market: LoginSite;
let ctx: TestContext;
let browsers: Browser[] = [];
let logins: LoginCache;

beforeAll(async () => {
  if (!haveChromium) return;
  forum = await startLoginSite("forum", "Red kettle");
  market = await startLoginSite("market", "Blue teapot");
});
afterAll(async () => {
  await forum?.close();
  await market?.close();
});
async function profile(name = "lab") {
  return createDeploymentProfile(ctx.db, {
    name,
    sites: [
      {
        placeholder: "__REDDIT__",
        url: `${forum.baseUrl}/`,
        login: {
          kind: "recipe",
          url: `${forum.baseUrl}/login`,
          usernameSelector: "#user",
          passwordSelector: "#pass",
          submitSelector: "#go",
          username: SITE_USER,
          password: SITE_PASSWORD,
        },
        reset: { method: "POST", url: `${forum.baseUrl}/reset` },
      },
      {
        placeholder: "__SHOPPING__",
        url: market.baseUrl,
        login: { kind: "storageState", state: storageStateFileFor(market) },
        reset: { method: "POST", url: `${market.baseUrl}/reset` },
      },
      { placeholder: "__HOMEPAGE__", url: market.baseUrl },
    ],
  });
}

const IMAGE = "environment_docker/webarena-homepage/static/input_images/reddit/task_0/input_0.png";

/** Imports a `test_reddit.raw.json` the way researchers import VWA task configs; returns the task set's tasks. */
async function importTasks(tasks: Record<string, unknown>[]): Promise<number[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-vwa-configs-"));
  try {
    fs.writeFileSync(path.join(dir, "test_reddit.raw.json"), JSON.stringify(tasks));
    await runImport({ db: ctx.db, store: ctx.store }, { path: dir });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const rows = await rawAll<{ id: number }>(ctx.db, sql`select id from tasks order by external_id`);
  return rows.map((r) => Number(r.id));
}

function vwaTask(id: number, over: Record<string, unknown> = {}) {
  return {
    task_id: id,
    sites: ["reddit"],
    require_login: true,
    storage_state: "./.auth/reddit_state.json",
    start_url: "__REDDIT__/",
    intent: `Find the kettle (${id})`,
    image: null,
    require_reset: true,
    eval: {
      eval_types: ["url_match", "program_html"],
      reference_answers: null,
      reference_url: "__REDDIT__/item/1",
      url_note: "EXACT",
      program_html: [{ url: "last", locator: "document.querySelector('h1').outerText", required_contents: { must_include: ["Red kettle"] } }],
    },
    ...over,
  };
}

function start(req: LiveRunRequestInput) {
  return startLiveRun({ db: ctx.db, env: LOCAL_JUDGE_ENV }, liveRunRequestSchema.parse(req));
}

function work(runId: number, env: Record<string, string> = {}, concurrency = 1) {
  return runRunnerWorker({
    ctx,
    env: { ...LOCAL_JUDGE_ENV, ...env },
    concurrency,
    groupKey: liveGroupKey(runId),
    untilIdle: true,
    demoPort: null,
    logins,
    resolveHost: async () => [],
    launch: async ({ egressProxy }) => {
      const b = await launchChromium({ config: browserConfig, egressProxy });
      browsers.push(b);
      return b;
    },
  });
}

async function trajectories(runId: number) {
  const { tasks } = await liveRunDetail({ db: ctx.db, env: {} }, runId);
  const out = [];
  for (const t of tasks) out.push({ task: t, detail: (await getTrajectoryDetail(ctx.db, t.trajectoryId!))! });
  return out;
}
type RecordedTask = Awaited<ReturnType<typeof trajectories>>[number];

const sha = (b: Buffer) => crypto.createHash("sha256").update(b).digest("hex");

describeEachBackend("live runs against a deployment profile", (backend) => {
  // What these tests check is Chromium's and the runner's behaviour (limits, sign-in, resets, hosts, a dying browser),
  // which no database engine changes: `once` runs them on one engine. The scripted run (its trajectory, steps and HAR
  // stored and read back), the success rate and tasks per host (concurrency across the queue's claims) are the
  // engine's business and run on both.
  const once = onOneEngine(backend);
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-bench-");
    browsers = [];
    logins = new LoginCache();
    if (!haveChromium) return;
    forum.resets = market.resets = forum.logins = market.logins = forum.imageFetches = market.imageFetches = 0;
    forum.resetStatus = market.resetStatus = 200;
    forum.onReset = market.onReset = undefined;
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  describe.skipIf(!haveChromium)(titled("runs", noChromium), () => {
    once("a task file's own step and time limits end its trajectory as step_limit / time_limit; others get the run's", async () => {
      // VisualWebArena configs with limits, run against the profile.
      const lab = await profile();
      const ids = await importTasks([vwaTask(0, { max_steps: 2 }), vwaTask(1, { time_limit_seconds: 2 })]);
      const waits = { kind: "scripted" as const, source: "actions" as const, actions: Array(20).fill("wait") as string[] };
      const vwa = await start({ tasks: { from: "tasks", taskIds: ids }, policy: waits, settings: { maxSteps: 30, deploymentProfileId: lab.id } });

      // An open-web task file (WebVoyager's format) with limits, no profile: the site is an allowed destination.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-wv-tasks-"));
      const file = path.join(dir, "WebVoyager_data.jsonl");
      const row = (id: string, over: Record<string, unknown>) =>
        JSON.stringify({ web_name: "Forum", id, ques: `Look around (${id})`, web: `${forum.baseUrl}/login`, ...over });
      fs.writeFileSync(file, [row("Forum--0", { max_steps: 2 }), row("Forum--1", { time_limit_seconds: 2 }), row("Forum--2", {})].join("\n") + "\n");
      try {
        await runImport({ db: ctx.db, store: ctx.store }, { path: file });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
      const wvIds = (
        await rawAll<{ id: number }>(
          ctx.db,
          sql`select t.id from tasks t join task_sets s on s.id = t.task_set_id where s.name = 'WebVoyager' order by t.external_id`,
        )
      ).map((r) => Number(r.id));
      expect(wvIds).toHaveLength(3);
      const open = await start({ tasks: { from: "tasks", taskIds: wvIds }, policy: waits, settings: { maxSteps: 3, concurrency: 3 } });
      // Both runs, and each run's tasks, side by side: every limit here is a second or more of waiting, which need not
      // add up task after task. Each task still has a browser of its own.
      await Promise.all([work(vwa.runId, {}, 2), work(open.runId, { VERDICT_RUNNER_ALLOWED_DESTINATIONS: `127.0.0.1:${forum.port}` }, 3)]);

      const [stepLimited, timeLimited] = await trajectories(vwa.runId);
      expect(stepLimited!.detail.trajectory).toMatchObject({
        outcome: "step_limit",
        stepCount: 2,
        outcomeDetail: "reached the step limit (2) without an answer",
      });
      expect(timeLimited!.detail.trajectory.outcome).toBe("time_limit");
      expect(timeLimited!.detail.trajectory.outcomeDetail).toMatch(/^reached the time limit \(2 s\) at step [0-3] without an answer$/);
      // The run page shows each task's own limits; a time limit is the agent's, not the infrastructure's.
      const detail = await liveRunDetail({ db: ctx.db, env: {} }, vwa.runId);
      expect(detail.tasks.map((t) => [t.maxSteps, t.timeLimitMs])).toEqual([
        [2, 1_800_000],
        [30, 2_000],
      ]);
      expect(detail.successRate).toMatchObject({ infraErrors: 0, blocked: 0 });

      const [a, b, c] = await trajectories(open.runId);
      expect(a!.detail.trajectory).toMatchObject({ outcome: "step_limit", stepCount: 2 });
      expect(b!.detail.trajectory.outcome).toBe("time_limit");
      expect(b!.detail.trajectory.stepCount).toBeLessThan(4);
      // No limit of its own: the run's step limit.
      expect(c!.detail.trajectory).toMatchObject({ outcome: "step_limit", stepCount: 3, outcomeDetail: "reached the step limit (3) without an answer" });
    });

    once("a run's signed-in sessions end with the run: the next run signs in again", async () => {
      const lab = await profile();
      const ids = await importTasks([vwaTask(0), vwaTask(1)]);
      const policy = { kind: "scripted" as const, source: "actions" as const, actions: ["stop [Red kettle]"] };
      const first = await start({ tasks: { from: "tasks", taskIds: ids }, policy, settings: { deploymentProfileId: lab.id } });
      await work(first.runId);
      expect(forum.logins).toBe(1);
      expect(logins.size).toBe(0);
      const second = await start({ tasks: { from: "tasks", taskIds: ids }, policy, settings: { deploymentProfileId: lab.id } });
      await work(second.runId);
      expect(forum.logins).toBe(2);
      expect(logins.performed).toBe(2);
      for (const { detail } of [...(await trajectories(first.runId)), ...(await trajectories(second.runId))]) {
        // Signed in each time: the task started on the forum's home, not its login page.
        expect(detail.steps[0]!.url).toBe(`${forum.baseUrl}/`);
      }
    });

    it("a scripted run signs in once, resets before each task, uses tabs, evaluates the rules live and keeps the HAR", async () => {
      const lab = await profile();
      const ids = await importTasks([
        vwaTask(0),
        // Also signed in to the market (uploaded storage state), which it visits in a second tab.
        vwaTask(1, { sites: ["reddit", "shopping"], storage_state: "./.auth/reddit.shopping_state.json" }),
      ]);
      const { runId } = await start({
        tasks: { from: "tasks", taskIds: ids },
        policy: {
          kind: "scripted",
          source: "actions",
          actions: ["click [{{Red kettle}}]", "new_tab", `goto [${market.baseUrl}/item/1]`, "tab_focus [0]", "stop [Red kettle]"],
        },
        settings: { maxSteps: 8, deploymentProfileId: lab.id },
      });
      const summary = await work(runId);
      expect(summary.succeeded).toBe(2);

      // One login for the run (the recipe), reused by the second task; a reset of each task's sites before it.
      expect(forum.logins).toBe(1);
      expect(logins.performed).toBe(1);
      expect(market.logins).toBe(0);
      expect(forum.resets).toBe(2);
      expect(market.resets).toBe(1);

      const [first, second] = await trajectories(runId);
      for (const { detail } of [first!, second!]) {
        expect(detail.trajectory, detail.trajectory.outcomeDetail ?? "").toMatchObject({ outcome: "answered", finalAnswer: "Red kettle", stepCount: 5 });
        expect(detail.steps.map((s) => s.action.type)).toEqual(["click", "new_tab", "goto", "tab_focus", "answer"]);
        // The first task's second tab lands on the market's login page, where Chromium's own autofill request may be
        // refused after the goto: the steps the agent took on the forum are clean.
        expect(detail.steps.slice(0, 2).map((s) => s.error)).toEqual([null, null]);
        // Signed in: the start page is the forum's home, not its login page.
        expect(detail.steps[0]!.url).toBe(`${forum.baseUrl}/`);
        expect(detail.steps[4]!.url).toBe(`${forum.baseUrl}/item/1`);
        // The rules ran on the live page with the placeholders replaced by the profile's URLs.
        const verdict = await findVerdict(ctx.db, {
          trajectoryId: detail.trajectory.id,
          evaluatorKey: LIVE_RULES_EVALUATOR_KEY,
          k: "",
          promptVersion: "vwa-rules-v1",
        });
        expect(verdict, JSON.stringify(verdict?.details)).toMatchObject({ verdict: "success", score: 1 });
      }
      expect(second!.detail.steps.map((s) => s.error)).toEqual([null, null, null, null, null]);
      // The second task had the market's uploaded storage state: its second tab shows the item, not the login page.
      expect(second!.detail.steps[3]!.url).toBe(`${market.baseUrl}/item/1`);
      expect(first!.detail.steps[3]!.url).toBe(`${market.baseUrl}/login`);

      // Tabs per step: one, then two with the new one active, then back to the first.
      const evidence = await stepEvidenceOf(ctx.db, second!.detail.trajectory.id);
      expect(evidence.map((e) => e.tabs!.length)).toEqual([1, 1, 2, 2, 2]);
      expect(evidence[2]!.tabs!.find((t) => t.active)!.index).toBe(1);
      expect(evidence[4]!.tabs!.find((t) => t.active)!.index).toBe(0);
      expect(evidence.every((e) => e.prompt === null)).toBe(true);

      // The HAR: in the content-addressed store, linked to the trajectory, listing the site's requests.
      const har = (await trajectoryHarOf(ctx.db, second!.detail.trajectory.id))!;
      expect(har).not.toBeNull();
      const bytes = await ctx.store.read(har.harHash);
      expect(sha(Buffer.from(bytes))).toBe(har.harHash);
      const entries = (
        JSON.parse(Buffer.from(bytes).toString("utf8")) as { log: { entries: { request: { url: string; method: string }; response: { status: number } }[] } }
      ).log.entries;
      expect(entries.length).toBe(har.entries);
      const urls = entries.map((e) => `${e.request.method} ${e.request.url} ${e.response.status}`);
      expect(urls).toContain(`GET ${forum.baseUrl}/ 200`);
      expect(urls).toContain(`GET ${forum.baseUrl}/item/1 200`);
      expect(urls).toContain(`GET ${market.baseUrl}/item/1 200`);
      expect(fs.existsSync(path.join(second!.detail.trajectory.sourcePath!, "network.har"))).toBe(false);
      // Security review 2, L1: the profile's sealed logins (the recipe's session cookie, the uploaded storage state's)
      // went with every request, yet the stored log keeps their names only.
      const harText = Buffer.from(bytes).toString("utf8");
      for (const secret of [forum.token, market.token]) expect(harText).not.toContain(secret);
      const withCookies = (
        JSON.parse(harText) as { log: { entries: { request: { headers: { name: string; value: string }[]; cookies: { name: string; value: string }[] } }[] } }
      ).log.entries.filter((e) => e.request.cookies.length > 0);
      expect(withCookies.length).toBeGreaterThan(0);
      for (const e of withCookies) {
        expect(e.request.cookies.every((c) => c.value === "[redacted]")).toBe(true);
        expect(e.request.headers.filter((h) => h.name.toLowerCase() === "cookie").map((h) => h.value)).toEqual(["[redacted]"]);
      }

      // The player's Network panel: step 0's click loaded the item page; step 2's goto the market's.
      const step0 = await liveStepEvidence(ctx, second!.detail.trajectory.id, 0);
      expect(step0.network!.requests.map((r) => `${r.method} ${r.url} ${r.status}`)).toContain(`GET ${forum.baseUrl}/item/1 200`);
      expect(step0.network!.requests.find((r) => r.url === `${forum.baseUrl}/item/1`)!.size).toBeGreaterThan(50);
      const step2 = await liveStepEvidence(ctx, second!.detail.trajectory.id, 2);
      expect(step2.network!.requests.map((r) => r.url)).toEqual([`${market.baseUrl}/item/1`]);
      expect(step2.tabs).toHaveLength(2);

      // Secrets: sealed in the database, never in a profile's view.
      const raw = JSON.stringify(await rawAll(ctx.db, sql`select sites from deployment_profiles`));
      expect(raw).not.toContain(SITE_PASSWORD);
      expect(raw).not.toContain(market.token);
      expect(JSON.stringify(await listDeploymentProfiles(ctx.db))).not.toContain(SITE_PASSWORD);
      expect((await listDeploymentProfiles(ctx.db))[0]!.sites[1]!.login).toEqual({ kind: "storageState", hasState: true, cookies: 1 });

      const detail = await liveRunDetail({ db: ctx.db, env: {} }, runId);
      // What the run may reach, as the run page says it: the profile's sites and nothing else.
      expect(detail.deployment).toEqual({
        id: lab.id,
        name: "lab",
        hosts: ["127.0.0.1"],
        destinations: [`127.0.0.1:${forum.port}`, `127.0.0.1:${market.port}`],
      });
      expect(detail.successRate).toEqual({ successes: 2, n: 2, infraErrors: 0, blocked: 0 });
    });

    once("the VLM policy gets the task's input image; each step's prompt is stored with images as hashes", async () => {
      const lab = await profile();
      const fake = await startFakeOpenAI();
      try {
        fake.setResponder((req) => {
          const text = req.texts.at(-1)!;
          const line = text.split("\n").find((l) => /^\[\d+\] <a> Red kettle/.test(l));
          return line
            ? { reply: `Reasoning: the kettle from the image.\nAction: click [${/^\[(\d+)\]/.exec(line)![1]}]` }
            : { reply: "Reasoning: found it.\nAction: stop [Red kettle]" };
        });
        const config = await createJudgeConfig(
          ctx.db,
          { name: "fake vlm", baseUrl: fake.baseUrl, model: "fake-vlm-1", maxRetries: 0, timeoutMs: 10_000 },
          LOCAL_JUDGE_SETTINGS,
        );
        const ids = await importTasks([vwaTask(0, { image: IMAGE })]);
        const { runId } = await start({
          tasks: { from: "tasks", taskIds: ids },
          policy: { kind: "vlm", judgeConfigId: config.id },
          settings: { maxSteps: 4, deploymentProfileId: lab.id },
        });
        await work(runId);
        const [{ detail }] = (await trajectories(runId)) as [RecordedTask];
        expect(detail.trajectory).toMatchObject({ outcome: "answered", finalAnswer: "Red kettle", stepCount: 2 });

        // The input image, fetched from the deployment's homepage, is in every request, right after the task.
        expect(fake.requests).toHaveLength(2);
        for (const req of fake.requests) expect(req.imageHashes[0]).toBe(sha(market.image));
        expect(fake.requests[0]!.texts).toContain("The task comes with this image:");

        // Fetched once, kept content-addressed in the store and linked to the task; a second run sends the stored
        // copy without fetching it again.
        expect(market.imageFetches).toBe(1);
        expect(Buffer.from(await ctx.store.read(sha(market.image))).equals(market.image)).toBe(true);
        expect(await storedInputImage(ctx.db, ids[0]!, `${market.baseUrl}/static/input_images/reddit/task_0/input_0.png`)).toMatchObject({
          imageHash: sha(market.image),
          mime: "image/png",
        });
        const again = await start({
          tasks: { from: "tasks", taskIds: ids },
          policy: { kind: "vlm", judgeConfigId: config.id },
          settings: { maxSteps: 4, deploymentProfileId: lab.id },
        });
        await work(again.runId);
        expect(market.imageFetches).toBe(1);
        expect(fake.requests).toHaveLength(4);
        for (const req of fake.requests.slice(2)) expect(req.imageHashes[0]).toBe(sha(market.image));
        // Garbage collection keeps them: the input image and the HAR are named by their rows, not by screenshot rows.
        const har = (await trajectoryHarOf(ctx.db, detail.trajectory.id))!;
        const gc = await collectUnreferencedObjects(ctx, { minAgeMs: 0, dryRun: true });
        expect(gc.removed).not.toContain(sha(market.image));
        expect(gc.removed).not.toContain(har.harHash);

        const evidence = await stepEvidenceOf(ctx.db, detail.trajectory.id);
        expect(evidence).toHaveLength(2);
        const prompt = evidence[1]!.prompt as { version: string; messages: { role: string; content: unknown }[] };
        expect(prompt.version).toBe("verdict-live-v2");
        const stored = JSON.stringify(prompt.messages);
        expect(stored).toContain(`sha256:${sha(market.image)}`);
        expect(stored).toContain(`sha256:${detail.steps[1]!.screenshotHash}`);
        expect(stored).not.toContain("data:image");
        expect(prompt.messages.map((m) => m.role)).toEqual(fake.requests[1]!.body.messages.map((m) => m.role));
      } finally {
        await fake.close();
      }
    });

    it("a CAPTCHA ends the trajectory as blocked; a failing reset is an infrastructure error after its retries; neither counts in the success rate", async () => {
      const lab = await profile();
      const ids = await importTasks([vwaTask(0), vwaTask(1, { start_url: "__REDDIT__/captcha" })]);
      const { runId } = await start({
        tasks: { from: "tasks", taskIds: ids },
        policy: { kind: "scripted", source: "actions", actions: ["click [{{Red kettle}}]", "stop [Red kettle]"] },
        settings: { maxSteps: 4, deploymentProfileId: lab.id },
      });
      await work(runId);
      const [ok, captcha] = await trajectories(runId);
      expect(ok!.detail.trajectory.outcome).toBe("answered");
      expect(captcha!.detail.trajectory).toMatchObject({ outcome: "blocked", stepCount: 1 });
      expect(captcha!.detail.trajectory.outcomeDetail).toBe("blocked at step 0 by a CAPTCHA: a CAPTCHA widget (.g-recaptcha)");
      expect(captcha!.detail.steps[0]!.error).toMatch(/CAPTCHA/);
      // No verdict for a blocked trajectory: the agent never got to try.
      expect(captcha!.task.verdict).toBeNull();

      forum.resetStatus = 500;
      forum.resets = 0;
      const failing = await start({
        tasks: { from: "tasks", taskIds: [ids[0]!] },
        policy: { kind: "scripted", source: "actions", actions: ["stop [x]"] },
        settings: { deploymentProfileId: lab.id, infraRetries: 2 },
      });
      await work(failing.runId);
      const [infra] = await trajectories(failing.runId);
      expect(forum.resets).toBe(3);
      expect(infra!.detail.trajectory).toMatchObject({ outcome: "infra_error", stepCount: 0 });
      expect(infra!.detail.trajectory.outcomeDetail).toBe(
        `the reset hook of __REDDIT__ (POST ${forum.baseUrl}/reset) answered HTTP 500: the database did not come back (3 attempts)`,
      );
      expect(infra!.task.verdict).toBeNull();
      expect((await liveRunDetail({ db: ctx.db, env: {} }, failing.runId)).successRate).toEqual({ successes: 0, n: 0, infraErrors: 1, blocked: 0 });
      expect((await liveRunDetail({ db: ctx.db, env: {} }, runId)).successRate).toEqual({ successes: 1, n: 1, infraErrors: 0, blocked: 1 });

      // Analytics leave them out too, even when an evaluator graded them afterwards (here: a failure each).
      for (const id of [captcha!.detail.trajectory.id, infra!.detail.trajectory.id]) {
        await upsertVerdict(ctx.db, {
          trajectoryId: id,
          evaluatorKey: LIVE_RULES_EVALUATOR_KEY,
          evaluatorName: "rules",
          kind: "rule",
          origin: "verdict",
          k: "",
          promptVersion: "vwa-rules-v1",
          verdict: "failure",
          score: 0,
          rationale: null,
          details: {},
        });
      }
      const overview = await (await callerWithRole(ctx, "researcher")).analytics.overview({ scope: {} });
      expect(overview.notCounted).toEqual({ infraErrors: 1, blocked: 1 });
      expect(overview.trajectories).toBe(1);
      expect(overview.columns.map((c) => [c.total.successes, c.total.n])).toEqual([[1, 1]]);
    });

    once("an input image that cannot be fetched, or sits on a host outside the profile, is an infrastructure error naming the task and the URL", async () => {
      const lab = await profile();
      const other = await startLoginSite("other", "Green mug");
      try {
        const ids = await importTasks([
          vwaTask(0, { image: "__SHOPPING__/static/missing.png" }),
          vwaTask(1, { image: [IMAGE, `${other.baseUrl}/static/a.png`] }),
        ]);
        const { runId } = await start({
          tasks: { from: "tasks", taskIds: ids },
          policy: { kind: "scripted", source: "actions", actions: ["stop [x]"] },
          settings: { deploymentProfileId: lab.id, infraRetries: 1 },
        });
        await work(runId);
        const [missing, outside] = await trajectories(runId);
        expect(missing!.detail.trajectory).toMatchObject({
          outcome: "infra_error",
          stepCount: 0,
          outcomeDetail: `task visualwebarena.234: the input image ${market.baseUrl}/static/missing.png answered HTTP 404 (2 attempts)`,
        });
        expect(outside!.detail.trajectory.outcome).toBe("infra_error");
        expect(outside!.detail.trajectory.outcomeDetail).toContain(
          `task visualwebarena.235: the input image ${other.baseUrl}/static/a.png could not be fetched: refused: 127.0.0.1:${other.port} is not allowed`,
        );
        // The other site was never asked: the address was refused before connecting.
        expect(other.imageFetches).toBe(0);
        expect((await liveRunDetail({ db: ctx.db, env: {} }, runId)).successRate).toEqual({ successes: 0, n: 0, infraErrors: 2, blocked: 0 });
      } finally {
        await other.close();
      }
    });

    once(
      "review 2, L5: a reset hook on a host of its own is called at its exact URL only; a task's input image and the run's pages cannot reach that host",
      async () => {
        const hookRequests: string[] = [];
        const hooks = http.createServer((req, res) => {
          hookRequests.push(`${req.method} ${req.url}`);
          res.writeHead(200, { "content-type": "text/plain" }).end("reset");
        });
        await new Promise<void>((r) => hooks.listen(0, "127.0.0.1", r));
        const hookPort = (hooks.address() as AddressInfo).port;
        try {
          const lab = await createDeploymentProfile(ctx.db, {
            name: "hooks apart",
            sites: [
              {
                placeholder: "__REDDIT__",
                url: `${forum.baseUrl}/`,
                login: {
                  kind: "recipe",
                  url: `${forum.baseUrl}/login`,
                  usernameSelector: "#user",
                  passwordSelector: "#pass",
                  submitSelector: "#go",
                  username: SITE_USER,
                  password: SITE_PASSWORD,
                },
                reset: { method: "POST", url: `http://127.0.0.1:${hookPort}/reset/forum` },
              },
            ],
          });
          const ids = await importTasks([vwaTask(0, { image: `http://127.0.0.1:${hookPort}/reset/everything-via-image` }), vwaTask(1)]);
          const { runId } = await start({
            tasks: { from: "tasks", taskIds: ids },
            policy: { kind: "scripted", source: "actions", actions: [`goto [http://127.0.0.1:${hookPort}/reset/from-the-page]`, "stop [x]"] },
            settings: { deploymentProfileId: lab.id, infraRetries: 0 },
          });
          await work(runId);
          const [viaImage, viaPage] = await trajectories(runId);
          expect(viaImage!.detail.trajectory.outcome).toBe("infra_error");
          expect(viaImage!.detail.trajectory.outcomeDetail).toContain(
            `the input image http://127.0.0.1:${hookPort}/reset/everything-via-image could not be fetched: refused: 127.0.0.1:${hookPort} is not allowed`,
          );
          expect(viaPage!.detail.steps[0]!.error).toMatch(new RegExp(`127\\.0\\.0\\.1:${hookPort}`));
          // The hook saw the runner's resets, at the profile's URL, and nothing else.
          expect(hookRequests.length).toBeGreaterThan(0);
          expect(new Set(hookRequests)).toEqual(new Set(["POST /reset/forum"]));
        } finally {
          hooks.closeAllConnections();
          await new Promise((r) => hooks.close(r));
        }
      },
    );

    once("a browser that dies before the first step is launched again and the task retried; dying every time is an infrastructure error", async () => {
      const lab = await profile();
      const ids = await importTasks([vwaTask(0)]);
      const policy = { kind: "scripted" as const, source: "actions" as const, actions: ["stop [Red kettle]"] };
      // The browser goes away while the deployment is being reset, once: the second attempt gets a new browser.
      let kills = 0;
      forum.onReset = async () => {
        if (kills++ === 0) await browsers.at(-1)!.close();
      };
      const first = await start({ tasks: { from: "tasks", taskIds: ids }, policy, settings: { deploymentProfileId: lab.id, infraRetries: 2 } });
      await work(first.runId);
      const [once] = (await trajectories(first.runId)) as [RecordedTask];
      expect(once.detail.trajectory, once.detail.trajectory.outcomeDetail ?? "").toMatchObject({ outcome: "answered", finalAnswer: "Red kettle" });
      expect(forum.resets).toBe(2);
      expect(browsers).toHaveLength(2);

      // Every attempt loses its browser: the deployment's failure after 1 + 2 attempts, not the agent's.
      forum.onReset = async () => {
        await browsers.at(-1)!.close();
      };
      const second = await start({ tasks: { from: "tasks", taskIds: ids }, policy, settings: { deploymentProfileId: lab.id, infraRetries: 2 } });
      await work(second.runId);
      const [always] = (await trajectories(second.runId)) as [RecordedTask];
      expect(always.detail.trajectory.outcome).toBe("infra_error");
      expect(always.detail.trajectory.outcomeDetail).toMatch(/closed.*\(3 attempts\)$/);
      const detail = await liveRunDetail({ db: ctx.db, env: {} }, second.runId);
      expect(detail.successRate).toMatchObject({ n: 0, infraErrors: 1 });
      forum.onReset = undefined;
    });

    it("tasks per host caps how many of a run's tasks are on one host at once, however many the worker runs", async () => {
      const lab = await profile();
      const ids = await importTasks([vwaTask(0), vwaTask(1), vwaTask(2)]);
      const policy = { kind: "scripted" as const, source: "actions" as const, actions: ["stop [Red kettle]"] };
      // Each task's reset (the first thing it does on the host) is held a moment, so that tasks the cap failed to hold
      // back would overlap it.
      let inFlight = 0;
      let most = 0;
      forum.onReset = async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 400));
        inFlight--;
      };
      const capped = await start({ tasks: { from: "tasks", taskIds: ids }, policy, settings: { deploymentProfileId: lab.id, hostConcurrency: 1 } });
      expect((await work(capped.runId, {}, 3)).succeeded).toBe(3);
      expect(most).toBe(1);

      // Without the cap, a reset is held until a second one is in flight, however slowly the machine starts the
      // other tasks: the overlap is waited for, not hoped for (after a minute a lone reset lets go, and the test fails).
      most = 0;
      let overlapped!: () => void;
      const overlap = new Promise<void>((r) => (overlapped = r));
      forum.onReset = async () => {
        most = Math.max(most, ++inFlight);
        if (inFlight >= 2) overlapped();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([overlap, new Promise((r) => (timer = setTimeout(r, 60_000)))]);
        clearTimeout(timer);
        inFlight--;
      };
      const free = await start({ tasks: { from: "tasks", taskIds: ids }, policy, settings: { deploymentProfileId: lab.id } });
      expect((await work(free.runId, {}, 3)).succeeded).toBe(3);
      expect(most).toBeGreaterThan(1);
      forum.onReset = undefined;
    });

    once("a profile allows only its own hosts: another loopback port is refused", async () => {
      const lab = await profile();
      const other = await startLoginSite("other", "Green mug");
      try {
        const ids = await importTasks([vwaTask(0)]);
        const { runId } = await start({
          tasks: { from: "tasks", taskIds: ids },
          policy: { kind: "scripted", source: "actions", actions: [`goto [${other.baseUrl}/login]`, "stop [x]"] },
          settings: { deploymentProfileId: lab.id },
        });
        await work(runId);
        const [{ detail }] = (await trajectories(runId)) as [RecordedTask];
        expect(detail.steps[0]!.error).toMatch(new RegExp(`127\\.0\\.0\\.1:${other.port}`));
        expect(detail.steps[1]!.url).toBe(`${forum.baseUrl}/`);
        expect(other.logins + other.resets).toBe(0);

        // Without a profile, placeholders cannot be opened at all.
        await expect(start({ tasks: { from: "tasks", taskIds: ids }, policy: { kind: "scripted", source: "actions", actions: ["stop [x]"] } })).rejects.toThrow(
          /__REDDIT__ in its start URL needs a deployment profile/,
        );
      } finally {
        await other.close();
      }
    });
  });
});

// The same benchmark run from the command line, as a researcher scripts it: the profile from a file (with an
// uploaded storage state beside it), the VWA config file as the task source, the run carried out by the CLI itself.
describe.skipIf(!haveChromium)(titled("npm run cli -- run --profile", noChromium), () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-bench-cli-"));
    forum.resets = market.resets = forum.logins = market.logins = 0;
    forum.resetStatus = market.resetStatus = 200;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  // `deployment-profile` starts the real scripts/cli.ts (that command's process contract); `run`, whose process
  // contract live-runner-recovery.test.ts checks, runs in this process, which also serves the stand-in sites.
  const cliEnv = () => ({ ...process.env, VERDICT_DATA_DIR: dir, VERDICT_DB: path.join(dir, "verdict.db") });
  const cli = (args: string[]) => (args[0] === "run" ? runCliInProcess(args, cliEnv()) : spawnCli(args, cliEnv()));

  it("creates the profile from its file and runs an imported VWA task set with it: one login, a reset per task, rules passed", async () => {
    fs.writeFileSync(path.join(dir, "market_state.json"), storageStateFileFor(market));
    fs.writeFileSync(
      path.join(dir, "lab.json"),
      JSON.stringify({
        name: "lab",
        sites: [
          {
            placeholder: "__REDDIT__",
            url: forum.baseUrl,
            login: {
              kind: "recipe",
              url: `${forum.baseUrl}/login`,
              usernameSelector: "#user",
              passwordSelector: "#pass",
              submitSelector: "#go",
              username: SITE_USER,
              password: SITE_PASSWORD,
            },
            reset: { method: "POST", url: `${forum.baseUrl}/reset` },
          },
          { placeholder: "__SHOPPING__", url: market.baseUrl, login: { kind: "storageState", stateFile: "market_state.json" } },
        ],
      }),
    );
    const created = await cli(["deployment-profile", "create", "--file", path.join(dir, "lab.json")]);
    expect(created.code, created.stderr).toBe(0);
    const configs = path.join(dir, "test_reddit.raw.json");
    fs.writeFileSync(configs, JSON.stringify([vwaTask(0), vwaTask(1)]));
    const script = path.join(dir, "script.txt");
    fs.writeFileSync(script, "click [{{Red kettle}}]\nstop [Red kettle]\n");

    const r = await cli(["run", "--tasks", configs, "--policy", "scripted", "--script", script, "--profile", "lab", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
    expect(out, JSON.stringify(out.trajectories)).toMatchObject({
      status: "finished",
      counts: { total: 2, succeeded: 2 },
      successRate: { successes: 2, n: 2, infraErrors: 0, blocked: 0 },
    });
    expect(out.trajectories.map((t: { finalAnswer: string; steps: number }) => [t.finalAnswer, t.steps])).toEqual([
      ["Red kettle", 2],
      ["Red kettle", 2],
    ]);
    expect(forum.logins).toBe(1);
    expect(forum.resets).toBe(2);

    // A profile name that does not exist fails naming it, before anything is queued.
    const missing = await cli(["run", "--tasks", configs, "--policy", "scripted", "--profile", "no-such-lab"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/deployment profile.*no-such-lab/);
    expect(missing.stderr).not.toMatch(/queued/);
    // Generous: the run took 18 s on an idle machine with the CLI in a process of its own, and went past 60 s with the
    // machine's load at 12.
  }, 180_000);
});

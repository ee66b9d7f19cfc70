/**
 * The live runner end to end, on real Chromium and the bundled demo sites: runs are started like the dashboard
 * starts them (startLiveRun → queued jobs) and carried out by a runner worker in this process.
 *
 * Covered: a scripted multi-step run (type, click, scroll, answer) with its boxes, screenshots, actions, incremental
 * step writes, native bundle and live rule verdict; the VLM policy against the fake OpenAI-compatible server, which
 * answers from the element list in the prompt; the host allowlist, private-address refusal, redirects, element
 * blocklist and downloads; cancel within a second; a crashing page; step limit and step timeout; a run's
 * concurrency across a worker's slots.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import sharp from "sharp";
import type { Browser } from "playwright";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ensureTaskSet, upsertTask } from "../../db/repositories/catalog";
import { findVerdict } from "../../db/repositories/evaluation/verdicts";
import { getJob, listJobs } from "../../db/repositories/jobs";
import { liveGroupKey, trajectoryPulse } from "../../db/repositories/live/runs";
import { getScreenshot } from "../../db/repositories/screenshots";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { launchChromium } from "../../server/browser/launch";
import { loadConfig } from "../../server/config";
import { RUNNER_PROMPT_VERSION, RUNNER_SYSTEM_PROMPT } from "../../server/domain/live/policy-prompt";
import { liveRunRequestSchema, type LiveRunRequestInput } from "../../server/domain/live/settings";
import type { ReferenceAnswer } from "../../server/domain/types";
import { startDemoSites, type DemoSitesServer } from "../../server/demo-sites/server";
import { runImport } from "../../server/services/imports/ingest";
import { createJudgeConfig } from "../../server/services/evaluation/judge-configs";
import { cancelLiveRun, listLiveRuns, liveRunDetail, startLiveRun } from "../../server/services/live/live-runs";
import { LIVE_RULES_EVALUATOR_KEY } from "../../server/services/live/run-task";
import { runRunnerWorker } from "../../server/services/live/worker";
import { taskValues } from "../../server/services/imports/ingest";
import { describeEachBackend, createBackendContext, isFirstEngine, onOneEngine } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from "../helpers/fake-openai";
import { LOCAL_JUDGE_ENV, LOCAL_JUDGE_SETTINGS } from "../helpers/judge-fixtures";
import { chromiumSkipReason, titled } from "../helpers/requirements";

const browserConfig = loadConfig();
const chromiumPath = browserConfig.chromiumPath;
const noChromium = chromiumSkipReason();
const haveChromium = noChromium === null;
if (!haveChromium) console.warn(`Skipping live runner tests: no Chromium at ${chromiumPath} (apt-get install -y chromium, or set CHROMIUM_PATH).`);

let sites: DemoSitesServer;
let ctx: TestContext;
let browsers: Browser[] = [];

beforeAll(async () => {
  if (haveChromium) sites = await startDemoSites();
});
afterAll(async () => {
  await sites?.close();
});

const demoHandle = () => ({ baseUrl: sites.baseUrl, origins: [`127.0.0.1:${sites.port}`] });

async function addTask(externalId: string, startUrl: string, extra: { evaluatorConfig?: unknown; referenceAnswers?: ReferenceAnswer[] } = {}): Promise<number> {
  const setId = await ensureTaskSet(ctx.db, { name: "Live test tasks", benchmark: "adhoc" });
  const task = await upsertTask(
    ctx.db,
    setId,
    taskValues({
      taskSet: { name: "Live test tasks", benchmark: "adhoc" },
      externalId,
      site: null,
      intent: `Test task ${externalId}`,
      startUrl,
      inputImages: [],
      referenceAnswers: extra.referenceAnswers ?? [],
      evaluatorConfig: extra.evaluatorConfig ?? null,
      difficulty: null,
      tags: [],
      extra: null,
    }),
  );
  return task.id;
}

function start(req: LiveRunRequestInput) {
  return startLiveRun({ db: ctx.db, env: LOCAL_JUDGE_ENV }, liveRunRequestSchema.parse(req));
}

/** Runs the live run's jobs in this process until none is left. */
function work(runId: number, extra: Partial<Parameters<typeof runRunnerWorker>[0]> = {}) {
  return runRunnerWorker({
    ctx,
    env: LOCAL_JUDGE_ENV,
    concurrency: 2,
    groupKey: liveGroupKey(runId),
    untilIdle: true,
    demo: demoHandle(),
    resolveHost: async () => [],
    launch: async ({ egressProxy }) => {
      const b = await launchChromium({ config: browserConfig, egressProxy });
      browsers.push(b);
      return b;
    },
    ...extra,
  });
}

async function onlyTrajectory(runId: number) {
  const d = await liveRunDetail({ db: ctx.db, env: {} }, runId);
  expect(d.tasks).toHaveLength(1);
  const t = d.tasks[0]!;
  expect(t.trajectoryId).not.toBeNull();
  return { task: t, detail: (await getTrajectoryDetail(ctx.db, t.trajectoryId!))! };
}

/**
 * Waits for what a run in this process records. Generous, and a few reads a second rather than a hundred: the run
 * being watched shares this process and the machine's cores with the reads, and Chromium starts slowly on a busy
 * machine (the tests that wait give themselves the same limit).
 */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 120_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Polls `probe` every few milliseconds while a run records, one probe at a time; `stop()` waits for the last one and
 * rethrows what a probe threw (an assertion inside it).
 */
function watchWhileRunning(probe: () => Promise<void>, everyMs = 5) {
  let failure: unknown = null;
  let inFlight: Promise<void> | null = null;
  const timer = setInterval(() => {
    inFlight ??= probe()
      .catch((e: unknown) => {
        failure ??= e;
      })
      .finally(() => {
        inFlight = null;
      });
  }, everyMs);
  return async () => {
    clearInterval(timer);
    await inFlight;
    if (failure) throw failure;
  };
}

describeEachBackend("live runner on real Chromium", (backend) => {
  // The policies, step and run limits, the safety rules and a crashing page are the runner's and Chromium's behaviour,
  // the same on either database engine: `once` runs them on one engine. Steps streaming into the database,
  // cancelling (read from the run's row) and a run's concurrency across the queue's claims run on both.
  const once = onOneEngine(backend);
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-live-");
    browsers = [];
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  describe.skipIf(!haveChromium)(titled("runs", noChromium), () => {
    it("a scripted run types, clicks, scrolls and answers; steps stream into the database; boxes, screenshots, actions, bundle and live rules check out", async () => {
      const taskId = await addTask("live.shakshuka", `${sites.baseUrl}/recipes/`, {
        evaluatorConfig: {
          eval_types: ["string_match", "program_html"],
          reference_answers: { must_include: ["4 eggs"] },
          program_html: [{ url: "last", locator: "document.querySelector('h1').outerText", required_contents: { must_include: ["Shakshuka"] } }],
        },
      });
      const { runId } = await start({
        tasks: { from: "tasks", taskIds: [taskId] },
        policy: {
          kind: "scripted",
          source: "actions",
          actions: ["type [{{input:e.g. lentil}}] [shakshuka]", "click [{{a:Shakshuka}}]", "Scroll [WINDOW]; down", "stop [4 eggs]"],
        },
        settings: { maxSteps: 10 },
      });

      // Watch the trajectory while the worker records it: steps must appear one by one, not at the end.
      const seen: { steps: number; outcome: string }[] = [];
      const stopWatching = watchWhileRunning(async () => {
        const job = (await listJobs(ctx.db, { groupKey: liveGroupKey(runId) }))[0];
        const progress = job?.progress as { step: number } | null;
        const d = (await liveRunDetail({ db: ctx.db, env: {} }, runId)).tasks[0];
        if (d?.trajectoryId) {
          const p = (await trajectoryPulse(ctx.db, d.trajectoryId))!;
          if (!seen.length || seen.at(-1)!.steps !== p.stepCount || seen.at(-1)!.outcome !== p.outcome) seen.push({ steps: p.stepCount, outcome: p.outcome });
          if (progress) expect(progress.step).toBeLessThanOrEqual(p.stepCount);
        }
      });
      const summary = await work(runId);
      await stopWatching();
      expect(summary.succeeded).toBe(1);
      const whileRunning = seen.filter((s) => s.outcome === "running").map((s) => s.steps);
      expect(new Set(whileRunning).size).toBeGreaterThanOrEqual(3);
      expect(Math.max(...whileRunning)).toBeGreaterThanOrEqual(2);

      const { task, detail } = await onlyTrajectory(runId);
      expect(task.jobStatus).toBe("succeeded");
      expect(detail.trajectory).toMatchObject({ outcome: "answered", finalAnswer: "4 eggs", stepCount: 4, sourceFormat: "verdict-runner" });
      expect(detail.run).toMatchObject({ sourceSystem: "verdict-runner", agentName: "scripted-policy", model: null });
      expect((detail.run.config as { policy: { kind: string } }).policy.kind).toBe("scripted");
      expect(detail.steps.map((s) => s.action.type)).toEqual(["type", "click", "scroll", "answer"]);
      expect(detail.steps.map((s) => s.error)).toEqual([null, null, null, null]);
      expect(detail.steps[0]!.action).toMatchObject({ value: "shakshuka", submit: true });
      expect(detail.steps[0]!.url).toBe(`${sites.baseUrl}/recipes/`);
      expect(detail.steps[1]!.url).toContain("search.html?q=shakshuka");
      expect(detail.steps[2]!.url).toContain("recipe.html?id=shakshuka");

      for (const s of detail.steps) {
        // Boxes: labelled 0..n-1, inside the 1024×768 viewport, and the action's target is one of them.
        expect(s.elements!.length).toBeGreaterThan(0);
        expect(s.elements!.map((e) => e.label)).toEqual(s.elements!.map((_, i) => String(i)));
        for (const e of s.elements!) {
          const [x, y, w, h] = e.bbox!;
          expect(x).toBeGreaterThanOrEqual(0);
          expect(y).toBeGreaterThanOrEqual(0);
          expect(x + w).toBeLessThanOrEqual(1024);
          expect(y + h).toBeLessThanOrEqual(768);
        }
        // Screenshots: both stored, both 1024×768 PNGs, different (marks burned into one), files in the store.
        expect(s.marksBurnedIn).toBe(true);
        expect(s.screenshotHash).not.toBe(s.rawScreenshotHash);
        for (const hash of [s.screenshotHash!, s.rawScreenshotHash!]) {
          expect(await getScreenshot(ctx.db, hash)).toMatchObject({ mime: "image/png", width: 1024, height: 768 });
          expect(await ctx.store.has(hash)).toBe(true);
        }
      }
      const typed = detail.steps[0]!;
      const field = typed.elements!.find((e) => e.label === typed.action.target)!;
      expect(field.tag).toBe("input");
      expect(field.text).toMatch(/e\.g\. lentil/);
      const clicked = detail.steps[1]!;
      expect(clicked.elements!.find((e) => e.label === clicked.action.target)!.text).toMatch(/Shakshuka/);

      // The marked screenshot differs from the raw one on the target's box outline, and only around the boxes
      // (outline and number tag), nowhere else.
      const [marked, raw] = await Promise.all(
        [clicked.screenshotHash!, clicked.rawScreenshotHash!].map(async (h) =>
          sharp(await ctx.store.read(h))
            .raw()
            .toBuffer({ resolveWithObject: true }),
        ),
      );
      const { width, channels } = marked!.info;
      const px = (img: Buffer, x: number, y: number) => [...img.subarray((y * width + x) * channels, (y * width + x) * channels + 3)];
      const [bx, by] = clicked.elements!.find((e) => e.label === clicked.action.target)!.bbox!;
      expect(px(marked!.data, bx, by)).not.toEqual(px(raw!.data, bx, by));
      const nearBox = (x: number, y: number) =>
        clicked.elements!.some(({ bbox }) => x >= bbox![0] - 24 && x <= bbox![0] + bbox![2] + 24 && y >= bbox![1] - 24 && y <= bbox![1] + bbox![3] + 24);
      let differing = 0;
      for (let y = 0; y < marked!.info.height; y++) {
        for (let x = 0; x < width; x++) {
          const i = (y * width + x) * channels;
          if (marked!.data[i] !== raw!.data[i] || marked!.data[i + 1] !== raw!.data[i + 1] || marked!.data[i + 2] !== raw!.data[i + 2]) {
            differing++;
            if (!nearBox(x, y)) throw new Error(`marked and raw screenshots differ at (${x}, ${y}), far from every box`);
          }
        }
      }
      expect(differing).toBeGreaterThan(100);

      // Native bundle: written next to the data, and importing it changes nothing.
      expect(detail.trajectory.sourcePath).toBe(path.join(ctx.dir, "live-runs", `run-${runId}`, `trajectory-${detail.trajectory.id}`));
      const manifest = JSON.parse(fs.readFileSync(path.join(detail.trajectory.sourcePath!, "manifest.json"), "utf8"));
      expect(manifest.trajectories[0]).toMatchObject({ outcome: "answered", finalAnswer: "4 eggs" });
      expect(manifest.trajectories[0].steps).toHaveLength(4);
      const again = await runImport({ db: ctx.db, store: ctx.store }, { path: detail.trajectory.sourcePath!, format: "native" });
      expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 1 });

      // The task's rule evaluator ran on the live page: the answer and the page's heading both pass.
      const verdict = await findVerdict(ctx.db, {
        trajectoryId: detail.trajectory.id,
        evaluatorKey: LIVE_RULES_EVALUATOR_KEY,
        k: "",
        promptVersion: "vwa-rules-v1",
      });
      expect(verdict).toMatchObject({ verdict: "success", score: 1 });
      expect(JSON.stringify(verdict!.details)).toContain("program_html");
      // The run page shows that verdict next to the task, apart from the job status (which only says it finished).
      expect((await liveRunDetail({ db: ctx.db, env: {} }, runId)).tasks[0]!.verdict).toMatchObject({
        verdict: "success",
        evaluatorName: "VisualWebArena rules (live page)",
      });
    });

    once("the VLM policy reads the element list, sees its error, keeps the last screenshots, and answers", async () => {
      const fake: FakeOpenAI = await startFakeOpenAI();
      try {
        const pick = (req: RecordedRequest, wanted: RegExp) => {
          const text = req.texts.at(-1)!;
          const line = text.split("\n").find((l) => /^\[\d+\] </.test(l) && wanted.test(l));
          if (!line) throw new Error(`no element ${wanted} in the prompt`);
          return /^\[(\d+)\]/.exec(line)![1]!;
        };
        fake.setResponder((req) => {
          const text = req.texts.at(-1)!;
          const page = /Page: (\S+)/.exec(text)![1]!;
          if (req.n === 1) return { reply: "Reasoning: I will open the featured article.\nAction: click [999]" };
          if (page.endsWith("/wiki/"))
            return {
              reply: `Reasoning: Element ${pick(req, /Read the full article/)} opens the article.\nAction: click [${pick(req, /Read the full article/)}]`,
            };
          if (!page.includes("#automation"))
            return { reply: `Reasoning: The contents list an Automation section.\nAction: Click [${pick(req, /<a> Automation$/)}]` };
          return { reply: "Reasoning: The section says 1984.\nAction: ANSWER; 1984" };
        });
        const config = await createJudgeConfig(
          ctx.db,
          { name: "fake vlm", baseUrl: fake.baseUrl, model: "fake-vlm-1", maxRetries: 0, timeoutMs: 10_000 },
          LOCAL_JUDGE_SETTINGS,
        );
        const taskId = await addTask("live.lighthouse", `${sites.baseUrl}/wiki/`);
        const { runId } = await start({
          tasks: { from: "tasks", taskIds: [taskId] },
          policy: { kind: "vlm", judgeConfigId: config.id },
          settings: { maxSteps: 8, historyScreenshots: 2 },
        });
        await work(runId);
        const { detail } = await onlyTrajectory(runId);
        expect(detail.trajectory).toMatchObject({ outcome: "answered", finalAnswer: "1984", stepCount: 4 });
        expect(detail.run).toMatchObject({ model: "fake-vlm-1", agentName: "verdict-som-agent" });
        expect(detail.run.config).toMatchObject({ policy: { kind: "vlm", judgeConfigId: config.id, promptVersion: RUNNER_PROMPT_VERSION } });
        expect(detail.steps[0]!.error).toMatch(/element \[999\] is not on the page/);
        expect(detail.steps.map((s) => s.thought)).toEqual([
          "I will open the featured article.",
          expect.stringMatching(/opens the article/),
          "The contents list an Automation section.",
          "The section says 1984.",
        ]);
        expect(detail.steps.at(-1)!.url).toContain("#automation");

        expect(fake.requests).toHaveLength(4);
        for (const [i, req] of fake.requests.entries()) {
          expect(req.body.model).toBe("fake-vlm-1");
          expect(req.body.messages[0]).toEqual({ role: "system", content: RUNNER_SYSTEM_PROMPT });
          // What the model saw last is exactly the marked screenshot stored for that step; the window holds two.
          expect(req.imageHashes.at(-1)).toBe(detail.steps[i]!.screenshotHash);
          expect(req.imageHashes).toHaveLength(Math.min(2, i + 1));
          if (i > 0) expect(req.imageHashes[0]).toBe(detail.steps[i - 1]!.screenshotHash);
        }
        expect(fake.requests[1]!.texts.at(-1)).toContain("Your previous action failed: element [999] is not on the page");
        expect(fake.requests[1]!.texts.at(-1)).toMatch(/\[\d+\] <a> Read the full article/);
      } finally {
        await fake.close();
      }
    });

    once("a policy call slower than the step timeout ends the run with the reason; the run timeout and the step limit end it too", async () => {
      // The step timeout also bounds opening the start page, which took over a second with the machine's load at 20:
      // 5 s leaves room for that, and the model's answer comes long after.
      const fake = await startFakeOpenAI({ responder: () => ({ reply: "Reasoning: wait.\nAction: wait", delayMs: 20_000 }) });
      try {
        const config = await createJudgeConfig(
          ctx.db,
          { name: "slow vlm", baseUrl: fake.baseUrl, model: "slow", maxRetries: 0, timeoutMs: 30_000 },
          LOCAL_JUDGE_SETTINGS,
        );
        const slow = await start({
          tasks: { from: "tasks", taskIds: [await addTask("live.slow", `${sites.baseUrl}/wiki/`)] },
          policy: { kind: "vlm", judgeConfigId: config.id },
          settings: { stepTimeoutMs: 5_000 },
        });
        // The outcome says the step's time limit cut the 30 s call short.
        await work(slow.runId);
        expect((await onlyTrajectory(slow.runId)).detail.trajectory).toMatchObject({
          outcome: "error",
          outcomeDetail: "step 0 took longer than 5000 ms",
          stepCount: 0,
        });
      } finally {
        await fake.close();
      }

      const long = await start({
        tasks: { from: "tasks", taskIds: [await addTask("live.long", `${sites.baseUrl}/wiki/`)] },
        policy: { kind: "scripted", source: "actions", actions: [...Array(20).fill("wait"), "stop [never]"] },
        settings: { maxSteps: 30, runTimeoutMs: 5_000 },
      });
      await work(long.runId);
      const timedOut = (await onlyTrajectory(long.runId)).detail.trajectory;
      // The run's time limit is an end reason of its own, like the step limit (not a runner error).
      expect(timedOut.outcome).toBe("time_limit");
      expect(timedOut.outcomeDetail).toMatch(/^reached the time limit \(5 s\) at step \d+ without an answer$/);
      // Twenty waits of a second cannot fit in 5 s: the limit, not the end of the script, stopped it. How many steps
      // fit depends on the machine's speed, so no lower bound.
      expect(timedOut.stepCount).toBeLessThan(20);

      const limited = await start({
        tasks: { from: "tasks", taskIds: [await addTask("live.limit", `${sites.baseUrl}/shop/`)] },
        policy: { kind: "scripted", source: "actions", actions: ["scroll [down]", "scroll [up]", "scroll [down]", "stop [never]"] },
        settings: { maxSteps: 2 },
      });
      await work(limited.runId);
      expect((await onlyTrajectory(limited.runId)).detail.trajectory).toMatchObject({ outcome: "step_limit", stepCount: 2, finalAnswer: null });
    });

    // Every safety test runs on one engine (above), so the block is there only on that one.
    if (isFirstEngine(backend))
      describe("safety", () => {
        let server: http.Server;
        let local: string;
        let port: number;
        beforeAll(async () => {
          server = http.createServer((req, res) => {
            const url = req.url ?? "/";
            if (url === "/redirect") {
              res.writeHead(302, { Location: `http://localhost:${port}/landing` }).end();
            } else if (url === "/file.txt") {
              res.writeHead(200, { "Content-Type": "text/plain", "Content-Disposition": 'attachment; filename="report.txt"' }).end("secret");
            } else if (url === "/landing") {
              res.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html><title>Landing</title><h1>Landed elsewhere</h1>");
            } else {
              res.writeHead(200, { "Content-Type": "text/html" }).end(`<!doctype html><title>Local shop</title>
              <h1>Basket</h1>
              <p><a href="http://example.com/">External site</a></p>
              <p><a href="/redirect">Redirecting link</a></p>
              <p><a href="/file.txt">Download report</a></p>
              <button onclick="this.textContent='Order placed'">Place order</button>`);
            }
          });
          await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
          port = (server.address() as AddressInfo).port;
          local = `http://127.0.0.1:${port}/`;
        });
        afterAll(async () => {
          server.closeAllConnections();
          await new Promise((r) => server.close(r));
        });

        once("refuses a private start URL unless an admin allowed the destination; the demo sites are allowed", async () => {
          const { runId } = await start({
            tasks: { from: "tasks", taskIds: [await addTask("live.private", local)] },
            policy: { kind: "scripted", source: "actions", actions: ["stop [x]"] },
          });
          await work(runId);
          const { task, detail } = await onlyTrajectory(runId);
          expect(task.jobStatus).toBe("succeeded");
          expect(detail.trajectory.outcome).toBe("error");
          expect(detail.trajectory.outcomeDetail).toBe(
            `refused to open the start URL ${local}: 127.0.0.1 is a private or loopback address; private addresses are refused in this run`,
          );
          expect(detail.steps).toHaveLength(0);

          // `localhost` is refused by name, without asking DNS, even with the host on the allowlist.
          const byName = await start({
            tasks: { from: "tasks", taskIds: [await addTask("live.localhost", `http://localhost:${port}/`)] },
            policy: { kind: "scripted", source: "actions", actions: ["stop [x]"] },
          });
          await work(byName.runId);
          expect((await onlyTrajectory(byName.runId)).detail.trajectory.outcomeDetail).toMatch(/localhost is a loopback address/);
        });

        once(
          "blocks navigation off the allowlist (links, redirects, goto), refuses blocked element texts and downloads, and records each as the step's error",
          async () => {
            const { runId } = await start({
              tasks: { from: "tasks", taskIds: [await addTask("live.guarded", local)] },
              policy: {
                kind: "scripted",
                source: "actions",
                actions: [
                  "click [{{External site}}]",
                  "click [{{Redirecting link}}]",
                  "goto [http://example.com/admin]",
                  "click [{{Place order}}]",
                  "click [{{Download report}}]",
                  "stop [done]",
                ],
              },
              settings: { blockedTexts: ["place ORDER"] },
            });
            // The local shop is private: an admin lets runs reach it.
            await work(runId, { env: { ...LOCAL_JUDGE_ENV, VERDICT_RUNNER_ALLOWED_DESTINATIONS: `127.0.0.1:${port}` } });
            const { detail } = await onlyTrajectory(runId);
            expect(detail.trajectory, `${detail.trajectory.outcomeDetail}; steps: ${JSON.stringify(detail.steps.map((s) => [s.url, s.error]))}`).toMatchObject({
              outcome: "answered",
              stepCount: 6,
            });
            const [external, redirect, goto, order, download, answer] = detail.steps;
            expect(external!.error).toBe("navigation to http://example.com/ was blocked: example.com is not in this run's host allowlist (127.0.0.1)");
            expect(redirect!.error).toMatch(
              new RegExp(`the page went to http://localhost:${port}/landing, which is not allowed: localhost:${port} is not in this run's host allowlist`),
            );
            expect(goto!.error).toBe("refused: cannot open http://example.com/admin: example.com is not in this run's host allowlist (127.0.0.1)");
            expect(order!.error).toMatch(/^refused: element \[\d+\] "Place order" matches this run's blocked text "place ORDER"/);
            expect(download!.error).toBe("the download of report.txt was blocked: downloads are off for this run");
            expect(answer!.error).toBeNull();
            // After every refusal the agent is still on the allowed page, and the refused click never happened.
            for (const s of detail.steps) expect(s.url).toBe(local);
            expect(detail.steps.at(-1)!.elements!.some((e) => e.text === "Place order")).toBe(true);
            expect(fs.existsSync(path.join(detail.trajectory.sourcePath!, "downloads"))).toBe(false);
          },
        );

        once("saves downloads into the run's folder when the run allows them", async () => {
          const { runId } = await start({
            tasks: { from: "tasks", taskIds: [await addTask("live.download", local)] },
            policy: { kind: "scripted", source: "actions", actions: ["click [{{Download report}}]", "stop [done]"] },
            settings: { allowDownloads: true },
          });
          await work(runId, { env: { ...LOCAL_JUDGE_ENV, VERDICT_RUNNER_ALLOWED_DESTINATIONS: `127.0.0.1:${port}` } });
          const { detail } = await onlyTrajectory(runId);
          expect(detail.steps[0]!.error).toBeNull();
          const files = fs.readdirSync(path.join(detail.trajectory.sourcePath!, "downloads"));
          expect(files).toHaveLength(1);
          expect(files[0]).toMatch(/-report\.txt$/);
          expect(fs.readFileSync(path.join(detail.trajectory.sourcePath!, "downloads", files[0]!), "utf8")).toBe("secret");
        });
      });

    it("cancelling a run stops its browser at once: no further step is recorded", async () => {
      const { runId } = await start({
        tasks: { from: "tasks", taskIds: [await addTask("live.cancel", `${sites.baseUrl}/shop/`)] },
        policy: { kind: "scripted", source: "actions", actions: [...Array(20).fill("wait"), "stop [never]"] },
        settings: { maxSteps: 30 },
      });
      const running = work(runId);
      const job = async () => (await listJobs(ctx.db, { groupKey: liveGroupKey(runId) }))[0]!;
      await waitFor("two recorded steps", async () => {
        const t = (await liveRunDetail({ db: ctx.db, env: {} }, runId)).tasks[0]!;
        return t.steps >= 2;
      });
      expect(browsers[0]!.contexts()).toHaveLength(1);
      const stepsAtCancel = (await liveRunDetail({ db: ctx.db, env: {} }, runId)).tasks[0]!.steps;
      expect(await cancelLiveRun({ db: ctx.db, env: {} }, runId)).toEqual({ cancelled: 0, signalled: 1 });
      await waitFor("the job to end", async () => (await job()).status === "cancelled");
      expect(browsers[0]!.contexts()).toHaveLength(0);
      // Each step waits a second and 18 were left: at most the step under way when the cancel came was recorded.
      expect((await liveRunDetail({ db: ctx.db, env: {} }, runId)).tasks[0]!.steps).toBeLessThanOrEqual(stepsAtCancel + 1);
      await running;
      const { detail } = await onlyTrajectory(runId);
      expect(detail.trajectory.outcome).toBe("cancelled");
      expect(detail.trajectory.outcomeDetail).toMatch(/^cancelled after \d+ step\(s\)$/);
      expect(detail.trajectory.stepCount).toBeLessThan(6);
      const manifest = JSON.parse(fs.readFileSync(path.join(detail.trajectory.sourcePath!, "manifest.json"), "utf8"));
      expect(manifest.trajectories[0].outcome).toBe("cancelled");
    }, 240_000);

    once(
      "a crashing page ends the run with the reason",
      async () => {
        const { runId } = await start({
          tasks: { from: "tasks", taskIds: [await addTask("live.crash", `${sites.baseUrl}/recipes/`)] },
          policy: { kind: "scripted", source: "actions", actions: [...Array(8).fill("wait"), "stop [never]"] },
        });
        const running = work(runId);
        await waitFor("a recorded step", async () => (await liveRunDetail({ db: ctx.db, env: {} }, runId)).tasks[0]!.steps >= 1);
        const page = browsers[0]!.contexts()[0]!.pages()[0]!;
        const cdp = await page.context().newCDPSession(page);
        await cdp.send("Page.crash").catch(() => {});
        const summary = await running;
        expect(summary.succeeded).toBe(1);
        const { detail } = await onlyTrajectory(runId);
        expect(detail.trajectory.outcome).toBe("error");
        expect(detail.trajectory.outcomeDetail).toMatch(/^the page crashed \(renderer process gone\) at http:\/\/127\.0\.0\.1:\d+\/recipes\/$/);
        expect(detail.trajectory.stepCount).toBeGreaterThanOrEqual(1);
        expect(detail.trajectory.stepCount).toBeLessThan(9);
        expect(browsers[0]!.contexts()).toHaveLength(0);
      },
      240_000,
    );

    it("a run's concurrency holds even when the worker has more slots", async () => {
      const ids: number[] = [];
      for (const x of ["a", "b", "c"]) ids.push(await addTask(`live.conc-${x}`, `${sites.baseUrl}/wiki/`));
      const { runId } = await start({
        tasks: { from: "tasks", taskIds: ids },
        policy: { kind: "scripted", source: "actions", actions: ["scroll [down]", "stop [ok]"] },
        settings: { concurrency: 1 },
      });
      let most = 0;
      const stopWatching = watchWhileRunning(async () => {
        most = Math.max(most, (await listJobs(ctx.db, { groupKey: liveGroupKey(runId), status: "running" })).length);
      });
      const summary = await work(runId, { concurrency: 3 });
      await stopWatching();
      expect(summary.succeeded).toBe(3);
      expect(most).toBe(1);
      expect((await listLiveRuns({ db: ctx.db, env: {} })).find((r) => r.id === runId)).toMatchObject({
        status: "finished",
        done: 3,
        answered: 3,
        steps: 6,
        counts: { total: 3, succeeded: 3, queued: 0, running: 0 },
      });
      for (const j of await listJobs(ctx.db, { groupKey: liveGroupKey(runId) })) expect((await getJob(ctx.db, j.id))!.attempts).toBe(1);
    });
  });
});

/**
 * Runner overhead per step on the bundled demo sites, policy time excluded: settle + Set-of-Marks collection + raw
 * and marked screenshots + action + recording (images and step written through BundleWriter), against a bare
 * Playwright loop that only takes a screenshot and clicks, on the same pages, in the same run.
 *
 * The recorder replays a scripted cycle of clicks on each site (navigations, in-page changes, a same-page anchor).
 * The bare loop replays exactly the clicks the recorder made, at the same coordinates, taking a plain
 * `page.screenshot()` before each; when the recorded click led to another URL it waits for that URL to load, which
 * is the least any loop must do to stay on the same pages. Passes alternate (recorder, bare, recorder, bare) so
 * that background load on the machine hits both alike. The first step of every pass (initial page load) is left out.
 *
 * The recorder passes run once more with the browser context sent through a live run's egress proxy (every request
 * resolved, checked and forwarded by it), to show what the proxy costs per step, and once more with what a benchmark
 * run adds: a HAR recorded for the context and the blocking-page check on every observed page.
 *
 * Then the live runner as a whole: four demo tasks started as one live run with concurrency 4 (scripted demo
 * policy) and carried out by one runner worker with four slots, through the job queue, the safety guard and the
 * incremental database writes, on this machine's two cores. Every task must finish without a failure.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser } from "playwright";
import { chromiumAvailable, launchChromium, type BrowserConfig } from "../../server/browser/launch";
import { bundleStepSink, recordTrajectory, type RecordedStep } from "../../server/browser/recorder";
import { createScriptedPolicy } from "../../server/browser/scripted-policy";
import { BrowserSession } from "../../server/browser/session";
import { startDemoSites } from "../../server/demo-sites/server";
import { BundleWriter } from "../../server/services/bundle-io";
import { listJobs } from "../../db/repositories/jobs";
import { liveGroupKey } from "../../db/repositories/live/runs";
import { getSteps } from "../../db/repositories/trajectories";
import { closeDatabase } from "../../db/database";
import { loadConfig } from "../../server/config";
import { createAppContext } from "../../server/context";
import { liveRunRequestSchema } from "../../server/domain/live/settings";
import { liveRunDetail, startLiveRun, ensureDemoTaskSet, EgressProxy } from "../../server/services/live";
import { runRunnerWorker } from "../../server/services/live/worker";
import type { DemoSitesServer } from "../../server/demo-sites/server";
import { median, percentile, type BenchFigure } from "./types";
import { blockingSnapshot } from "../../server/browser/page-snapshot";
import { describeBlocking, detectBlocking } from "../../server/domain/live/blocking";

const ROUNDS = 3;
const PASSES = 2;

const CYCLES: { site: string; start: string; clicks: string[] }[] = [
  {
    site: "shop",
    start: "/shop/",
    clicks: ["Tents", "Price: low to high", "button:Add to cart", "Jackets", "Top rated", "Cart", "Trailhead Supply"],
  },
  { site: "recipes", start: "/recipes/", clicks: ["Under 30 minutes", "Top rated", "Shakshuka", "button:+", "Home"] },
  { site: "wiki", start: "/wiki/", clicks: ["Read the full article", "Automation", "Brackwater Bay", "Main page"] },
];

interface RecordedPass {
  steps: RecordedStep[];
}

async function recorderPass(
  browser: Browser,
  baseUrl: string,
  cycle: (typeof CYCLES)[number],
  outDir: string,
  proxyServer?: string,
  evidence = false,
): Promise<RecordedPass> {
  const script = [...Array.from({ length: ROUNDS }, () => cycle.clicks.map((c) => `Click [{{${c}}}]`)).flat(), "ANSWER; done"];
  fs.mkdirSync(outDir, { recursive: true });
  const session = await BrowserSession.open(browser, { proxyServer, harPath: evidence ? path.join(outDir, "network.har") : undefined });
  try {
    const sink = bundleStepSink(new BundleWriter(outDir));
    const rec = await recordTrajectory({
      session,
      task: { taskSet: { name: "bench", benchmark: "demo" }, externalId: `bench.${cycle.site}`, intent: "Click around.", startUrl: baseUrl + cycle.start },
      run: { runKey: "bench", name: "bench", agentName: "scripted", sourceSystem: "verdict-runner" },
      policy: createScriptedPolicy(script, "scripted:bench"),
      maxSteps: script.length,
      onStep: sink.onStep,
      blockedCheck: evidence
        ? async (page, index) => {
            const snap = await blockingSnapshot(page);
            const found = snap ? detectBlocking(snap) : null;
            return found ? describeBlocking(found, index) : null;
          }
        : undefined,
    });
    if (rec.outcome !== "answered") throw new Error(`recorder pass on ${cycle.site} ended ${rec.outcome}: ${rec.outcomeDetail}`);
    const failed = rec.steps.find((s) => s.error);
    if (failed) throw new Error(`recorder pass on ${cycle.site}: step ${failed.index} failed: ${failed.error}`);
    return { steps: rec.steps };
  } finally {
    await session.close();
  }
}

/** The same clicks as `recorded`, with only a screenshot before each. Returns per-step milliseconds. */
async function barePass(browser: Browser, baseUrl: string, cycle: (typeof CYCLES)[number], recorded: RecordedStep[]): Promise<number[]> {
  const session = await BrowserSession.open(browser);
  const page = session.page;
  try {
    await page.goto(baseUrl + cycle.start, { waitUntil: "load" });
    const times: number[] = [];
    const clicks = recorded.filter((s) => s.action.type === "click");
    for (let i = 0; i < clicks.length; i++) {
      const step = clicks[i]!;
      const el = step.elements.find((e) => e.label === step.action.target)!;
      const [x, y, w, h] = el.bbox!;
      const nextUrl = recorded[step.index + 1]?.url ?? step.url;
      const started = performance.now();
      await page.screenshot();
      await page.mouse.click(x + w / 2, y + h / 2);
      if (nextUrl !== step.url) await page.waitForURL(nextUrl, { waitUntil: "load" });
      times.push(performance.now() - started);
    }
    return times.slice(1);
  } finally {
    await session.close();
  }
}

function overhead(s: RecordedStep): number {
  return s.timings.settleMs + s.timings.observeMs + s.timings.actionMs + s.timings.recordMs;
}

export async function benchRunnerOverhead(): Promise<{ name: string; value: number; unit: string; target?: string; ok?: boolean }[]> {
  const config = loadConfig();
  const chromiumPath = config.chromiumPath;
  if (!chromiumAvailable(chromiumPath)) {
    throw new Error(`no Chromium at ${chromiumPath}; install it with apt-get install -y chromium or set CHROMIUM_PATH`);
  }
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-bench-runner-"));
  const sites = await startDemoSites();
  const egress = await EgressProxy.start({ rules: { allowedDestinations: [`127.0.0.1:${sites.port}`] } });
  // As the worker does, the browser is launched with a proxy: run as the browser user, its network reaches the
  // egress proxies only (scripts/browser-user.sh). Contexts without one of their own go through this one.
  const browser = await launchChromium({ config, egressProxy: egress.url });
  const ours: RecordedStep[] = [];
  const proxied: RecordedStep[] = [];
  const withHar: RecordedStep[] = [];
  const bare: number[] = [];
  try {
    for (let pass = 0; pass < PASSES; pass++) {
      for (const cycle of CYCLES) {
        const rec = await recorderPass(browser, sites.baseUrl, cycle, path.join(outDir, `${cycle.site}-${pass}`));
        // Step 0 waits for the first page load; the final step is the answer, which executes nothing.
        ours.push(...rec.steps.slice(1).filter((s) => s.action.type === "click"));
        bare.push(...(await barePass(browser, sites.baseUrl, cycle, rec.steps)));
        const viaProxy = await recorderPass(browser, sites.baseUrl, cycle, path.join(outDir, `${cycle.site}-${pass}-proxied`), egress.url);
        proxied.push(...viaProxy.steps.slice(1).filter((s) => s.action.type === "click"));
        const har = await recorderPass(browser, sites.baseUrl, cycle, path.join(outDir, `${cycle.site}-${pass}-har`), undefined, true);
        withHar.push(...har.steps.slice(1).filter((s) => s.action.type === "click"));
      }
    }
  } finally {
    await egress.close();
    await browser.close();
    await sites.close();
    fs.rmSync(outDir, { recursive: true, force: true });
  }

  const concurrent = await concurrentLiveRuns(config);

  const total = ours.map(overhead);
  const ourMedian = median(total);
  const bareMedian = median(bare);
  const ratio = ourMedian / bareMedian;
  const part = (name: string, pick: (s: RecordedStep) => number): BenchFigure => ({
    name: `  of which ${name} (median)`,
    value: median(ours.map(pick)),
    unit: "ms",
  });
  return [
    { name: `runner step overhead, median (${total.length} steps)`, value: ourMedian, unit: "ms", target: "≤ 400 ms", ok: ourMedian <= 400 },
    { name: "runner step overhead, p95", value: percentile(total, 95), unit: "ms" },
    part("settle", (s) => s.timings.settleMs),
    part("marks + raw + marked screenshots", (s) => s.timings.observeMs),
    part("action", (s) => s.timings.actionMs),
    part("recording", (s) => s.timings.recordMs),
    { name: `bare screenshot + click loop, median (${bare.length} steps)`, value: bareMedian, unit: "ms" },
    { name: "bare screenshot + click loop, p95", value: percentile(bare, 95), unit: "ms" },
    { name: "runner / bare loop (medians)", value: ratio, unit: "×", target: "≤ 1.5×", ok: ratio <= 1.5 },
    { name: "runner / bare loop (p95)", value: percentile(total, 95) / percentile(bare, 95), unit: "×" },
    { name: `runner step overhead via egress proxy, median (${proxied.length})`, value: median(proxied.map(overhead)), unit: "ms" },
    { name: "runner step overhead via egress proxy, p95", value: percentile(proxied.map(overhead), 95), unit: "ms" },
    { name: "egress proxy / direct (medians)", value: median(proxied.map(overhead)) / ourMedian, unit: "×" },
    { name: `runner step overhead with HAR + blocking check, median (${withHar.length})`, value: median(withHar.map(overhead)), unit: "ms" },
    { name: "runner step overhead with HAR + blocking check, p95", value: percentile(withHar.map(overhead), 95), unit: "ms" },
    { name: "HAR on / off (medians)", value: median(withHar.map(overhead)) / ourMedian, unit: "×" },
    {
      name: "runner with HAR + egress proxy / bare loop (medians)",
      value: median(withHar.map(overhead)) / bareMedian,
      unit: "×",
      target: "≤ 1.25× (issue 32)",
      ok: median(withHar.map(overhead)) / bareMedian <= 1.25,
    },
    ...concurrent,
  ];
}

const CONCURRENT_RUNS = 4;

/** Four live runs at once through the whole runner (queue, worker, guard, database); all must end without failure. */
async function concurrentLiveRuns(browser: BrowserConfig): Promise<BenchFigure[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-bench-live-"));
  const { chromiumPath, browserUser, runnerNoSandbox } = browser;
  const ctx = createAppContext({ dbPath: path.join(dir, "verdict.db"), dataDir: dir, chromiumPath, browserUser, runnerNoSandbox });
  let sites: DemoSitesServer | null = null;
  try {
    sites = await startDemoSites();
    const env = { VERDICT_DEMO_PORT: String(sites.port) };
    await ensureDemoTaskSet(ctx.db, sites.baseUrl);
    const { runId, tasks } = await startLiveRun(
      { db: ctx.db, env },
      liveRunRequestSchema.parse({
        name: "bench: four at once",
        tasks: { from: "demo", limit: CONCURRENT_RUNS },
        policy: { kind: "scripted", source: "demo" },
        settings: { concurrency: CONCURRENT_RUNS },
      }),
    );
    let most = 0;
    let sampling = false;
    const sample = async () => {
      if (sampling) return;
      sampling = true;
      try {
        most = Math.max(most, (await listJobs(ctx.db, { groupKey: liveGroupKey(runId), status: "running" })).length);
      } finally {
        sampling = false;
      }
    };
    const watch = setInterval(() => void sample().catch(() => undefined), 20);
    const started = performance.now();
    const summary = await runRunnerWorker({
      ctx,
      env,
      concurrency: CONCURRENT_RUNS,
      groupKey: liveGroupKey(runId),
      untilIdle: true,
      demo: { baseUrl: sites.baseUrl, origins: [`127.0.0.1:${sites.port}`] },
    });
    const seconds = (performance.now() - started) / 1000;
    clearInterval(watch);
    const d = await liveRunDetail({ db: ctx.db, env }, runId);
    // A failure is a job that failed or a run that ended in an error; scripted demo runs all answer.
    const failures = d.counts.failed + d.counts.cancelled + d.tasks.filter((t) => t.outcome !== "answered").length;
    const durations: number[] = [];
    for (const t of d.tasks) if (t.trajectoryId) durations.push(...(await getSteps(ctx.db, t.trajectoryId)).slice(1).map((s) => s.durationMs ?? 0));
    return [
      {
        name: `${CONCURRENT_RUNS} concurrent live runs (${os.cpus().length} cores): failures`,
        value: failures,
        unit: `of ${tasks} runs`,
        target: "0",
        ok: failures === 0 && summary.succeeded === tasks,
      },
      { name: "  of which ran at the same time (most)", value: most, unit: "runs", target: `${CONCURRENT_RUNS}`, ok: most === CONCURRENT_RUNS },
      { name: "  wall time", value: seconds, unit: "s" },
      { name: `  live step duration, median (${durations.length} steps)`, value: median(durations), unit: "ms" },
      { name: "  live step duration, p95", value: percentile(durations, 95), unit: "ms" },
    ];
  } finally {
    await sites?.close();
    await closeDatabase(ctx.db);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Speed you can feel (issue 30, item 7): every page of the dashboard opened in headless Chromium at 1440×900 against
 * the built app (`next start`) on the embedded default, with 10,000 trajectories (scripts/bench/analytics-data.ts:
 * a labelled campaign and two judges) plus 40 imported trajectories of 5 steps with screenshots for the pages that
 * show steps (player, labelling), imported as the CLI and the Import page import: first views encoded before anyone
 * opens them (the first-view bench times the other case).
 *
 * A page's figure is the time from the start of its navigation to its content: the document loaded, no loading
 * fallback (`aria-busy`, "Loading…") left in the page's main area, a heading drawn, every chart drawn, and the step's
 * screenshot decoded where the page shows one. Each page is opened once to warm it (the server's first render of a route loads its
 * code), then BENCH_PAGES_RUNS times (default 10) in one signed-in browser, as a person moving around the dashboard
 * would; p95 against the 500 ms target. The first opening is reported too.
 *
 * Labelling: an annotator presses `s` then Ctrl+Enter on item after item; the figure is the time from the
 * Ctrl+Enter key press to the next item ready (its address changed, the label panel drawn for that item, its screenshot
 * decoded, then one more frame), p95 against 150 ms; and the requests made per submit (pages, RSC payloads, API calls,
 * screenshots). BENCH_PAGES_LOOK_AHEAD=off times it as it was before the look-ahead (label-panel's look-ahead.ts) on the
 * same build: every submit then navigates to the next item.
 *
 * BENCH_PAGES_SCREENS=<folder> keeps a screenshot of each page at the moment it counted as ready, to check the
 * readiness rule against what a person would see. Requires a build (`npm run build`).
 */
import fs from "node:fs";
import path from "node:path";
import type { BrowserContext, Page } from "playwright";
import { closeDatabase, tablesOf } from "../../db/database";
import { createAccount } from "../../server/services/accounts";
import { createCampaign } from "../../server/services/annotation";
import { warmingSettled } from "../../server/services/images";
import { runImport } from "../../server/services/imports";
import { warmFirstViews } from "../../server/services/trajectory-views";
import { generateAnalyticsData } from "./analytics-data";
import { generateCorpus } from "./import";
import { launchBenchBrowser, signIn } from "./browser";
import { benchAppContext, inBenchFolder } from "./player";
import { percentile, type BenchFigure } from "./types";

const PAGE_TARGET_MS = 500;
const SUBMIT_TARGET_MS = 150;
const IMPORTED = 40;
const VIEWPORT = { width: 1440, height: 900 };
const RESEARCHER = { email: "pages-bench@bench.test", name: "Pages bench", role: "researcher", password: "pages-bench-password" } as const;
const ANNOTATOR = { email: "pages-annotator@bench.test", name: "Pages annotator", role: "annotator", password: "pages-annotator-password" } as const;

/** The page is showing its content (see the file's comment); evaluated in the page on every animation frame. */
const READY = `(() => {
  if (document.readyState !== "complete") return false;
  const main = document.querySelector("main");
  if (!main || main.querySelector('[aria-busy="true"]')) return false;
  if (/Loading…|Loading\\.\\.\\./.test(main.innerText)) return false;
  if (!main.querySelector("h1, h2")) return false;
  // A chart is drawn once recharts has measured its box.
  if ([...main.querySelectorAll(".recharts-responsive-container")].some((c) => !c.querySelector("svg.recharts-surface"))) return false;
  const img = main.querySelector('[data-testid="step-image"]');
  return !img || (img.complete && img.naturalWidth > 0);
})()`;

interface Seeded {
  dataDir: string;
  campaignId: number;
  labellingCampaignId: number;
  judgeKey: string;
  runId: number;
  taskSetId: number;
  taskId: number;
  importedIds: number[];
}

export async function seed(work: string, trajectories: number): Promise<Seeded> {
  const dataDir = path.join(work, "data");
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, "verdict.db");
  const data = await generateAnalyticsData(file, { trajectories });
  const { agentRuns, taskSets, tasks } = tablesOf(data.db);
  const runId = (await data.db.select({ id: agentRuns.id }).from(agentRuns).orderBy(agentRuns.id).limit(1))[0]!.id;
  const taskSetId = (await data.db.select({ id: taskSets.id }).from(taskSets).limit(1))[0]!.id;
  const taskId = (await data.db.select({ id: tasks.id }).from(tasks).orderBy(tasks.id).limit(1))[0]!.id;
  await closeDatabase(data.db);

  const app = benchAppContext(dataDir);
  const corpus = path.join(work, "corpus");
  await generateCorpus(corpus, IMPORTED, 5);
  const report = await runImport(app, { path: corpus, format: "webvoyager" });
  const importedIds = report.trajectories.map((t) => t.id);
  if (importedIds.length !== IMPORTED) throw new Error(`the bench corpus imported ${importedIds.length} of ${IMPORTED} trajectories`);
  // As the CLI's and the Import page's imports do: each trajectory's first view is encoded before anyone opens it.
  await warmFirstViews(app, importedIds);
  await warmingSettled();
  const researcher = (await createAccount(app, RESEARCHER)).user;
  const annotator = (await createAccount(app, ANNOTATOR)).user;
  const actor = { userId: researcher.id, name: researcher.name, role: "researcher" as const };
  const labelling = await createCampaign(app.db, actor, {
    name: "Pages bench labelling",
    trajectoryIds: importedIds,
    annotatorIds: [annotator.id],
    annotatorsPerItem: 1,
  });
  await closeDatabase(app.db);
  return { dataDir, campaignId: data.campaignId, labellingCampaignId: labelling.id, judgeKey: data.judgeKeys[0], runId, taskSetId, taskId, importedIds };
}

/** The pages a researcher opens, by name and address. */
function researcherPages(s: Seeded): [string, string][] {
  return [
    ["home", "/"],
    ["trajectory list", "/trajectories"],
    ["trajectory list, human = failure", "/trajectories?human=failure"],
    ["player", `/trajectories/${s.importedIds[0]}`],
    ["runs", "/runs"],
    ["run", `/runs/${s.runId}`],
    ["task sets", "/task-sets"],
    ["task set", `/task-sets/${s.taskSetId}`],
    ["task", `/tasks/${s.taskId}`],
    ["campaigns", "/campaigns"],
    ["campaign", `/campaigns/${s.campaignId}`],
    ["adjudication", `/campaigns/${s.campaignId}/adjudicate`],
    ["analytics overview", "/analytics"],
    ["human agreement", `/analytics/humans?campaign=${s.campaignId}`],
    ["annotators", `/analytics/humans/annotators?campaign=${s.campaignId}`],
    ["judges", "/analytics/judges"],
    ["one judge", `/analytics/judges/${encodeURIComponent(s.judgeKey)}`],
    ["error analysis", "/analytics/errors"],
    ["step budget", "/analytics/step-budget"],
    ["failure clusters", "/analytics/clusters"],
    ["judge configurations", "/judges"],
    ["scanners", "/scanners"],
    ["import", "/import"],
    ["live runs", "/live"],
    ["QA", "/qa"],
  ];
}

/**
 * Where an opening's time went, read from the browser's Navigation and Resource Timing: the server's first byte of
 * the document, its last byte (the streamed render finished), DOMContentLoaded (scripts run, hydration started), and
 * the requests the page made after its document (tRPC calls, chunks), as a count and the last one's end, and the
 * script the page ran (decoded size of its scripts).
 */
interface Breakdown {
  firstByte: number;
  documentEnd: number;
  domContentLoaded: number;
  requests: number;
  api: number;
  lastRequestEnd: number;
  /** Script the page ran, decoded, in KB (from the cache or not: it is parsed either way). */
  scriptKB: number;
}

const BREAKDOWN = `(() => {
  const n = performance.getEntriesByType("navigation")[0];
  const later = performance.getEntriesByType("resource").filter((r) => r.startTime >= n.responseStart);
  const api = later.filter((r) => r.name.includes("/api/trpc"));
  return {
    firstByte: n.responseStart,
    documentEnd: n.responseEnd,
    domContentLoaded: n.domContentLoadedEventEnd,
    requests: later.length,
    api: api.length,
    lastRequestEnd: Math.max(0, ...later.map((r) => r.responseEnd)),
    scriptKB: performance.getEntriesByType("resource").filter((r) => r.initiatorType === "script").reduce((kb, r) => kb + r.decodedBodySize / 1024, 0),
  };
})()`;

/**
 * CPU time (user + system, ms) the server has used so far, its child processes included, read from /proc (Linux;
 * null elsewhere). Unlike a page's wall time it hardly moves with the machine's load: the figure to compare two
 * builds by on a shared machine.
 */
function serverCpuMs(pid: number | undefined): number | null {
  if (pid === undefined || !fs.existsSync(`/proc/${pid}/stat`)) return null;
  const stats = fs
    .readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        // Fields after the command's closing parenthesis: state, ppid, …; utime and stime are the 12th and 13th.
        const f = fs.readFileSync(`/proc/${d}/stat`, "utf8").split(") ")[1]!.split(" ");
        return [{ pid: Number(d), ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) }];
      } catch {
        return []; // the process ended meanwhile
      }
    });
  const tree = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of stats) {
      if (tree.has(p.pid) || !tree.has(p.ppid)) continue;
      tree.add(p.pid);
      grew = true;
    }
  }
  // Clock ticks are 1/100 s on Linux.
  return stats.filter((p) => tree.has(p.pid)).reduce((ms, p) => ms + p.ticks * 10, 0);
}

/** Milliseconds from the navigation's start to the page's content, and where they went. */
async function openMs(page: Page, url: string): Promise<number> {
  return (await open(page, url)).ready;
}

async function open(page: Page, url: string): Promise<Breakdown & { ready: number }> {
  await page.goto(url, { waitUntil: "commit" });
  await page.waitForFunction(READY, undefined, { polling: "raf", timeout: 30_000 });
  const ready = (await page.evaluate("performance.now()")) as number;
  return { ready, ...((await page.evaluate(BREAKDOWN)) as Breakdown) };
}

function breakdownOf(runs: Breakdown[]): string {
  const m = (f: (b: Breakdown) => number) => percentile(runs.map(f), 50).toFixed(0);
  return (
    `    median: document first byte ${m((b) => b.firstByte)} ms, last byte ${m((b) => b.documentEnd)} ms, ` +
    `DOMContentLoaded ${m((b) => b.domContentLoaded)} ms; ${m((b) => b.requests)} requests after the document ` +
    `(${m((b) => b.api)} tRPC), the last done at ${m((b) => b.lastRequestEnd)} ms; ${m((b) => b.scriptKB)} KB of script`
  );
}

async function timePages(
  context: BrowserContext,
  url: string,
  pages: [string, string][],
  runs: number,
  screens: string | undefined,
  serverPid: number | undefined,
): Promise<BenchFigure[]> {
  const page = await context.newPage();
  const figures: BenchFigure[] = [];
  for (const [name, address] of pages) {
    const first = await openMs(page, `${url}${address}`);
    if (new URL(page.url()).pathname === "/sign-in") throw new Error(`${name}: the bench account was sent to sign in`);
    if (screens) await page.screenshot({ path: path.join(screens, `${name.replace(/[^a-z0-9]+/gi, "-")}.png`) });
    const opened: (Breakdown & { ready: number })[] = [];
    const cpuBefore = serverCpuMs(serverPid);
    for (let i = 0; i < runs; i++) opened.push(await open(page, `${url}${address}`));
    const cpuAfter = serverCpuMs(serverPid);
    const times = opened.map((o) => o.ready);
    const p95 = percentile(times, 95);
    const cpu = cpuBefore !== null && cpuAfter !== null ? `; server CPU ${((cpuAfter - cpuBefore) / runs).toFixed(0)} ms per opening` : "";
    console.log(`  ${name}: ready median ${percentile(times, 50).toFixed(0)} ms\n${breakdownOf(opened)}${cpu}`);
    figures.push({
      name: `${name} (${address.split("?")[0]}): first opening ${first.toFixed(0)} ms, p95`,
      value: p95,
      unit: "ms",
      target: `≤ ${PAGE_TARGET_MS} ms`,
      ok: p95 <= PAGE_TARGET_MS,
    });
  }
  await page.close();
  return figures;
}

/**
 * Installed before the app's code: from each Ctrl+Enter to the next item shown, recorded one frame after, with where
 * the time went: the submit request's start and end (Resource Timing), the address changed (in place through
 * history.pushState, or by a navigation), the label panel drawn for the new item, and its screenshot decoded.
 */
const SUBMIT_PROBE = `
  window.__submitLatencies = [];
  window.__submitParts = [];
  let pushedAt = null;
  const pushState = history.pushState.bind(history);
  history.pushState = (...args) => { pushedAt = performance.now(); return pushState(...args); };
  window.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || !(e.ctrlKey || e.metaKey)) return;
    const start = performance.now();
    const before = location.pathname;
    pushedAt = null;
    let moved = null;
    let drawnAt = null;
    const tick = () => {
      const img = document.querySelector('[data-testid="step-image"]');
      // The panel names its item (data-item-no): the address may change before the next item is drawn (shown in place).
      const panel = document.querySelector('[data-testid="label-panel"]');
      const drawn = panel && (panel.dataset.itemNo === undefined || panel.dataset.itemNo === location.pathname.split("/").pop());
      const now = performance.now();
      if (moved === null && location.pathname !== before) moved = now;
      if (drawnAt === null && moved !== null && drawn) drawnAt = now;
      const ready = location.pathname !== before && drawn && img && img.complete && img.naturalWidth > 0;
      if (ready)
        requestAnimationFrame(() => {
          const end = performance.now();
          const submit = performance.getEntriesByType("resource").find((r) => r.startTime >= start && r.name.includes("labelling.submit"));
          window.__submitParts.push({
            requestStart: submit ? submit.startTime - start : null,
            responseEnd: submit ? submit.responseEnd - start : null,
            moved: (pushedAt ?? moved) - start,
            inPlace: pushedAt !== null,
            drawn: drawnAt - start,
            ready: now - start,
          });
          window.__submitLatencies.push(end - start);
        });
      else if (now - start < 10000) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }, true);
`;

interface SubmitParts {
  requestStart: number | null;
  responseEnd: number | null;
  moved: number;
  inPlace: boolean;
  drawn: number;
  ready: number;
}

/** The median submit's parts: when the request left and came back, the address changed, the panel and the image showed. */
function submitBreakdown(parts: SubmitParts[]): string {
  const m = (f: (p: SubmitParts) => number | null) => {
    const v = parts.map(f).filter((x): x is number => x !== null);
    return v.length ? percentile(v, 50).toFixed(0) : "–";
  };
  const inPlace = parts.filter((p) => p.inPlace).length;
  return (
    `    median from Ctrl+Enter: submit request sent ${m((p) => p.requestStart)} ms, answered ${m((p) => p.responseEnd)} ms; ` +
    `address changed ${m((p) => p.moved)} ms (${inPlace} of ${parts.length} in place); panel drawn ${m((p) => p.drawn)} ms; ` +
    `screenshot decoded ${m((p) => p.ready)} ms`
  );
}

const LOOK_AHEAD = "labelling.lookAhead";

/**
 * BENCH_PAGES_LOOK_AHEAD=off times Submit & next as it was before the look-ahead, on the same build: the browser
 * answers the page's look-ahead with "nothing to look ahead to" without asking the server (procedures batched with it
 * are sent on), so every submit navigates to the next item as before.
 */
async function withoutLookAhead(page: Page) {
  await page.route(/\/api\/trpc\/[^?]*labelling\.lookAhead/, async (route) => {
    const u = new URL(route.request().url());
    const paths = decodeURIComponent(u.pathname.slice("/api/trpc/".length)).split(",");
    const inputs = JSON.parse(u.searchParams.get("input") ?? "{}") as Record<string, unknown>;
    const keep = paths.flatMap((p, i) => (p === LOOK_AHEAD ? [] : [{ p, i }]));
    let kept: unknown[] = [];
    let status = 200;
    if (keep.length) {
      const sent = new URL(u);
      sent.pathname = `/api/trpc/${keep.map((k) => k.p).join(",")}`;
      sent.searchParams.set("input", JSON.stringify(Object.fromEntries(keep.map((k, j) => [String(j), inputs[String(k.i)]]))));
      const res = await route.fetch({ url: sent.toString() });
      status = res.status();
      kept = (await res.json()) as unknown[];
    }
    let j = 0;
    const body = paths.map((p) => (p === LOOK_AHEAD ? { result: { data: { json: null } } } : kept[j++]));
    await route.fulfill({ status, contentType: "application/json", body: JSON.stringify(body) });
  });
}

async function timeLabelling(
  context: BrowserContext,
  url: string,
  campaignId: number,
  items: number,
  screens: string | undefined,
  serverPid: number | undefined,
): Promise<BenchFigure[]> {
  await context.addInitScript(SUBMIT_PROBE);
  const page = await context.newPage();
  const lookAhead = process.env.BENCH_PAGES_LOOK_AHEAD !== "off";
  if (!lookAhead) await withoutLookAhead(page);
  const cpuBefore = serverCpuMs(serverPid);
  const opening = await open(page, `${url}/annotate/${campaignId}`);
  const cpuAfter = serverCpuMs(serverPid);
  const first = opening.ready;
  if (!/\/annotate\/\d+\/\d+$/.test(new URL(page.url()).pathname)) throw new Error(`the labelling page did not open an item: the browser is at ${page.url()}`);
  // The queue's address answers with a redirect to the item: the document timings are the item's page's.
  console.log(
    `  labelling page, first opening: ready ${first.toFixed(0)} ms\n${breakdownOf([opening])}` +
      (cpuBefore !== null && cpuAfter !== null ? `; server CPU ${cpuAfter - cpuBefore} ms` : ""),
  );
  if (screens) await page.screenshot({ path: path.join(screens, "labelling.png") });
  // What the submits ask of the server, from the first Ctrl+Enter on: pages, RSC payloads, API calls, screenshots.
  const requests = { document: 0, rsc: 0, api: 0, screenshot: 0 };
  let counting = false;
  page.on("request", (r) => {
    if (!counting) return;
    const u = new URL(r.url());
    if (r.resourceType() === "document") requests.document++;
    else if (u.searchParams.has("_rsc") || r.headers()["rsc"] === "1") requests.rsc++;
    else if (u.pathname.startsWith("/api/screenshots/")) requests.screenshot++;
    // A look-ahead answered in the browser (BENCH_PAGES_LOOK_AHEAD=off) never reaches the server.
    else if (u.pathname === `/api/trpc/${LOOK_AHEAD}` && !lookAhead) return;
    else if (u.pathname.startsWith("/api/")) requests.api++;
  });
  const cpuStart = serverCpuMs(serverPid);
  for (let i = 0; i < items; i++) {
    // A key pressed before the page has hydrated is lost: press `s` until the label panel shows the choice.
    await page.getByTestId("label-panel").waitFor();
    const success = page.getByTestId("label-panel").getByRole("button", { name: /^Success/ });
    for (let tries = 0; (await success.getAttribute("aria-pressed")) !== "true" && tries < 50; tries++) {
      await page.keyboard.press("s");
      await page.waitForTimeout(20);
    }
    counting = true;
    await page.keyboard.press("Control+Enter");
    await page.waitForFunction(`window.__submitLatencies.length >= ${i + 1}`, undefined, { timeout: 15_000 });
  }
  const cpuEnd = serverCpuMs(serverPid);
  const latencies = (await page.evaluate("window.__submitLatencies")) as number[];
  const parts = (await page.evaluate("window.__submitParts")) as SubmitParts[];
  console.log(
    `  labelling, submit to next: ready median ${percentile(latencies, 50).toFixed(0)} ms\n${submitBreakdown(parts)}` +
      (cpuStart !== null && cpuEnd !== null ? `; server CPU ${((cpuEnd - cpuStart) / latencies.length).toFixed(0)} ms per submit` : ""),
  );
  await page.close();
  const p95 = percentile(latencies, 95);
  return [
    { name: `labelling page (/annotate/…): first opening`, value: first, unit: "ms", target: `≤ ${PAGE_TARGET_MS} ms`, ok: first <= PAGE_TARGET_MS },
    {
      name: `labelling: submit (Ctrl+Enter) to the next item ready${lookAhead ? "" : " (look-ahead off)"}, ${latencies.length} items, p95`,
      value: p95,
      unit: "ms",
      target: `≤ ${SUBMIT_TARGET_MS} ms`,
      ok: p95 <= SUBMIT_TARGET_MS,
    },
    { name: "labelling: submit to the next item ready, median", value: percentile(latencies, 50), unit: "ms" },
    ...Object.entries(requests).map(([kind, n]) => ({ name: `labelling: ${kind} requests per submit (and next)`, value: n / latencies.length, unit: "" })),
  ];
}

export async function benchPages(): Promise<BenchFigure[]> {
  const trajectories = Number(process.env.BENCH_PAGES_TRAJECTORIES ?? 10_000);
  const runs = Number(process.env.BENCH_PAGES_RUNS ?? 10);
  const screens = process.env.BENCH_PAGES_SCREENS;
  // BENCH_PAGES_ONLY="trajectory list,labelling": only the pages whose names start with one of these.
  const only = process.env.BENCH_PAGES_ONLY?.split(",").map((n) => n.trim().toLowerCase());
  const chosen = (name: string) => !only || only.some((o) => name.toLowerCase().startsWith(o));
  if (screens) fs.mkdirSync(screens, { recursive: true });
  return inBenchFolder("verdict-bench-pages-", async (work, serve) => {
    const t = performance.now();
    const seeded = await seed(work, trajectories);
    const figures: BenchFigure[] = [
      {
        name: `seed ${trajectories.toLocaleString("en-US")} trajectories with labels and verdicts, ${IMPORTED} imported with screenshots`,
        value: (performance.now() - t) / 1000,
        unit: "s",
      },
    ];
    const started = await serve(seeded.dataDir);
    const browser = await launchBenchBrowser();
    try {
      // The readiness probe is evaluated in the page, which the app's script policy (nonces, no eval) would refuse.
      const researcher = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, bypassCSP: true });
      await signIn(researcher, started.url, RESEARCHER);
      figures.push(
        ...(await timePages(
          researcher,
          started.url,
          researcherPages(seeded).filter(([name]) => chosen(name)),
          runs,
          screens,
          started.child.pid,
        )),
      );
      await researcher.close();
      const annotator = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, bypassCSP: true });
      await signIn(annotator, started.url, ANNOTATOR);
      if (chosen("labelling"))
        figures.push(...(await timeLabelling(annotator, started.url, seeded.labellingCampaignId, Math.min(30, IMPORTED - 1), screens, started.child.pid)));
      await annotator.close();
    } finally {
      await browser.close();
    }
    return figures;
  });
}

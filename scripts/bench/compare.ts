/**
 * Side-by-side benchmark (issue 16: "the side-by-side step switch p95 ≤ 50 ms"), measured in headless Chromium
 * against the built app (`next start`) the way the player's step switch is (scripts/bench/player.ts): four
 * 15-step attempts at one task of 1024×768 screenshots at 1920×1080 (four columns in a row), key press → the
 * first animation frame after the one in which every column shows its new step's image fully loaded, over a
 * forward and a backward pass at a reading pace, aligned by step and then by URL, from a cold server variant cache.
 *
 * Screenshots are the player bench's (../shared's WebVoyager examples when present, else synthetic pages), each
 * attempt's stamped with its letter so no two columns share an image. Requires a build (`npm run build`).
 */
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { closeDatabase } from "../../db/database";
import { createAccount } from "../../server/services/accounts";
import { runImport } from "../../server/services/imports";
import { launchBenchBrowser, signIn } from "./browser";
import { BENCH_USER, benchAppContext, benchScreenshots, benchStep, inBenchFolder } from "./player";
import { median, percentile, type BenchFigure } from "./types";

const ATTEMPTS = ["A", "B", "C", "D"];
const KEY_PAUSE_MS = 250;

/** Four attempts; B detours through one extra page at step 6, so the URL alignment has a gap to step over. */
async function writeBundle(dir: string, pngs: Buffer[]): Promise<void> {
  fs.mkdirSync(path.join(dir, "images"), { recursive: true });
  const trajectories = [];
  for (const letter of ATTEMPTS) {
    const steps = [];
    for (const [i, png] of pngs.entries()) {
      const stamp = Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" fill="#111"/><text x="10" y="28" font-size="22" fill="#fff">${letter} ${i + 1}</text></svg>`,
      );
      const shot = await sharp(png)
        .composite([{ input: stamp, left: 890, top: 720 }])
        .png()
        .toBuffer();
      steps.push(
        benchStep(dir, i, pngs.length, shot, {
          url: letter === "B" && i === 5 ? "https://bench.test/detour" : `https://bench.test/page/${i - (letter === "B" && i > 5 ? 1 : 0)}`,
          thought: `Attempt ${letter}, step ${i + 1}: looking for the next control to use.`,
        }),
      );
    }
    trajectories.push({
      task: { taskSet: { name: "Bench", benchmark: "bench" }, externalId: "bench-compare-15", site: "bench", intent: "Benchmark task attempted four times." },
      run: { runKey: `bench:compare:${letter}`, name: `bench-compare-${letter}`, agentName: `bench-${letter}`, sourceSystem: "bench" },
      outcome: "answered",
      finalAnswer: "done",
      steps,
    });
  }
  fs.writeFileSync(path.join(dir, "manifest.json"), JSON.stringify({ format: "verdict.trajectory-bundle", version: 1, trajectories }));
}

async function measureCompare(url: string, ids: number[], steps: number): Promise<{ byStep: number[]; byUrl: number[] }> {
  const browser = await launchBenchBrowser();
  try {
    const context = await browser.newContext({ viewport: { width: 1920, height: 1080 }, deviceScaleFactor: 1, bypassCSP: true });
    // On every key press (before React sees it), watch animation frames until every column shows another step
    // (or a gap) and every image shown has loaded, then record the following frame: the one that presents them.
    await context.addInitScript(`
      window.__stepLatencies = [];
      const shown = () => [...document.querySelectorAll('[data-testid="compare-column"]')].map((c) => {
        const img = c.querySelector('[data-testid="step-image"]');
        return img ? img.dataset.step + ":" + img.dataset.hash : "gap";
      }).join(" ");
      const loaded = () => [...document.querySelectorAll('[data-testid="compare-column"] [data-testid="step-image"]')].every((img) => img.complete && img.naturalWidth > 0);
      window.addEventListener("keydown", () => {
        const start = performance.now();
        const before = shown();
        const tick = () => {
          if (shown() !== before && loaded()) requestAnimationFrame(() => window.__stepLatencies.push(performance.now() - start));
          else if (performance.now() - start < 5000) requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }, true);
    `);
    await signIn(context, url, BENCH_USER);
    const page = await context.newPage();
    await page.goto(`${url}/compare?ids=${ids.join(",")}`);
    if (new URL(page.url()).pathname !== "/compare" || !(await page.getByTestId("compare").count()))
      throw new Error(`the side-by-side page was not opened: the browser is at ${page.url()}`);
    await page.waitForFunction(() => {
      const imgs = [...document.querySelectorAll<HTMLImageElement>('[data-testid="compare-column"] [data-testid="step-image"]')];
      return imgs.length === 4 && imgs.every((img) => img.complete && img.naturalWidth > 0);
    });

    let presses = 0;
    const pass = async (rows: number): Promise<number[]> => {
      const from = presses;
      const visit = async (key: string) => {
        await page.waitForTimeout(KEY_PAUSE_MS);
        await page.keyboard.press(key);
        presses++;
        await page.waitForFunction(`window.__stepLatencies.length >= ${presses}`, undefined, { timeout: 10_000 });
      };
      for (let i = 1; i < rows; i++) await visit("ArrowRight");
      for (let i = rows - 2; i >= 0; i--) await visit("ArrowLeft");
      return ((await page.evaluate("window.__stepLatencies")) as number[]).slice(from);
    };
    const byStep = await pass(steps);
    // Aligned by URL: B's detour adds a row. Switched by a click (no key press), so the switch itself is not timed.
    await page.getByTestId("mode-url").click();
    await page.waitForFunction(() => document.querySelector('[data-testid="compare"]')?.getAttribute("data-mode") === "url");
    await page.waitForTimeout(KEY_PAUSE_MS);
    const rows = Number((await page.getByTestId("compare-counter").innerText()).match(/of (\d+)/)![1]);
    const byUrl = await pass(rows);
    if (process.env.BENCH_DEBUG)
      process.stderr.write(`  by step (ms): ${byStep.map((l) => l.toFixed(0)).join(" ")}\n  by URL (ms): ${byUrl.map((l) => l.toFixed(0)).join(" ")}\n`);
    await browser.close();
    return { byStep, byUrl };
  } finally {
    if (browser.isConnected()) await browser.close();
  }
}

export async function benchCompare(): Promise<BenchFigure[]> {
  return inBenchFolder("verdict-bench-compare-", async (work, serve) => {
    const { pngs, source } = await benchScreenshots();
    const bundle = path.join(work, "bundle");
    await writeBundle(bundle, pngs);
    const dataDir = path.join(work, "data");
    const app = benchAppContext(dataDir);
    const report = await runImport(app, { path: bundle });
    await createAccount(app, BENCH_USER);
    const ids = report.trajectories.map((t) => t.id);
    await closeDatabase(app.db);

    const started = await serve(dataDir);
    process.stderr.write(`  stepping four ${pngs.length}-step attempts side by side (${source}) in headless Chromium…\n`);
    const { byStep, byUrl } = await measureCompare(started.url, ids, pngs.length);
    const all = [...byStep, ...byUrl];
    const p95 = percentile(all, 95);
    return [
      { name: "side-by-side step switch (4 columns), by step, median", value: median(byStep), unit: "ms" },
      { name: "side-by-side step switch (4 columns), by URL, median", value: median(byUrl), unit: "ms" },
      { name: "side-by-side step switch (4 columns), p95", value: p95, unit: "ms", target: "≤ 50 ms", ok: p95 <= 50 },
    ];
  });
}

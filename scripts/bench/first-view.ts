/**
 * First view of a freshly imported trajectory (issue 14): how long the player's first screenshot takes to
 * arrive, opened right after an import, in headless Chromium at 1280×800, 1440×900 and 1920×1080 against the
 * built app (`next start`). Trajectories imported the way the CLI imports them (first views encoded before the
 * command returns) are compared with the same kind imported with --no-warm, whose first screenshot is encoded
 * when it is first asked for. The figure is the image request's duration as the browser saw it (request start
 * to last byte, from Resource Timing), one fresh browser context per opening so no cache helps.
 * Requires a build (`npm run build`).
 */
import path from "node:path";
import type { Browser, BrowserContext } from "playwright";
import { closeDatabase } from "../../db/database";
import { createAccount } from "../../server/services/accounts";
import { warmingSettled } from "../../server/services/images";
import { runImport } from "../../server/services/imports";
import { warmFirstViews } from "../../server/services/trajectory-views";
import { generateCorpus } from "./import";
import { launchBenchBrowser, signIn } from "./browser";
import { BENCH_USER, benchAppContext, inBenchFolder } from "./player";
import { median, percentile, type BenchFigure } from "./types";

const PER_MODE = Number(process.env.BENCH_FIRST_VIEW_TRAJECTORIES ?? 6);
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
] as const;

export async function benchFirstView(): Promise<BenchFigure[]> {
  return inBenchFolder("verdict-bench-first-view-", async (work, serve) => {
    const dataDir = path.join(work, "data");
    const app = benchAppContext(dataDir);
    await createAccount(app, BENCH_USER);
    const ids: Record<"warmed" | "cold", number[]> = { warmed: [], cold: [] };
    for (const mode of ["warmed", "cold"] as const) {
      // Each trajectory opened once per window size: enough trajectories that no opening reuses another's files.
      const corpus = path.join(work, mode);
      // One more than measured: the first opening also loads the server's code, which is not what is measured.
      await generateCorpus(corpus, PER_MODE * VIEWPORTS.length + 1, 5);
      const report = await runImport(app, { path: corpus, format: "webvoyager" });
      ids[mode] = report.trajectories.map((t) => t.id);
      if (mode === "warmed") {
        const t = performance.now();
        await warmFirstViews(app, ids[mode]);
        await warmingSettled();
        process.stderr.write(`  first views of ${ids[mode].length} trajectories encoded in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
      }
    }
    await closeDatabase(app.db);

    const started = await serve(dataDir);
    const browser = await launchBenchBrowser();
    const figures: BenchFigure[] = [];
    try {
      // One sign-in (the sign-in route limits attempts per address); each opening gets a fresh context with the
      // session cookie only, so no browser cache carries over.
      const signing = await browser.newContext();
      await signIn(signing, started.url, BENCH_USER);
      const session = await signing.storageState();
      await signing.close();
      await firstScreenshotMs(browser, started.url, session, ids.warmed[PER_MODE * VIEWPORTS.length]!, VIEWPORTS[0]);
      const all: Record<string, number[]> = { warmed: [], cold: [] };
      for (const [v, viewport] of VIEWPORTS.entries()) {
        for (const mode of ["warmed", "cold"] as const) {
          const times: number[] = [];
          for (let i = 0; i < PER_MODE; i++) times.push(await firstScreenshotMs(browser, started.url, session, ids[mode][v * PER_MODE + i]!, viewport));
          all[mode]!.push(...times);
          if (mode === "warmed") {
            const p95 = percentile(times, 95);
            figures.push({
              name: `first screenshot after import, ${viewport.width}×${viewport.height}, p95`,
              value: p95,
              unit: "ms",
              target: "≤ 300 ms",
              ok: p95 <= 300,
            });
          }
        }
      }
      figures.push(
        { name: "first screenshot after import (first views encoded), median", value: median(all.warmed!), unit: "ms" },
        { name: "first screenshot after import with --no-warm (encoded on first view), median", value: median(all.cold!), unit: "ms" },
        { name: "first screenshot with --no-warm, p95", value: percentile(all.cold!, 95), unit: "ms" },
      );
    } finally {
      await browser.close();
    }
    return figures;
  });
}

async function firstScreenshotMs(
  browser: Browser,
  url: string,
  session: Awaited<ReturnType<BrowserContext["storageState"]>>,
  trajectoryId: number,
  viewport: { width: number; height: number },
): Promise<number> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, bypassCSP: true, storageState: session });
  try {
    const page = await context.newPage();
    await page.goto(`${url}/trajectories/${trajectoryId}`);
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('[data-testid="step-image"]');
      return !!img && img.complete && img.naturalWidth > 0;
    });
    const src = await page.locator('[data-testid="step-image"]').getAttribute("src");
    const ms = await page.evaluate((name) => {
      const entry = performance.getEntriesByType("resource").find((e) => e.name.endsWith(name!)) as PerformanceResourceTiming | undefined;
      return entry ? entry.responseEnd - entry.requestStart : NaN;
    }, src);
    if (!Number.isFinite(ms)) throw new Error(`no timing for the first screenshot ${src} of trajectory ${trajectoryId}`);
    return ms;
  } finally {
    await context.close();
  }
}

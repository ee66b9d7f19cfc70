/**
 * Demo data: records the scripted demo trajectories on the bundled demo sites through real Chromium, writes them as
 * a native bundle under `<dataDir>/demo-bundle/` and imports that bundle like any other source.
 *
 * Idempotent: when every demo run is already in the database the command does nothing unless forced. The demo
 * server listens on a fixed port (4517 unless told otherwise) because the recorded URLs contain it.
 */
import fsp from "node:fs/promises";
import path from "node:path";
import { listRuns } from "../../db/repositories/catalog";
import type { AppContext } from "../context";
import type { BundleTrajectory } from "../domain/imports/bundle";
import { launchChromium } from "../browser/launch";
import { EgressProxy } from "./live";
import { bundleStepSink, recordTrajectory, type RecordedTrajectory } from "../browser/recorder";
import { createScriptedPolicy } from "../browser/scripted-policy";
import { BrowserSession } from "../browser/session";
import { DEMO_RUNS, DEMO_TASKS, DEMO_TRAJECTORIES, demoTask, type DemoTrajectoryDef } from "../demo-sites/demo-trajectories";
import { DEMO_SITES_DEFAULT_PORT, startDemoSites } from "../demo-sites/server";
import { BundleWriter } from "./bundle-io";
import { runImport, type ImportReport } from "./imports";
import { evaluateRuleVerdicts, type RuleRunReport } from "./evaluation";

export const DEMO_BUNDLE_DIR = "demo-bundle";

export interface DemoOptions {
  /** Record and import again even when the demo runs exist. */
  force?: boolean;
  /** Port for the demo sites while recording; defaults to 4517 (the URLs in the data contain it). */
  port?: number;
  onProgress?: (done: number, total: number, label: string) => void;
}

export interface DemoReport {
  skipped: boolean;
  bundleDir: string;
  runs: string[];
  trajectories: number;
  steps: number;
  import: ImportReport | null;
  /** The demo tasks' rule checks run on the imported trajectories (real verdicts, computed here). */
  rules: RuleRunReport | null;
}

export function demoRunKeys(): string[] {
  return Object.values(DEMO_RUNS).map((r) => r.runKey);
}

/** True when every demo run is already stored. */
export async function demoDataPresent(ctx: AppContext): Promise<boolean> {
  const have = new Set((await listRuns(ctx.db)).map((r) => r.runKey));
  return demoRunKeys().every((k) => have.has(k));
}

/** Checks a recording against what its definition promises; a mismatch means a demo script or site is broken. */
function checkExpectation(def: DemoTrajectoryDef, rec: RecordedTrajectory): void {
  const where = `demo trajectory ${def.run}/${def.task}`;
  if (rec.outcome !== def.expect.outcome) {
    throw new Error(`${where} ended "${rec.outcome}"${rec.outcomeDetail ? ` (${rec.outcomeDetail})` : ""}, expected "${def.expect.outcome}"`);
  }
  if (def.expect.finalAnswer !== undefined && rec.finalAnswer !== def.expect.finalAnswer) {
    throw new Error(`${where} answered ${JSON.stringify(rec.finalAnswer)}, expected ${JSON.stringify(def.expect.finalAnswer)}`);
  }
  const last = rec.steps[rec.steps.length - 1];
  if (!last || !last.url.includes(def.expect.lastUrl)) {
    throw new Error(`${where} ended on ${last?.url ?? "no page"}, expected a URL containing ${JSON.stringify(def.expect.lastUrl)}`);
  }
  const errors = rec.steps.filter((s) => s.error).length;
  if (errors !== (def.expect.stepErrors ?? 0)) {
    const first = rec.steps.find((s) => s.error);
    throw new Error(`${where} has ${errors} failed steps, expected ${def.expect.stepErrors ?? 0}${first ? ` (step ${first.index}: ${first.error})` : ""}`);
  }
}

export async function generateDemoData(ctx: AppContext, options: DemoOptions = {}): Promise<DemoReport> {
  const bundleDir = path.join(ctx.config.dataDir, DEMO_BUNDLE_DIR);
  const runs = demoRunKeys();
  if (!options.force && (await demoDataPresent(ctx))) {
    return { skipped: true, bundleDir, runs, trajectories: 0, steps: 0, import: null, rules: null };
  }

  const sites = await startDemoSites({ port: options.port ?? DEMO_SITES_DEFAULT_PORT });
  const trajectories: BundleTrajectory[] = [];
  // The browser reaches the demo sites through an egress proxy, as a live run's does: run as the browser user, it
  // may open connections to the proxies only (scripts/browser-user.sh).
  const egress = await EgressProxy.start({ rules: { allowedDestinations: [`127.0.0.1:${sites.port}`] }, ports: ctx.config.runnerProxyPorts });
  try {
    const browser = await launchChromium({ config: ctx.config, egressProxy: egress.url });
    try {
      // A fresh folder: images of an older recording must not linger in the bundle.
      await fsp.rm(bundleDir, { recursive: true, force: true });
      const writer = new BundleWriter(bundleDir);
      for (const [i, def] of DEMO_TRAJECTORIES.entries()) {
        const taskDef = DEMO_TASKS.find((x) => x.externalId === def.task);
        if (!taskDef) throw new Error(`demo trajectory ${def.run}/${def.task} names an unknown task`);
        options.onProgress?.(i, DEMO_TRAJECTORIES.length, `${def.run} ${def.task}`);
        const session = await BrowserSession.open(browser);
        try {
          const sink = bundleStepSink(writer);
          const recorded = await recordTrajectory({
            session,
            task: demoTask(taskDef, sites.baseUrl),
            run: DEMO_RUNS[def.run],
            policy: createScriptedPolicy(def.script, `scripted:${def.run}`),
            maxSteps: def.maxSteps,
            stepTimeoutMs: 30_000,
            onStep: sink.onStep,
          });
          checkExpectation(def, recorded);
          trajectories.push(sink.trajectory(recorded));
        } finally {
          await session.close();
        }
      }
      options.onProgress?.(DEMO_TRAJECTORIES.length, DEMO_TRAJECTORIES.length, "writing bundle");
      await writer.finish(trajectories, "verdict demo recorder");
    } finally {
      await browser.close();
    }
  } finally {
    await egress.close();
    await sites.close();
  }

  const report = await runImport({ db: ctx.db, store: ctx.store }, { path: bundleDir, format: "native" });
  // Grade the answers with the tasks' string_match rules, so the analytics have an evaluator from the start.
  const rules = await evaluateRuleVerdicts({ db: ctx.db, env: {} }, { trajectoryIds: report.trajectories.map((t) => t.id), force: true });
  return {
    skipped: false,
    bundleDir,
    runs,
    trajectories: trajectories.length,
    steps: trajectories.reduce((n, t) => n + t.steps.length, 0),
    import: report,
    rules,
  };
}

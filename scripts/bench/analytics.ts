/**
 * Analytics views over 100,000 trajectories × 3 annotators + 2 judges (one at two k values), generated into a temp
 * SQLite file (scripts/bench/analytics-data.ts). Each view is timed from the database to its finished result, as
 * the tRPC procedure computes it:
 * - cold: the in-memory column cache emptied first (what the first request after any write costs) — the target;
 * - after a label: one label and its consolidated label changed first (annotators at work while someone reads the
 *   views): only the tables written are read again (per-table change counters, db/schema/changes.ts);
 * - after a verdict: one judge verdict changed first (a judge batch running);
 * - warm: cache kept (moving between views while nothing is written).
 * Median of several runs after a warm-up, wall time and this process's CPU time (on a shared machine the wall time
 * includes waiting for a CPU; the load average is reported at the end). Scale with BENCH_ANALYTICS_TRAJECTORIES.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  analyticsOverview,
  clearAnalyticsCache,
  drillDown,
  errorAnalysis,
  humanAgreement,
  humanConsensus,
  judgeAgreementDetail,
  judgeAgreementList,
  judgeDisagreements,
} from "../../server/services/analytics";
import { closeDatabase, sqliteClient } from "../../db/database";
import { generateAnalyticsData } from "./analytics-data";
import type { BenchFigure } from "./types";

const RUNS = 5;

/** Median wall and CPU time (this process) of `runs` calls after one warm-up; `before` runs untimed before each. */
async function measure(fn: () => unknown, before?: () => unknown, runs = RUNS): Promise<{ wall: number; cpu: number }> {
  await before?.();
  await fn();
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let r = 0; r < runs; r++) {
    await before?.();
    const cpu = process.cpuUsage();
    const started = performance.now();
    await fn();
    walls.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / 1000);
  }
  const median = (v: number[]) => v.sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
  return { wall: median(walls), cpu: median(cpus) };
}

export async function benchAnalytics(): Promise<{ name: string; value: number; unit: string; target?: string; ok?: boolean }[]> {
  const n = Number(process.env.BENCH_ANALYTICS_TRAJECTORIES ?? 100_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-bench-analytics-"));
  const figures: BenchFigure[] = [];
  try {
    const started = performance.now();
    const data = await generateAnalyticsData(path.join(dir, "bench.db"), { trajectories: n });
    const { db } = data;
    figures.push({ name: `generate ${n.toLocaleString("en-US")} trajectories, ${data.labels.toLocaleString("en-US")} labels, ${data.verdicts.toLocaleString("en-US")} verdicts`, value: (performance.now() - started) / 1000, unit: "s" });
    const [judgeA] = data.judgeKeys;
    const scope = {};
    const views: [string, () => unknown][] = [
      ["overview (site × run × evaluator, difficulty, length)", () => analyticsOverview(db, { scope, unparseable: "exclude", difficulty: "overall" })],
      ["judge agreement, all settings", () => judgeAgreementList(db, { scope, unparseable: "exclude" })],
      ["judge agreement, one judge (k-table, sites, categories)", () => judgeAgreementDetail(db, { scope, unparseable: "exclude", evaluatorKey: judgeA })],
      ["judge disagreements, first page", () => judgeDisagreements(db, { scope, unparseable: "exclude", identity: { key: judgeA, k: "3", pv: "webvoyager-v1" }, kind: "all", page: 1, pageSize: 50 })],
      ["human agreement (α, Fleiss, pairwise κ, categories, disputed)", () => humanAgreement(db, data.campaignId)],
      ["human consensus (Dawid–Skene + MACE, verdict + category)", () => humanConsensus(db, data.campaignId, "label")],
      ["error analysis (categories × site/run, first failing step)", () => errorAnalysis(db, { scope })],
      ["drill-down of one site's human failures", () => drillDown(db, { sel: { site: "GitHub", reference: { verdicts: ["failure"] } }, page: 1, pageSize: 50 })],
    ];
    for (const [name, fn] of views) {
      const cold = await measure(fn, () => clearAnalyticsCache(db));
      figures.push({ name: `${name}, cold`, value: cold.wall, unit: "ms", target: "≤ 300 ms", ok: cold.wall <= 300 });
      // CPU time of this process: what the wall time would be on an otherwise idle machine (the runs share it).
      figures.push({ name: `${name}, cold, CPU time`, value: cold.cpu, unit: "ms CPU" });
    }
    // Writes as the application makes them, flipping one row back and forth so the data stays the same size.
    const sqlite = sqliteClient(db);
    const flipLabel = sqlite.prepare("update labels set verdict = case verdict when 'success' then 'failure' else 'success' end where id = (select min(id) from labels where campaign_id = ?)");
    const flipConsolidated = sqlite.prepare("update consolidated_labels set verdict = case verdict when 'success' then 'failure' else 'success' end where id = (select min(id) from consolidated_labels where campaign_id = ?)");
    const flipVerdict = sqlite.prepare("update evaluator_verdicts set verdict = case verdict when 'success' then 'failure' else 'success' end where id = (select min(id) from evaluator_verdicts where evaluator_key = ?)");
    const afterLabel = () => {
      flipLabel.run(data.campaignId);
      flipConsolidated.run(data.campaignId);
    };
    const afterVerdict = () => flipVerdict.run(judgeA);
    for (const [name, fn] of views) {
      const m = await measure(fn, afterLabel);
      figures.push({ name: `${name}, after a label`, value: m.wall, unit: "ms", target: "≤ 300 ms", ok: m.wall <= 300 });
    }
    for (const [name, fn] of views) {
      const m = await measure(fn, afterVerdict);
      figures.push({ name: `${name}, after a verdict`, value: m.wall, unit: "ms", target: "≤ 300 ms", ok: m.wall <= 300 });
    }
    for (const [name, fn] of views) {
      figures.push({ name: `${name}, warm`, value: (await measure(fn)).wall, unit: "ms" });
    }
    figures.push({ name: "load average (1 min) at the end, for reading the figures", value: os.loadavg()[0]!, unit: `on ${os.cpus().length} CPUs` });
    await closeDatabase(db);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}

/**
 * Analytics views over 100,000 trajectories × 3 annotators + 2 judges (one at two k values), generated into a temp
 * SQLite file (scripts/bench/analytics-data.ts). Each view is timed from the database to its finished result, as
 * the tRPC procedure computes it:
 * - cold: as after a restart, the first request of the day: this process's cache emptied, the stored starting data
 *   (analytics_snapshots, server/services/analytics/snapshots.ts) and bootstrap results present, as a restarted
 *   server finds them — the target;
 * - first start: nothing stored either (a new database's very first view; what cold cost before issue 32's store),
 *   reported without a target;
 * - after a label: one label and its consolidated label changed first (annotators at work while someone reads the
 *   views): only the tables written are read again (per-table change counters, db/schema/changes.ts);
 * - after a verdict: one judge verdict changed first (a judge batch running);
 * - warm: cache kept (moving between views while nothing is written).
 * Median of several runs after a warm-up, wall time and this process's CPU time (on a shared machine the wall time
 * includes waiting for a CPU; the load average is reported at the end). Scale with BENCH_ANALYTICS_TRAJECTORIES.
 *
 * On PostgreSQL (scripts/bench/engines.ts) the same generated rows are copied into a fresh migrated database with
 * the store copy `npm run cli -- migrate-store` uses, and the views read them there; the CPU time then excludes
 * the server's share.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { clearAnalyticsCache } from "../../server/services/analytics";
import { closeDatabase, postgresPool, sqliteClient, type Db } from "../../db/database";
import { openPostgresDatabase } from "../../db/postgres";
import { copySqliteToPostgres } from "../../db/store-copy";
import { generateAnalyticsData } from "./analytics-data";
import { analyticsViews, analyticsWrites, measureView } from "./analytics-views";
import { sqliteEngine, type BenchEngine } from "./engines";
import { loadAverageFigure, type BenchFigure } from "./types";

const RUNS = 5;
/** A first start reads and stores everything: fewer runs. */
const FIRST_START_RUNS = 3;

/** Median wall, CPU and server CPU time of RUNS calls (or `runs`) after one warm-up; `before` runs untimed before each. */
const measure = (db: Db, fn: () => unknown, before?: () => unknown, runs = RUNS) => measureView(db, fn, before, runs);

export async function benchAnalytics(engine: BenchEngine = sqliteEngine()): Promise<BenchFigure[]> {
  const n = Number(process.env.BENCH_ANALYTICS_TRAJECTORIES ?? 100_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-bench-analytics-"));
  const installation = engine.backend === "postgres" ? await engine.install("verdict-bench-analytics-pg-") : null;
  const figures: BenchFigure[] = [];
  try {
    const started = performance.now();
    const data = await generateAnalyticsData(path.join(dir, "bench.db"), { trajectories: n });
    let db: Db = data.db;
    if (installation) {
      const target = openPostgresDatabase(installation.config.postgresUrl!).db;
      await copySqliteToPostgres(sqliteClient(data.db), postgresPool(target));
      await closeDatabase(data.db);
      db = target;
    }
    figures.push({
      name: `generate ${n.toLocaleString("en-US")} trajectories, ${data.labels.toLocaleString("en-US")} labels, ${data.verdicts.toLocaleString("en-US")} verdicts`,
      value: (performance.now() - started) / 1000,
      unit: "s",
    });
    const judgeA = data.judgeKeys[0]!;
    const v = analyticsViews(db, data.campaignId, judgeA);
    const views: [string, () => unknown][] = [
      ["overview (site × run × evaluator, difficulty, length)", v.overview],
      ["judge agreement, all settings", v.allJudges],
      ["judge agreement, one judge (k-table, sites, categories)", v.oneJudge],
      ["judge agreement, one judge against the annotators' majority, split by site", v.majorityBySite],
      ["judge disagreements, first page", v.disagreements],
      ["human agreement (α, Fleiss, pairwise κ, categories, disputed)", v.humans],
      ["human agreement split by site (α and Fleiss' κ with bootstrap intervals per site)", v.humansBySite],
      ["human consensus (Dawid–Skene + MACE, verdict + category)", v.consensus],
      ["error analysis (categories × site/run, first failing step)", v.errors],
      ["drill-down of one site's human failures", v.drill],
    ];
    const postgres = engine.backend === "postgres";
    for (const [name, fn] of views) {
      const first = await measure(db, fn, () => clearAnalyticsCache(db, { stored: true }), FIRST_START_RUNS);
      figures.push({ name: `${name}, first start (nothing stored)`, value: first.wall, unit: "ms" });
      const cold = await measure(db, fn, () => clearAnalyticsCache(db));
      figures.push({ name: `${name}, cold`, value: cold.wall, unit: "ms", target: "≤ 300 ms", ok: cold.wall <= 300 });
      // CPU time of this process (and the server's): what the wall time would be on an otherwise idle machine.
      figures.push({ name: `${name}, cold, CPU time`, value: cold.cpu, unit: "ms CPU" });
      if (postgres) figures.push({ name: `${name}, cold, server CPU time`, value: cold.serverCpu, unit: "ms CPU" });
    }
    // Writes as the application makes them, flipping one row back and forth so the data stays the same size.
    const { afterLabel, afterVerdict } = analyticsWrites(db, data.campaignId, judgeA);
    for (const [name, fn] of views) {
      const m = await measure(db, fn, afterLabel);
      figures.push({ name: `${name}, after a label`, value: m.wall, unit: "ms", target: "≤ 300 ms", ok: m.wall <= 300 });
    }
    for (const [name, fn] of views) {
      const m = await measure(db, fn, afterVerdict);
      figures.push({ name: `${name}, after a verdict`, value: m.wall, unit: "ms", target: "≤ 300 ms", ok: m.wall <= 300 });
    }
    for (const [name, fn] of views) {
      figures.push({ name: `${name}, warm`, value: (await measure(db, fn)).wall, unit: "ms" });
    }
    figures.push(loadAverageFigure("load average (1 min) at the end, for reading the figures"));
    await closeDatabase(db);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    installation?.remove();
  }
  return figures;
}

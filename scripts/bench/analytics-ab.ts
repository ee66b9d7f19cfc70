/**
 * Before/after comparisons of a change to the analytics, on a shared machine: `npx tsx scripts/bench/analytics-ab.ts`
 * generates the analytics bench's dataset (scripts/bench/analytics-data.ts, BENCH_ANALYTICS_TRAJECTORIES, default
 * 100,000) once into a kept file (BENCH_AB_DB, default in the system's temp folder) and times the views most
 * changed by issue 32, cold and right after a label, median wall and CPU time of BENCH_AB_RUNS runs (default 5).
 * Run it with the old and the new code in turns (e.g. `git apply -R change.patch`, run, `git apply change.patch`,
 * run, twice): the same database and the same load for both, and the CPU time is what the wall time would be on
 * an idle machine. BENCH_AB_VIEWS picks views by name (`|` between parts of names).
 *
 * BENCH_AB_PG_URL points it at a PostgreSQL database holding a copy of the same dataset instead (copied once with the
 * store copy, as the analytics bench does on PostgreSQL); the CPU time then excludes the server's share.
 *
 * `--check FILE` instead writes every view's result (cold, then after a label written and written back) to FILE,
 * so two versions of the code can be compared byte for byte, and says for each view whether its result right after
 * a label equals the one computed from an emptied cache (what is patched or remembered must not go stale).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "../../db/client";
import type { Db } from "../../db/database";
import { openPostgresDatabase } from "../../db/postgres";
import { clearAnalyticsCache } from "../../server/services/analytics";
import { generateAnalyticsData } from "./analytics-data";
import { analyticsViews, analyticsWrites, measureView } from "./analytics-views";

const n = Number(process.env.BENCH_ANALYTICS_TRAJECTORIES ?? 100_000);
const file = process.env.BENCH_AB_DB ?? path.join(os.tmpdir(), `verdict-analytics-ab-${n}.db`);
const wanted = (process.env.BENCH_AB_VIEWS ?? "").split("|").filter(Boolean);
const runs = Number(process.env.BENCH_AB_RUNS ?? 5);
const checkFile = process.argv[2] === "--check" ? process.argv[3] : undefined;

type View = [name: string, compute: () => unknown, before: () => unknown];

async function openData(): Promise<{ db: Db; campaignId: number; judge: string }> {
  // The generated dataset's first campaign and first judge (the store copy keeps the ids).
  if (process.env.BENCH_AB_PG_URL) return { db: openPostgresDatabase(process.env.BENCH_AB_PG_URL).db, campaignId: 1, judge: "judge:1" };
  if (!fs.existsSync(file)) {
    const d = await generateAnalyticsData(file, { trajectories: n });
    return { db: d.db, campaignId: d.campaignId, judge: d.judgeKeys[0] };
  }
  // The generated dataset's first campaign and first judge.
  return { db: openDatabase(file), campaignId: 1, judge: "judge:1" };
}

function viewsOf(db: Db, campaignId: number, judge: string): { views: View[]; afterLabel: () => Promise<void>; cold: () => Promise<void> } {
  // One label and one consolidated label flipped, or one judge verdict, as the analytics bench writes them.
  const { afterLabel, afterVerdict } = analyticsWrites(db, campaignId, judge);
  const cold = () => clearAnalyticsCache(db);
  const { oneJudge, majorityBySite, humansBySite, humans, consensus, overview, allJudges, disagreements, errors, drill } = analyticsViews(
    db,
    campaignId,
    judge,
  );
  const views: View[] = [
    ["judge agreement, one judge, after a label", oneJudge, afterLabel],
    ["judge vs majority split by site, after a label", majorityBySite, afterLabel],
    ["judge vs majority split by site, cold", majorityBySite, cold],
    ["human agreement split by site, after a label", humansBySite, afterLabel],
    ["human agreement split by site, cold", humansBySite, cold],
    ["overview, cold", overview, cold],
    ["judge agreement, all settings, cold", allJudges, cold],
    ["judge agreement, one judge, cold", oneJudge, cold],
    ["judge disagreements, cold", disagreements, cold],
    ["human agreement, cold", humans, cold],
    ["human consensus, cold", consensus, cold],
    ["error analysis, cold", errors, cold],
    ["drill-down, cold", drill, cold],
    ["overview, after a label", overview, afterLabel],
    ["judge agreement, all settings, after a label", allJudges, afterLabel],
    ["human agreement, after a label", humans, afterLabel],
    ["human consensus, after a label", consensus, afterLabel],
    ["human agreement split by site, after a verdict", humansBySite, afterVerdict],
    ["human agreement, after a verdict", humans, afterVerdict],
  ];
  return { views, afterLabel, cold };
}

async function check(target: string, views: View[], afterLabel: () => Promise<void>, cold: () => Promise<void>): Promise<void> {
  const out: Record<string, unknown> = {};
  for (const [name, compute] of views) {
    await cold();
    out[`${name} (cold)`] = await compute();
  }
  // Written twice, so the data are as before and the results comparable with the cold ones of another run.
  for (const [name, compute] of views) {
    await afterLabel();
    await afterLabel();
    out[`${name} (after a label written and written back)`] = await compute();
  }
  for (const [name, compute] of views) {
    await compute();
    await afterLabel();
    const kept = JSON.stringify(await compute());
    // A restart: this process's cache emptied, the stored starting data (analytics_snapshots) read and patched.
    await cold();
    const restarted = JSON.stringify(await compute());
    // A first start: nothing stored either.
    await clearAnalyticsCache(db, { stored: true });
    const fresh = JSON.stringify(await compute());
    await afterLabel();
    console.log(
      `${name}: after a label ${kept === fresh ? "equals" : "DIFFERS FROM"} the result from an emptied cache; after a restart ${restarted === fresh ? "equals" : "DIFFERS FROM"} it`,
    );
  }
  fs.writeFileSync(target, JSON.stringify(out, null, 1));
}

async function time(db: Db, views: View[]): Promise<void> {
  for (const [name, compute, before] of views) {
    if (wanted.length && !wanted.some((w) => name.includes(w))) continue;
    const m = await measureView(db, compute, before, runs);
    const serverShare = process.env.BENCH_AB_PG_URL ? `   server CPU ${m.serverCpu.toFixed(0).padStart(5)} ms` : "";
    console.log(`${name.padEnd(50)} wall ${m.wall.toFixed(0).padStart(5)} ms   CPU ${m.cpu.toFixed(0).padStart(5)} ms${serverShare}`);
  }
  console.log(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")} on ${os.cpus().length} CPUs`,
  );
}

const { db, campaignId, judge } = await openData();
const { views, afterLabel, cold } = viewsOf(db, campaignId, judge);
if (checkFile) await check(checkFile, views, afterLabel, cold);
else await time(db, views);

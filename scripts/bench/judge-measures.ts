/**
 * Judge measures (FPR/FNR and success-rate gap with task-clustered bootstrap intervals overall, per site and per
 * run; calibration; agent ranking with Kendall τ) over the analytics bench data: 100,000 trajectories × 3
 * annotators, and three judge settings whose every verdict carries three samples. Timed as the tRPC procedure
 * computes it, p50 and p95 of several runs: cold (cache emptied), after a verdict write, after a label write
 * (the measures reload the consolidated labels), and warm. Scale with BENCH_ANALYTICS_TRAJECTORIES.
 */
import { closeDatabase, sqliteClient } from "../../db/database";
import { clearAnalyticsCache, judgeMeasures } from "../../server/services/analytics";
import { withGeneratedAnalyticsData } from "./analytics-data";
import { percentile, loadAverageFigure, type BenchFigure } from "./types";

const RUNS = 9;

async function timings(fn: () => unknown, before?: () => unknown): Promise<{ p50: number; p95: number }> {
  await before?.();
  await fn();
  const walls: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    await before?.();
    const started = performance.now();
    await fn();
    walls.push(performance.now() - started);
  }
  return { p50: percentile(walls, 50), p95: percentile(walls, 95) };
}

export async function benchJudgeMeasures(): Promise<BenchFigure[]> {
  const n = Number(process.env.BENCH_ANALYTICS_TRAJECTORIES ?? 100_000);
  const figures: BenchFigure[] = [];
  await withGeneratedAnalyticsData("judge-measures", n, async (data, started) => {
    const { db } = data;
    const sqlite = sqliteClient(db);
    // Three samples per verdict, their majority agreeing with the stored verdict: 3–0 or 2–1, by trajectory id.
    sqlite.exec(
      "update evaluator_verdicts set sample_count = 3, sample_successes = case when verdict = 'success' then 3 - (trajectory_id % 2) else trajectory_id % 2 end, sample_failures = case when verdict = 'success' then trajectory_id % 2 else 3 - (trajectory_id % 2) end",
    );
    figures.push({
      name: `generate ${n.toLocaleString("en-US")} trajectories, ${data.verdicts.toLocaleString("en-US")} sampled verdicts`,
      value: (performance.now() - started) / 1000,
      unit: "s",
    });

    const run = () => judgeMeasures(db, { scope: {}, unparseable: "exclude" });
    // Each write flips a row not flipped before (spread over sites and runs), so no state is ever seen twice: results
    // kept from earlier states cannot flatter the figure.
    const flipVerdict = sqlite.prepare(
      "update evaluator_verdicts set verdict = case verdict when 'success' then 'failure' else 'success' end where id = (select id from evaluator_verdicts where evaluator_key = ? order by id limit 1 offset ?)",
    );
    const flipConsolidated = sqlite.prepare(
      "update consolidated_labels set verdict = case verdict when 'success' then 'failure' else 'success' end where id = (select id from consolidated_labels where campaign_id = ? order by id limit 1 offset ?)",
    );
    let writes = 0;
    const nextRow = () => (writes++ * 7919) % Math.max(1, Math.floor(n / 2));
    const cases: [string, (() => unknown) | undefined, boolean][] = [
      ["cold (cache emptied)", () => clearAnalyticsCache(db), true],
      ["after a verdict", () => flipVerdict.run(data.judgeKeys[0], nextRow()), true],
      ["after a consolidated label", () => flipConsolidated.run(data.campaignId, nextRow()), true],
      ["warm", undefined, false],
    ];
    for (const [name, before, target] of cases) {
      const t = await timings(run, before);
      figures.push({ name: `judge measures, ${name}, p50`, value: t.p50, unit: "ms", ...(target ? { target: "≤ 300 ms", ok: t.p50 <= 300 } : {}) });
      figures.push({ name: `judge measures, ${name}, p95`, value: t.p95, unit: "ms", ...(target ? { target: "≤ 300 ms", ok: t.p95 <= 300 } : {}) });
    }
    const m = await run();
    figures.push({ name: "evaluator settings measured", value: m.evaluators.length, unit: "settings" });
    figures.push(loadAverageFigure("load average (1 min) at the end, for reading the figures"));
    await closeDatabase(db);
  });
  return figures;
}

/**
 * Triage of the trajectory list over 100,000 trajectories (scripts/bench/analytics-data.ts: one campaign with
 * consolidated labels, two judges, one at two k values), plus rule verdicts on 60 % of them and loop-heuristic
 * verdicts on half. Each filter combination is one page of the list as the tRPC procedure builds it for a researcher
 * (filters, sort, count, the page's grade columns), timed 20 times after a warm-up: p50 and p95 of the wall time,
 * target p95 ≤ 300 ms, and p95 of this process's CPU time (SQLite runs in-process, so on a shared, loaded machine
 * the CPU time is the work itself and the wall time adds the wait for a core; the load average is reported).
 * Scale with BENCH_TRIAGE_TRAJECTORIES.
 */
import { closeDatabase, sqliteClient, tablesOf } from "../../db/database";
import { formatEvaluatorRef, parseTrajectoryListParams } from "../../server/domain/trajectory-list-query";
import { listTrajectoryPage } from "../../server/services/trajectory-views";
import { BENCH_SITES, withGeneratedAnalyticsData } from "./analytics-data";
import { percentile, timedRuns, loadAverageFigure, type BenchFigure } from "./types";

const RUNS = 20;
const TARGET_MS = 300;

export async function benchTriage(): Promise<BenchFigure[]> {
  const n = Number(process.env.BENCH_TRIAGE_TRAJECTORIES ?? 100_000);
  const figures: BenchFigure[] = [];
  await withGeneratedAnalyticsData("triage", n, async (data, started) => {
    const { db } = data;
    // Rule results on 3 trajectories in 5 (success, failure, not evaluable in turn) and the loop heuristic on half.
    // Bulk rows straight through the SQLite driver, as the generator writes them.
    sqliteClient(db).exec(`
      insert into evaluator_verdicts (trajectory_id, kind, origin, evaluator_key, evaluator_name, k, prompt_version, verdict)
        select id, 'rule', 'verdict', 'rule:vwa', 'VisualWebArena rules', '', '1',
          case id % 3 when 0 then 'success' when 1 then 'failure' else 'not_evaluable' end
        from trajectories where id % 5 < 3;
      insert into evaluator_verdicts (trajectory_id, kind, origin, evaluator_key, evaluator_name, k, prompt_version, verdict)
        select id, 'rule', 'verdict', 'heuristic:loop', 'Heuristic: loop', '', '1', case when id % 7 = 0 then 'failure' else 'success' end
        from trajectories where id % 2 = 0;
      analyze;`);
    figures.push({
      name: `generate ${n.toLocaleString("en-US")} trajectories with labels and verdicts`,
      value: (performance.now() - started) / 1000,
      unit: "s",
    });

    const [judgeA] = data.judgeKeys;
    const ev = encodeURIComponent(formatEvaluatorRef({ key: judgeA, k: "1", pv: "webvoyager-v1" }));
    const { agentRuns } = tablesOf(db);
    const run = (await db.select({ id: agentRuns.id }).from(agentRuns).orderBy(agentRuns.id).limit(1))[0]!.id;
    const combos: [string, string][] = [
      ["evaluator column, no filter", `ev=${ev}`],
      ["human = failure", `human=failure&ev=${ev}`],
      ["judge success, humans failure", `ev=${ev}&verdict=success&human=failure`],
      ["humans vs judge disagree, one site", `ev=${ev}&agree=disagree&site=${encodeURIComponent(BENCH_SITES[1]!)}`],
      ["rule none, item adjudicated", "rule=none&state=adjudicated"],
      ["category + run + rule failure", `category=hallucination&run=${run}&rule=failure`],
      ["no human label (empty)", "human=none"],
      ["sorted by human label", "sort=human&dir=asc"],
      ["sorted by judge verdict, one run", `ev=${ev}&sort=verdict&dir=asc&run=${run}`],
      ["sample 200 by run of human failures", "human=failure&sample=200&seed=7&strata=run"],
    ];
    const all: number[] = [];
    const allCpu: number[] = [];
    for (const [name, search] of combos) {
      const query = parseTrajectoryListParams(new URLSearchParams(search));
      const first = await listTrajectoryPage(db, query, { triage: true });
      const { times, cpus } = await timedRuns(RUNS, () => listTrajectoryPage(db, query, { triage: true }));
      all.push(...times);
      allCpu.push(...cpus);
      const p95 = percentile(times, 95);
      figures.push({ name: `${name} (${first.total.toLocaleString("en-US")}) p50`, value: percentile(times, 50), unit: "ms" });
      figures.push({ name: `${name} p95`, value: p95, unit: "ms", target: `≤ ${TARGET_MS} ms`, ok: p95 <= TARGET_MS });
      figures.push({ name: `${name} p95 CPU`, value: percentile(cpus, 95), unit: "ms CPU" });
    }
    const p95 = percentile(all, 95);
    figures.push({ name: "all combinations p95", value: p95, unit: "ms", target: `≤ ${TARGET_MS} ms`, ok: p95 <= TARGET_MS });
    figures.push({ name: "all combinations p95 CPU", value: percentile(allCpu, 95), unit: "ms CPU" });
    figures.push(loadAverageFigure());
    await closeDatabase(db);
  });
  return figures;
}

/**
 * A large, seeded analytics dataset written straight into a fresh SQLite file: trajectories over several sites,
 * agent runs and difficulty levels; one annotation campaign in which every trajectory has labels from the same
 * three annotators and a consolidated label; and verdicts from two judges (one of them at two screenshot windows k).
 *
 * Rows go in through prepared statements inside one transaction: the repositories insert one row per call with
 * their own look-ups, which would make generating a million rows take minutes. The schema (and its migrations)
 * is the application's own, applied by openDatabase.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase, type Db } from "../../db/client";
import { sqliteClient, tablesOf, withTransaction } from "../../db/database";
import { createRng } from "../../server/domain/agreement";

export interface AnalyticsDataOptions {
  trajectories: number;
  seed?: number;
}

export const BENCH_SITES = [
  "Allrecipes",
  "Amazon",
  "Apple",
  "ArXiv",
  "GitHub",
  "Booking",
  "ESPN",
  "Coursera",
  "Cambridge Dictionary",
  "BBC News",
  "Google Flights",
  "Google Map",
  "Google Search",
  "Huggingface",
  "Wolfram Alpha",
];
export const BENCH_RUNS = ["gpt-4v agent", "claude agent", "text-only agent", "som agent"];
export const BENCH_CATEGORIES = ["navigation stuck", "visual grounding issue", "hallucination", "prompt misalignment", "other"];
export const BENCH_ANNOTATORS = ["ann", "bob", "cy"];
export const BENCH_DIFFICULTIES = ["easy", "medium", "hard"];

export interface AnalyticsDataset {
  db: Db;
  campaignId: number;
  /** Evaluator keys of the two judges (the first ran with k = 1 and k = 3, the second with k = "full"). */
  judgeKeys: [string, string];
  trajectories: number;
  labels: number;
  verdicts: number;
}

export async function generateAnalyticsData(file: string, o: AnalyticsDataOptions): Promise<AnalyticsDataset> {
  const db = openDatabase(file);
  // Bulk generation straight through the SQLite driver: the benchmarks measure reads of an embedded installation.
  const sqlite = sqliteClient(db);
  const rng = createRng(o.seed ?? 7);
  const n = o.trajectories;
  const tasksPerRun = Math.ceil(n / BENCH_RUNS.length);
  let labelCount = 0;
  let verdictCount = 0;

  const ids = await withTransaction(db, async () => {
    const { taskSets } = tablesOf(db);
    const [set] = await db.insert(taskSets).values({ name: "Bench set", benchmark: "webvoyager" }).returning({ id: taskSets.id });
    const setId = set!.id;
    const insertTask = sqlite.prepare("insert into tasks (task_set_id, external_id, site, intent, difficulty, content_hash) values (?, ?, ?, ?, ?, ?)");
    const taskIds: number[] = [];
    const taskSite: number[] = [];
    const taskDifficulty: number[] = [];
    for (let t = 0; t < tasksPerRun; t++) {
      const site = Math.floor(rng() * BENCH_SITES.length);
      const diff = Math.floor(rng() * 3);
      const id = insertTask.run(
        setId,
        `${BENCH_SITES[site]}--${t}`,
        BENCH_SITES[site],
        `Task ${t}`,
        JSON.stringify({ overall: BENCH_DIFFICULTIES[diff] }),
        `task-${t}`,
      ).lastInsertRowid;
      taskIds.push(Number(id));
      taskSite.push(site);
      taskDifficulty.push(diff);
    }
    const insertRun = sqlite.prepare("insert into agent_runs (run_key, name, agent_name, model, source_system) values (?, ?, ?, ?, 'bench')");
    const runIds = BENCH_RUNS.map((name, r) => Number(insertRun.run(`bench:${r}`, name, name, `model-${r}`).lastInsertRowid));

    const campaignId = Number(
      sqlite
        .prepare("insert into annotation_campaigns (name, label_schema, annotators_per_item, selection, origin) values ('Bench campaign', ?, 3, ?, 'import')")
        .run(
          JSON.stringify({
            categories: BENCH_CATEGORIES,
            requireCategory: true,
            allowUnsure: false,
            firstFailingStep: true,
            note: true,
            agreementOn: "verdict",
          }),
          JSON.stringify({ description: `${n} generated trajectories` }),
        ).lastInsertRowid,
    );
    const judgeConfig = sqlite.prepare("insert into judge_configs (name, model, prompt_version, options) values (?, ?, 'webvoyager-v1', '{}')");
    const judgeA = Number(judgeConfig.run("bench judge A", "judge-a").lastInsertRowid);
    const judgeB = Number(judgeConfig.run("bench judge B", "judge-b").lastInsertRowid);

    const insertTrajectory = sqlite.prepare(
      "insert into trajectories (run_id, task_id, attempt, outcome, step_count, source_format, content_hash) values (?, ?, 0, 'answered', ?, 'bench', ?)",
    );
    const insertItem = sqlite.prepare("insert into campaign_items (campaign_id, trajectory_id, state) values (?, ?, ?)");
    const insertLabel = sqlite.prepare(
      "insert into labels (campaign_id, item_id, trajectory_id, annotator_key, annotator_name, origin, verdict, category, first_failing_step) values (?, ?, ?, ?, ?, 'import', ?, ?, ?)",
    );
    const insertConsolidated = sqlite.prepare(
      "insert into consolidated_labels (campaign_id, item_id, trajectory_id, verdict, category, first_failing_step, method, based_on) values (?, ?, ?, ?, ?, ?, ?, '[]')",
    );
    const insertVerdict = sqlite.prepare(
      "insert into evaluator_verdicts (trajectory_id, kind, origin, evaluator_key, evaluator_name, judge_config_id, k, prompt_version, verdict) values (?, 'judge', 'verdict', ?, ?, ?, ?, 'webvoyager-v1', ?)",
    );
    const judgeVerdict = (truth: boolean, accuracy: number): string => {
      if (rng() < 0.01) return "unparseable";
      return rng() < accuracy === truth ? "success" : "failure";
    };

    for (let i = 0; i < n; i++) {
      const r = i % BENCH_RUNS.length;
      const t = Math.floor(i / BENCH_RUNS.length) % tasksPerRun;
      const steps = 2 + Math.floor(rng() * 28);
      const pSuccess = 0.65 - 0.15 * taskDifficulty[t]! - 0.08 * r - (steps > 20 ? 0.15 : 0) + 0.02 * (taskSite[t]! % 5);
      const truth = rng() < pSuccess;
      const trueCategory = Math.floor(rng() * BENCH_CATEGORIES.length);
      const trueStep = Math.floor(rng() * steps);
      const trajectoryId = Number(insertTrajectory.run(runIds[r], taskIds[t], steps, `bench-${i}`).lastInsertRowid);

      const verdicts: string[] = [];
      const categories: (string | null)[] = [];
      for (let a = 0; a < BENCH_ANNOTATORS.length; a++) {
        const success = rng() < 0.88 ? truth : !truth;
        verdicts.push(success ? "success" : "failure");
        categories.push(success ? null : BENCH_CATEGORIES[rng() < 0.75 ? trueCategory : Math.floor(rng() * BENCH_CATEGORIES.length)]!);
      }
      const successes = verdicts.filter((v) => v === "success").length;
      const unanimous = successes === 0 || successes === BENCH_ANNOTATORS.length;
      const itemId = Number(insertItem.run(campaignId, trajectoryId, unanimous ? "agreed" : "adjudicated").lastInsertRowid);
      for (let a = 0; a < BENCH_ANNOTATORS.length; a++) {
        const step = verdicts[a] === "failure" ? Math.min(steps - 1, Math.max(0, trueStep + Math.floor(rng() * 3) - 1)) : null;
        insertLabel.run(campaignId, itemId, trajectoryId, `import:${BENCH_ANNOTATORS[a]}`, BENCH_ANNOTATORS[a], verdicts[a], categories[a], step);
        labelCount++;
      }
      const consolidatedSuccess = successes * 2 > BENCH_ANNOTATORS.length;
      insertConsolidated.run(
        campaignId,
        itemId,
        trajectoryId,
        consolidatedSuccess ? "success" : "failure",
        consolidatedSuccess ? null : BENCH_CATEGORIES[trueCategory],
        consolidatedSuccess ? null : trueStep,
        unanimous ? "unanimous" : "adjudicated",
      );
      insertVerdict.run(trajectoryId, `judge:${judgeA}`, "bench judge A", judgeA, "1", judgeVerdict(truth, 0.8));
      insertVerdict.run(trajectoryId, `judge:${judgeA}`, "bench judge A", judgeA, "3", judgeVerdict(truth, 0.85));
      insertVerdict.run(trajectoryId, `judge:${judgeB}`, "bench judge B", judgeB, "full", judgeVerdict(truth, 0.9));
      verdictCount += 3;
    }
    return { campaignId, judgeA, judgeB };
  });
  // Fresh statistics so the query planner sees the table sizes it would see in a long-lived installation.
  sqlite.exec("analyze");
  return {
    db,
    campaignId: ids.campaignId,
    judgeKeys: [`judge:${ids.judgeA}`, `judge:${ids.judgeB}`],
    trajectories: n,
    labels: labelCount,
    verdicts: verdictCount,
  };
}

/**
 * Generates the dataset into bench.db in a new temp folder named after the bench and gives it to `use` with the
 * moment generating started (performance.now()); the folder is removed after.
 */
export async function withGeneratedAnalyticsData<T>(
  bench: string,
  trajectories: number,
  use: (data: AnalyticsDataset, started: number) => Promise<T>,
): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `verdict-bench-${bench}-`));
  try {
    const started = performance.now();
    const data = await generateAnalyticsData(path.join(dir, "bench.db"), { trajectories });
    return await use(data, started);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

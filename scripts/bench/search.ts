/**
 * Behaviour search over a generated corpus of 10,000 trajectories (BENCH_SEARCH_TRAJECTORIES) of 10 steps each:
 * thoughts, actions, URLs and element texts drawn from a seeded vocabulary where a few words are rare ("captcha" in
 * about 1 thought in 60), a judge's verdict with a rationale on every trajectory and an annotator's note on one in
 * four. Written as rows, so the search entries come from the database's own triggers (the time to write the corpus
 * includes indexing it). Each query is one page of the list as a researcher gets it (filter,
 * relevance order, count, the page's hits), timed 20 times after a warm-up: p50 and p95, target p95 ≤ 300 ms, and on
 * SQLite the p95 of this process's CPU time (on a loaded machine the wall time adds the wait for a core).
 */
import { tablesOf, withTransaction, type Db } from "../../db/database";
import type { StepValues } from "../../db/repositories/trajectories";
import { createRng } from "../../server/domain/agreement/random";
import { defaultLabelSchema } from "../../server/domain/annotation/label-schema";
import { scopeSearch } from "../../server/services/access";
import { listTrajectoryPage } from "../../server/services/trajectory-views";
import { onNewInstallation, type BenchEngine } from "./engines";
import { percentile, timedRuns, loadAverageFigure, type BenchFigure } from "./types";

const RUNS = 20;
const TARGET_MS = 300;
const STEPS = 10;

const COMMON = "the page shows a list of results and I should look for the right item before I continue with the task".split(" ");
const NOUNS = ["button", "menu", "price", "recipe", "review", "filter", "cart", "account", "search", "result", "link", "form", "calendar", "map", "ticket"];
const SITES = ["shop", "recipes", "maps", "github", "booking", "news"];
const PATHS = ["home", "search", "item", "checkout", "cart", "login", "help", "list"];

function corpusSteps(random: () => number, t: number): StepValues[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const site = SITES[t % SITES.length]!;
  return Array.from({ length: STEPS }, (_, index) => {
    const words = Array.from({ length: 12 }, () => (random() < 0.3 ? pick(NOUNS) : pick(COMMON)));
    if (random() < 1 / 60) words.splice(4, 0, "a", "captcha", "appeared");
    if (random() < 1 / 200) words.push("login", "wall");
    const typing = random() < 0.2;
    const target = String(Math.floor(random() * 40));
    return {
      index,
      url: `https://${site}.example/${pick(PATHS)}/${Math.floor(random() * 1000)}`,
      thought: words.join(" "),
      actionRaw: typing ? `Type [${target}]; ${pick(NOUNS)} ${pick(NOUNS)}` : `Click [${target}]`,
      action: typing ? { type: "type", target, value: pick(NOUNS) } : { type: "click", target },
      elements: Array.from({ length: 8 }, (_, e) => ({ label: String(e), bbox: null, text: random() < 0.1 ? "Add to cart" : `${pick(NOUNS)} ${e}` })),
    };
  });
}

async function writeCorpus(db: Db, n: number): Promise<void> {
  // Seeded, so every run writes the same corpus.
  const random = createRng(29);
  const { taskSets, agentRuns, tasks, trajectories, steps, evaluatorVerdicts } = tablesOf(db);
  const [set] = await db.insert(taskSets).values({ name: "Search bench", benchmark: "webvoyager" }).returning({ id: taskSets.id });
  const [run] = await db
    .insert(agentRuns)
    .values({ runKey: "bench:search", name: "search bench run", agentName: "bench-agent", model: "bench-model", sourceSystem: "bench" })
    .returning({ id: agentRuns.id });
  const ids: number[] = [];
  for (let from = 0; from < n; from += 500) {
    await withTransaction(db, async () => {
      for (let t = from; t < Math.min(n, from + 500); t++) {
        const site = SITES[t % SITES.length]!;
        const [task] = await db
          .insert(tasks)
          .values({
            taskSetId: set!.id,
            externalId: `search-${t}`,
            site,
            intent: `Find the ${NOUNS[t % NOUNS.length]} on ${site}`,
            contentHash: `search-task-${t}`,
          })
          .returning({ id: tasks.id });
        const stepRows = corpusSteps(random, t);
        const [row] = await db
          .insert(trajectories)
          .values({
            runId: run!.id,
            taskId: task!.id,
            attempt: 0,
            finalAnswer: `${NOUNS[(t * 7) % NOUNS.length]} ${t % 100}`,
            outcome: "answered",
            stepCount: stepRows.length,
            sourceFormat: "bench",
            contentHash: `search-${t}`,
          })
          .returning({ id: trajectories.id });
        await db.insert(steps).values(stepRows.map((s) => ({ ...s, trajectoryId: row!.id })));
        ids.push(row!.id);
      }
    });
  }
  for (let i = 0; i < ids.length; i += 500) {
    await db.insert(evaluatorVerdicts).values(
      ids.slice(i, i + 500).map((id, j) => ({
        trajectoryId: id,
        kind: "judge" as const,
        origin: "verdict" as const,
        evaluatorKey: "judge:bench",
        evaluatorName: "Bench judge",
        k: "1",
        promptVersion: "v1",
        verdict: (i + j) % 3 ? ("success" as const) : ("failure" as const),
        rationale: (i + j) % 3 ? "The answer matches the page" : (i + j) % 2 ? "The agent hallucinated the price" : "It stopped at a captcha",
      })),
    );
  }
  // Notes as a label import leaves them: straight rows of one campaign, one annotator.
  const { annotationCampaigns, campaignItems, labels } = tablesOf(db);
  const [campaign] = await db
    .insert(annotationCampaigns)
    .values({ name: "Search bench notes", labelSchema: defaultLabelSchema(), annotatorsPerItem: 1, selection: { description: "search bench notes" } })
    .returning({ id: annotationCampaigns.id });
  for (let i = 0; i < ids.length; i += 4 * 200) {
    const chunk = ids.slice(i, i + 4 * 200).filter((_, j) => j % 4 === 0);
    const items = await db
      .insert(campaignItems)
      .values(chunk.map((trajectoryId, j) => ({ campaignId: campaign!.id, trajectoryId, itemNo: i + j + 1 })))
      .returning({ id: campaignItems.id, trajectoryId: campaignItems.trajectoryId });
    await db.insert(labels).values(
      items.map((item, j) => ({
        campaignId: campaign!.id,
        itemId: item.id,
        trajectoryId: item.trajectoryId,
        annotatorKey: "user:bench",
        annotatorName: "Bench annotator",
        origin: "import" as const,
        verdict: j % 2 ? ("success" as const) : ("failure" as const),
        note: j % 2 ? "Looks fine" : "Confusing menu, the agent clicked the wrong filter",
      })),
    );
  }
}

const QUERIES: [string, string][] = [
  ["a rare word", "captcha"],
  ["a common word", "results"],
  ["a phrase in element texts", `"add to cart"`],
  ["thought and URL fields", "thought:captcha url:checkout"],
  ["a prefix", "check*"],
  ["a word without another", "captcha -login"],
  ["an action word", "action:type"],
  ["a note", "note:confusing"],
  ["a rationale", `rationale:"hallucinated the price"`],
  ["a word and a judge's verdict", "captcha judge:failure"],
];

export async function benchSearch(engine: BenchEngine): Promise<BenchFigure[]> {
  const n = Number(process.env.BENCH_SEARCH_TRAJECTORIES ?? 10_000);
  return onNewInstallation(engine, "verdict-bench-search-", async (app) => {
    const figures: BenchFigure[] = [];
    const started = performance.now();
    await writeCorpus(app.db, n);
    figures.push({
      name: `write and index ${n.toLocaleString("en-US")} trajectories × ${STEPS} steps`,
      value: (performance.now() - started) / 1000,
      unit: "s",
    });
    const all: number[] = [];
    const allCpu: number[] = [];
    for (const [name, search] of QUERIES) {
      const query = {
        search,
        textSearch: scopeSearch(search, { wholeCatalog: true }),
        sort: "relevance" as const,
        dir: "desc" as const,
        page: 1,
        pageSize: 50,
      };
      const first = await listTrajectoryPage(app.db, query);
      const { times, cpus } = await timedRuns(RUNS, () => listTrajectoryPage(app.db, query));
      all.push(...times);
      allCpu.push(...cpus);
      const p95 = percentile(times, 95);
      figures.push({ name: `${name}: ${search} (${first.total.toLocaleString("en-US")}) p50`, value: percentile(times, 50), unit: "ms" });
      figures.push({ name: `${name} p95`, value: p95, unit: "ms", target: `≤ ${TARGET_MS} ms`, ok: p95 <= TARGET_MS });
      // SQLite runs in this process: its CPU time is the search's own work, apart from the wait for a core.
      if (engine.backend === "sqlite") figures.push({ name: `${name} p95 CPU`, value: percentile(cpus, 95), unit: "ms CPU" });
    }
    const p95 = percentile(all, 95);
    figures.push({ name: "all searches p95", value: p95, unit: "ms", target: `≤ ${TARGET_MS} ms`, ok: p95 <= TARGET_MS });
    if (engine.backend === "sqlite") figures.push({ name: "all searches p95 CPU", value: percentile(allCpu, 95), unit: "ms CPU" });
    figures.push(loadAverageFigure());
    return figures;
  });
}

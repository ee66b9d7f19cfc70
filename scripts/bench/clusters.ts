/**
 * Failure clusters of 2,000 failures (BENCH_CLUSTER_FAILURES): a generated corpus of failed trajectories of 10 steps
 * whose last thoughts, errors, URLs, judge rationales and notes come from eight kinds of failure (a CAPTCHA, a login
 * wall, a timeout, a wrong price, a scroll loop…) mixed with common words, each with a consolidated human failure
 * label. Written as rows, so the search entries the clusters read come from the database's own triggers. The figure
 * is the whole computation a worker does for the researcher's page (select the failures, read their text, group
 * them, k chosen by silhouette), timed 3 times after a warm-up: the median against the target ≤ 5 s, the slowest
 * beside it, and on SQLite the CPU time (on a loaded machine the wall time adds the wait for a core).
 */
import { tablesOf, withTransaction, type Db } from "../../db/database";
import { defaultLabelSchema } from "../../server/domain/annotation/label-schema";
import { createRng } from "../../server/domain/agreement/random";
import { computeFailureClusters } from "../../server/services/analytics";
import { onNewInstallation, type BenchEngine } from "./engines";
import { median, loadAverageFigure, type BenchFigure } from "./types";

const RUNS = 3;
const TARGET_S = 5;
const STEPS = 10;

const KINDS = [
  ["captcha", "verify", "human", "robot", "challenge", "blocked"],
  ["login", "sign", "password", "account", "wall", "credentials"],
  ["timeout", "loading", "spinner", "slow", "waited", "never"],
  ["price", "wrong", "total", "cheapest", "sorted", "currency"],
  ["scroll", "loop", "repeated", "same", "stuck", "again"],
  ["popup", "cookie", "banner", "consent", "dismiss", "overlay"],
  ["date", "calendar", "month", "picker", "booking", "year"],
  ["hallucinated", "invented", "answer", "guessed", "unsupported", "claim"],
];
const COMMON = "the page shows a list of results and I should click the button to continue with the search for the item".split(" ");
const SITES = ["shop", "recipes", "maps", "github", "booking", "news"];

async function writeFailures(db: Db, n: number): Promise<void> {
  const random = createRng(29);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const sentence = (kind: readonly string[], length: number) => Array.from({ length }, () => (random() < 0.4 ? pick(kind) : pick(COMMON))).join(" ");
  const t = tablesOf(db);
  const [set] = await db.insert(t.taskSets).values({ name: "Cluster bench", benchmark: "webvoyager" }).returning({ id: t.taskSets.id });
  const runs: number[] = [];
  for (const name of ["agent A", "agent B", "agent C"]) {
    const [run] = await db
      .insert(t.agentRuns)
      .values({ runKey: `bench:clusters:${name}`, name, agentName: name, model: "bench-model", sourceSystem: "bench" })
      .returning({ id: t.agentRuns.id });
    runs.push(run!.id);
  }
  const [campaign] = await db
    .insert(t.annotationCampaigns)
    .values({ name: "Cluster bench labels", labelSchema: defaultLabelSchema(), annotatorsPerItem: 1, selection: { description: "cluster bench" } })
    .returning({ id: t.annotationCampaigns.id });
  for (let from = 0; from < n; from += 250) {
    await withTransaction(db, async () => {
      for (let i = from; i < Math.min(n, from + 250); i++) {
        const kind = KINDS[i % KINDS.length]!;
        const site = SITES[i % SITES.length]!;
        const [task] = await db
          .insert(t.tasks)
          .values({ taskSetId: set!.id, externalId: `cluster-${i}`, site, intent: `Task ${i} on ${site}`, contentHash: `cluster-task-${i}` })
          .returning({ id: t.tasks.id });
        const [row] = await db
          .insert(t.trajectories)
          .values({
            runId: runs[i % runs.length]!,
            taskId: task!.id,
            attempt: 0,
            finalAnswer: sentence(kind, 5),
            outcome: "answered",
            stepCount: STEPS,
            sourceFormat: "bench",
            contentHash: `cluster-${i}`,
          })
          .returning({ id: t.trajectories.id });
        await db.insert(t.steps).values(
          Array.from({ length: STEPS }, (_, index) => ({
            trajectoryId: row!.id,
            index,
            url: `https://${site}.example/${pick(kind)}/${index}`,
            thought: sentence(index >= STEPS - 3 ? kind : [], 14),
            actionRaw: `Click [${index}]`,
            action: { type: "click" as const, target: String(index) },
            error: index === STEPS - 1 && random() < 0.3 ? `Error: ${sentence(kind, 4)}` : null,
          })),
        );
        await db.insert(t.evaluatorVerdicts).values({
          trajectoryId: row!.id,
          kind: "judge",
          origin: "verdict",
          evaluatorKey: "judge:bench",
          evaluatorName: "Bench judge",
          k: "1",
          promptVersion: "v1",
          verdict: "failure",
          rationale: sentence(kind, 20),
        });
        const [item] = await db
          .insert(t.campaignItems)
          .values({ campaignId: campaign!.id, trajectoryId: row!.id, itemNo: i + 1 })
          .returning({ id: t.campaignItems.id });
        await db.insert(t.labels).values({
          campaignId: campaign!.id,
          itemId: item!.id,
          trajectoryId: row!.id,
          annotatorKey: "user:bench",
          annotatorName: "Bench annotator",
          origin: "import",
          verdict: "failure",
          note: sentence(kind, 10),
        });
        await db
          .insert(t.consolidatedLabels)
          .values({ campaignId: campaign!.id, itemId: item!.id, trajectoryId: row!.id, verdict: "failure", category: null, method: "unanimous", basedOn: [] });
      }
    });
  }
}

export async function benchClusters(engine: BenchEngine): Promise<BenchFigure[]> {
  const n = Number(process.env.BENCH_CLUSTER_FAILURES ?? 2_000);
  return onNewInstallation(engine, "verdict-bench-clusters-", async (app) => {
    const figures: BenchFigure[] = [];
    const started = performance.now();
    await writeFailures(app.db, n);
    figures.push({ name: `write ${n.toLocaleString("en-US")} failures × ${STEPS} steps`, value: (performance.now() - started) / 1000, unit: "s" });
    const slice = { filter: {}, basis: "human" as const };
    const first = await computeFailureClusters(app.db, slice);
    const times: number[] = [];
    const cpus: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      await computeFailureClusters(app.db, slice);
      times.push((performance.now() - t0) / 1000);
      const used = process.cpuUsage(cpu);
      cpus.push((used.user + used.system) / 1e6);
    }
    const worst = Math.max(...times);
    figures.push({
      name: `clusters of ${first.documents.toLocaleString("en-US")} failures (k = ${first.k} by silhouette) median`,
      value: median(times),
      unit: "s",
    });
    figures.push({ name: "clusters, slowest of 3", value: worst, unit: "s", target: `≤ ${TARGET_S} s`, ok: worst <= TARGET_S });
    if (engine.backend === "sqlite") figures.push({ name: "clusters median CPU", value: median(cpus), unit: "s CPU" });
    figures.push({ name: "vocabulary (terms in 2 or more failures)", value: first.vocabulary, unit: "terms" });
    figures.push(loadAverageFigure());
    return figures;
  });
}

/**
 * A small analytics dataset with answers worked out by hand (see tests/integration/analytics.test.ts): 12
 * trajectories over two sites × two agent runs × three difficulties, one annotation campaign with three annotators'
 * labels and the consolidated labels, one judge run with k = 1 and k = 3, and a rule check. Everything goes in
 * through the repositories.
 */
import { tablesOf, type Db } from "../../db/database";
import { getItemByTrajectory, importedAnnotatorKey, insertCampaign, insertCampaignItems } from "../../db/repositories/annotation/campaigns";
import { insertLabel, upsertConsolidated } from "../../db/repositories/annotation/labels";
import { ensureTaskSet, upsertRun, upsertTask } from "../../db/repositories/catalog";
import { insertJudgeConfig, upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { saveTrajectory } from "../../db/repositories/trajectories";
import { defaultLabelSchema } from "../../server/domain/annotation/label-schema";
import { DEFAULT_JUDGE_OPTIONS } from "../../server/domain/evaluation/verdicts";

type V = "S" | "F" | "U" | "N" | "?" | null; // success, failure, unparseable, not_evaluable, unsure, none
type L = "S" | "?" | { category: string | null; step: number | null }; // success, unsure, failure

export const NAV = "navigation stuck";
export const VIS = "visual grounding issue";
export const HAL = "hallucination";
export const OTHER = "other";

interface Row {
  name: string;
  site: string;
  run: "alpha" | "beta";
  difficulty: "easy" | "medium" | "hard";
  steps: number;
  /** Consolidated label: S, ?, a failure, or null (not consolidated). */
  human: L | null;
  judgeK1: V;
  judgeK3: V;
  rule: V;
  /** Labels of ann, bob, cy (null = did not label). */
  labels: [L | null, L | null, L | null];
}

const F = (category: string | null, step: number | null = null): L => ({ category, step });

export const ROWS: Row[] = [
  { name: "T1", site: "Shop", run: "alpha", difficulty: "easy", steps: 3, human: "S", judgeK1: "S", judgeK3: "S", rule: "S", labels: ["S", "S", "S"] },
  {
    name: "T2",
    site: "Shop",
    run: "alpha",
    difficulty: "medium",
    steps: 5,
    human: F(NAV, 2),
    judgeK1: "S",
    judgeK3: "F",
    rule: "F",
    labels: [F(NAV), F(NAV), "S"],
  },
  {
    name: "T3",
    site: "Shop",
    run: "alpha",
    difficulty: "hard",
    steps: 8,
    human: F(HAL, 7),
    judgeK1: "F",
    judgeK3: "F",
    rule: "N",
    labels: [F(HAL), F(HAL), F(HAL)],
  },
  { name: "T4", site: "Wiki", run: "alpha", difficulty: "easy", steps: 12, human: "S", judgeK1: "S", judgeK3: "S", rule: "S", labels: ["S", "S", "S"] },
  { name: "T5", site: "Wiki", run: "alpha", difficulty: "medium", steps: 15, human: "S", judgeK1: "U", judgeK3: "S", rule: "S", labels: ["S", "S", F(OTHER)] },
  {
    name: "T6",
    site: "Wiki",
    run: "alpha",
    difficulty: "hard",
    steps: 22,
    human: F(NAV, 10),
    judgeK1: "F",
    judgeK3: "S",
    rule: "F",
    labels: [F(NAV), F(NAV), F(NAV)],
  },
  { name: "T7", site: "Shop", run: "beta", difficulty: "easy", steps: 4, human: "S", judgeK1: "S", judgeK3: "S", rule: "S", labels: ["S", "S", "S"] },
  {
    name: "T8",
    site: "Shop",
    run: "beta",
    difficulty: "medium",
    steps: 6,
    human: F(VIS),
    judgeK1: "F",
    judgeK3: "F",
    rule: "F",
    labels: [F(VIS), F(VIS), F(NAV)],
  },
  { name: "T9", site: "Shop", run: "beta", difficulty: "hard", steps: 9, human: "?", judgeK1: "F", judgeK3: "F", rule: null, labels: ["S", F(HAL), "?"] },
  {
    name: "T10",
    site: "Wiki",
    run: "beta",
    difficulty: "easy",
    steps: 11,
    human: F(HAL, 0),
    judgeK1: "S",
    judgeK3: "F",
    rule: "F",
    labels: [F(HAL), F(HAL), "S"],
  },
  { name: "T11", site: "Wiki", run: "beta", difficulty: "medium", steps: 16, human: null, judgeK1: "S", judgeK3: "S", rule: null, labels: ["S", null, null] },
  {
    name: "T12",
    site: "Wiki",
    run: "beta",
    difficulty: "hard",
    steps: 25,
    human: F(null),
    judgeK1: "F",
    judgeK3: "U",
    rule: null,
    labels: [F(null), F(null), F(null)],
  },
];

export const ANNOTATORS = ["ann", "bob", "cy"] as const;

export interface AnalyticsFixture {
  /** Trajectory id by row name ("T1" …). */
  ids: Record<string, number>;
  runIds: Record<"alpha" | "beta", number>;
  taskSetId: number;
  campaignId: number;
  judgeKey: string;
  ruleKey: string;
}

const VERDICT: Record<Exclude<V, null | "?">, "success" | "failure" | "unparseable" | "not_evaluable"> = {
  S: "success",
  F: "failure",
  U: "unparseable",
  N: "not_evaluable",
};

function labelValues(l: L): { verdict: "success" | "failure" | "unsure"; category: string | null; firstFailingStep: number | null } {
  if (l === "S") return { verdict: "success", category: null, firstFailingStep: null };
  if (l === "?") return { verdict: "unsure", category: null, firstFailingStep: null };
  return { verdict: "failure", category: l.category, firstFailingStep: l.step };
}

export async function seedAnalyticsFixture(db: Db): Promise<AnalyticsFixture> {
  const taskSetId = await ensureTaskSet(db, { name: "Analytics fixture", benchmark: "webvoyager" });
  const runIds = {
    // In order: the runs' ids are compared across engines.
    alpha: await upsertRun(db, { runKey: "fixture:alpha", name: "alpha", agentName: "alpha agent", model: "model-a", sourceSystem: "test", config: null }),
    beta: await upsertRun(db, { runKey: "fixture:beta", name: "beta", agentName: "beta agent", model: "model-b", sourceSystem: "test", config: null }),
  };
  const ids: Record<string, number> = {};
  for (const row of ROWS) {
    const { id: taskId } = await upsertTask(db, taskSetId, {
      externalId: `${row.site}--${row.difficulty}`,
      site: row.site,
      intent: `A ${row.difficulty} task on ${row.site}`,
      startUrl: null,
      difficulty: { overall: row.difficulty },
      contentHash: `task-${row.site}-${row.difficulty}`,
    });
    const { id } = await saveTrajectory(db, {
      runId: runIds[row.run],
      taskId,
      attempt: 0,
      finalAnswer: "done",
      outcome: "answered",
      outcomeDetail: null,
      stepCount: row.steps,
      sourceFormat: "test",
      sourcePath: null,
      contentHash: `fixture-${row.name}`,
      steps: Array.from({ length: row.steps }, (_, s) => ({
        index: s,
        url: null,
        thought: null,
        actionRaw: null,
        action: { type: "scroll" as const, direction: "down" as const },
      })),
    });
    ids[row.name] = id;
  }

  const campaignId = await insertCampaign(db, {
    name: "Fixture campaign",
    labelSchema: { ...defaultLabelSchema(), allowUnsure: true, requireCategory: false },
    annotatorsPerItem: 3,
    selection: { description: "12 fixture trajectories" },
    origin: "import",
  });
  await insertCampaignItems(db, campaignId, Object.values(ids));
  for (const row of ROWS) {
    const trajectoryId = ids[row.name]!;
    const itemId = (await getItemByTrajectory(db, campaignId, trajectoryId))!.id;
    for (const [a, l] of row.labels.entries()) {
      if (l === null) continue;
      await insertLabel(db, {
        campaignId,
        itemId,
        trajectoryId,
        annotatorKey: importedAnnotatorKey(ANNOTATORS[a]!),
        annotatorName: ANNOTATORS[a]!,
        origin: "import",
        ...labelValues(l),
      });
    }
    if (row.human !== null) await upsertConsolidated(db, { campaignId, itemId, trajectoryId, ...labelValues(row.human), method: "adjudicated", basedOn: [] });
  }

  const configId = await insertJudgeConfig(db, { name: "Fixture judge", model: "judge-model", promptVersion: "v1", options: DEFAULT_JUDGE_OPTIONS });
  const judgeKey = `judge:${configId}`;
  const ruleKey = "rule:vwa";
  for (const row of ROWS) {
    const trajectoryId = ids[row.name]!;
    for (const [k, v] of [
      ["1", row.judgeK1],
      ["3", row.judgeK3],
    ] as const) {
      if (v === null || v === "?") continue;
      await upsertVerdict(db, {
        trajectoryId,
        kind: "judge",
        origin: "verdict",
        evaluatorKey: judgeKey,
        evaluatorName: "Fixture judge",
        judgeConfigId: configId,
        k,
        promptVersion: "v1",
        verdict: VERDICT[v],
        rationale: `k=${k} thinks ${VERDICT[v]}`,
      });
    }
    if (row.rule !== null && row.rule !== "?") {
      await upsertVerdict(db, {
        trajectoryId,
        kind: "rule",
        origin: "verdict",
        evaluatorKey: ruleKey,
        evaluatorName: "VisualWebArena rules",
        k: "",
        promptVersion: "1",
        verdict: VERDICT[row.rule],
      });
    }
  }
  return { ids, runIds, taskSetId, campaignId, judgeKey, ruleKey };
}

/**
 * The same dataset written straight into the tables (only the dialect-neutral layer, no other repository), so the
 * analytics can be compared on SQLite and PostgreSQL whatever state the rest of the code base is in. Items, labels
 * and consolidated labels carry only what the analytics read: no label history, no item counts.
 */
export async function seedAnalyticsRows(db: Db): Promise<AnalyticsFixture> {
  const t = tablesOf(db);
  const [set] = await db.insert(t.taskSets).values({ name: "Analytics fixture", benchmark: "webvoyager" }).returning({ id: t.taskSets.id });
  const taskSetId = set!.id;
  const runIds = {} as Record<"alpha" | "beta", number>;
  for (const run of ["alpha", "beta"] as const) {
    const [r] = await db
      .insert(t.agentRuns)
      .values({ runKey: `fixture:${run}`, name: run, agentName: `${run} agent`, model: run === "alpha" ? "model-a" : "model-b", sourceSystem: "test" })
      .returning({ id: t.agentRuns.id });
    runIds[run] = r!.id;
  }
  const ids: Record<string, number> = {};
  // Both runs attempt the same task of a site and difficulty.
  const taskIds = new Map<string, number>();
  for (const row of ROWS) {
    const externalId = `${row.site}--${row.difficulty}`;
    let taskId = taskIds.get(externalId);
    if (taskId === undefined) {
      const [task] = await db
        .insert(t.tasks)
        .values({
          taskSetId,
          externalId,
          site: row.site,
          intent: `A ${row.difficulty} task on ${row.site}`,
          difficulty: { overall: row.difficulty },
          contentHash: `task-${row.site}-${row.difficulty}`,
        })
        .returning({ id: t.tasks.id });
      taskIds.set(externalId, (taskId = task!.id));
    }
    const [traj] = await db
      .insert(t.trajectories)
      .values({
        runId: runIds[row.run],
        taskId,
        attempt: 0,
        finalAnswer: "done",
        outcome: "answered",
        stepCount: row.steps,
        sourceFormat: "test",
        contentHash: `fixture-${row.name}`,
      })
      .returning({ id: t.trajectories.id });
    ids[row.name] = traj!.id;
  }
  const [campaign] = await db
    .insert(t.annotationCampaigns)
    .values({
      name: "Fixture campaign",
      labelSchema: { ...defaultLabelSchema(), allowUnsure: true, requireCategory: false },
      annotatorsPerItem: 3,
      selection: { description: "12 fixture trajectories" },
      origin: "import",
    })
    .returning({ id: t.annotationCampaigns.id });
  const campaignId = campaign!.id;
  for (const row of ROWS) {
    const trajectoryId = ids[row.name]!;
    const [item] = await db.insert(t.campaignItems).values({ campaignId, trajectoryId }).returning({ id: t.campaignItems.id });
    const itemId = item!.id;
    for (const [a, l] of row.labels.entries()) {
      if (l === null) continue;
      await db.insert(t.labels).values({
        campaignId,
        itemId,
        trajectoryId,
        annotatorKey: importedAnnotatorKey(ANNOTATORS[a]!),
        annotatorName: ANNOTATORS[a]!,
        origin: "import",
        ...labelValues(l),
      });
    }
    if (row.human !== null)
      await db.insert(t.consolidatedLabels).values({ campaignId, itemId, trajectoryId, ...labelValues(row.human), method: "adjudicated", basedOn: [] });
  }
  const configId = await insertJudgeConfig(db, { name: "Fixture judge", model: "judge-model", promptVersion: "v1", options: DEFAULT_JUDGE_OPTIONS });
  const judgeKey = `judge:${configId}`;
  const ruleKey = "rule:vwa";
  for (const row of ROWS) {
    const trajectoryId = ids[row.name]!;
    for (const [k, v] of [
      ["1", row.judgeK1],
      ["3", row.judgeK3],
    ] as const) {
      if (v === null || v === "?") continue;
      await upsertVerdict(db, {
        trajectoryId,
        kind: "judge",
        origin: "verdict",
        evaluatorKey: judgeKey,
        evaluatorName: "Fixture judge",
        judgeConfigId: configId,
        k,
        promptVersion: "v1",
        verdict: VERDICT[v],
        rationale: `k=${k} thinks ${VERDICT[v]}`,
      });
    }
    if (row.rule !== null && row.rule !== "?") {
      await upsertVerdict(db, {
        trajectoryId,
        kind: "rule",
        origin: "verdict",
        evaluatorKey: ruleKey,
        evaluatorName: "VisualWebArena rules",
        k: "",
        promptVersion: "1",
        verdict: VERDICT[row.rule],
      });
    }
  }
  return { ids, runIds, taskSetId, campaignId, judgeKey, ruleKey };
}

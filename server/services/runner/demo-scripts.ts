/**
 * The bundled demo tasks and their scripts, for scripted live runs on the demo sites.
 *
 * Each demo task replays the script of the most accurate demo agent that has one (Atlas, then Lumen, then Orion):
 * a scripted run of the demo task set is then a complete, watchable live run without any model.
 */
import type { Db } from "../../../db/client";
import { ensureTask, ensureTaskSet } from "../../../db/repositories/catalog";
import { findTaskSetByName } from "../../../db/repositories/live-runs";
import { DEMO_TASKS, DEMO_TASK_SET, DEMO_TRAJECTORIES, demoTask } from "../../demo-sites/demo-trajectories";
import { taskValues } from "../ingest";

const PREFERENCE = ["atlas", "lumen", "orion"] as const;

export type ScriptStep = { thought?: string; action: string };

/** The replayed actions for a demo task, or null when the task is not a demo task. */
export function demoScriptFor(externalId: string): ScriptStep[] | null {
  for (const run of PREFERENCE) {
    const def = DEMO_TRAJECTORIES.find((d) => d.run === run && d.task === externalId);
    if (!def) continue;
    return def.script.map((entry) => {
      if (typeof entry === "string") return { action: entry };
      if (typeof entry.action !== "string") throw new Error(`demo script ${run}/${externalId} computes an action; it cannot be replayed from a job`);
      return entry.thought ? { thought: entry.thought, action: entry.action } : { action: entry.action };
    });
  }
  return null;
}

export const DEMO_TASK_SET_NAME = DEMO_TASK_SET.name;

/**
 * Makes sure the demo task set exists, its start URLs on `baseUrl` (the demo data, when loaded, already created it
 * on the default port; existing tasks are left as they are). Returns the task set id.
 */
export function ensureDemoTaskSet(db: Db, baseUrl: string): number {
  const existing = findTaskSetByName(db, DEMO_TASK_SET.name);
  const setId = existing?.id ?? ensureTaskSet(db, DEMO_TASK_SET);
  db.$client.transaction(() => {
    for (const def of DEMO_TASKS) {
      const t = demoTask(def, baseUrl);
      ensureTask(
        db,
        setId,
        taskValues({
          taskSet: DEMO_TASK_SET,
          externalId: t.externalId,
          site: t.site ?? null,
          intent: t.intent,
          startUrl: t.startUrl ?? null,
          inputImages: [],
          referenceAnswers: t.referenceAnswers ?? [],
          evaluatorConfig: null,
          difficulty: null,
          tags: t.tags ?? [],
          extra: null,
        }),
      );
    }
  })();
  return setId;
}

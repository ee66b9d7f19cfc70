/**
 * The bundled demo tasks and their scripts, for scripted live runs on the demo sites.
 *
 * Each demo task replays the script of the most accurate demo agent that has one (Atlas, then Lumen, then Orion):
 * a scripted run of the demo task set is then a complete, watchable live run without any model. The task set itself is
 * created by the workers that serve the demo sites (./demo-tasks.ts), which know the port.
 */
import { DEMO_TASK_SET, DEMO_TRAJECTORIES } from "../../demo-sites/demo-trajectories";

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

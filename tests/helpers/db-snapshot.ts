/**
 * Row counts of the core tables plus the number of files in the screenshot store: what a rejected import must
 * leave unchanged.
 */
import fs from "node:fs";
import type { TestContext } from "./context";

export function storeSnapshot(ctx: TestContext) {
  const count = (t: string) => (ctx.db.$client.prepare(`select count(*) n from ${t}`).get() as { n: number }).n;
  const files = fs.existsSync(ctx.store.root)
    ? fs.readdirSync(ctx.store.root, { recursive: true }).filter((f) => !String(f).includes(".staging") && /[0-9a-f]{64}$/.test(String(f))).length
    : 0;
  return {
    taskSets: count("task_sets"),
    tasks: count("tasks"),
    runs: count("agent_runs"),
    trajectories: count("trajectories"),
    steps: count("steps"),
    screenshots: count("screenshots"),
    files,
  };
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Row counts of the core tables plus the number of files in the screenshot store: what a rejected import must
 * leave unchanged. Works on either database backend.
 */
import fs from "node:fs";
import { count } from "drizzle-orm";
import { tablesOf } from "../../db/database";
import type { TestContext } from "./context";

export async function storeSnapshot(ctx: TestContext) {
  const t = tablesOf(ctx.db);
  const countOf = async (table: (typeof t)[keyof typeof t]) => {
    const rows = await ctx.db.select({ n: count() }).from(table as typeof t.trajectories);
    return rows[0]?.n ?? 0;
  };
  const files = fs.existsSync(ctx.store.root)
    ? fs.readdirSync(ctx.store.root, { recursive: true }).filter((f) => !String(f).includes(".staging") && /[0-9a-f]{64}$/.test(String(f))).length
    : 0;
  return {
    taskSets: await countOf(t.taskSets),
    tasks: await countOf(t.tasks),
    runs: await countOf(t.agentRuns),
    trajectories: await countOf(t.trajectories),
    steps: await countOf(t.steps),
    screenshots: await countOf(t.screenshots),
    files,
  };
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

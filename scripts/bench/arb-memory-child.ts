/**
 * Child process of the ARB memory benchmark: imports one trajectory file into a throwaway installation and
 * prints `{maxRssKb, steps, screenshots, elements}` as the last stdout line. Run by arb-memory.ts only.
 */
import fs from "node:fs";
import path from "node:path";
import { getSteps } from "../../db/repositories/trajectories";
import { closeDatabase } from "../../db/database";
import { createAppContext } from "../../server/context";
import { runImport } from "../../server/services/imports";

const [file, dataDir] = process.argv.slice(2);
if (!file || !dataDir) {
  console.error("usage: arb-memory-child.ts <trajectory.json> <data dir>");
  process.exit(2);
}
fs.mkdirSync(dataDir, { recursive: true });
const ctx = createAppContext({ dbPath: path.join(dataDir, "verdict.db"), dataDir, chromiumPath: "/usr/bin/chromium" });
const report = await runImport(ctx, { path: file, format: "agentrewardbench" });
const t = report.trajectories[0]!;
const steps = await getSteps(ctx.db, t.id);
await closeDatabase(ctx.db);
console.log(
  JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS, steps: t.steps, screenshots: t.screenshots, elements: steps[0]?.elements?.length ?? 0 }),
);

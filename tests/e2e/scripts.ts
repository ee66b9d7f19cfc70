/**
 * The seed scripts and the CLI as the e2e specs run them: a TypeScript file under tsx, against the e2e server's database
 * and data folder, so what a script writes is what the pages then show.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const tsxCli = path.join(repoRoot, "node_modules", "tsx", "dist", "cli.mjs");

export interface ScriptOptions {
  /** The folder the command is typed in (INIT_CWD, as `npm run` sets it); the repository by default. */
  cwd?: string;
}

/** Runs `script` (a path from the repository, or absolute) with `args`; the caller reads the status. */
export function spawnScript(script: string, args: readonly string[] = [], options: ScriptOptions = {}): SpawnSyncReturns<string> {
  const dir = process.env.VERDICT_E2E_DIR;
  if (!dir) throw new Error("VERDICT_E2E_DIR is not set: run the e2e tests through tests/playwright.config.ts");
  const cwd = options.cwd ?? repoRoot;
  return spawnSync(process.execPath, [tsxCli, path.resolve(repoRoot, script), ...args], {
    cwd,
    env: { ...process.env, VERDICT_DB: path.join(dir, "verdict.db"), VERDICT_DATA_DIR: dir, INIT_CWD: cwd },
    encoding: "utf8",
  });
}

/** Runs `script` and returns what it printed; a failure throws with the command and what it wrote to stderr. */
export function runScript(script: string, args: readonly string[] = [], options: ScriptOptions = {}): string {
  const r = spawnScript(script, args, options);
  if (r.status !== 0) throw new Error(`${[script, ...args].join(" ")} failed (exit ${r.status}):\n${r.stderr}`);
  return r.stdout;
}

/** Runs `script` and parses the JSON it printed. */
export function runScriptJson<T>(script: string, args: readonly string[] = [], options: ScriptOptions = {}): T {
  return JSON.parse(runScript(script, args, options)) as T;
}

export interface AnalyticsSeed {
  campaignId: number;
  judgeKey: string;
  trajectories: number;
}

/** analytics-seed.ts: a campaign with consolidated labels and a judge (k = 1, 3) over every e2e trajectory. */
export function seedAnalytics(): AnalyticsSeed {
  return runScriptJson<AnalyticsSeed>("tests/e2e/analytics-seed.ts", ["seed"]);
}

/** Removes what seedAnalytics added, so the specs that run later see the database as the setup left it. */
export function cleanAnalytics(): void {
  runScript("tests/e2e/analytics-seed.ts", ["clean"]);
}

/**
 * What the long-running entry points (serve.ts, run-worker.ts, worker.ts) do first: read the environment's settings,
 * stopping with the configuration's own message (exit code 2) when one is wrong, and log to stderr under a prefix.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readEnvironment } from "../server/config";

/** The repository's root, where the processes these scripts start run. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export type Settings = ReturnType<typeof readEnvironment>;

/** The environment's settings; a wrong one prints what is wrong and exits with code 2. */
export function settingsOrExit(): Settings {
  try {
    return readEnvironment();
  } catch (e) {
    console.error((e as Error).message);
    process.exit(2);
  }
}

/** Writes a line to stderr as "[prefix] line". */
export function stderrLog(prefix: string): (line: string) => void {
  return (line) => process.stderr.write(`[${prefix}] ${line}\n`);
}

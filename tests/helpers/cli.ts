/**
 * The command line in tests. `runCliInProcess` runs a command the way scripts/cli.ts does (server/cli/main.ts's
 * runCli with the given environment and folder, output captured), without starting a process: most CLI tests check
 * what a command does, and a tsx start costs seconds of CPU each. `spawnCli` starts the real `scripts/cli.ts`: each
 * command keeps one such smoke test for the process contract (exit code, stdout and stderr as a user sees them).
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { runCli } from "../../server/cli/main";
import { closeSharedDatabases } from "../../server/context";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCliInProcess(args: string[], env: NodeJS.ProcessEnv, cwd = root): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), interactive: false, env, cwd });
  // As scripts/cli.ts does when the command ends: PostgreSQL pools (and their queues) closed.
  await closeSharedDatabases();
  return { code, stdout, stderr };
}

export async function spawnCli(args: string[], env: NodeJS.ProcessEnv, cwd = root): Promise<CliResult> {
  try {
    const r = await run(process.execPath, ["--import", "tsx", path.join(root, "scripts", "cli.ts"), ...args], { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/**
 * A test file's CLI: the first call of each command (its first word) starts the real `scripts/cli.ts`, as the smoke
 * test of that command's process contract; every later call runs in this process.
 */
export function cliRunner(cwd = root): (args: string[], env: NodeJS.ProcessEnv) => Promise<CliResult> {
  const spawned = new Set<string>();
  return (args, env) => {
    const command = args[0] ?? "";
    if (spawned.has(command)) return runCliInProcess(args, env, cwd);
    spawned.add(command);
    return spawnCli(args, env, cwd);
  };
}

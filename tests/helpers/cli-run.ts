/**
 * Runs one CLI command in-process as server/cli/main.ts does (UsageError → exit 2, other errors → 1), with its
 * output captured and the database of the given environment (VERDICT_DB_PATH / VERDICT_DATA_DIR …).
 */
import { UsageError } from "../../server/cli/args";
import type { CliCommand, CliIO } from "../../server/cli/types";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCliCommand(command: CliCommand, argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), interactive: false, env };
  let code: number;
  try {
    code = await command.run(argv, io);
  } catch (e) {
    stderr += `Error: ${(e as Error).message}\n`;
    code = e instanceof UsageError ? 2 : 1;
  }
  return { code, stdout, stderr };
}

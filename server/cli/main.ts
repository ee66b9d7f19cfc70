/**
 * `npm run cli -- <command> …`: dispatches to the command modules.
 */
import { cliStackTraces } from "../config";
import { UsageError } from "./args";
import type { CliCommand, CliIO } from "./types";
import { importCommand } from "./commands/import";
import { exportCommand } from "./commands/export";
import { reportCommand } from "./commands/report";
import { statsCommand } from "./commands/stats";
import { stepBudgetCommand } from "./commands/step-budget";
import { taskValidityCommand } from "./commands/task-validity";
import { migrateCommand } from "./commands/migrate";
import { migrateStoreCommand } from "./commands/migrate-store";
import { agreementCommand, agreementVectorsCommand } from "./commands/agreement";
import { bundleSchemaCommand } from "./commands/bundle-schema";
import { demoCommand, demoSitesCommand } from "./commands/demo";
import { tokenCommand } from "./commands/token";
import { userCommand } from "./commands/user";
import { labelsCommand } from "./commands/labels";
import { exportLabelsAlias, importLabelsAlias } from "./commands/label-files";
import { JUDGE_COMMANDS } from "./commands/judge";
import { runCommand } from "./commands/run";
import { heuristicsCommand } from "./commands/heuristics";
import { gcScreenshotsCommand } from "./commands/gc-screenshots";
import { deploymentProfileCommand } from "./commands/deployment-profile";
import { judgeConsistencyCommand } from "./commands/judge-consistency";
import { judgeCriteriaCommand } from "./commands/judge-criteria";
import { dedupeCommand } from "./commands/dedupe";

export const COMMANDS: CliCommand[] = [
  importCommand,
  exportCommand,
  reportCommand,
  statsCommand,
  migrateCommand,
  migrateStoreCommand,
  bundleSchemaCommand,
  agreementCommand,
  agreementVectorsCommand,
  demoCommand,
  demoSitesCommand,
  userCommand,
  tokenCommand,
  labelsCommand,
  exportLabelsAlias(labelsCommand),
  importLabelsAlias(labelsCommand),
  ...JUDGE_COMMANDS,
  judgeConsistencyCommand,
  judgeCriteriaCommand,
  dedupeCommand,
  heuristicsCommand,
  runCommand,
  deploymentProfileCommand,
  gcScreenshotsCommand,
  stepBudgetCommand,
  taskValidityCommand,
];

function help(io: CliIO): void {
  io.stderr("Usage: npm run cli -- <command> [options]\n\nCommands:\n");
  for (const c of COMMANDS) io.stderr(`  ${c.name.padEnd(18)} ${c.summary}\n`);
  io.stderr("\nRun `npm run cli -- <command> --help` for a command's options.\n");
}

export async function runCli(argv: string[], given: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  let io: CliIO;
  try {
    io = { ...given, stackTraces: cliStackTraces(given.env) };
  } catch (e) {
    given.stderr(`Error: ${(e as Error).message}\n`);
    return 1;
  }
  if (!name || name === "--help" || name === "-h" || name === "help") {
    help(io);
    return name ? 0 : 2;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.stderr(`Unknown command "${name}".\n`);
    help(io);
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stderr(`Usage: ${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`Error: ${e.message}\nUsage: ${command.usage}\n`);
      return 2;
    }
    io.stderr(`Error: ${(e as Error).message}\n`);
    if (io.stackTraces) io.stderr(`${(e as Error).stack}\n`);
    return 1;
  }
}

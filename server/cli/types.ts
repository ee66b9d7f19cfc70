/**
 * A CLI command: one module under server/cli/commands, registered in server/cli/main.ts.
 * Conventions: with --json, stdout holds exactly one JSON object; human text and progress go to stderr;
 * exit 0 on success, 1 on failure, 2 on bad usage (throw UsageError).
 */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** True when stderr is a terminal (progress bars are drawn only then). */
  interactive: boolean;
  env: NodeJS.ProcessEnv;
  /** VERDICT_DEBUG as runCli read it (server/config.ts, cliStackTraces): an error's stack trace is printed too. */
  stackTraces?: boolean;
  /**
   * The folder the user typed the command in, which relative paths on the command line are read against. `npm run`
   * moves into Verdict's own folder before starting the CLI and passes the user's folder as INIT_CWD.
   */
  cwd?: string;
}

export interface CliCommand {
  name: string;
  summary: string;
  usage: string;
  run(argv: string[], io: CliIO): Promise<number>;
}

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
}

export interface CliCommand {
  name: string;
  summary: string;
  usage: string;
  run(argv: string[], io: CliIO): Promise<number>;
}

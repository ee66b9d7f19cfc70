import { runCli } from "../server/cli/main";
import { closeSharedDatabases } from "../server/context";

const code = await runCli(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  interactive: !!process.stderr.isTTY,
  env: process.env,
  // npm runs scripts from the package folder; INIT_CWD is where the user typed the command.
  cwd: process.env.INIT_CWD || process.cwd(),
});
// With PostgreSQL the connection pool would keep the process alive after the command is done.
await closeSharedDatabases();
process.exitCode = code;

import { runCli } from "../server/cli/main";
import { closeSharedDatabases } from "../server/context";

const code = await runCli(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  interactive: !!process.stderr.isTTY,
  env: process.env,
});
// With PostgreSQL the connection pool would keep the process alive after the command is done.
await closeSharedDatabases();
process.exitCode = code;

import { runCli } from "../server/cli/main";

const code = await runCli(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  interactive: !!process.stderr.isTTY,
  env: process.env,
});
process.exitCode = code;

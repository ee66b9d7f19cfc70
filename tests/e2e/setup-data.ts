/**
 * Run by global-setup in one child process (tsx), against the e2e database: imports each source given on the command
 * line with the real CLI command (`import <source> --json`, as `npm run cli` runs it), then creates the e2e accounts
 * through the real account service and signs each in through better-auth, writing a Playwright storage state per
 * account (`auth-<key>.json` in the e2e folder) so specs start signed in. The web server shares the database and the
 * generated auth secret in the data folder, so it accepts these sessions.
 *
 * Prints one JSON line: each source's imported trajectories (externalTaskId and id), in the order given.
 * One process for all of it: each tsx start costs seconds, and the CLI's process contract is tested elsewhere.
 *
 *   tsx tests/e2e/setup-data.ts <host> <source>...
 */
import { runCli } from "../../server/cli/main";
import { closeSharedDatabases, getAppContext } from "../../server/context";
import { createSignedInAccount } from "./account-session";
import { E2E_ACCOUNTS } from "./accounts";

const [host = "127.0.0.1", ...sources] = process.argv.slice(2);
const imported: { externalTaskId: string; id: number }[][] = [];
for (const source of sources) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(["import", source, "--json"], {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    interactive: false,
    env: process.env,
    cwd: process.cwd(),
  });
  if (code !== 0) throw new Error(`CLI import of ${source} failed (exit ${code}):\n${stderr}`);
  imported.push((JSON.parse(stdout) as { trajectories: { externalTaskId: string; id: number }[] }).trajectories);
}
const app = getAppContext();
for (const a of E2E_ACCOUNTS) await createSignedInAccount(app, a, host);
await closeSharedDatabases();
process.stdout.write(JSON.stringify({ imported }));

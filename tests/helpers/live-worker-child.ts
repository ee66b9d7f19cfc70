/**
 * Child process for the killed-worker tests: a live-runner worker on the database in argv[2] (a SQLite file, or a
 * postgres:// URL), data folder argv[3], using the demo sites already served at argv[4], with lease argv[5] ms and
 * owner argv[6]. Prints "ready" once it runs; it never exits by itself (the test kills it).
 */
import path from "node:path";
import { createAppContext } from "../../server/context";
import { runRunnerWorker } from "../../server/services/live/worker";

const [database, dataDir, demoBaseUrl, leaseMs, owner] = process.argv.slice(2) as [string, string, string, string, string];
const onPostgres = /^postgres(ql)?:\/\//i.test(database);
const ctx = createAppContext({
  dbPath: onPostgres ? path.join(dataDir, "unused.db") : database,
  postgresUrl: onPostgres ? database : undefined,
  dataDir,
  chromiumPath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
});
const port = new URL(demoBaseUrl).port;
process.stdout.write("ready\n");
await runRunnerWorker({
  ctx,
  env: {},
  concurrency: 1,
  owner,
  leaseMs: Number(leaseMs),
  demo: { baseUrl: demoBaseUrl, origins: [`127.0.0.1:${port}`] },
});

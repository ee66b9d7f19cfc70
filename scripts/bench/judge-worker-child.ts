/**
 * One worker process of the judge bench: argv = data folder, SQLite file, PostgreSQL URL (or "-"), batch id,
 * owner, concurrency. Opens the installation like a deployment's worker, says "ready", and on the parent's "go"
 * (a line on stdin) works the batch's jobs through the app's own judge worker (runJudgeBatch over the queue in the
 * installation's database) until none is left; prints the worker summary as JSON.
 */
import { closeDatabase } from "../../db/database";
import { createAppContext } from "../../server/context";
import { closeQueueFor } from "../../server/services/jobs";
import { runJudgeBatch } from "../../server/services/evaluation";

const [dataDir, dbPath, postgresUrl, batchId, owner, concurrency] = process.argv.slice(2) as [string, string, string, string, string, string];
const app = createAppContext({ dataDir, dbPath, ...(postgresUrl !== "-" ? { postgresUrl } : {}), chromiumPath: "/usr/bin/chromium" });
process.stdout.write("ready\n");
await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()));
const result = await runJudgeBatch(
  { db: app.db, store: app.store, env: { VERDICT_JUDGE_ALLOW_LOOPBACK: "1024-65535", VERDICT_JUDGE_API_KEY: "bench" } },
  Number(batchId),
  { owner, concurrency: Number(concurrency), pollMs: 20 },
);
process.stdout.write(JSON.stringify(result.worker) + "\n");
// On PostgreSQL the queue is pg-boss, whose timers would keep this process alive: stopped first, like a worker's exit.
await closeQueueFor(app.db);
await closeDatabase(app.db);

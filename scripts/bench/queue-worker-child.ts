/**
 * One worker process of the queue bench: argv = engine target (a postgres:// URL or a SQLite file), owner,
 * concurrency, milliseconds each "bench.job" takes (0 = no-op). Starts when the parent writes a line to its stdin and
 * works until the queue is idle.
 */
import { loadConfig } from "../../server/config";
import { createJobQueue, runWorker } from "../../server/services/jobs";

const [target, owner, concurrency, sleepMs] = process.argv.slice(2) as [string, string, string, string];
const queue = await createJobQueue(loadConfig({ ...process.env, VERDICT_DATABASE_URL: target, VERDICT_DB: undefined }), { maxConnections: 6 });
const pause = Number(sleepMs);
// Start-up (tsx, connecting, pg-boss) is not what the bench measures: say "ready", start on the parent's "go".
process.stdout.write("ready\n");
await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()));
const summary = await runWorker({
  queue,
  owner,
  concurrency: Number(concurrency),
  pollMs: 20,
  untilIdle: true,
  handlers: {
    "bench.job": async () => {
      if (pause > 0) await new Promise((r) => setTimeout(r, pause));
      return null;
    },
  },
});
process.stdout.write(JSON.stringify(summary));
await queue.close();

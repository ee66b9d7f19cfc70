/**
 * Child process for the multi-process queue contract test: a worker on the pg-boss queue at argv[2] (a postgres://
 * URL), named argv[3], running "test.count" jobs until the queue is idle. Each job sleeps a little, then records a
 * side effect (a row in `queue_side_effects` naming the job and this worker) and returns the worker's name.
 */
import pg from "pg";
import { openPgBossJobQueue } from "../../server/services/jobs/pgboss-queue";
import { runWorker } from "../../server/services/jobs/worker";

const url = process.argv[2]!;
const owner = process.argv[3]!;
const queue = await openPgBossJobQueue(url, { maxConnections: 4 });
const sideEffects = new pg.Pool({ connectionString: url, max: 2 });
const summary = await runWorker({
  queue,
  owner,
  concurrency: 3,
  leaseMs: 1_000,
  untilIdle: true,
  pollMs: 20,
  handlers: {
    "test.count": async ({ job }) => {
      await new Promise((r) => setTimeout(r, 40 + Math.random() * 40));
      await sideEffects.query("insert into queue_side_effects (job_id, worker) values ($1, $2)", [job.id, owner]);
      return { owner };
    },
  },
});
process.stdout.write(JSON.stringify(summary));
await sideEffects.end();
await queue.close();

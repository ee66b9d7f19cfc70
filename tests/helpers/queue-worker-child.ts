/**
 * Child process for the cross-process queue test: opens the database named in argv[2] (a SQLite file, or a
 * postgres:// URL), waits at the parent's barrier (tests/helpers/barrier.ts) so the workers start together, and runs
 * a worker over type "test.echo" until the queue is idle. Each job takes a few milliseconds and returns the worker's id.
 */
import { openDatabase } from "../../db/client";
import { closeDatabase } from "../../db/database";
import { isPostgresUrl, openPostgresDatabase } from "../../db/postgres";
import { closeQueueFor } from "../../server/services/jobs/installation-queue";
import { runWorker } from "../../server/services/jobs/worker";
import { barrierReady } from "./barrier";

const target = process.argv[2]!;
const owner = process.argv[3]!;
const db = isPostgresUrl(target) ? openPostgresDatabase(target, { maxConnections: 4 }).db : openDatabase(target);
await barrierReady();
const summary = await runWorker({
  db,
  owner,
  concurrency: 3,
  untilIdle: true,
  pollMs: 10,
  handlers: {
    "test.echo": async () => {
      await new Promise((r) => setTimeout(r, 15 + Math.random() * 10));
      return { owner };
    },
  },
});
process.stdout.write(JSON.stringify(summary));
// On PostgreSQL the worker took jobs through pg-boss, whose timers keep the process alive until it is stopped.
await closeQueueFor(db);
await closeDatabase(db);

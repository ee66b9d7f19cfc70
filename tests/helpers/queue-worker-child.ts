/**
 * Child process for the cross-process queue test: opens the database file named in argv[2] and runs a worker
 * over type "test.echo" until the queue is idle. Each job takes a few milliseconds and returns the worker's id.
 */
import { openDatabase } from "../../db/client";
import { runWorker } from "../../server/services/jobs/worker";

const file = process.argv[2]!;
const owner = process.argv[3]!;
const db = openDatabase(file);
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
db.$client.close();

/**
 * `npm run worker`: one worker process (scripts/worker.ts) under its memory cap (VERDICT_WORKER_MAX_HEAP_MB),
 * started again whenever it dies (server/services/jobs/supervisor.ts). A team runs one or more of these beside its
 * web servers. Ctrl-C or SIGTERM stops it: the worker hands its running jobs back to the queue first.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readEnvironment } from "../server/config";
import { superviseWorker } from "../server/services/jobs/supervisor";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const log = (line: string) => process.stderr.write(`[verdict] ${line}\n`);

let settings: ReturnType<typeof readEnvironment>;
try {
  settings = readEnvironment();
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}

const worker = superviseWorker({ root, maxHeapMb: settings.VERDICT_WORKER_MAX_HEAP_MB, env: process.env, log });
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => void worker.stop());
}
await worker.done;

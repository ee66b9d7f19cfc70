/**
 * `npm run worker`: one worker process (scripts/worker.ts) under its memory cap (VERDICT_WORKER_MAX_HEAP_MB),
 * started again whenever it dies (server/services/jobs/supervisor.ts). A team runs one or more of these beside its
 * web servers. Ctrl-C or SIGTERM stops it: the worker hands its running jobs back to the queue first.
 */
import { superviseWorker } from "../server/services/jobs/supervisor";
import { repoRoot, settingsOrExit, stderrLog } from "./start-up";

const settings = settingsOrExit();
const worker = superviseWorker({ root: repoRoot, maxHeapMb: settings.VERDICT_WORKER_MAX_HEAP_MB, env: process.env, log: stderrLog("verdict") });
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => void worker.stop());
}
await worker.done;

/**
 * Runs what the queue holds as a worker process would (server/services/jobs/runtime.ts), in the test's process,
 * until nothing of that kind is queued or running: the web server only enqueues, so a test that starts an import or
 * a judge batch through a router drains the queue with these before it looks at the outcome.
 */
import { runImportWorker } from "../../server/services/imports/jobs";
import { runJudgeWorker } from "../../server/services/evaluation/judge-batches";
import type { WorkerSummary } from "../../server/services/jobs/worker";
import type { AppContext } from "../../server/context";
import type { TestContext } from "./context";

/** Every queued judge call, a few at once (each batch keeps to its own concurrency). */
export function runQueuedJudgeCalls(ctx: Pick<TestContext, "db" | "store">, env: NodeJS.ProcessEnv = process.env): Promise<WorkerSummary> {
  return runJudgeWorker({ db: ctx.db, store: ctx.store, env }, { concurrency: 4, untilIdle: true });
}

/** Every queued import, one at a time as a worker's uploads lane runs them. */
export function runQueuedImports(ctx: AppContext): Promise<WorkerSummary> {
  return runImportWorker(ctx, { untilIdle: true });
}

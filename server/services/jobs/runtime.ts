/**
 * The job runtime of one worker process: every kind of background work Verdict has runs here, never in a web
 * server, which only enqueues. A worker works one lane per kind of job it takes (VERDICT_WORKER_JOBS):
 *
 * - `live`: live-run tasks in Chromium (VERDICT_RUNNER_CONCURRENCY at once), with the bundled demo sites;
 * - `judge`: judge calls of every batch (VERDICT_WORKER_JUDGE_CONCURRENCY at once; each batch also keeps to its own
 *   concurrency across all workers);
 * - `uploads`: work on what people uploaded: trajectory imports one at a time, and beside them, one at a time, the
 *   CSV files of agreement analyses and label imports (parsed in a thread of their own: ./threads.ts), and admins'
 *   merges of duplicate trajectories and scanner runs.
 *
 * Lanes share the process but not their slots, so a long import never holds up a live run. A lane that fails stops
 * the others: the process ends, its running jobs go back to the queue, and whoever supervises it (the quick start's
 * launcher, `npm run worker`, Docker) starts it again. The process itself runs under a memory cap set by its launcher
 * (VERDICT_WORKER_MAX_HEAP_MB), so a job that needs more than that ends this worker, not a web server.
 */
import v8 from "node:v8";
import type { JobRow } from "../../../db/schema/index";
import type { VerdictEnvironment, WorkerJobKind } from "../../config";
import type { AppContext } from "../../context";
import { CSV_AGREEMENT_JOB_TYPE, failureClustersJobHandler, FAILURE_CLUSTERS_JOB_TYPE } from "../analytics";
import { csvAgreementJobHandler } from "../analytics/csv-agreement-job";
import {
  enqueueReportsExpiry,
  REPORT_JOB_TYPE,
  reportJobHandler,
  REPORTS_EXPIRE_EVERY_MS,
  REPORTS_EXPIRE_JOB_TYPE,
  reportsExpireJobHandler,
} from "../trajectories";
import { LABEL_IMPORT_JOB_TYPE } from "../annotation";
import { labelImportJobHandler } from "../annotation/label-import-job";
import { dedupeJobHandler, DEDUPE_JOB_TYPE, runImportWorker } from "../imports";
import { runJudgeWorker, scannerRunJobHandler, SCANNER_RUN_JOB_TYPE } from "../evaluation";
import { runRunnerWorker } from "../live/worker";
import { runWorker, type JobOutcome, type WorkerSummary } from "./worker";
import { RULES_APPLY_JOB_TYPE, rulesApplyJobHandler } from "../automation";

export interface JobWorkerOptions {
  ctx: AppContext;
  /** The process environment (judge keys, the runner's allowed destinations are named in it). */
  env: NodeJS.ProcessEnv;
  settings: Pick<
    VerdictEnvironment,
    "VERDICT_WORKER_JOBS" | "VERDICT_WORKER_JUDGE_CONCURRENCY" | "VERDICT_RUNNER_CONCURRENCY" | "VERDICT_RUNNER_LEASE_MS" | "VERDICT_RUNNER_HEADLESS"
  >;
  /** Stops every lane; running jobs go back to the queue. */
  signal: AbortSignal;
  log: (line: string) => void;
  /** How often the uploads lane queues the removal of expired reports' zips (default hourly). */
  reportsExpireEveryMs?: number;
}

export type JobWorkerSummary = Partial<Record<WorkerJobKind, WorkerSummary>>;

/** This process's V8 heap limit in MB: the memory cap its launcher gave it (or Node's default). */
export function heapLimitMb(): number {
  return Math.round(v8.getHeapStatistics().heap_size_limit / (1024 * 1024));
}

export function describeSummary(summary: JobWorkerSummary): string {
  return (Object.entries(summary) as [WorkerJobKind, WorkerSummary][])
    .map(([kind, s]) => `${kind}: ${s.succeeded} done, ${s.failed} failed, ${s.cancelled} cancelled, ${s.released} handed back`)
    .join("; ");
}

/**
 * Recurring work of the uploads lane: the removal of expired reports' zips is queued when the worker starts and then
 * every period (one job per period for all workers: enqueueReportsExpiry). A queue that cannot take it is logged
 * and asked again next period.
 */
function scheduleReportsExpiry(ctx: AppContext, everyMs: number, signal: AbortSignal, log: (line: string) => void) {
  const queue = () =>
    void enqueueReportsExpiry(ctx, new Date(), everyMs).catch((e: unknown) => log(`the expired reports' clean-up could not be queued: ${String(e)}`));
  queue();
  const timer = setInterval(queue, everyMs);
  timer.unref?.();
  signal.addEventListener("abort", () => clearInterval(timer), { once: true });
}

/** Runs the lanes this worker takes until `signal` stops it (or one lane fails, which stops the others and throws). */
export async function runJobWorker(opts: JobWorkerOptions): Promise<JobWorkerSummary> {
  const { ctx, settings, log } = opts;
  const kinds = new Set(settings.VERDICT_WORKER_JOBS);
  const stop = new AbortController();
  const onStop = () => stop.abort();
  opts.signal.addEventListener("abort", onStop);
  if (opts.signal.aborted) stop.abort();
  const onJobEnd = (job: JobRow, outcome: JobOutcome, error?: string) => log(`job ${job.id} (${job.groupKey}) ${outcome}${error ? `: ${error}` : ""}`);
  const onQueueTrouble = (lane: WorkerJobKind) => (e: { recovered: boolean; error?: string }) =>
    log(e.recovered ? `${lane}: the queue answers again` : `${lane}: the queue cannot be read (${e.error}); waiting for the database`);
  // One lane failing stops the others: the process ends and its jobs go back to the queue.
  const lane = async (kind: WorkerJobKind, run: () => Promise<WorkerSummary>): Promise<[WorkerJobKind, WorkerSummary]> => {
    try {
      return [kind, await run()];
    } catch (e) {
      stop.abort();
      throw e;
    }
  };
  const lanes: Promise<[WorkerJobKind, WorkerSummary]>[] = [];
  if (kinds.has("live")) {
    lanes.push(
      lane("live", () =>
        runRunnerWorker({
          ctx,
          env: opts.env,
          concurrency: settings.VERDICT_RUNNER_CONCURRENCY,
          leaseMs: settings.VERDICT_RUNNER_LEASE_MS,
          signal: stop.signal,
          headless: settings.VERDICT_RUNNER_HEADLESS,
          log,
          onJobEnd,
          onQueueTrouble: onQueueTrouble("live"),
        }),
      ),
    );
  }
  if (kinds.has("judge")) {
    lanes.push(
      lane("judge", () =>
        runJudgeWorker(
          { db: ctx.db, store: ctx.store, env: opts.env },
          { concurrency: settings.VERDICT_WORKER_JUDGE_CONCURRENCY, signal: stop.signal, onJobEnd, onQueueTrouble: onQueueTrouble("judge") },
        ),
      ),
    );
  }
  if (kinds.has("uploads")) {
    lanes.push(lane("uploads", () => runImportWorker(ctx, { signal: stop.signal, onJobEnd, onQueueTrouble: onQueueTrouble("uploads") })));
    scheduleReportsExpiry(ctx, opts.reportsExpireEveryMs ?? REPORTS_EXPIRE_EVERY_MS, stop.signal, log);
    // A CSV someone waits for on the page is not queued behind a long import.
    lanes.push(
      lane("uploads", () =>
        runWorker({
          db: ctx.db,
          handlers: {
            [CSV_AGREEMENT_JOB_TYPE]: csvAgreementJobHandler(ctx),
            [LABEL_IMPORT_JOB_TYPE]: labelImportJobHandler(ctx),
            [DEDUPE_JOB_TYPE]: dedupeJobHandler(ctx),
            [FAILURE_CLUSTERS_JOB_TYPE]: failureClustersJobHandler(ctx),
            [SCANNER_RUN_JOB_TYPE]: scannerRunJobHandler(ctx),
            [REPORT_JOB_TYPE]: reportJobHandler(ctx),
            [REPORTS_EXPIRE_JOB_TYPE]: reportsExpireJobHandler(ctx),
            [RULES_APPLY_JOB_TYPE]: rulesApplyJobHandler(ctx),
          },
          concurrency: 1,
          signal: stop.signal,
          leaseMs: 30_000,
          onJobEnd,
          onQueueTrouble: onQueueTrouble("uploads"),
        }),
      ),
    );
  }
  try {
    // Every lane has handed its jobs back before this returns or throws, so the caller may close the database.
    const settled = await Promise.allSettled(lanes);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
    const summary: JobWorkerSummary = {};
    for (const [kind, s] of settled.map((r) => (r as PromiseFulfilledResult<[WorkerJobKind, WorkerSummary]>).value)) {
      const sum = (summary[kind] ??= { succeeded: 0, failed: 0, requeued: 0, cancelled: 0, released: 0, lost: 0 });
      for (const k of Object.keys(s) as (keyof WorkerSummary)[]) sum[k] += s[k];
    }
    return summary;
  } finally {
    opts.signal.removeEventListener("abort", onStop);
  }
}

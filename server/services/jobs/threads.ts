/**
 * Runs one CPU-bound step of a job in a thread of its own, with a heap limit of its own. A worker process renews
 * the leases of all its running jobs from one event loop: a CSV of a few hundred thousand rows parsed on that loop
 * would hold it for seconds, and the live runs beside it would lose their leases. In a thread the loop stays free,
 * and a file that needs more memory than the limit ends its thread with a readable error instead of the worker.
 *
 * Errors thrown by the task come back as the same kind of error: one of Verdict's own (AppError, such as a
 * ValidationError or a CsvError) with its code and name, any other as an Error with its name.
 */
import { Worker } from "node:worker_threads";
import { AppError, HTTP_STATUS, ValidationError, type AppErrorCode } from "../../errors";
import type { ThreadTask, ThreadTasks } from "./thread-tasks";

/** Heap of one job thread, MB (on top of the worker's own). */
export const THREAD_HEAP_MB = 1024;

// Found at run time beside this file, and never by Next's build: the web routes load this module through the areas'
// doors (a door exports its job handlers), and the build, reading `new URL("<literal>", import.meta.url)` as an asset
// to bundle, followed the entry into tsx and esbuild and failed. Only worker processes, which run from the sources,
// start threads.
const besideThisFile = (name: string) => new URL(name, import.meta.url);
const entry = besideThisFile(["thread-entry", "mjs"].join("."));
const tasksModule = besideThisFile(["thread-tasks", "ts"].join(".")).href;

/** An error the task threw, rebuilt on this side of the thread. */
function rebuilt(name: string, message: string, code: string | undefined): Error {
  const e =
    code === "BAD_REQUEST"
      ? new ValidationError(message)
      : code !== undefined && code in HTTP_STATUS
        ? new AppError(code as AppErrorCode, message)
        : new Error(message);
  e.name = name;
  return e;
}

export function runInThread<K extends ThreadTask>(
  task: K,
  input: Parameters<ThreadTasks[K]>[0],
  opts: { signal?: AbortSignal; maxHeapMb?: number; what?: string } = {},
): Promise<Awaited<ReturnType<ThreadTasks[K]>>> {
  const maxHeapMb = opts.maxHeapMb ?? THREAD_HEAP_MB;
  return new Promise((resolve, reject) => {
    opts.signal?.throwIfAborted();
    const thread = new Worker(entry, { workerData: { task, input, tasksModule }, resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } });
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener("abort", onAbort);
      f();
    };
    const onAbort = () => {
      void thread.terminate();
      settle(() => reject(opts.signal!.reason instanceof Error ? opts.signal!.reason : new Error("stopped")));
    };
    opts.signal?.addEventListener("abort", onAbort);
    thread.once("message", (m: { ok: true; result: Awaited<ReturnType<ThreadTasks[K]>> } | { ok: false; name: string; message: string; code?: string }) => {
      settle(() => (m.ok ? resolve(m.result) : reject(rebuilt(m.name, m.message, m.code))));
      void thread.terminate();
    });
    thread.once("error", (e: Error & { code?: string }) => {
      settle(() =>
        reject(
          e.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? new ValidationError(
                `${opts.what ?? "the file"} needs more than the ${maxHeapMb} MB of memory a job thread has; use the command line for files this large`,
              )
            : e,
        ),
      );
    });
    thread.once("exit", (code) => settle(() => reject(new Error(`the job thread stopped (exit ${code}) before it answered`))));
  });
}

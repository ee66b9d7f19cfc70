/**
 * The first module a job thread runs (./threads.ts): it lets the thread load Verdict's TypeScript (the worker
 * process itself runs under tsx, whose loader a thread does not inherit), then runs the one task it was started for
 * and posts back its result, or the error's name, message and (for Verdict's own errors) code.
 */
import { parentPort, workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
try {
  const { THREAD_TASKS } = await import(workerData.tasksModule);
  const result = await THREAD_TASKS[workerData.task](workerData.input);
  parentPort.postMessage({ ok: true, result });
} catch (e) {
  // An AppError's code says what kind of refusal it was (a ValidationError is BAD_REQUEST), so it is rebuilt as one.
  parentPort.postMessage({ ok: false, name: e?.name ?? "Error", message: e?.message ?? String(e), code: typeof e?.code === "string" ? e.code : undefined });
}

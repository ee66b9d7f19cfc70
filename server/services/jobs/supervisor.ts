/**
 * Keeps a worker process running: starts `scripts/worker.ts` under its memory cap (`--max-old-space-size`, from
 * VERDICT_WORKER_MAX_HEAP_MB) and starts it again whenever it dies: a crash, the cap reached by a job, a kill. The
 * quick start runs one beside the web server and `npm run worker` runs one alone, so a worker that dies is back
 * within seconds without anyone watching; the jobs it held go back to the queue when their leases run out.
 *
 * Restarts back off (1 s, doubling to 30 s) while the worker keeps dying early, and reset once it has run for a
 * minute. A worker that exits 2 (its configuration is wrong) is not restarted: it would only fail the same way.
 * stop() asks the worker to hand its jobs back (SIGTERM) and kills it if it has not gone after the grace period.
 */
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import path from "node:path";

/** Exit code of a worker whose configuration is wrong (scripts/worker.ts). */
export const CONFIG_ERROR_EXIT = 2;

export interface WorkerSupervisorOptions {
  /** The app's folder (where scripts/worker.ts and node_modules are). */
  root: string;
  /** The worker's V8 heap cap, MB. */
  maxHeapMb: number;
  env: NodeJS.ProcessEnv;
  /** Lines for the operator: starts, exits, restarts. */
  log: (line: string) => void;
  /** Where the worker's own output goes (default: this process's stdout and stderr). */
  stdio?: StdioOptions;
  /** Delay before restart number `n` (1, 2, …) of a worker that keeps dying early. */
  restartDelayMs?: (n: number) => number;
  /** A worker that ran at least this long before it died is restarted after the first delay again. */
  stableAfterMs?: number;
  /** How long stop() waits for the worker to hand its jobs back before killing it. */
  graceMs?: number;
  /** Told each worker process as it starts (tests follow it). */
  onStart?: (child: ChildProcess) => void;
}

export interface WorkerSupervisor {
  /** The running worker's process id, null between a death and its restart. */
  pid(): number | null;
  /** How many times the worker was started. */
  starts(): number;
  /** Stops the worker (jobs handed back) and does not restart it. */
  stop(): Promise<void>;
  /** Resolves when the supervisor has given up on the worker (stopped, or a configuration error). */
  done: Promise<void>;
}

export function workerCommand(root: string, maxHeapMb: number): { command: string; args: string[] } {
  return { command: process.execPath, args: [`--max-old-space-size=${maxHeapMb}`, "--import", "tsx", path.join(root, "scripts", "worker.ts")] };
}

export function superviseWorker(opts: WorkerSupervisorOptions): WorkerSupervisor {
  const restartDelay = opts.restartDelayMs ?? ((n: number) => Math.min(30_000, 1_000 * 2 ** (n - 1)));
  const stableAfterMs = opts.stableAfterMs ?? 60_000;
  const graceMs = opts.graceMs ?? 30_000;
  const { command, args } = workerCommand(opts.root, opts.maxHeapMb);
  let child: ChildProcess | null = null;
  let stopping = false;
  let started = 0;
  let earlyDeaths = 0;
  let timer: NodeJS.Timeout | null = null;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));

  const start = () => {
    timer = null;
    if (stopping) return;
    started++;
    const startedAt = Date.now();
    const c = spawn(command, args, { cwd: opts.root, env: opts.env, stdio: opts.stdio ?? ["ignore", "inherit", "inherit"] });
    child = c;
    opts.onStart?.(c);
    c.on("error", (e) => opts.log(`worker could not start: ${e.message}`));
    c.on("exit", (code, signal) => {
      child = null;
      if (stopping) {
        finish();
        return;
      }
      const how = signal ? `was killed (${signal})` : `exited with code ${code}`;
      if (code === CONFIG_ERROR_EXIT) {
        opts.log(`worker ${how}: its configuration is wrong (see above); not restarting it`);
        finish();
        return;
      }
      earlyDeaths = Date.now() - startedAt >= stableAfterMs ? 1 : earlyDeaths + 1;
      const delay = restartDelay(earlyDeaths);
      opts.log(`worker ${c.pid} ${how}; starting it again in ${Math.round(delay / 100) / 10} s (jobs it held go back to the queue)`);
      timer = setTimeout(start, delay);
    });
  };
  start();

  return {
    pid: () => child?.pid ?? null,
    starts: () => started,
    done,
    stop: async () => {
      if (stopping) return done;
      stopping = true;
      if (timer) clearTimeout(timer);
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) {
        finish();
        return done;
      }
      c.kill("SIGTERM");
      const kill = setTimeout(() => c.kill("SIGKILL"), graceMs);
      await done;
      clearTimeout(kill);
    },
  };
}

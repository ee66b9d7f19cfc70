import os from "node:os";

/** One benchmark figure. `target` is the goal as text ("≤ 2×"); `ok` says whether it was met. */
export interface BenchFigure {
  name: string;
  value: number;
  unit: string;
  target?: string;
  ok?: boolean;
}

/** The machine's load average over the last minute, printed with a bench's figures so they can be read against it. */
export function loadAverageFigure(name = "load average (1 min) at the end"): BenchFigure {
  return { name, value: os.loadavg()[0]!, unit: `on ${os.cpus().length} CPUs` };
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

/**
 * Median wall time (the upper middle when `runs` is even) of `runs` calls of a synchronous `fn`, after one untimed
 * warm-up (JIT, first allocations).
 */
export function medianMs(fn: () => unknown, runs: number): number {
  fn();
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const started = performance.now();
    fn();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/**
 * Wall time and this process's CPU time (ms) of each of `runs` calls of `fn`, one after another; `untimed.before`
 * and `untimed.after` run around each call, outside what is timed.
 */
export async function timedRuns(
  runs: number,
  fn: () => unknown,
  untimed: { before?: () => unknown; after?: () => unknown } = {},
): Promise<{ times: number[]; cpus: number[] }> {
  const times: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < runs; i++) {
    await untimed.before?.();
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / 1000);
    await untimed.after?.();
  }
  return { times, cpus };
}

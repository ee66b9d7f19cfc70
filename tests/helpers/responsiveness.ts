/**
 * How a web server answers while something heavy happens, measured as the security reviews measured it: GET
 * /api/health over real HTTP, one probe after another (a bounded load of its own), each with a timeout, until the
 * heavy work is over. A probe that times out or fails counts as taking the whole timeout.
 */
import http from "node:http";

export interface HealthProbes {
  /** Every probe's time in ms, in order. */
  times: number[];
  /** Probes that failed or timed out. */
  failures: number;
  /** Probes answered while the heavy work was still going on (`finished()`, asked right after, said no). */
  answeredDuring: number;
  p95: number;
  max: number;
}

function probe(url: string, timeoutMs: number): Promise<{ ms: number; ok: boolean }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.get(`${url}/api/health`, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on("end", () => resolve({ ms: performance.now() - started, ok: res.statusCode === 200 }));
      res.on("error", () => resolve({ ms: timeoutMs, ok: false }));
    });
    req.on("timeout", () => {
      req.destroy();
      resolve({ ms: timeoutMs, ok: false });
    });
    req.on("error", () => resolve({ ms: Math.max(performance.now() - started, 0), ok: false }));
  });
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Probes `url`'s health every `everyMs` until `finished()` says the heavy work is over (checked between probes) or
 * `maxMs` has passed; at least `minProbes` probes are taken.
 */
export async function healthWhile(
  url: string,
  finished: () => Promise<boolean>,
  opts: { everyMs?: number; timeoutMs?: number; maxMs?: number; minProbes?: number } = {},
): Promise<HealthProbes> {
  const everyMs = opts.everyMs ?? 200;
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const end = Date.now() + (opts.maxMs ?? 120_000);
  const times: number[] = [];
  let failures = 0;
  let answeredDuring = 0;
  for (;;) {
    const r = await probe(url, timeoutMs);
    times.push(r.ok ? r.ms : Math.max(r.ms, timeoutMs));
    if (!r.ok) failures++;
    const over = await finished();
    if (r.ok && !over) answeredDuring++;
    if (times.length >= (opts.minProbes ?? 5) && (Date.now() > end || over)) break;
    await new Promise((r2) => setTimeout(r2, everyMs));
  }
  return { times, failures, answeredDuring, p95: percentile(times, 95), max: Math.max(...times) };
}

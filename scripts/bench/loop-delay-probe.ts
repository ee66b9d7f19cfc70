/**
 * Preloaded into a bench server process (`node --import tsx --import ./loop-delay-probe.ts …`): records the
 * process's event-loop delay (perf_hooks.monitorEventLoopDelay, 5 ms resolution). On SIGUSR2 it prints one line
 * `loop-delay {"maxMs":…,"p99Ms":…,"meanMs":…}` on stdout for the period since the last report, and starts over.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";

const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
process.on("SIGUSR2", () => {
  const ms = (ns: number) => ns / 1e6;
  process.stdout.write(`loop-delay ${JSON.stringify({ maxMs: ms(histogram.max), p99Ms: ms(histogram.percentile(99)), meanMs: ms(histogram.mean) })}\n`);
  histogram.reset();
});

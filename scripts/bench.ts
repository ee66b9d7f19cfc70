/**
 * `npm run bench`: every benchmark section, figures and ratios against the issues' targets.
 * `npm run bench -- import player` runs only the named sections.
 */
import type { BenchFigure } from "./bench/types";

const SECTIONS: Record<string, () => Promise<BenchFigure[]>> = {
  import: async () => (await import("./bench/import")).benchImport(),
  player: async () => (await import("./bench/player")).benchPlayer(),
  compare: async () => (await import("./bench/compare")).benchCompare(),
  "first-view": async () => (await import("./bench/first-view")).benchFirstView(),
  "large-trajectory": async () => (await import("./bench/large-trajectory")).benchLargeTrajectory(),
  agreement: async () => (await import("./bench/agreement")).benchAgreement(),
  analytics: async () => (await import("./bench/analytics")).benchAnalytics(),
  "arb-memory": async () => (await import("./bench/arb-memory")).benchArbMemory(),
  runner: async () => (await import("./bench/runner-overhead")).benchRunnerOverhead(),
  // The file's name, as the runner issues call it, and "live" as the benchmark-runs issue does.
  "runner-overhead": async () => (await import("./bench/runner-overhead")).benchRunnerOverhead(),
  live: async () => (await import("./bench/runner-overhead")).benchRunnerOverhead(),
  judge: async () => (await import("./bench/judge")).benchJudge(),
  annotation: async () => (await import("./bench/annotation")).benchAnnotation(),
  heuristics: async () => (await import("./bench/heuristics")).benchHeuristics(),
  consensus: async () => (await import("./bench/consensus")).benchConsensus(),
  queue: async () => (await import("./bench/queue")).benchQueue(),
  triage: async () => (await import("./bench/triage")).benchTriage(),
  "judge-measures": async () => (await import("./bench/judge-measures")).benchJudgeMeasures(),
};

const wanted = process.argv.slice(2);
const names = wanted.length ? wanted : Object.keys(SECTIONS);
let missed = 0;
for (const name of names) {
  const section = SECTIONS[name];
  if (!section) {
    console.error(`Unknown bench section "${name}". Sections: ${Object.keys(SECTIONS).join(", ")}`);
    process.exit(2);
  }
  console.log(`\n## ${name}`);
  const started = performance.now();
  try {
    const figures = await section();
    for (const f of figures) {
      const value = Math.abs(f.value) >= 100 ? f.value.toFixed(0) : f.value.toFixed(f.value < 1 ? 3 : 2);
      const verdict = f.ok === undefined ? "" : f.ok ? "  ✓" : "  ✗ (missed)";
      if (f.ok === false) missed++;
      console.log(`  ${f.name.padEnd(52)} ${value.padStart(10)} ${f.unit.padEnd(16)} ${f.target ? `target ${f.target}` : ""}${verdict}`);
    }
  } catch (e) {
    missed++;
    console.log(`  FAILED: ${(e as Error).message}`);
  }
  console.log(`  (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
console.log(missed ? `\n${missed} figure(s) missed their target or failed.` : "\nAll figures met their targets.");

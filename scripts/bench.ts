/**
 * `npm run bench`: every benchmark section, figures and ratios against the issues' targets.
 * `npm run bench -- import player` runs only the named sections.
 *
 * The annotation, judge and analytics sections run on each database engine asked for with
 * `--backend sqlite|postgres|both` (default both; PostgreSQL on a throwaway server started here, skipped with the
 * reason when its binaries are absent) and print the engines' figures side by side, with PostgreSQL / SQLite.
 * When docs/bench/sqlite-baseline.json holds earlier SQLite figures (`--save-baseline` writes it), each SQLite
 * figure is also compared with it: issue 17 asks that SQLite stay within 10 % of what it was.
 */
import fs from "node:fs";
import path from "node:path";
import { parseBackendOption, postgresEngine, postgresUnavailable, sqliteEngine, type BenchBackend, type BenchEngine } from "./bench/engines";
import type { BenchFigure } from "./bench/types";

const SECTIONS: Record<string, () => Promise<BenchFigure[]>> = {
  import: async () => (await import("./bench/import")).benchImport(),
  player: async () => (await import("./bench/player")).benchPlayer(),
  compare: async () => (await import("./bench/compare")).benchCompare(),
  "first-view": async () => (await import("./bench/first-view")).benchFirstView(),
  "large-trajectory": async () => (await import("./bench/large-trajectory")).benchLargeTrajectory(),
  agreement: async () => (await import("./bench/agreement")).benchAgreement(),
  "arb-memory": async () => (await import("./bench/arb-memory")).benchArbMemory(),
  runner: async () => (await import("./bench/runner-overhead")).benchRunnerOverhead(),
  // The file's name, as the runner issues call it, and "live" as the benchmark-runs issue does.
  "runner-overhead": async () => (await import("./bench/runner-overhead")).benchRunnerOverhead(),
  live: async () => (await import("./bench/runner-overhead")).benchRunnerOverhead(),
  heuristics: async () => (await import("./bench/heuristics")).benchHeuristics(),
  consensus: async () => (await import("./bench/consensus")).benchConsensus(),
  queue: async () => (await import("./bench/queue")).benchQueue(),
  triage: async () => (await import("./bench/triage")).benchTriage(),
  "judge-measures": async () => (await import("./bench/judge-measures")).benchJudgeMeasures(),
  report: async () => (await import("./bench/report")).benchReport(),
  pages: async () => (await import("./bench/pages")).benchPages(),
};

/** Sections that run on every engine asked for. */
const ENGINE_SECTIONS: Record<string, (engine: BenchEngine) => Promise<BenchFigure[]>> = {
  analytics: async (engine) => (await import("./bench/analytics")).benchAnalytics(engine),
  judge: async (engine) => (await import("./bench/judge")).benchJudge(engine),
  annotation: async (engine) => (await import("./bench/annotation")).benchAnnotation(engine),
  search: async (engine) => (await import("./bench/search")).benchSearch(engine),
  clusters: async (engine) => (await import("./bench/clusters")).benchClusters(engine),
};

const ORDER = [
  "import",
  "player",
  "compare",
  "first-view",
  "large-trajectory",
  "agreement",
  "analytics",
  "arb-memory",
  "runner",
  "runner-overhead",
  "judge",
  "annotation",
  "heuristics",
  "consensus",
  "queue",
  "triage",
  "judge-measures",
  "search",
  "clusters",
  "report",
  "pages",
];
const BASELINE = path.resolve(import.meta.dirname, "..", "docs", "bench", "sqlite-baseline.json");

function usage(problem: string): never {
  console.error(`${problem}\nUsage: npm run bench -- [section…] [--backend sqlite|postgres|both] [--save-baseline]\nSections: ${ORDER.join(", ")}`);
  process.exit(2);
}

const args = process.argv.slice(2);
let backends: BenchBackend[] = ["sqlite", "postgres"];
let saveBaseline = false;
const wanted: string[] = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i]!;
  if (a === "--backend" || a.startsWith("--backend=")) {
    const value = a === "--backend" ? args[++i] : a.slice("--backend=".length);
    if (!value) usage("--backend needs a value");
    try {
      backends = parseBackendOption(value);
    } catch (e) {
      usage((e as Error).message);
    }
  } else if (a === "--save-baseline") saveBaseline = true;
  else if (a.startsWith("--")) usage(`Unknown option "${a}"`);
  else if (!SECTIONS[a] && !ENGINE_SECTIONS[a]) usage(`Unknown bench section "${a}".`);
  else wanted.push(a);
}
const names = wanted.length ? wanted : ORDER;

const formatValue = (v: number) => (Number.isNaN(v) ? "—" : Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(Math.abs(v) < 1 ? 3 : 2));
const verdictOf = (f: BenchFigure | undefined) => (f?.ok === undefined ? "" : f.ok ? "PASS" : "MISS");

const baseline: Record<string, number> = fs.existsSync(BASELINE) ? (JSON.parse(fs.readFileSync(BASELINE, "utf8")) as Record<string, number>) : {};
const measuredSqlite: Record<string, number> = {};

const pgSkip = backends.includes("postgres") ? postgresUnavailable() : null;
if (pgSkip) {
  console.log(`PostgreSQL figures skipped: ${pgSkip}`);
  backends = backends.filter((b) => b !== "postgres");
}
const postgres = backends.includes("postgres") ? postgresEngine() : null;
const engines: BenchEngine[] = backends.map((b) => (b === "sqlite" ? sqliteEngine() : postgres!));

let missed = 0;
try {
  for (const name of names) {
    console.log(`\n## ${name}`);
    const started = performance.now();
    const single = SECTIONS[name];
    if (single) {
      try {
        for (const f of await single()) {
          if (f.ok === false) missed++;
          const verdict = f.ok === undefined ? "" : f.ok ? "  PASS" : "  MISS";
          console.log(`  ${f.name.padEnd(52)} ${formatValue(f.value).padStart(10)} ${f.unit.padEnd(16)} ${f.target ? `target ${f.target}` : ""}${verdict}`);
        }
      } catch (e) {
        missed++;
        console.log(`  FAILED: ${(e as Error).message}`);
      }
    } else {
      // Engines one after the other (never at once: each wants the whole machine), figures matched by name.
      const results = new Map<BenchBackend, BenchFigure[]>();
      for (const engine of engines) {
        const t = performance.now();
        try {
          results.set(engine.backend, await ENGINE_SECTIONS[name]!(engine));
        } catch (e) {
          missed++;
          console.log(`  ${engine.backend}: FAILED: ${(e as Error).stack ?? (e as Error).message}`);
          results.set(engine.backend, []);
        }
        console.log(`  (${engine.backend}: ${((performance.now() - t) / 1000).toFixed(1)} s)`);
      }
      const figureNames = [...new Set([...results.values()].flatMap((fs) => fs.map((f) => f.name)))];
      const hasBaseline = backends.includes("sqlite") && Object.keys(baseline).length > 0;
      const header = [
        "figure".padEnd(60),
        "unit".padEnd(12),
        ...backends.map((b) => (b === "sqlite" ? "SQLite" : "PostgreSQL").padStart(16)),
        ...(backends.length === 2 ? ["PG/SQLite".padStart(10)] : []),
        ...(hasBaseline ? ["SQLite before".padStart(14), "change".padStart(8)] : []),
        "  target",
      ];
      console.log(`  ${header.join(" ")}`);
      for (const figureName of figureNames) {
        const byBackend = backends.map((b) => results.get(b)?.find((f) => f.name === figureName));
        const any = byBackend.find((f) => f)!;
        const cells = byBackend.map((f) => `${f ? formatValue(f.value) : "—"} ${verdictOf(f)}`.trimEnd().padStart(16));
        for (const f of byBackend) if (f?.ok === false) missed++;
        const [a, b] = byBackend;
        const ratio = backends.length === 2 && a && b && a.value !== 0 ? formatValue(b.value / a.value) + "×" : "—";
        const sqlite = results.get("sqlite")?.find((f) => f.name === figureName);
        if (sqlite) measuredSqlite[`${name}: ${figureName}`] = sqlite.value;
        const before = baseline[`${name}: ${figureName}`];
        const change =
          sqlite && before !== undefined && before !== 0
            ? `${sqlite.value >= before ? "+" : ""}${((100 * (sqlite.value - before)) / before).toFixed(0)} %`
            : "—";
        console.log(
          `  ${[
            figureName.padEnd(60),
            any.unit.padEnd(12),
            ...cells,
            ...(backends.length === 2 ? [ratio.padStart(10)] : []),
            ...(hasBaseline ? [(before !== undefined ? formatValue(before) : "—").padStart(14), change.padStart(8)] : []),
            any.target ? `  ${any.target}` : "",
          ].join(" ")}`,
        );
      }
    }
    console.log(`  (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
} finally {
  await postgres?.stop();
}
if (saveBaseline) {
  fs.mkdirSync(path.dirname(BASELINE), { recursive: true });
  fs.writeFileSync(BASELINE, JSON.stringify({ ...baseline, ...measuredSqlite }, null, 2) + "\n");
  console.log(`\nSQLite figures saved to ${path.relative(process.cwd(), BASELINE)}.`);
}
console.log(missed ? `\n${missed} figure(s) missed their target or failed.` : "\nAll figures met their targets.");

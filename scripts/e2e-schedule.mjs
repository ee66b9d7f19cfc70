/**
 * How `npm test` splits the browser e2e between the Playwright runs it starts side by side: by the measured time of
 * each spec (tests/e2e/durations.json, refreshed by scripts/e2e-durations.mjs from a run's reports), so that the runs
 * end together, rather than by Playwright's `--shard`, which splits by test count (a shard of 92 tests took 623 s
 * beside one of 78 that took 447 s).
 *
 * Each run is a slot: its SQLite specs in one Playwright run, then the PostgreSQL run (scripts/e2e-postgres.ts) in the
 * slot it balances best. Every Playwright run pays a fixed cost before its first test (the global setup's imports,
 * the app server's start), counted once per run.
 */
import fs from "node:fs";
import path from "node:path";

/** The committed table: `{ specs: { "<file under tests/e2e>": seconds }, runSetupSeconds, postgresRunSeconds }`. */
export function readDurations(root) {
  const file = path.join(root, "tests", "e2e", "durations.json");
  if (!fs.existsSync(file)) return { specs: {}, runSetupSeconds: 0, postgresRunSeconds: 0 };
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

/** The spec files under tests/e2e, as Playwright names them (relative to tests/e2e), sorted. */
export function specFiles(root) {
  const dir = path.join(root, "tests", "e2e");
  return fs
    .readdirSync(dir, { recursive: true })
    .map((f) => String(f).split(path.sep).join("/"))
    .filter((f) => f.endsWith(".spec.ts"))
    .sort();
}

/**
 * Splits `specs` into `slots` lists by longest first onto the least loaded slot, with the PostgreSQL run (when
 * `postgres`) placed the same way. A spec the table does not know yet weighs as its slowest known spec, so a new spec
 * cannot hide at the end of a full slot. Returns `{ slots: [{ specs, postgres, seconds }], unknown }`, the slots in
 * a fixed order for the same input.
 */
export function planE2E(specs, durations, slots, { postgres = true } = {}) {
  const known = Object.values(durations.specs ?? {});
  const fallback = known.length > 0 ? Math.max(...known) : 1;
  const unknown = specs.filter((s) => !(s in (durations.specs ?? {})));
  const items = specs.map((s) => ({ spec: s, seconds: durations.specs?.[s] ?? fallback }));
  if (postgres) items.push({ spec: null, seconds: durations.postgresRunSeconds ?? 0 });
  items.sort((a, b) => b.seconds - a.seconds || String(a.spec).localeCompare(String(b.spec)));
  const plan = Array.from({ length: Math.max(1, slots) }, () => ({ specs: [], postgres: false, seconds: 0 }));
  for (const item of items) {
    const slot = plan.reduce((best, s) => (s.seconds < best.seconds ? s : best), plan[0]);
    if (item.spec === null) slot.postgres = true;
    else {
      // The slot's first spec brings its Playwright run's setup with it.
      if (slot.specs.length === 0) slot.seconds += durations.runSetupSeconds ?? 0;
      slot.specs.push(item.spec);
    }
    slot.seconds += item.seconds;
  }
  for (const slot of plan) slot.specs.sort();
  return { slots: plan, unknown };
}

#!/usr/bin/env node
/**
 * Refreshes tests/e2e/durations.json, the measured times `npm test` splits the browser e2e by
 * (scripts/e2e-schedule.mjs), from what the last `npm test` measured (test-results/e2e-timings.json; another file as
 * the argument):
 * - each spec: the sum of its tests' first attempts, from the Playwright run it was in;
 * - runSetupSeconds: what a Playwright run spent besides its tests (global setup, app server start), the median over runs;
 * - postgresRunSeconds: the whole PostgreSQL run's wall time.
 * Specs the run did not measure keep their old figure; specs that no longer exist are dropped.
 *
 *   node scripts/e2e-durations.mjs [test-results/e2e-timings.json]
 */
import fs from "node:fs";
import path from "node:path";
import { readDurations, specFiles } from "./e2e-schedule.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const source = path.resolve(process.argv[2] ?? path.join(root, "test-results", "e2e-timings.json"));
if (!fs.existsSync(source)) {
  process.stderr.write(`${source}: not there; run \`npm test\` (or \`npm test -- --e2e-only\`) first, which writes it\n`);
  process.exit(1);
}
const measured = JSON.parse(fs.readFileSync(source, "utf8"));
const old = readDurations(root);
const existing = new Set(specFiles(root));
const round = (s) => Math.round(s * 10) / 10;

const specs = {};
for (const [spec, seconds] of Object.entries(old.specs ?? {})) if (existing.has(spec)) specs[spec] = seconds;
const setups = [];
for (const run of measured.runs ?? []) {
  let tests = 0;
  for (const [spec, seconds] of Object.entries(run.specs ?? {})) {
    tests += seconds;
    if (existing.has(spec)) specs[spec] = round(seconds);
  }
  if (Object.keys(run.specs ?? {}).length > 0) setups.push(run.wallSeconds - tests);
}
setups.sort((a, b) => a - b);
const mid = Math.floor(setups.length / 2);
const median = setups.length === 0 ? null : setups.length % 2 === 1 ? setups[mid] : (setups[mid - 1] + setups[mid]) / 2;

const table = {
  note: "Measured by `npm test` and written by scripts/e2e-durations.mjs; npm test splits the browser e2e by it (docs/testing.md).",
  runSetupSeconds: median === null ? (old.runSetupSeconds ?? 0) : round(Math.max(0, median)),
  postgresRunSeconds: measured.postgres ? round(measured.postgres.wallSeconds) : (old.postgresRunSeconds ?? 0),
  specs: Object.fromEntries(Object.entries(specs).sort(([a], [b]) => a.localeCompare(b))),
};
const target = path.join(root, "tests", "e2e", "durations.json");
fs.writeFileSync(target, JSON.stringify(table, null, 2) + "\n");
const missing = [...existing].filter((s) => !(s in table.specs));
process.stderr.write(
  `${path.relative(root, target)}: ${Object.keys(table.specs).length} specs, a run's setup ${table.runSetupSeconds} s, the PostgreSQL run ${table.postgresRunSeconds} s` +
    (missing.length > 0 ? `; not measured yet: ${missing.join(", ")}` : "") +
    "\n",
);

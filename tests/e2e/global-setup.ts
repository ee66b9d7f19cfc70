/**
 * Fills the e2e database through the real CLI import command (`import … --json`): the self-contained fixtures
 * under tests/fixtures, plus ../shared's WebVoyager examples when that folder exists. Then creates the e2e
 * accounts and their signed-in storage states, so every spec runs signed in. Both in one child process
 * (tests/e2e/setup-data.ts).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sharedRoot, sharedSkipReason } from "../helpers/requirements";
import { fixturesFile, type ImportedFixtures } from "./fixtures";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export default async function globalSetup() {
  const fixtures: ImportedFixtures = { trajectories: {}, sharedExamples: false, onlineMind2Web: {} };
  const sources = [path.join(root, "tests/fixtures/webvoyager-mini/results/20240301_10_00_00"), path.join(root, "tests/fixtures/native-mini")];
  // Under CI the shared examples must be there (the player spec plays them): their absence fails the run.
  const shared = path.join(sharedRoot(), "fixtures", "webvoyager", "results", "examples");
  if (sharedSkipReason(["fixtures", "webvoyager", "results", "examples"]) === null) {
    sources.push(shared);
    fixtures.sharedExamples = true;
  }
  // Last, and kept apart from `trajectories`, which other specs draw campaign items from: a 0-step answer-only
  // submission and a full-page screenshot are for the player's coordinate-action spec only.
  const onlineMind2Web = path.join(root, "tests/fixtures/online-mind2web-mini");

  const dir = process.env.VERDICT_E2E_DIR!;
  const r = spawnSync(
    process.execPath,
    [path.join(root, "node_modules", "tsx", "dist", "cli.mjs"), "tests/e2e/setup-data.ts", "127.0.0.1", ...sources, onlineMind2Web],
    {
      cwd: root,
      env: { ...process.env, VERDICT_DB: path.join(dir, "verdict.db"), VERDICT_DATA_DIR: dir },
      encoding: "utf8",
    },
  );
  if (r.status !== 0) throw new Error(`The e2e setup (imports, then accounts) failed (exit ${r.status}):\n${r.stderr}`);
  const imported = (JSON.parse(r.stdout) as { imported: { externalTaskId: string; id: number }[][] }).imported;
  if (imported.length !== sources.length + 1) throw new Error(`The e2e setup reported ${imported.length} imports for ${sources.length + 1} sources`);
  for (const t of imported.slice(0, sources.length).flat()) fixtures.trajectories[t.externalTaskId] = t.id;
  for (const t of imported[sources.length]!) fixtures.onlineMind2Web[t.externalTaskId] = t.id;
  fs.writeFileSync(fixturesFile(), JSON.stringify(fixtures, null, 1));
}

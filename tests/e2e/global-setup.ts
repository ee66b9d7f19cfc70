/**
 * Fills the e2e database through the real CLI (`npm run cli -- import … --json`): the self-contained fixtures
 * under tests/fixtures, plus ../shared's WebVoyager examples when that folder exists. Then creates the e2e
 * accounts and their signed-in storage states (tests/e2e/accounts-setup.ts), so every spec runs signed in.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sharedRoot, sharedSkipReason } from "../helpers/requirements";
import { fixturesFile, type ImportedFixtures } from "./fixtures";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

function importWithCli(source: string): { externalTaskId: string; id: number }[] {
  const dir = process.env.VERDICT_E2E_DIR!;
  const r = spawnSync(process.execPath, [path.join(root, "node_modules", "tsx", "dist", "cli.mjs"), "scripts/cli.ts", "import", source, "--json"], {
    cwd: root,
    env: { ...process.env, VERDICT_DB: path.join(dir, "verdict.db"), VERDICT_DATA_DIR: dir },
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`CLI import of ${source} failed (exit ${r.status}):\n${r.stderr}`);
  const report = JSON.parse(r.stdout) as { trajectories: { externalTaskId: string; id: number }[] };
  return report.trajectories;
}

export default async function globalSetup() {
  const fixtures: ImportedFixtures = { trajectories: {}, sharedExamples: false, onlineMind2Web: {} };
  const sources = [path.join(root, "tests/fixtures/webvoyager-mini/results/20240301_10_00_00"), path.join(root, "tests/fixtures/native-mini")];
  // Under CI the shared examples must be there (the player spec plays them): their absence fails the run.
  const shared = path.join(sharedRoot(), "fixtures", "webvoyager", "results", "examples");
  if (sharedSkipReason(["fixtures", "webvoyager", "results", "examples"]) === null) {
    sources.push(shared);
    fixtures.sharedExamples = true;
  }
  for (const source of sources) {
    for (const t of importWithCli(source)) fixtures.trajectories[t.externalTaskId] = t.id;
  }
  // Kept apart from `trajectories`, which other specs draw campaign items from: a 0-step answer-only submission
  // and a full-page screenshot are for the player's coordinate-action spec only.
  fixtures.onlineMind2Web = {};
  for (const t of importWithCli(path.join(root, "tests/fixtures/online-mind2web-mini"))) fixtures.onlineMind2Web[t.externalTaskId] = t.id;
  fs.writeFileSync(fixturesFile(), JSON.stringify(fixtures, null, 1));
  createAccounts();
}

function createAccounts(): void {
  const dir = process.env.VERDICT_E2E_DIR!;
  const r = spawnSync(process.execPath, [path.join(root, "node_modules", "tsx", "dist", "cli.mjs"), "tests/e2e/accounts-setup.ts", "127.0.0.1"], {
    cwd: root,
    env: { ...process.env, VERDICT_DB: path.join(dir, "verdict.db"), VERDICT_DATA_DIR: dir },
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`Creating the e2e accounts failed (exit ${r.status}):\n${r.stderr}`);
}

/**
 * What the global setup imported, for specs to look trajectories up by task id instead of guessing row ids.
 */
import fs from "node:fs";
import path from "node:path";

export interface ImportedFixtures {
  /** externalTaskId → trajectory id. */
  trajectories: Record<string, number>;
  /** True when ../shared's WebVoyager examples were imported too. */
  sharedExamples: boolean;
  /** tests/fixtures/online-mind2web-mini: externalTaskId → trajectory id (not among `trajectories`). */
  onlineMind2Web: Record<string, number>;
}

export function fixturesFile(): string {
  const dir = process.env.VERDICT_E2E_DIR;
  if (!dir) throw new Error("VERDICT_E2E_DIR is not set: run the e2e tests through tests/playwright.config.ts");
  return path.join(dir, "fixtures.json");
}

export function loadFixtures(): ImportedFixtures {
  return JSON.parse(fs.readFileSync(fixturesFile(), "utf8")) as ImportedFixtures;
}

export function trajectoryId(externalTaskId: string): number {
  const id = loadFixtures().trajectories[externalTaskId];
  if (id === undefined) throw new Error(`The e2e setup imported no trajectory for task ${externalTaskId}`);
  return id;
}

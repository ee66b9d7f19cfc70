#!/usr/bin/env node
/**
 * `npm run docs:screenshots`: refreshes the README's pictures (docs/screenshot-*.png). The e2e specs that take them
 * run against a production build (built first if the sources changed) and write every capture into
 * test-results/screens/ like any e2e run; only when they pass are the 1440×900 captures copied into docs/ (the
 * README's three, and the guides' pictures of region marks, comments, qualification, gold and folder imports).
 * A normal e2e run never touches docs/, so a failing run cannot leave the pictures half-updated.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const screens = path.join(root, "test-results", "screens");
/** docs picture ← the e2e capture it is made from. */
const PICTURES = {
  "screenshot-labelling.png": "first-hour-label-1440x900.png",
  "screenshot-player.png": "first-hour-player-1440x900.png",
  "screenshot-judge-agreement.png": "analytics-judge-detail-1440x900.png",
  "screenshot-region-marks.png": "region-marks-drawing-1440x900.png",
  "screenshot-comments.png": "comments-player-1440x900.png",
  "screenshot-qualification.png": "qualification-passed-1440x900.png",
  "screenshot-qualification-results.png": "qualification-results-1440x900.png",
  "screenshot-gold-form.png": "gold-form-marked-1440x900.png",
  "screenshot-import-folder.png": "import-folder-report-1440x900.png",
};
/** The specs that take those captures. */
const SPECS = ["first-hour", "analytics", "region-marks", "comments", "qualification", "gold-protocols", "import-folder"];

const run = spawnSync(
  path.join(root, "node_modules", ".bin", "playwright"),
  ["test", "--config", "tests/playwright.config.ts", ...SPECS.map((spec) => `tests/e2e/${spec}.spec.ts`)],
  { cwd: root, stdio: "inherit" },
);
if (run.status !== 0) {
  process.stderr.write("docs:screenshots: the e2e specs failed; docs/ is unchanged.\n");
  process.exit(run.status ?? 1);
}
for (const capture of Object.values(PICTURES)) {
  const from = path.join(screens, capture);
  if (!fs.existsSync(from)) {
    process.stderr.write(`docs:screenshots: ${path.relative(root, from)} was not captured; docs/ is unchanged.\n`);
    process.exit(1);
  }
}
for (const [picture, capture] of Object.entries(PICTURES)) {
  fs.copyFileSync(path.join(screens, capture), path.join(root, "docs", picture));
  process.stdout.write(`docs/${picture} ← test-results/screens/${capture}\n`);
}

#!/usr/bin/env node
/**
 * `npm test`: typecheck, lint, unit + integration tests (vitest), then browser e2e (Playwright + Debian chromium)
 * on a production build. Ends with one summary line "Tests: N passed, N failed, N skipped".
 * VERDICT_TEST_SKIP_E2E=1 skips the browser stage (for quick local loops only; CI runs everything).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const out = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-test-report-"));
const bin = (name) => path.join(root, "node_modules", ".bin", name);
let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];

function step(label, cmd, args, env = {}) {
  process.stderr.write(`\n━━ ${label} ━━\n`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  if (r.status !== 0) failures.push(`${label} (exit ${r.status ?? r.signal})`);
  return r.status === 0;
}

step("typecheck", bin("tsc"), ["--noEmit", "-p", "."]);
step("lint", bin("eslint"), ["."]);

const vitestJson = path.join(out, "vitest.json");
step("unit + integration (vitest)", bin("vitest"), [
  "run", "--config", "tests/vitest.config.ts", "--reporter=default", "--reporter=json", `--outputFile.json=${vitestJson}`,
]);
if (fs.existsSync(vitestJson)) {
  const v = JSON.parse(fs.readFileSync(vitestJson, "utf8"));
  passed += v.numPassedTests ?? 0;
  failed += v.numFailedTests ?? 0;
  skipped += (v.numPendingTests ?? 0) + (v.numTodoTests ?? 0);
}

if (process.env.VERDICT_TEST_SKIP_E2E !== "1" && fs.existsSync(path.join(root, "tests", "playwright.config.ts"))) {
  const chromium = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
  if (!fs.existsSync(chromium)) {
    failures.push(`e2e: no browser at ${chromium} (install it: apt-get install -y chromium, or set CHROMIUM_PATH)`);
  } else {
    const built = step("build (next build)", bin("next"), ["build"], { NEXT_TELEMETRY_DISABLED: "1" });
    if (built) {
      const pwJson = path.join(out, "playwright.json");
      step("browser e2e (playwright + chromium)", bin("playwright"), ["test", "--config", "tests/playwright.config.ts", "--reporter=list,json"], {
        PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson,
      });
      if (fs.existsSync(pwJson)) {
        const s = JSON.parse(fs.readFileSync(pwJson, "utf8")).stats ?? {};
        passed += (s.expected ?? 0) + (s.flaky ?? 0);
        failed += s.unexpected ?? 0;
        skipped += s.skipped ?? 0;
      }
    }
  }
}

fs.rmSync(out, { recursive: true, force: true });
if (failures.length) process.stderr.write(`\nFailed stages:\n${failures.map((f) => `  - ${f}`).join("\n")}\n`);
if (failures.length && failed === 0) failed = failures.length;
console.log(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failures.length ? 1 : 0);

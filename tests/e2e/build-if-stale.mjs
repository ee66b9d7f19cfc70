#!/usr/bin/env node
/**
 * Builds the app for the e2e run only when needed: no .next/BUILD_ID, or a source file newer than it.
 * VERDICT_E2E_SKIP_BUILD=1 trusts whatever build is there.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..");
const buildId = path.join(root, ".next", "BUILD_ID");

function newestMtime(dir) {
  let newest = 0;
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop();
    let entries;
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (e.name === "node_modules" || e.name.startsWith(".")) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  }
  return newest;
}

if (process.env.VERDICT_E2E_SKIP_BUILD === "1") process.exit(0);
const built = fs.existsSync(buildId) ? fs.statSync(buildId).mtimeMs : 0;
const sources = Math.max(
  ...["app", "server", "db"].map((d) => newestMtime(path.join(root, d))),
  ...["next.config.js", "package.json", "package-lock.json", "tsconfig.json", "proxy.ts", "instrumentation.ts"].map((f) =>
    fs.existsSync(path.join(root, f)) ? fs.statSync(path.join(root, f)).mtimeMs : 0,
  ),
);
if (built && built >= sources) process.exit(0);
process.stderr.write(built ? "e2e: sources changed since the last build; rebuilding…\n" : "e2e: no build found; building…\n");
const r = spawnSync(process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"], {
  cwd: root,
  stdio: ["ignore", 2, 2],
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
});
process.exit(r.status ?? 1);

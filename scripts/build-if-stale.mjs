#!/usr/bin/env node
/**
 * Builds the app (`next build`) only when needed, so an unchanged tree reuses its build: the one rule for the quick
 * start (scripts/start.sh) and the browser e2e (tests/playwright.config.ts, `npm test`).
 *
 * A build is reused only when this script made it and no source changed since the build *started*: it writes
 * `.next/verdict-build.json` (the build's id and the time it started) after a successful `next build`. The build's
 * own BUILD_ID is written at its end, so comparing sources with BUILD_ID's time would take a file edited while the
 * build ran (which the build may never have read) as built. A build made some other way (a plain `next build`,
 * whose start is unknown) is rebuilt once.
 *
 *   node scripts/build-if-stale.mjs
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const defaultRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** What the build reads: these folders and files of the repository. */
const SOURCE_DIRS = ["app", "server", "db"];
const SOURCE_FILES = ["next.config.js", "package.json", "package-lock.json", "tsconfig.json", "proxy.ts", "instrumentation.ts"];
const STAMP = "verdict-build.json";
/** File systems stamp times from a coarse clock that can lag Date.now(): a change this close before the start counts as after it. */
const CLOCK_SLACK_MS = 1000;

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

/** The latest modification time (ms) of anything the build reads. */
export function newestSourceMtime(root = defaultRoot) {
  return Math.max(
    0,
    ...SOURCE_DIRS.map((d) => newestMtime(path.join(root, d))),
    ...SOURCE_FILES.map((f) => (fs.existsSync(path.join(root, f)) ? fs.statSync(path.join(root, f)).mtimeMs : 0)),
  );
}

function readBuildId(root) {
  try {
    return fs.readFileSync(path.join(root, ".next", "BUILD_ID"), "utf8").trim();
  } catch {
    return null;
  }
}

/**
 * Why the build in `root` cannot be reused, or null when it can: there is a build, this script recorded when it
 * started, it is still the build in .next, and every source is older than that start.
 */
export function staleReason(root = defaultRoot) {
  const buildId = readBuildId(root);
  if (!buildId) return "no build found";
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(path.join(root, ".next", STAMP), "utf8"));
  } catch {
    return "the build's start time is unknown (not built by this script)";
  }
  if (stamp.buildId !== buildId || typeof stamp.startedAtMs !== "number") return "the build's start time is unknown (not built by this script)";
  if (newestSourceMtime(root) >= stamp.startedAtMs - CLOCK_SLACK_MS) return "sources changed since the last build started";
  return null;
}

/** Records that the build now in `root`'s .next started at `startedAtMs` (after it succeeded). */
export function recordBuild(root, startedAtMs) {
  const buildId = readBuildId(root);
  if (!buildId) throw new Error("next build succeeded but left no .next/BUILD_ID");
  fs.writeFileSync(path.join(root, ".next", STAMP), JSON.stringify({ buildId, startedAtMs }) + "\n");
}

function main() {
  const why = staleReason(defaultRoot);
  if (!why) return 0;
  process.stderr.write(`› Building the dashboard (${why})…\n`);
  // Taken before the build reads anything: a file changed from here on is newer than the recorded start.
  const startedAtMs = Date.now();
  const r = spawnSync(process.execPath, [path.join(defaultRoot, "node_modules", "next", "dist", "bin", "next"), "build"], {
    cwd: defaultRoot,
    stdio: ["ignore", 2, 2],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (r.status !== 0) return r.status ?? 1;
  recordBuild(defaultRoot, startedAtMs);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exit(main());

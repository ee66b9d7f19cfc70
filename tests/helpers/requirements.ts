/**
 * What a test needs from the machine beyond the repository: the reference material in ../shared, Chromium (and, as
 * root, the browser user), python3. Each check returns null when the need is met, else why not, for `skipIf` and
 * its title. Outside CI a test without its need skips with that reason; under CI (`CI` set) it is an error naming
 * what is missing and how to provide it: .ci/run installs all of it and CI lays ../shared beside the clone, so a
 * missing piece there means the setup is broken, and a skipped test would hide it. PostgreSQL follows the same rule
 * (tests/helpers/postgres.ts). scripts/test-all.mjs lists every skipped test in its summary and, under CI, fails
 * on any that is not on its allowlist.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromiumAvailable, lookupSystemUser } from "../../server/browser/launch";
import { loadConfig, readEnvironment } from "../../server/config";

/** The reason a need is unmet; under CI, the error that fails the file. */
export function unmet(reason: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.CI) throw new Error(`CI runs every test, but ${reason}`);
  return reason;
}

/** `title (skipped: reason)` when the block skips, else the title: the reason shows in every report of the run. */
export function titled(title: string, skipReason: string | null): string {
  return skipReason ? `${title} (skipped: ${skipReason})` : title;
}

/** The shared reference material (../shared beside the clone, or VERDICT_SHARED_DIR). */
export function sharedRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.VERDICT_SHARED_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "shared");
}

/** Null when ../shared/<parts> exists, else why not. */
export function sharedSkipReason(parts: string[], env: NodeJS.ProcessEnv = process.env): string | null {
  const p = path.join(sharedRoot(env), ...parts);
  if (fs.existsSync(p)) return null;
  return unmet(
    `the shared reference material ${path.join("../shared", ...parts)} is absent (looked at ${p}; CI lays shared/ beside the clone, or set VERDICT_SHARED_DIR)`,
    env,
  );
}

/** Null when Chromium is at CHROMIUM_PATH (default /usr/bin/chromium), else why not. */
export function chromiumSkipReason(env: NodeJS.ProcessEnv = process.env): string | null {
  const executable = loadConfig(env).chromiumPath;
  if (chromiumAvailable(executable)) return null;
  return unmet(`no Chromium at ${executable} (apt-get install -y chromium, or set CHROMIUM_PATH)`, env);
}

/** Null unless this runs as root without the unprivileged user the browser is started as. */
export function browserUserSkipReason(env: NodeJS.ProcessEnv = process.env, uid = process.getuid?.()): string | null {
  const user = readEnvironment(env).VERDICT_BROWSER_USER;
  if (uid !== 0 || lookupSystemUser(user)) return null;
  return unmet(`running as root without the browser user "${user}" (create it with scripts/browser-user.sh)`, env);
}

/** Null when python3 runs, else why not. */
export function python3SkipReason(env: NodeJS.ProcessEnv = process.env): string | null {
  if (spawnSync("python3", ["--version"], { env }).status === 0) return null;
  return unmet("python3 is not installed (apt-get install -y python3)", env);
}

/**
 * Null when the browser user's network rules can be put in place and tested: as root (the kernel tells the browser
 * user apart from the server's own user only when they differ) with the nft command; else why not.
 */
export function browserNetworkLayerSkipReason(env: NodeJS.ProcessEnv = process.env, uid = process.getuid?.()): string | null {
  if (uid !== 0) return unmet("the browser user's network rules need root (the tests start Chromium as the browser user only as root)", env);
  if (spawnSync("nft", ["--version"], { env }).error)
    return unmet("nftables is not installed (apt-get install -y nftables), so the browser user's network rules cannot be installed", env);
  return browserUserSkipReason(env, uid);
}

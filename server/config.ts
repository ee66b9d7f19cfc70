/**
 * Where Verdict keeps its data and which binaries it uses, from the environment, read once.
 *
 * VERDICT_DB        SQLite file (default ./data/verdict.db)
 * VERDICT_DATA_DIR  screenshots and other files (default ./data)
 * CHROMIUM_PATH     browser used by the runner and the demo recorder (default /usr/bin/chromium)
 * VERDICT_AUTH_SECRET  key signing session cookies (default: generated once and kept in <data>/auth-secret)
 * VERDICT_BASE_URL  public URL of the web app, when it cannot be inferred from requests (e.g. behind a proxy)
 */
import path from "node:path";

export interface VerdictConfig {
  dbPath: string;
  dataDir: string;
  chromiumPath: string;
  /** Unset = generated and persisted in the data folder (see server/auth/secret.ts). */
  authSecret?: string;
  baseUrl?: string;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v && v.trim() !== "" ? v : undefined;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): VerdictConfig {
  // turbopackIgnore: these are runtime paths, not files for the bundler to trace.
  const dataDir = path.resolve(/*turbopackIgnore: true*/ nonEmpty(env.VERDICT_DATA_DIR) ?? "data");
  const dbPath = nonEmpty(env.VERDICT_DB) ?? path.join(dataDir, "verdict.db");
  return {
    dataDir,
    dbPath: dbPath === ":memory:" ? dbPath : path.resolve(/*turbopackIgnore: true*/ dbPath),
    chromiumPath: nonEmpty(env.CHROMIUM_PATH) ?? "/usr/bin/chromium",
    authSecret: nonEmpty(env.VERDICT_AUTH_SECRET),
    baseUrl: nonEmpty(env.VERDICT_BASE_URL),
  };
}

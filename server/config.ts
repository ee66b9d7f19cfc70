/**
 * Where Verdict keeps its data and which binaries it uses, from the environment, read once.
 *
 * VERDICT_DB        SQLite file (default ./data/verdict.db)
 * VERDICT_DATA_DIR  screenshots and other files (default ./data)
 * CHROMIUM_PATH     browser used by the runner and the demo recorder (default /usr/bin/chromium)
 * VERDICT_AUTH_SECRET  key signing session cookies (default: generated once and kept in <data>/auth-secret)
 * VERDICT_BASE_URL  public URL of the web app, when it cannot be inferred from requests (e.g. behind a proxy)
 * VERDICT_IMPORT_ROOT  folder on the server under which admins may import by path from the Import page (unset: off)
 * Import limits, the same for the CLI and the Import page (see ImportLimits):
 * VERDICT_IMPORT_MAX_UPLOAD_MB (1024), VERDICT_ZIP_MAX_ENTRIES (200000), VERDICT_ZIP_MAX_TOTAL_MB (4096),
 * VERDICT_ZIP_MAX_ENTRY_MB (512), VERDICT_ZIP_MAX_RATIO (100)
 */
import path from "node:path";

export interface VerdictConfig {
  dbPath: string;
  dataDir: string;
  chromiumPath: string;
  /** Unset = generated and persisted in the data folder (see server/auth/secret.ts). */
  authSecret?: string;
  baseUrl?: string;
  /** Unset = importLimitsFromEnv({}) (the defaults). */
  importLimits?: ImportLimits;
  /** Admins may import server paths under this folder from the Import page; unset = not offered. */
  importRoot?: string;
}

/**
 * Limits on what an import may read, shared by the CLI and the Import page so that a zip refused in one is
 * refused in the other. Zip limits are checked against the archive's directory before any entry is expanded,
 * and again while expanding (an entry that lies about its size is stopped at its declared size).
 */
export interface ImportLimits {
  /** Largest .zip the Import page accepts, in bytes (413 beyond). */
  maxUploadBytes: number;
  zipMaxEntries: number;
  /** Sum of the entries' uncompressed sizes. */
  zipMaxTotalBytes: number;
  zipMaxEntryBytes: number;
  /** Uncompressed / compressed size of one entry, checked for entries over 1 MB (a zip bomb's tell). */
  zipMaxRatio: number;
}

const MB = 1024 * 1024;

function positiveNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return n;
}

export function importLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): ImportLimits {
  return {
    maxUploadBytes: Math.floor(positiveNumber(env, "VERDICT_IMPORT_MAX_UPLOAD_MB", 1024) * MB),
    zipMaxEntries: Math.floor(positiveNumber(env, "VERDICT_ZIP_MAX_ENTRIES", 200_000)),
    zipMaxTotalBytes: Math.floor(positiveNumber(env, "VERDICT_ZIP_MAX_TOTAL_MB", 4096) * MB),
    zipMaxEntryBytes: Math.floor(positiveNumber(env, "VERDICT_ZIP_MAX_ENTRY_MB", 512) * MB),
    zipMaxRatio: positiveNumber(env, "VERDICT_ZIP_MAX_RATIO", 100),
  };
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
    importLimits: importLimitsFromEnv(env),
    importRoot: nonEmpty(env.VERDICT_IMPORT_ROOT) ? path.resolve(/*turbopackIgnore: true*/ env.VERDICT_IMPORT_ROOT!) : undefined,
  };
}

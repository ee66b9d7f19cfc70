/**
 * Where Verdict keeps its data and which binaries it uses, from the environment, read once.
 *
 * VERDICT_DB        SQLite file (default ./data/verdict.db)
 * VERDICT_DATABASE_URL  postgres://… selects PostgreSQL (preview: only `migrate` and `migrate-store` use it so far);
 *                   a file path selects that SQLite file, like VERDICT_DB
 * VERDICT_DATA_DIR  screenshots and other files (default ./data)
 * CHROMIUM_PATH     browser used by the runner and the demo recorder (default /usr/bin/chromium)
 * VERDICT_AUTH_SECRET  key signing session cookies (default: generated once and kept in <data>/auth-secret)
 * VERDICT_BASE_URL  public URL of the web app, when it cannot be inferred from requests (e.g. behind a proxy)
 * VERDICT_IMPORT_ROOT  folder on the server under which admins may import by path from the Import page (unset: off)
 * Import limits, the same for the CLI and the Import page (see ImportLimits):
 * VERDICT_IMPORT_MAX_UPLOAD_MB (1024), VERDICT_ZIP_MAX_ENTRIES (200000), VERDICT_ZIP_MAX_TOTAL_MB (4096),
 * VERDICT_ZIP_MAX_ENTRY_MB (512), VERDICT_ZIP_MAX_RATIO (100)
 * VERDICT_TRUSTED_ORIGINS  more origins (comma-separated) that may sign in and change things, e.g. a second name
 * VERDICT_TRUSTED_PROXIES  reverse proxies (IPs or CIDR ranges, comma-separated) whose X-Forwarded-For is believed
 * VERDICT_MAX_BODY_BYTES   largest request body the web server reads (default 1 MiB)
 * VERDICT_MAX_UPLOAD_BYTES largest body for the CSV uploads (agreement CSV, label import; default 32 MiB)
 * VERDICT_BUSY_TIMEOUT_MS  how long a write waits for another process's lock (web server 250, others 5000)
 */
import path from "node:path";

export interface VerdictConfig {
  dbPath: string;
  /** Set when VERDICT_DATABASE_URL names a PostgreSQL database (see db/postgres.ts). */
  postgresUrl?: string;
  dataDir: string;
  chromiumPath: string;
  /** Unset = generated and persisted in the data folder (see server/auth/secret.ts). */
  authSecret?: string;
  baseUrl?: string;
  /** Unset = importLimitsFromEnv({}) (the defaults). */
  importLimits?: ImportLimits;
  /** Admins may import server paths under this folder from the Import page; unset = not offered. */
  importRoot?: string;
  /** Origins besides VERDICT_BASE_URL's that may send state-changing requests (e.g. "https://verdict.lab.example"). */
  trustedOrigins?: string[];
  /** Addresses or CIDR ranges of reverse proxies in front of the web server; empty = clients connect directly. */
  trustedProxies?: string[];
  /** Request body limits of the web server, in bytes (defaults below). */
  maxBodyBytes?: number;
  /** Largest CSV upload (agreement CSV, label import); zip imports have their own limit in importLimits. */
  maxUploadBytes?: number;
  /** SQLite busy timeout of this process's connection (see db/client.ts); unset = the default wait. */
  busyTimeoutMs?: number;
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

/**
 * The web server waits only briefly for a lock held by an import or a worker: the wait blocks every request,
 * and a "busy, try again" answer is retried by the browser (app/_trpc/query-client.ts).
 */
export const WEB_BUSY_TIMEOUT_MS = 250;

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_MAX_UPLOAD_BYTES = 32 * 1024 * 1024;

function nonEmpty(v: string | undefined): string | undefined {
  return v && v.trim() !== "" ? v : undefined;
}

function list(name: string, v: string | undefined): string[] {
  return (v ?? "")
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "")
    .map((x) => {
      if (name === "VERDICT_TRUSTED_ORIGINS") {
        let url: URL;
        try {
          url = new URL(x);
        } catch {
          throw new Error(`${name}: ${JSON.stringify(x)} is not a URL (expected e.g. https://verdict.example.org)`);
        }
        if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`${name}: ${JSON.stringify(x)} must be an http(s) origin`);
        return url.origin;
      }
      return x;
    });
}

function bytes(name: string, v: string | undefined, fallback: number): number {
  if (!nonEmpty(v)) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1024) throw new Error(`${name}: expected a whole number of bytes, at least 1024, got ${JSON.stringify(v)}`);
  return n;
}

function busyTimeout(v: string | undefined): number | undefined {
  if (nonEmpty(v)) {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`VERDICT_BUSY_TIMEOUT_MS: expected a whole number of milliseconds, got ${JSON.stringify(v)}`);
    return n;
  }
  // Next sets NEXT_RUNTIME in the web server only; the CLI and workers keep the long default.
  return process.env.NEXT_RUNTIME ? WEB_BUSY_TIMEOUT_MS : undefined;
}

/**
 * VERDICT_DATABASE_URL: a postgres:// URL, or a SQLite file path (the default engine). Any other scheme is refused
 * rather than read as a file name, and a path that disagrees with VERDICT_DB is refused rather than guessed between.
 */
function databaseFromEnv(env: NodeJS.ProcessEnv): { postgresUrl?: string; sqlitePath?: string } {
  const url = nonEmpty(env.VERDICT_DATABASE_URL)?.trim();
  if (!url) return {};
  if (/^postgres(ql)?:\/\//i.test(url)) return { postgresUrl: url };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  if (scheme) throw new Error(`VERDICT_DATABASE_URL: unsupported scheme "${scheme[1]}:"; expected postgres://user:password@host:port/database or a SQLite file path`);
  const fromDb = nonEmpty(env.VERDICT_DB);
  if (fromDb && path.resolve(/*turbopackIgnore: true*/ fromDb) !== path.resolve(/*turbopackIgnore: true*/ url)) {
    throw new Error(`VERDICT_DATABASE_URL (${url}) and VERDICT_DB (${fromDb}) name different SQLite files; set one of them`);
  }
  return { sqlitePath: url };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): VerdictConfig {
  // turbopackIgnore: these are runtime paths, not files for the bundler to trace.
  const dataDir = path.resolve(/*turbopackIgnore: true*/ nonEmpty(env.VERDICT_DATA_DIR) ?? "data");
  const database = databaseFromEnv(env);
  const dbPath = database.sqlitePath ?? nonEmpty(env.VERDICT_DB) ?? path.join(dataDir, "verdict.db");
  return {
    dataDir,
    postgresUrl: database.postgresUrl,
    dbPath: dbPath === ":memory:" ? dbPath : path.resolve(/*turbopackIgnore: true*/ dbPath),
    chromiumPath: nonEmpty(env.CHROMIUM_PATH) ?? "/usr/bin/chromium",
    authSecret: nonEmpty(env.VERDICT_AUTH_SECRET),
    baseUrl: nonEmpty(env.VERDICT_BASE_URL),
    importLimits: importLimitsFromEnv(env),
    importRoot: nonEmpty(env.VERDICT_IMPORT_ROOT) ? path.resolve(/*turbopackIgnore: true*/ env.VERDICT_IMPORT_ROOT!) : undefined,
    trustedOrigins: list("VERDICT_TRUSTED_ORIGINS", env.VERDICT_TRUSTED_ORIGINS),
    trustedProxies: list("VERDICT_TRUSTED_PROXIES", env.VERDICT_TRUSTED_PROXIES),
    maxBodyBytes: bytes("VERDICT_MAX_BODY_BYTES", env.VERDICT_MAX_BODY_BYTES, DEFAULT_MAX_BODY_BYTES),
    maxUploadBytes: bytes("VERDICT_MAX_UPLOAD_BYTES", env.VERDICT_MAX_UPLOAD_BYTES, DEFAULT_MAX_UPLOAD_BYTES),
    busyTimeoutMs: busyTimeout(env.VERDICT_BUSY_TIMEOUT_MS),
  };
}

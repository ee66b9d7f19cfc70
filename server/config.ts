/**
 * Where Verdict keeps its data and which binaries it uses, from the environment, read once.
 *
 * VERDICT_DB        SQLite file (default ./data/verdict.db)
 * VERDICT_DATA_DIR  screenshots and other files (default ./data)
 * CHROMIUM_PATH     browser used by the runner and the demo recorder (default /usr/bin/chromium)
 * VERDICT_AUTH_SECRET  key signing session cookies (default: generated once and kept in <data>/auth-secret)
 * VERDICT_BASE_URL  public URL of the web app, when it cannot be inferred from requests (e.g. behind a proxy)
 * VERDICT_TRUSTED_ORIGINS  more origins (comma-separated) that may sign in and change things, e.g. a second name
 * VERDICT_TRUSTED_PROXIES  reverse proxies (IPs or CIDR ranges, comma-separated) whose X-Forwarded-For is believed
 * VERDICT_MAX_BODY_BYTES   largest request body the web server reads (default 1 MiB)
 * VERDICT_MAX_UPLOAD_BYTES largest body for the CSV uploads (agreement CSV, label import; default 32 MiB)
 * VERDICT_BUSY_TIMEOUT_MS  how long a write waits for another process's lock (web server 250, others 5000)
 */
import path from "node:path";

export interface VerdictConfig {
  dbPath: string;
  dataDir: string;
  chromiumPath: string;
  /** Unset = generated and persisted in the data folder (see server/auth/secret.ts). */
  authSecret?: string;
  baseUrl?: string;
  /** Origins besides VERDICT_BASE_URL's that may send state-changing requests (e.g. "https://verdict.lab.example"). */
  trustedOrigins?: string[];
  /** Addresses or CIDR ranges of reverse proxies in front of the web server; empty = clients connect directly. */
  trustedProxies?: string[];
  /** Request body limits of the web server, in bytes (defaults below). */
  maxBodyBytes?: number;
  maxUploadBytes?: number;
  /** SQLite busy timeout of this process's connection (see db/client.ts); unset = the default wait. */
  busyTimeoutMs?: number;
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
    trustedOrigins: list("VERDICT_TRUSTED_ORIGINS", env.VERDICT_TRUSTED_ORIGINS),
    trustedProxies: list("VERDICT_TRUSTED_PROXIES", env.VERDICT_TRUSTED_PROXIES),
    maxBodyBytes: bytes("VERDICT_MAX_BODY_BYTES", env.VERDICT_MAX_BODY_BYTES, DEFAULT_MAX_BODY_BYTES),
    maxUploadBytes: bytes("VERDICT_MAX_UPLOAD_BYTES", env.VERDICT_MAX_UPLOAD_BYTES, DEFAULT_MAX_UPLOAD_BYTES),
    busyTimeoutMs: busyTimeout(env.VERDICT_BUSY_TIMEOUT_MS),
  };
}

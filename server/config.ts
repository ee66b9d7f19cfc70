/**
 * Verdict's configuration: every environment variable the product reads, in one zod schema, read once per
 * `loadConfig` call. A bad value is an error naming the variable and what is wrong with it; the table of
 * variables in docs/configuration.md is generated from ENVIRONMENT_VARIABLES (`npx tsx scripts/env-table.ts`) and a
 * test keeps the two equal.
 *
 * Code below server/ and db/ gets its settings from the AppContext's `config`; the judge services from
 * `judgeSettings()` (typed, with the key variables a judge configuration may name, looked up by that name); the
 * few services that pass a raw environment on (to a child process) from `runtimeEnvironment()`.
 */
import path from "node:path";
import { z } from "zod";
import {
  allowedHostEntryProblem,
  JUDGE_KEY_ENV_PREFIX,
  parseAllowedHosts,
  parseLoopbackPorts,
  SHARED_KEY_ENVS,
  type PortSet,
} from "./domain/evaluation/judge-endpoint-policy";
import { isIpLiteral, parseDestinationList } from "./domain/live/safety";

export interface VerdictConfig {
  dbPath: string;
  /** VERDICT_MIGRATIONS_DIR: the SQLite migrations, when the server is bundled away from db/migrations. */
  migrationsDir?: string;
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
  /** Days a dashboard report's zip is kept for download (DEFAULT_REPORT_RETENTION_DAYS when unset). */
  reportRetentionDays?: number;
  /** SQLite busy timeout of this process's connection (see db/client.ts); unset = the default wait. */
  busyTimeoutMs?: number;
  /** Screenshots, variants, staged import uploads and finished live-run bundles in an S3-compatible bucket; unset = the data folder. */
  objectStorage?: S3Config;
  /** A browser server the live runner connects to instead of launching Chromium here; unset = launch. */
  remoteBrowser?: RemoteBrowserConfig;
  /**
   * Address the live runner's egress proxies listen on and give the browser; unset = 127.0.0.1 (only a browser on
   * this machine can use them). Required with a remote browser.
   */
  runnerProxyHost?: string;
  /**
   * Ports the live runner's egress proxies listen on; unset = DEFAULT_RUNNER_PROXY_PORTS. The browser user's network
   * rules (scripts/browser-user.sh) let its TCP reach these ports on 127.0.0.1 and nothing else.
   */
  runnerProxyPorts?: PortRange;
  /** VERDICT_BROWSER_USER: the unprivileged user Chromium runs as when Verdict runs as root; unset = DEFAULT_BROWSER_USER. */
  browserUser?: string;
  /** VERDICT_RUNNER_NO_SANDBOX: Chromium runs without its sandbox (not recommended); unset = false. */
  runnerNoSandbox?: boolean;
  /** PORT: where the web server listens (Next sets it to the port it took); unset = DEFAULT_PORT. */
  port?: number;
  /**
   * NODE_ENV is production (`npm start`, `next start`): sign-in is rate limited, and an unexpected error's details
   * stay in the server log instead of the API's answer. Unset = false.
   */
  production?: boolean;
}

/** An inclusive range of TCP ports. */
export interface PortRange {
  from: number;
  to: number;
}

/** Chromium unless CHROMIUM_PATH names another: Debian's package. */
export const DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium";
/** The user Chromium runs as when Verdict runs as root, unless VERDICT_BROWSER_USER names another (scripts/browser-user.sh makes it). */
export const DEFAULT_BROWSER_USER = "verdict-browser";
/** The web server's port unless PORT says otherwise. */
export const DEFAULT_PORT = 3000;

/** Where egress proxies listen unless VERDICT_RUNNER_PROXY_PORTS says otherwise: below Linux's ephemeral ports. */
export const DEFAULT_RUNNER_PROXY_PORTS: PortRange = { from: 24600, to: 24999 };

/** "24600-24999" → the range; a problem naming what is wrong otherwise. */
export function parsePortRange(text: string): PortRange | { problem: string } {
  const m = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(text);
  const from = Number(m?.[1]);
  const to = Number(m?.[2]);
  if (!m || from < 1024 || to > 65535 || to < from)
    return { problem: `must be a range of unprivileged TCP ports such as 24600-24999, got ${JSON.stringify(text)}` };
  return { from, to };
}

export interface S3Config {
  /** Unset = AWS S3 of `region`. */
  endpoint?: string;
  bucket: string;
  region: string;
  /** Unset (both) = the AWS SDK's default credentials (instance role, ~/.aws, AWS_* variables). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** http://endpoint/bucket/key rather than http://bucket.endpoint/key (MinIO, s3rver). */
  forcePathStyle: boolean;
  /** Put before every key, "" or ending in "/" (e.g. "verdict/"). */
  keyPrefix: string;
  /** Screenshot requests that passed the access check are redirected to a presigned URL of the bucket. */
  presign: boolean;
}

export interface RemoteBrowserConfig {
  wsEndpoint: string;
  /** "playwright": a Playwright browser server (chromium.launchServer, `npx playwright run-server`); "cdp": Chrome DevTools Protocol (browserless, chrome --remote-debugging-port). */
  protocol: "playwright" | "cdp";
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
  /**
   * Uncompressed / compressed size of one entry over 1 MB, and of the whole archive once it expands to more than
   * 1 MB (a zip bomb's tell; many small entries each below the per-entry check add up in the total).
   */
  zipMaxRatio: number;
  /** Largest manifest.json of a Verdict bundle, in bytes: it is read as a stream, but one trajectory is held whole. */
  manifestMaxBytes: number;
  /** Uploads (zips, CSV files) one person may have waiting for the workers, in bytes (received, not yet imported). */
  queuedBytesPerUser: number;
  /** Uploads the whole installation may have waiting for the workers, in bytes. */
  queuedBytesTotal: number;
  /** A folder upload untouched this long (no file received, not imported) is abandoned and its files removed, in ms. */
  folderUploadExpiryMs: number;
}

const MB = 1024 * 1024;

/**
 * The web server waits only briefly for a lock held by an import or a worker: the wait blocks every request,
 * and a "busy, try again" answer is retried by the browser (app/_trpc/query-client.ts).
 */
export const WEB_BUSY_TIMEOUT_MS = 250;

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** The CSV uploads' body limit: 10 MB of CSV text and its JSON escaping; larger files go through the CLI. */
export const DEFAULT_MAX_UPLOAD_BYTES = 12 * 1024 * 1024;
/** Days a report built on the dashboard stays downloadable before its zip is removed. */
export const DEFAULT_REPORT_RETENTION_DAYS = 30;

// ---- value parsers: each turns the raw text (blank = unset) into a value, or an issue saying what is wrong ----

function blank(v: unknown): boolean {
  return v === undefined || (typeof v === "string" && v.trim() === "");
}

/** Raw text in (blank = unset, giving `fallback`), `parse(text)` out; `{ problem }` is what is wrong with the value. */
function field<T>(parse: (text: string) => T | { problem: string }, fallback: T): z.ZodType<T>;
function field<T>(parse: (text: string) => T | { problem: string }): z.ZodType<T | undefined>;
function field<T>(parse: (text: string) => T | { problem: string }, fallback?: T): z.ZodType<T | undefined> {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (blank(raw)) return fallback;
      const out = parse(String(raw));
      if (out !== null && typeof out === "object" && "problem" in (out as object)) {
        ctx.addIssue({ code: "custom", message: (out as { problem: string }).problem });
        return z.NEVER;
      }
      return out as T;
    });
}

/**
 * Read as written: what is free text by nature (secrets and access keys, the S3 region, model names). The S3 bucket
 * and prefix are checked with the other S3 variables below, where their problems can name each other.
 */
const text = () => field((t) => t);
const got = (t: string) => `got ${JSON.stringify(t)}`;

/**
 * A file or folder path, trimmed; one with a control character (a pasted line break, NUL) is refused, as no file has
 * one and the system calls would cut it short. Relative paths are read against the folder Verdict starts in.
 */
function fileSystemPath(t: string): string | { problem: string } {
  const p = t.trim();
  if (/[\u0000-\u001f\u007f]/.test(p)) return { problem: `must be a file or folder path, without control characters, ${got(t)}` };
  return p;
}
const filePath = () => field(fileSystemPath);

/** A host name or an IP address (no scheme, port or brackets): an address of this machine that others dial. */
function hostAddress(t: string): string | { problem: string } {
  const h = t.trim();
  const label = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
  if ((isIpLiteral(h) && !h.startsWith("[")) || new RegExp(`^(?=.{1,253}$)${label}(?:\\.${label})*$`).test(h)) return h;
  return { problem: `must be a host name or IP address, without scheme or port (e.g. 10.0.0.5), ${got(t)}` };
}

/** The port the demo data is recorded on: URLs stored in demo trajectories contain it, so it must not vary. */
export const DEMO_SITES_DEFAULT_PORT = 4517;

/** VERDICT_DEMO_PORT: a TCP port (0 picks a free one), or off / none / no for no demo sites (null). */
function demoPort(t: string): number | null | { problem: string } {
  const raw = t.trim();
  if (/^(off|none|no)$/i.test(raw)) return null;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) return { problem: `must be a port number or "off", ${got(t)}` };
  return port;
}

const positiveNumber = (fallback: number) =>
  field((t) => {
    const n = Number(t);
    return Number.isFinite(n) && n > 0 ? n : { problem: `must be a positive number, ${got(t)}` };
  }, fallback);

function parseWhole(min: number, max: number, unit: string) {
  return (t: string): number | { problem: string } => {
    const n = Number(t.trim());
    if (/^\d+$/.test(t.trim()) && n >= min && n <= max) return n;
    return { problem: `must be ${unit}, ${got(t)}` };
  };
}
const wholeNumber = (min: number, unit: string, fallback: number) =>
  field(parseWhole(min, Number.MAX_SAFE_INTEGER, `a whole number of ${unit}, at least ${min}`), fallback);
const optionalWholeNumber = (min: number, unit: string) => field(parseWhole(min, Number.MAX_SAFE_INTEGER, `a whole number of ${unit}, at least ${min}`));

function parseFlag(t: string): boolean | { problem: string } {
  const v = t.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  return { problem: `must be 1 or 0 (true/false, yes/no), ${got(t)}` };
}
const flag = (fallback: boolean) => field(parseFlag, fallback);

/** One of `values`, as written; a problem listing them otherwise. */
function oneOf<const V extends string>(values: readonly V[]): (t: string) => V | { problem: string } {
  const listed = values.length > 1 ? `${values.slice(0, -1).join(", ")} or ${values[values.length - 1]}` : String(values[0]);
  return (t) => ((values as readonly string[]).includes(t.trim()) ? (t.trim() as V) : { problem: `must be ${listed}, ${got(t)}` });
}

/** A system user name as useradd takes one: letters, digits, "_", "." and "-", not starting with "-" (it is passed to id and setpriv). */
function systemUserName(t: string): string | { problem: string } {
  const name = t.trim();
  if (/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}$/.test(name)) return name;
  return { problem: `must be a system user name (up to 32 letters, digits, "_", "." or "-", not starting with "-"), ${got(t)}` };
}

const url = (protocols: string[], example: string) =>
  field((t) => {
    let u: URL;
    try {
      u = new URL(t.trim());
    } catch {
      return { problem: `must be a URL such as ${example}, ${got(t)}` };
    }
    return protocols.includes(u.protocol)
      ? t.trim()
      : { problem: `must be a ${protocols.map((p) => p.replace(/:$/, "")).join(" or ")} URL such as ${example}, ${got(t)}` };
  });

const list = () =>
  field(
    (t) =>
      t
        .split(",")
        .map((x) => x.trim())
        .filter((x) => x !== ""),
    [] as string[],
  );

const origins = () =>
  field((t) => {
    const out: string[] = [];
    for (const x of t
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)) {
      let u: URL;
      try {
        u = new URL(x);
      } catch {
        return { problem: `${JSON.stringify(x)} is not a URL (expected e.g. https://verdict.example.org)` };
      }
      if (u.protocol !== "http:" && u.protocol !== "https:") return { problem: `${JSON.stringify(x)} must be an http(s) origin` };
      out.push(u.origin);
    }
    return out;
  }, [] as string[]);

/** VERDICT_JUDGE_ALLOWED_HOSTS: "host" or "host:port" entries, comma-separated, normalised; every entry that is not one is named. */
const judgeHostList = () =>
  field((t) => {
    const { hosts, invalid } = parseAllowedHosts(t.split(","));
    return invalid.length ? { problem: invalid.map(allowedHostEntryProblem).join("; ") } : hosts;
  }, [] as string[]);

/**
 * VERDICT_RUNNER_ALLOWED_DESTINATIONS: host:port entries (a port is required, no wildcards), comma-separated; a
 * cloud metadata service is refused, as the runs never reach one.
 */
const runnerDestinations = () =>
  field((t) => {
    const { destinations, invalid, metadata } = parseDestinationList(t);
    const quoted = (list: string[]) => list.map((e) => JSON.stringify(e)).join(", ");
    if (invalid.length) return { problem: `${quoted(invalid)} ${invalid.length === 1 ? "is not a" : "are not"} host:port (a port is required, no wildcards)` };
    if (metadata.length) {
      const one = metadata.length === 1;
      return {
        problem: `${quoted(metadata)} ${one ? "is a cloud metadata service" : "are cloud metadata services"}, which runs never reach; remove ${one ? "it" : "them"}`,
      };
    }
    return destinations;
  }, [] as string[]);

/** The kinds of jobs a worker can take (VERDICT_WORKER_JOBS). */
export const WORKER_JOB_KINDS = ["live", "judge", "uploads"] as const;
export type WorkerJobKind = (typeof WORKER_JOB_KINDS)[number];

const workerJobKinds = () =>
  field(
    (t) => {
      const kinds = t
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean);
      const unknown = kinds.filter((k) => !(WORKER_JOB_KINDS as readonly string[]).includes(k));
      if (unknown.length) return { problem: `must list some of ${WORKER_JOB_KINDS.join(", ")}, ${got(t)}` };
      if (kinds.length === 0) return { problem: `must list at least one of ${WORKER_JOB_KINDS.join(", ")}` };
      return [...new Set(kinds)] as WorkerJobKind[];
    },
    [...WORKER_JOB_KINDS] as WorkerJobKind[],
  );

/** VERDICT_DATABASE_URL: postgres://… or a SQLite file path; any other scheme is refused rather than read as a file name. */
function databaseUrl(t: string): string | { problem: string } {
  const url = t.trim();
  if (/^postgres(ql)?:\/\//i.test(url)) return url;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  if (scheme) return { problem: `has an unsupported scheme "${scheme[1]}:"; expected postgres://user:password@host:port/database or a SQLite file path` };
  return url;
}

/** A worker's memory cap when none is set: room for a large import, far from what the web server needs to stay up. */
export const DEFAULT_WORKER_MAX_HEAP_MB = 2048;

// ---- the variables ----

interface VariableDoc {
  /** Section of the table in docs/configuration.md. */
  group: "Installation" | "Web server" | "Workers" | "Imports" | "Object storage (S3)" | "Judges" | "Live runner" | "Development";
  /** What applies when unset, as users read it. */
  default: string;
  description: string;
}

/** A variable as declared: its parser, and what its row in the table says when it is unset and what it means. */
interface Declared<T extends z.ZodType = z.ZodType> {
  schema: T;
  doc: Omit<VariableDoc, "group">;
}

function v<T extends z.ZodType>(schema: T, byDefault: string, description: string): Declared<T> {
  return { schema, doc: { default: byDefault, description } };
}

type Sectioned<S extends Record<string, Declared>> = { [K in keyof S]: { schema: S[K]["schema"]; doc: VariableDoc } };

/** The variables of one section of the table, in the table's order. */
function section<S extends Record<string, Declared>>(group: VariableDoc["group"], variables: S): Sectioned<S> {
  return Object.fromEntries(Object.entries(variables).map(([name, { schema, doc }]) => [name, { schema, doc: { group, ...doc } }])) as Sectioned<S>;
}

const VARIABLES = {
  ...section("Installation", {
    VERDICT_DATA_DIR: v(filePath(), "./data", "Folder of the database, screenshots, variants and the auth secret"),
    VERDICT_DATABASE_URL: v(
      field(databaseUrl),
      "<data>/verdict.db (SQLite)",
      "postgres://… selects PostgreSQL (create or update its tables with `npm run cli -- migrate`); a file path selects that SQLite file, like VERDICT_DB",
    ),
    VERDICT_DB: v(filePath(), "<data>/verdict.db", "SQLite database file (`:memory:` for a throwaway one)"),
    VERDICT_AUTH_SECRET: v(text(), "generated once into <data>/auth-secret", "Key signing session cookies and encrypting stored judge keys"),
    VERDICT_BUSY_TIMEOUT_MS: v(
      optionalWholeNumber(0, "milliseconds"),
      "250 in the web server, 5000 elsewhere",
      "How long a write waits for another process's lock",
    ),
    VERDICT_MIGRATIONS_DIR: v(filePath(), "db/migrations", "Where the database migrations are, when the server is bundled elsewhere"),
  }),
  ...section("Web server", {
    VERDICT_BASE_URL: v(
      url(["http:", "https:"], "https://verdict.example.org"),
      "inferred from requests",
      "Public URL of the web app (behind a reverse proxy)",
    ),
    VERDICT_TRUSTED_ORIGINS: v(origins(), "none", "More origins (comma-separated) that may sign in and change things"),
    VERDICT_TRUSTED_PROXIES: v(list(), "none", "Reverse proxies (IPs or CIDR ranges, comma-separated) whose X-Forwarded-For is believed"),
    VERDICT_MAX_BODY_BYTES: v(wholeNumber(1024, "bytes", DEFAULT_MAX_BODY_BYTES), "1048576", "Largest request body the web server reads"),
    VERDICT_MAX_UPLOAD_BYTES: v(
      wholeNumber(1024, "bytes", DEFAULT_MAX_UPLOAD_BYTES),
      "12582912",
      "Largest CSV upload (agreement CSV, label import); read only for signed-in researchers",
    ),
    VERDICT_REPORT_RETENTION_DAYS: v(
      wholeNumber(1, "days", DEFAULT_REPORT_RETENTION_DAYS),
      String(DEFAULT_REPORT_RETENTION_DAYS),
      "Days a report built on the dashboard stays downloadable; then the workers (hourly) and `gc-screenshots` remove its zip",
    ),
    PORT: v(
      field(parseWhole(1, 65535, "a TCP port (1–65535)"), DEFAULT_PORT),
      String(DEFAULT_PORT),
      "Port of `npm start` / `next start` (Next sets it to the port it listens on); pages rendered on the server call the API there",
    ),
    NEXT_RUNTIME: v(
      field(oneOf(["nodejs", "edge"])),
      "set by Next.js in the web server",
      "Set by Next.js, not by admins: in the web server a write waits for another process's lock briefly (250 ms) rather than 5 s",
    ),
    NODE_ENV: v(
      field(oneOf(["development", "production", "test"])),
      "production under `npm start` / `next start`",
      "Set by Next.js and the test runners; `production` rate-limits sign-in and keeps unexpected errors' details in the server log",
    ),
  }),
  ...section("Workers", {
    VERDICT_WORKER_JOBS: v(
      workerJobKinds(),
      "live,judge,uploads",
      "Kinds of jobs a worker takes (comma-separated): `live` runs, `judge` calls, `uploads` (imports, label imports, agreement CSVs)",
    ),
    VERDICT_WORKER_MAX_HEAP_MB: v(
      wholeNumber(128, "MB", DEFAULT_WORKER_MAX_HEAP_MB),
      String(DEFAULT_WORKER_MAX_HEAP_MB),
      "Memory cap of a worker process started by `npm run worker` or the quick start (V8 heap, MB)",
    ),
    VERDICT_WORKER_JUDGE_CONCURRENCY: v(
      wholeNumber(1, "calls", 8),
      "8",
      "Judge calls one worker makes at once (each batch also keeps to its own concurrency across all workers)",
    ),
  }),
  ...section("Imports", {
    VERDICT_IMPORT_ROOT: v(filePath(), "off", "Folder under which admins may import by server path from the Import page"),
    VERDICT_IMPORT_MAX_UPLOAD_MB: v(positiveNumber(1024), "1024", "Largest .zip the Import page accepts (MB)"),
    VERDICT_ZIP_MAX_ENTRIES: v(positiveNumber(100_000), "100000", "Most entries a zip may have"),
    VERDICT_ZIP_MAX_TOTAL_MB: v(positiveNumber(4096), "4096", "Largest total uncompressed size of a zip (MB)"),
    VERDICT_ZIP_MAX_ENTRY_MB: v(positiveNumber(512), "512", "Largest uncompressed zip entry (MB)"),
    VERDICT_ZIP_MAX_RATIO: v(positiveNumber(100), "100", "Largest compression ratio of a zip entry over 1 MB, and of a whole zip"),
    VERDICT_BUNDLE_MANIFEST_MAX_MB: v(positiveNumber(64), "64", "Largest manifest.json of a Verdict bundle (MB)"),
    VERDICT_IMPORT_QUEUED_MB_PER_USER: v(positiveNumber(2048), "2048", "Uploads (zips, CSV files) one person may have waiting to be imported or analysed (MB)"),
    VERDICT_IMPORT_QUEUED_MB: v(positiveNumber(8192), "8192", "Uploads the installation may have waiting to be imported or analysed, everyone's together (MB)"),
    VERDICT_FOLDER_UPLOAD_EXPIRE_HOURS: v(
      positiveNumber(72),
      "72",
      "Hours after its last received file that an unfinished folder upload from the Import page is removed with its files",
    ),
  }),
  ...section("Object storage (S3)", {
    VERDICT_S3_ENDPOINT: v(
      url(["http:", "https:"], "http://minio:9000"),
      "AWS S3",
      "S3-compatible endpoint (MinIO, R2, …); setting it or the bucket stores screenshots in S3",
    ),
    VERDICT_S3_BUCKET: v(text(), "off (data folder)", "Bucket holding screenshots, variants, uploaded import zips and finished live-run bundles"),
    VERDICT_S3_REGION: v(text(), "us-east-1", "Region of the bucket"),
    VERDICT_S3_ACCESS_KEY_ID: v(text(), "the AWS SDK's default credentials", "Access key (with the secret below)"),
    VERDICT_S3_SECRET_ACCESS_KEY: v(text(), "the AWS SDK's default credentials", "Secret of the access key"),
    VERDICT_S3_FORCE_PATH_STYLE: v(
      field(parseFlag),
      "1 with an endpoint, else 0",
      "Address objects as endpoint/bucket/key (MinIO, s3rver) instead of bucket.endpoint/key",
    ),
    VERDICT_S3_PREFIX: v(text(), "none", "Key prefix, for a bucket shared with other data (e.g. `verdict/`)"),
    VERDICT_S3_PRESIGN: v(flag(false), "0", "1: after the access check, redirect screenshot requests to a 5-minute presigned URL"),
  }),
  ...section("Judges", {
    VERDICT_JUDGE_MODEL: v(text(), "none", "Model of new judge configurations that name none"),
    VERDICT_JUDGE_BASE_URL: v(
      url(["http:", "https:"], "http://127.0.0.1:8000/v1"),
      "OpenAI",
      "OpenAI-compatible endpoint of new judge configurations; its host is allowed",
    ),
    VERDICT_JUDGE_API_KEY: v(text(), "none", "API key for judge calls to VERDICT_JUDGE_BASE_URL (or OpenAI without it)"),
    OPENAI_API_KEY: v(text(), "none", "API key for judge calls to https://api.openai.com only"),
    VERDICT_JUDGE_ALLOWED_HOSTS: v(judgeHostList(), "none", "More hosts judge configurations may call (comma-separated host[:port])"),
    VERDICT_JUDGE_ALLOW_LOOPBACK: v(
      field((t) => parseLoopbackPorts(t), { ranges: [] } as PortSet),
      "none",
      "Ports (comma-separated, ranges as 8000-8010) on which judges may call servers on this machine (vLLM 8000, Ollama 11434)",
    ),
  }),
  ...section("Live runner", {
    CHROMIUM_PATH: v(filePath(), DEFAULT_CHROMIUM_PATH, "Chromium used by the runner and the demo recorder"),
    VERDICT_BROWSER_USER: v(field(systemUserName, DEFAULT_BROWSER_USER), DEFAULT_BROWSER_USER, "Unprivileged user Chromium runs as when Verdict runs as root"),
    VERDICT_RUNNER_NO_SANDBOX: v(flag(false), "0", "1: run Chromium without its sandbox (not recommended)"),
    VERDICT_BROWSER_WS: v(
      url(["ws:", "wss:"], "ws://browsers:3000/playwright"),
      "launch Chromium here",
      "Browser server the runner connects to instead of launching Chromium",
    ),
    VERDICT_BROWSER_WS_PROTOCOL: v(
      field<RemoteBrowserConfig["protocol"]>(oneOf(["playwright", "cdp"]), "playwright"),
      "playwright",
      "`playwright` (a Playwright browser server) or `cdp` (browserless, Chrome's DevTools port)",
    ),
    VERDICT_RUNNER_PROXY_HOST: v(
      field(hostAddress),
      "127.0.0.1",
      "Address of this worker the browser reaches its egress proxy on (required with VERDICT_BROWSER_WS)",
    ),
    VERDICT_RUNNER_PROXY_PORTS: v(
      field(parsePortRange),
      "24600-24999",
      "Ports the runner's egress proxies listen on; the browser user's network rules let it reach only these (scripts/browser-user.sh)",
    ),
    VERDICT_RUNNER_ALLOWED_DESTINATIONS: v(runnerDestinations(), "none", "Private destinations (host:port, comma-separated) every run may reach"),
    VERDICT_RUNNER_CONCURRENCY: v(wholeNumber(1, "runs", 2), "2", "Runs at once in one `npm run worker`"),
    VERDICT_RUNNER_LEASE_MS: v(wholeNumber(1, "milliseconds", 15_000), "15000", "Lease of a running job: how soon a dead worker's tasks are taken back"),
    VERDICT_RUNNER_HEADLESS: v(flag(true), "1", "0 shows the browser windows (needs a display)"),
    VERDICT_DEMO_PORT: v(field(demoPort, DEMO_SITES_DEFAULT_PORT as number | null), "4517", "Port of the bundled demo sites; `off` serves none"),
  }),
  ...section("Development", {
    VERDICT_DEMO_SITES_DIR: v(filePath(), "server/demo-sites/public", "Where the demo sites' files are, when the server is bundled elsewhere"),
    VERDICT_DEBUG: v(flag(false), "0", "1: the CLI prints an error's stack trace"),
  }),
} as const;

type Variables = typeof VARIABLES;
/** The parsed environment: every variable, typed. */
export type VerdictEnvironment = { [K in keyof Variables]: z.output<Variables[K]["schema"]> };

/** Name, default and description of every variable the product reads (the table in docs/configuration.md). */
export const ENVIRONMENT_VARIABLES: readonly ({ name: string } & VariableDoc)[] = [
  ...Object.entries(VARIABLES).map(([name, { doc }]) => ({ name, ...doc })),
  // A family rather than one name: read by the judge service when a configuration names it (judge-endpoint-policy.ts).
  { name: "VERDICT_JUDGE_KEY_<NAME>", group: "Judges", default: "none", description: "Keys a judge configuration may name as its key variable" },
  {
    name: "VERDICT_JUDGE_KEY_<NAME>_URL",
    group: "Judges",
    default: "none (the key is sent nowhere)",
    description: "The one endpoint (base URL) VERDICT_JUDGE_KEY_<NAME> is sent to",
  },
];

const environmentSchema = z
  .object(Object.fromEntries(Object.entries(VARIABLES).map(([name, { schema }]) => [name, schema])) as { [K in keyof Variables]: Variables[K]["schema"] })
  .superRefine((e, ctx) => {
    const need = (name: string, when: string) => ctx.addIssue({ code: "custom", path: [name], message: `is required when ${when}` });
    if (e.VERDICT_S3_ENDPOINT !== undefined && e.VERDICT_S3_BUCKET === undefined) need("VERDICT_S3_BUCKET", "VERDICT_S3_ENDPOINT is set");
    if (e.VERDICT_S3_ACCESS_KEY_ID !== undefined && e.VERDICT_S3_SECRET_ACCESS_KEY === undefined)
      need("VERDICT_S3_SECRET_ACCESS_KEY", "VERDICT_S3_ACCESS_KEY_ID is set");
    if (e.VERDICT_S3_SECRET_ACCESS_KEY !== undefined && e.VERDICT_S3_ACCESS_KEY_ID === undefined)
      need("VERDICT_S3_ACCESS_KEY_ID", "VERDICT_S3_SECRET_ACCESS_KEY is set");
    if (e.VERDICT_S3_BUCKET === undefined && e.VERDICT_S3_ENDPOINT === undefined) {
      for (const name of ["VERDICT_S3_ACCESS_KEY_ID", "VERDICT_S3_PREFIX", "VERDICT_S3_PRESIGN", "VERDICT_S3_REGION", "VERDICT_S3_FORCE_PATH_STYLE"] as const) {
        if (e[name] !== undefined && e[name] !== false)
          ctx.addIssue({ code: "custom", path: [name], message: "has no effect without VERDICT_S3_BUCKET (set the bucket, or unset this)" });
      }
    }
    if (e.VERDICT_S3_BUCKET !== undefined && !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(e.VERDICT_S3_BUCKET)) {
      ctx.addIssue({
        code: "custom",
        path: ["VERDICT_S3_BUCKET"],
        message: `is not a bucket name (3–63 lower-case letters, digits, dots, hyphens), ${got(e.VERDICT_S3_BUCKET)}`,
      });
    }
    if (e.VERDICT_S3_PREFIX !== undefined && (e.VERDICT_S3_PREFIX.startsWith("/") || /\s/.test(e.VERDICT_S3_PREFIX))) {
      ctx.addIssue({ code: "custom", path: ["VERDICT_S3_PREFIX"], message: `must not start with "/" or contain spaces, ${got(e.VERDICT_S3_PREFIX)}` });
    }
    const dbUrl = e.VERDICT_DATABASE_URL;
    if (
      dbUrl !== undefined &&
      !/^postgres(ql)?:\/\//i.test(dbUrl) &&
      e.VERDICT_DB !== undefined &&
      path.resolve(/*turbopackIgnore: true*/ e.VERDICT_DB) !== path.resolve(/*turbopackIgnore: true*/ dbUrl)
    ) {
      // Two names for the database that disagree: refused rather than guessed between.
      ctx.addIssue({
        code: "custom",
        path: ["VERDICT_DATABASE_URL"],
        message: `(${dbUrl}) and VERDICT_DB (${e.VERDICT_DB}) name different SQLite files; set one of them`,
      });
    }
    if (e.VERDICT_BROWSER_WS !== undefined && e.VERDICT_RUNNER_PROXY_HOST === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["VERDICT_RUNNER_PROXY_HOST"],
        message:
          "is required when VERDICT_BROWSER_WS is set: the remote browser must reach this worker's egress proxy, which enforces the runs' address policy (set it to an address of this machine the browser can reach, e.g. its private IP)",
      });
    }
  });

/** A configuration the product cannot start with; one line per problem, each naming its variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.length === 1 ? problems[0] : `${problems.length} configuration problems:\n  ${problems.join("\n  ")}`);
    this.name = "ConfigError";
  }
}

/** Parses every variable of `env`; throws a ConfigError naming each variable that is wrong. */
export function readEnvironment(env: Readonly<Record<string, string | undefined>> = process.env): VerdictEnvironment {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${String(i.path[0] ?? "environment")} ${i.message}`));
  return parsed.data as VerdictEnvironment;
}

/**
 * The environment as services that pass a raw `env` on read it (the browser's child process, the deps the entry
 * points hand the judge and live services, whose settings judgeSettings and the configuration parse from it), after
 * the schema checked it.
 */
export function runtimeEnvironment(): NodeJS.ProcessEnv {
  readEnvironment(process.env);
  return process.env;
}

/**
 * The judge services' settings (the Judges section of the table), parsed. The keys are the exception by design: a
 * judge configuration names the variable holding its key (VERDICT_JUDGE_API_KEY, OPENAI_API_KEY or
 * VERDICT_JUDGE_KEY_<NAME>, bound to VERDICT_JUDGE_KEY_<NAME>_URL), so those are looked up by the name it gives, in
 * `keyVariables`, which holds those variables and no other.
 */
export interface JudgeSettings {
  /** VERDICT_JUDGE_MODEL: the model of new configurations that name none. */
  defaultModel?: string;
  /** VERDICT_JUDGE_BASE_URL: the endpoint of new configurations that name none; its host is allowed. */
  defaultBaseUrl?: string;
  /** VERDICT_JUDGE_ALLOWED_HOSTS, normalised ("host" or "host:port"). */
  allowedHosts: string[];
  /** VERDICT_JUDGE_ALLOW_LOOPBACK: the ports judges may call on this machine. */
  loopbackPorts: PortSet;
  /** The key variables and their _URL bindings, by name. */
  keyVariables: Readonly<Record<string, string | undefined>>;
}

const judgeSchema = z.object({
  VERDICT_JUDGE_MODEL: VARIABLES.VERDICT_JUDGE_MODEL.schema,
  VERDICT_JUDGE_BASE_URL: VARIABLES.VERDICT_JUDGE_BASE_URL.schema,
  VERDICT_JUDGE_ALLOWED_HOSTS: VARIABLES.VERDICT_JUDGE_ALLOWED_HOSTS.schema,
  VERDICT_JUDGE_ALLOW_LOOPBACK: VARIABLES.VERDICT_JUDGE_ALLOW_LOOPBACK.schema,
});

/** The judge settings of `env` (this process's unless given); a ConfigError naming each judge variable that is wrong. */
export function judgeSettings(env: Readonly<Record<string, string | undefined>> = process.env): JudgeSettings {
  const parsed = judgeSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${String(i.path[0])} ${i.message}`));
  const e = parsed.data;
  const keyVariables = Object.fromEntries(
    Object.entries(env).filter(([name]) => (SHARED_KEY_ENVS as readonly string[]).includes(name) || name.startsWith(JUDGE_KEY_ENV_PREFIX)),
  );
  return {
    defaultModel: e.VERDICT_JUDGE_MODEL?.trim() || undefined,
    defaultBaseUrl: e.VERDICT_JUDGE_BASE_URL,
    allowedHosts: e.VERDICT_JUDGE_ALLOWED_HOSTS,
    loopbackPorts: e.VERDICT_JUDGE_ALLOW_LOOPBACK,
    keyVariables,
  };
}

/** The private destinations (host:port) an admin lets every live run reach: VERDICT_RUNNER_ALLOWED_DESTINATIONS, parsed. */
export function runnerAllowedDestinations(env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  return readEnvironment(env).VERDICT_RUNNER_ALLOWED_DESTINATIONS;
}

/**
 * VERDICT_DEBUG: whether the CLI prints an error's stack trace. Read alone, so that a command that failed on another
 * variable still reports; a value that is not a switch is a ConfigError naming it.
 */
export function cliStackTraces(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  const parsed = VARIABLES.VERDICT_DEBUG.schema.safeParse(env.VERDICT_DEBUG);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `VERDICT_DEBUG ${i.message}`));
  return parsed.data;
}

/** Where workers serve the demo sites (VERDICT_DEMO_PORT, 4517 unless set), or null when it is off. */
export function demoSitesPort(env: Readonly<Record<string, string | undefined>> = process.env): number | null {
  return readEnvironment(env).VERDICT_DEMO_PORT;
}

/** VERDICT_DEMO_SITES_DIR: where the demo sites' files are when the server is bundled away from them; undefined when unset. */
export function demoSitesDir(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  return readEnvironment(env).VERDICT_DEMO_SITES_DIR;
}

export function importLimitsFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): ImportLimits {
  return importLimitsOf(readEnvironment(env));
}

function importLimitsOf(e: VerdictEnvironment): ImportLimits {
  return {
    maxUploadBytes: Math.floor(e.VERDICT_IMPORT_MAX_UPLOAD_MB * MB),
    zipMaxEntries: Math.floor(e.VERDICT_ZIP_MAX_ENTRIES),
    zipMaxTotalBytes: Math.floor(e.VERDICT_ZIP_MAX_TOTAL_MB * MB),
    zipMaxEntryBytes: Math.floor(e.VERDICT_ZIP_MAX_ENTRY_MB * MB),
    zipMaxRatio: e.VERDICT_ZIP_MAX_RATIO,
    manifestMaxBytes: Math.floor(e.VERDICT_BUNDLE_MANIFEST_MAX_MB * MB),
    queuedBytesPerUser: Math.floor(e.VERDICT_IMPORT_QUEUED_MB_PER_USER * MB),
    queuedBytesTotal: Math.floor(e.VERDICT_IMPORT_QUEUED_MB * MB),
    folderUploadExpiryMs: Math.floor(e.VERDICT_FOLDER_UPLOAD_EXPIRE_HOURS * 3600_000),
  };
}

function objectStorageOf(e: VerdictEnvironment): S3Config | undefined {
  if (e.VERDICT_S3_BUCKET === undefined) return undefined;
  const prefix = e.VERDICT_S3_PREFIX?.trim() ?? "";
  return {
    endpoint: e.VERDICT_S3_ENDPOINT,
    bucket: e.VERDICT_S3_BUCKET,
    region: e.VERDICT_S3_REGION ?? "us-east-1",
    accessKeyId: e.VERDICT_S3_ACCESS_KEY_ID,
    secretAccessKey: e.VERDICT_S3_SECRET_ACCESS_KEY,
    // MinIO and most self-hosted stores only answer path-style requests; AWS prefers virtual hosts.
    forcePathStyle: e.VERDICT_S3_FORCE_PATH_STYLE ?? e.VERDICT_S3_ENDPOINT !== undefined,
    keyPrefix: prefix === "" || prefix.endsWith("/") ? prefix : `${prefix}/`,
    presign: e.VERDICT_S3_PRESIGN,
  };
}

export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): VerdictConfig {
  const e = readEnvironment(env);
  // turbopackIgnore: these are runtime paths, not files for the bundler to trace.
  const dataDir = path.resolve(/*turbopackIgnore: true*/ e.VERDICT_DATA_DIR ?? "data");
  const postgresUrl = e.VERDICT_DATABASE_URL !== undefined && /^postgres(ql)?:\/\//i.test(e.VERDICT_DATABASE_URL) ? e.VERDICT_DATABASE_URL : undefined;
  const sqliteUrl = e.VERDICT_DATABASE_URL !== undefined && postgresUrl === undefined ? e.VERDICT_DATABASE_URL : undefined;
  const dbPath = sqliteUrl ?? e.VERDICT_DB ?? path.join(dataDir, "verdict.db");
  return {
    dataDir,
    postgresUrl,
    dbPath: dbPath === ":memory:" ? dbPath : path.resolve(/*turbopackIgnore: true*/ dbPath),
    chromiumPath: e.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH,
    authSecret: e.VERDICT_AUTH_SECRET,
    baseUrl: e.VERDICT_BASE_URL,
    importLimits: importLimitsOf(e),
    importRoot: e.VERDICT_IMPORT_ROOT !== undefined ? path.resolve(/*turbopackIgnore: true*/ e.VERDICT_IMPORT_ROOT) : undefined,
    trustedOrigins: e.VERDICT_TRUSTED_ORIGINS,
    trustedProxies: e.VERDICT_TRUSTED_PROXIES,
    maxBodyBytes: e.VERDICT_MAX_BODY_BYTES,
    maxUploadBytes: e.VERDICT_MAX_UPLOAD_BYTES,
    reportRetentionDays: e.VERDICT_REPORT_RETENTION_DAYS,
    migrationsDir: e.VERDICT_MIGRATIONS_DIR,
    // Next sets NEXT_RUNTIME in the web server only; the CLI and workers keep the long default.
    busyTimeoutMs: e.VERDICT_BUSY_TIMEOUT_MS ?? (e.NEXT_RUNTIME ? WEB_BUSY_TIMEOUT_MS : undefined),
    objectStorage: objectStorageOf(e),
    remoteBrowser: e.VERDICT_BROWSER_WS !== undefined ? { wsEndpoint: e.VERDICT_BROWSER_WS, protocol: e.VERDICT_BROWSER_WS_PROTOCOL } : undefined,
    runnerProxyHost: e.VERDICT_RUNNER_PROXY_HOST,
    runnerProxyPorts: e.VERDICT_RUNNER_PROXY_PORTS,
    browserUser: e.VERDICT_BROWSER_USER,
    runnerNoSandbox: e.VERDICT_RUNNER_NO_SANDBOX,
    port: e.PORT,
    production: e.NODE_ENV === "production",
  };
}

/** The table of every variable in docs/configuration.md (between the env-table markers), grouped as ENVIRONMENT_VARIABLES is. */
export function environmentTableMarkdown(): string {
  // Table cells: "|" would end the cell, and "<data>" would be read as an HTML tag.
  const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/</g, "&lt;");
  const rows = ["| variable | group | default | meaning |", "| --- | --- | --- | --- |"];
  for (const v of ENVIRONMENT_VARIABLES) rows.push(`| \`${v.name}\` | ${v.group} | ${cell(v.default)} | ${cell(v.description)} |`);
  return rows.join("\n");
}

export const ENV_TABLE_START =
  "<!-- env-table:start (generated from server/config.ts by `npx tsx scripts/env-table.ts`; tests/unit/config.test.ts checks it) -->";
export const ENV_TABLE_END = "<!-- env-table:end -->";

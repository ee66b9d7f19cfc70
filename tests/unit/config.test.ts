/**
 * The configuration schema (server/config.ts): defaults, each kind of error naming its variable, the S3 and remote
 * browser settings, and the table of variables in docs/configuration.md, which must be what the schema generates.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  ConfigError,
  demoSitesDir,
  ENV_TABLE_END,
  ENV_TABLE_START,
  ENVIRONMENT_VARIABLES,
  environmentTableMarkdown,
  loadConfig,
  readEnvironment,
} from "../../server/config";

const S3 = {
  VERDICT_S3_ENDPOINT: "http://minio:9000",
  VERDICT_S3_BUCKET: "verdict-shots",
  VERDICT_S3_ACCESS_KEY_ID: "id",
  VERDICT_S3_SECRET_ACCESS_KEY: "secret",
};

function problems(env: Record<string, string>): string[] {
  try {
    readEnvironment(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
  throw new Error("expected a configuration error");
}

describe("configuration defaults", () => {
  it("an empty environment is the quick start: data folder, no bucket, Chromium launched here", () => {
    const c = loadConfig({});
    expect(c.dataDir).toBe(path.resolve("data"));
    expect(c.dbPath).toBe(path.resolve("data", "verdict.db"));
    expect(c.chromiumPath).toBe("/usr/bin/chromium");
    expect(c.maxBodyBytes).toBe(1024 * 1024);
    expect(c.importLimits).toEqual({
      maxUploadBytes: 1024 ** 3,
      zipMaxEntries: 100_000,
      zipMaxTotalBytes: 4096 * 1024 ** 2,
      zipMaxEntryBytes: 512 * 1024 ** 2,
      zipMaxRatio: 100,
      manifestMaxBytes: 64 * 1024 ** 2,
      queuedBytesPerUser: 2048 * 1024 ** 2,
      queuedBytesTotal: 8192 * 1024 ** 2,
      folderUploadExpiryMs: 72 * 3600_000,
    });
    expect(c.trustedOrigins).toEqual([]);
    expect(c.objectStorage).toBeUndefined();
    expect(c.remoteBrowser).toBeUndefined();
    const e = readEnvironment({});
    expect([e.PORT, e.VERDICT_RUNNER_CONCURRENCY, e.VERDICT_RUNNER_LEASE_MS, e.VERDICT_RUNNER_HEADLESS]).toEqual([3000, 2, 15_000, true]);
  });

  it("the web server's port, production mode and the browser's settings are typed values", () => {
    expect(loadConfig({})).toMatchObject({ port: 3000, production: false, browserUser: "verdict-browser", runnerNoSandbox: false });
    expect(loadConfig({ PORT: "4100", NODE_ENV: "production", VERDICT_BROWSER_USER: " chromium-runner ", VERDICT_RUNNER_NO_SANDBOX: "1" })).toMatchObject({
      port: 4100,
      production: true,
      browserUser: "chromium-runner",
      runnerNoSandbox: true,
    });
    expect(loadConfig({ NODE_ENV: "test", VERDICT_RUNNER_NO_SANDBOX: "no" })).toMatchObject({ production: false, runnerNoSandbox: false });
  });

  it("paths, hosts, lists and switches are typed values", () => {
    const e = readEnvironment({
      VERDICT_DATA_DIR: " /srv/verdict ",
      VERDICT_RUNNER_PROXY_HOST: " worker-1.lab ",
      VERDICT_JUDGE_ALLOWED_HOSTS: "GPU.lab:8000, ollama.lab",
      VERDICT_RUNNER_ALLOWED_DESTINATIONS: "wiki.lab:8080",
      VERDICT_DEBUG: "yes",
      NEXT_RUNTIME: "nodejs",
    });
    expect([e.VERDICT_DATA_DIR, e.VERDICT_RUNNER_PROXY_HOST, e.VERDICT_DEBUG, e.NEXT_RUNTIME]).toEqual(["/srv/verdict", "worker-1.lab", true, "nodejs"]);
    expect([e.VERDICT_JUDGE_ALLOWED_HOSTS, e.VERDICT_RUNNER_ALLOWED_DESTINATIONS]).toEqual([["gpu.lab:8000", "ollama.lab"], ["wiki.lab:8080"]]);
    expect(readEnvironment({ VERDICT_RUNNER_PROXY_HOST: "fd00::7" }).VERDICT_RUNNER_PROXY_HOST).toBe("fd00::7");
    expect(readEnvironment({}).VERDICT_DEBUG).toBe(false);
    // Next sets NEXT_RUNTIME in the web server, where a write waits briefly for a lock; elsewhere the long default.
    expect(loadConfig({ NEXT_RUNTIME: "nodejs" }).busyTimeoutMs).toBe(250);
    expect(loadConfig({}).busyTimeoutMs).toBeUndefined();
    expect(loadConfig({ VERDICT_DB: " :memory: " }).dbPath).toBe(":memory:");
    expect([demoSitesDir({ VERDICT_DEMO_SITES_DIR: " /opt/verdict/demo-sites " }), demoSitesDir({})]).toEqual(["/opt/verdict/demo-sites", undefined]);
  });

  it("blank values count as unset", () => {
    expect(loadConfig({ VERDICT_S3_BUCKET: " ", CHROMIUM_PATH: "", VERDICT_MAX_BODY_BYTES: "" })).toMatchObject({
      objectStorage: undefined,
      chromiumPath: "/usr/bin/chromium",
      maxBodyBytes: 1024 * 1024,
    });
  });

  it("an S3 endpoint and bucket give path-style addressing, us-east-1 and a normalised prefix", () => {
    expect(loadConfig({ ...S3, VERDICT_S3_PREFIX: "lab-a" }).objectStorage).toEqual({
      endpoint: "http://minio:9000",
      bucket: "verdict-shots",
      region: "us-east-1",
      accessKeyId: "id",
      secretAccessKey: "secret",
      forcePathStyle: true,
      keyPrefix: "lab-a/",
      presign: false,
    });
    // AWS itself: no endpoint, virtual-host addressing, the SDK's own credentials.
    expect(loadConfig({ VERDICT_S3_BUCKET: "verdict-shots", VERDICT_S3_REGION: "eu-west-1", VERDICT_S3_PRESIGN: "1" }).objectStorage).toMatchObject({
      endpoint: undefined,
      forcePathStyle: false,
      region: "eu-west-1",
      accessKeyId: undefined,
      presign: true,
    });
    expect(loadConfig({ ...S3, VERDICT_S3_FORCE_PATH_STYLE: "0" }).objectStorage?.forcePathStyle).toBe(false);
  });

  it("a remote browser with its proxy address", () => {
    expect(loadConfig({ VERDICT_BROWSER_WS: "ws://browsers:3000/pw", VERDICT_RUNNER_PROXY_HOST: "10.0.0.7" })).toMatchObject({
      remoteBrowser: { wsEndpoint: "ws://browsers:3000/pw", protocol: "playwright" },
      runnerProxyHost: "10.0.0.7",
    });
    expect(
      loadConfig({ VERDICT_BROWSER_WS: "wss://b.example/", VERDICT_BROWSER_WS_PROTOCOL: "cdp", VERDICT_RUNNER_PROXY_HOST: "w1" }).remoteBrowser?.protocol,
    ).toBe("cdp");
  });
});

describe("configuration errors name the variable and the problem", () => {
  it.each([
    [{ VERDICT_S3_ENDPOINT: "http://minio:9000" }, "VERDICT_S3_BUCKET is required when VERDICT_S3_ENDPOINT is set"],
    [{ ...S3, VERDICT_S3_SECRET_ACCESS_KEY: "" }, "VERDICT_S3_SECRET_ACCESS_KEY is required when VERDICT_S3_ACCESS_KEY_ID is set"],
    [{ ...S3, VERDICT_S3_ACCESS_KEY_ID: "" }, "VERDICT_S3_ACCESS_KEY_ID is required when VERDICT_S3_SECRET_ACCESS_KEY is set"],
    [{ VERDICT_S3_PRESIGN: "1" }, "VERDICT_S3_PRESIGN has no effect without VERDICT_S3_BUCKET (set the bucket, or unset this)"],
    [{ ...S3, VERDICT_S3_ENDPOINT: "minio:9000" }, 'VERDICT_S3_ENDPOINT must be a http or https URL such as http://minio:9000, got "minio:9000"'],
    [{ ...S3, VERDICT_S3_BUCKET: "My_Bucket" }, 'VERDICT_S3_BUCKET is not a bucket name (3–63 lower-case letters, digits, dots, hyphens), got "My_Bucket"'],
    [{ ...S3, VERDICT_S3_PREFIX: "/shots" }, 'VERDICT_S3_PREFIX must not start with "/" or contain spaces, got "/shots"'],
    [{ ...S3, VERDICT_S3_PRESIGN: "sometimes" }, 'VERDICT_S3_PRESIGN must be 1 or 0 (true/false, yes/no), got "sometimes"'],
    [{ VERDICT_BROWSER_WS: "ws://browsers:3000/" }, "VERDICT_RUNNER_PROXY_HOST is required when VERDICT_BROWSER_WS is set"],
    [
      { VERDICT_BROWSER_WS: "http://browsers:3000/", VERDICT_RUNNER_PROXY_HOST: "w1" },
      'VERDICT_BROWSER_WS must be a ws or wss URL such as ws://browsers:3000/playwright, got "http://browsers:3000/"',
    ],
    [{ VERDICT_BROWSER_WS_PROTOCOL: "selenium" }, 'VERDICT_BROWSER_WS_PROTOCOL must be playwright or cdp, got "selenium"'],
    [{ VERDICT_ZIP_MAX_RATIO: "lots" }, 'VERDICT_ZIP_MAX_RATIO must be a positive number, got "lots"'],
    [{ VERDICT_MAX_BODY_BYTES: "12" }, 'VERDICT_MAX_BODY_BYTES must be a whole number of bytes, at least 1024, got "12"'],
    [{ VERDICT_BUSY_TIMEOUT_MS: "-1" }, 'VERDICT_BUSY_TIMEOUT_MS must be a whole number of milliseconds, at least 0, got "-1"'],
    [{ PORT: "70000" }, 'PORT must be a TCP port (1–65535), got "70000"'],
    [{ NODE_ENV: "staging" }, 'NODE_ENV must be development, production or test, got "staging"'],
    [{ VERDICT_RUNNER_NO_SANDBOX: "please" }, 'VERDICT_RUNNER_NO_SANDBOX must be 1 or 0 (true/false, yes/no), got "please"'],
    [
      { VERDICT_BROWSER_USER: "-u0" },
      'VERDICT_BROWSER_USER must be a system user name (up to 32 letters, digits, "_", "." or "-", not starting with "-"), got "-u0"',
    ],
    [{ VERDICT_RUNNER_CONCURRENCY: "0" }, 'VERDICT_RUNNER_CONCURRENCY must be a whole number of runs, at least 1, got "0"'],
    [
      { VERDICT_TRUSTED_ORIGINS: "https://a.example, not a url" },
      'VERDICT_TRUSTED_ORIGINS "not a url" is not a URL (expected e.g. https://verdict.example.org)',
    ],
    [{ VERDICT_BASE_URL: "ftp://x" }, 'VERDICT_BASE_URL must be a http or https URL such as https://verdict.example.org, got "ftp://x"'],
    [{ VERDICT_DATA_DIR: "/srv/verdict\n/data" }, 'VERDICT_DATA_DIR must be a file or folder path, without control characters, got "/srv/verdict\\n/data"'],
    [{ CHROMIUM_PATH: "/usr/bin/chromium\u0000" }, "CHROMIUM_PATH must be a file or folder path, without control characters"],
    [
      { VERDICT_RUNNER_PROXY_HOST: "http://10.0.0.7:24600" },
      'VERDICT_RUNNER_PROXY_HOST must be a host name or IP address, without scheme or port (e.g. 10.0.0.5), got "http://10.0.0.7:24600"',
    ],
    [{ VERDICT_RUNNER_PROXY_HOST: "[::1]" }, "VERDICT_RUNNER_PROXY_HOST must be a host name or IP address, without scheme or port"],
    [{ VERDICT_DEBUG: "verbose" }, 'VERDICT_DEBUG must be 1 or 0 (true/false, yes/no), got "verbose"'],
    [{ NEXT_RUNTIME: "bun" }, 'NEXT_RUNTIME must be nodejs or edge, got "bun"'],
    [{ VERDICT_JUDGE_ALLOWED_HOSTS: "gpu.lab:8000, https://x.lab" }, 'VERDICT_JUDGE_ALLOWED_HOSTS entry "https://x.lab" is not a host or host:port'],
    [
      { VERDICT_RUNNER_ALLOWED_DESTINATIONS: "wiki.lab" },
      'VERDICT_RUNNER_ALLOWED_DESTINATIONS "wiki.lab" is not a host:port (a port is required, no wildcards)',
    ],
  ])("%j", (env, message) => {
    expect(problems(env as Record<string, string>)).toEqual([expect.stringContaining(message)]);
    expect(() => loadConfig(env as Record<string, string>)).toThrow(message);
  });

  it("reports every problem at once, one line each", () => {
    const env = { VERDICT_S3_ENDPOINT: "nope", PORT: "x", VERDICT_ZIP_MAX_RATIO: "lots" };
    expect(problems(env)).toEqual([
      expect.stringMatching(/^PORT /),
      expect.stringMatching(/^VERDICT_ZIP_MAX_RATIO /),
      expect.stringMatching(/^VERDICT_S3_ENDPOINT /),
    ]);
    expect(() => readEnvironment(env)).toThrow(/^3 configuration problems:\n {2}/);
  });
});

describe("the table of variables in docs/configuration.md", () => {
  const page = fs.readFileSync(path.resolve(__dirname, "..", "..", "docs", "configuration.md"), "utf8");

  it("is the one the schema generates (run `npx tsx scripts/env-table.ts` after changing a variable)", () => {
    const start = page.indexOf(ENV_TABLE_START);
    const end = page.indexOf(ENV_TABLE_END);
    expect(start, "docs/configuration.md lacks the env-table markers").toBeGreaterThan(0);
    expect(page.slice(start + ENV_TABLE_START.length, end).trim()).toBe(environmentTableMarkdown());
  });

  it("is the only list: the README and the pages under docs/ name no product variable the schema does not know", () => {
    const root = path.resolve(__dirname, "..", "..");
    const pages = [
      "README.md",
      ...fs
        .readdirSync(path.join(root, "docs"), { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".md"))
        .map((f) => path.join("docs", f)),
    ];
    expect(pages.length).toBeGreaterThan(10);
    const known = new Set(ENVIRONMENT_VARIABLES.map((v) => v.name));
    // Test-only switches (VERDICT_TEST_*, the browser e2e's VERDICT_E2E_*), the test run's build switch, the example
    // scripts' token (docs/guide/examples/), and families written with a placeholder or a wildcard.
    const outside = (name: string) => /^VERDICT_(TEST_|E2E_|SHARED_DIR$|BUILD_TYPES_CHECKED$|TOKEN$|JUDGE_KEY_|ZIP_MAX_$|S3_$)/.test(name);
    const unknown = pages.flatMap((file) => {
      const names = new Set([...fs.readFileSync(path.join(root, file), "utf8").matchAll(/\bVERDICT_[A-Z0-9_]+/g)].map((m) => m[0]));
      return [...names].filter((n) => !known.has(n) && !outside(n)).map((n) => `${file}: ${n}`);
    });
    expect(unknown).toEqual([]);
  });
});

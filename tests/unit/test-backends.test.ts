/**
 * The test helper's choice of database backends (VERDICT_TEST_BACKENDS) and when a missing PostgreSQL is a skip
 * and when a failure; the same rule for the other things tests need from the machine (tests/helpers/requirements.ts).
 */
import { describe, expect, it } from "vitest";
import { onOneEngine } from "../helpers/backends";
import { postgresSkipReason, testBackends } from "../helpers/postgres";
import { browserUserSkipReason, chromiumSkipReason, python3SkipReason, sharedSkipReason, titled } from "../helpers/requirements";

const env = (vars: Record<string, string>) => vars as NodeJS.ProcessEnv;

describe("VERDICT_TEST_BACKENDS", () => {
  it("defaults to SQLite and reads a comma-separated list", () => {
    expect(testBackends(env({}))).toEqual(["sqlite"]);
    expect(testBackends(env({ VERDICT_TEST_BACKENDS: "sqlite, postgres" }))).toEqual(["sqlite", "postgres"]);
  });

  it("refuses a backend it does not know", () => {
    expect(() => testBackends(env({ VERDICT_TEST_BACKENDS: "sqlite,mysql" }))).toThrow('VERDICT_TEST_BACKENDS: unknown backend "mysql"');
  });
});

describe("a test whose subject does not depend on the engine (onOneEngine)", () => {
  const both = env({ VERDICT_TEST_BACKENDS: "sqlite,postgres" });
  const ran: string[] = [];
  // Registered while this block is collected: only the first engine's registrar adds a test.
  onOneEngine("sqlite", both)("runs on the first engine of the list", () => void ran.push("sqlite"));
  onOneEngine("postgres", both)("is not registered on the other engines", () => void ran.push("postgres"));
  onOneEngine("postgres", env({ VERDICT_TEST_BACKENDS: "postgres,sqlite" }))(
    "runs on PostgreSQL when the list starts with it",
    () => void ran.push("pg first"),
  );

  it("ran once, on the first engine named, and is no skip on the others", () => {
    expect(ran).toEqual(["sqlite", "pg first"]);
  });
});

describe("without PostgreSQL binaries", () => {
  const missing = { VERDICT_PG_BIN: "/nonexistent/bin", PATH: "/nonexistent" };

  it("tests skip with a reason on a developer machine", () => {
    expect(postgresSkipReason(env(missing))).toMatch(/no PostgreSQL binaries .*apt-get install -y postgresql/);
  });

  it("CI, or asking for postgres, fails instead of skipping", () => {
    expect(() => postgresSkipReason(env({ ...missing, CI: "1" }))).toThrow("CI must test PostgreSQL");
    expect(() => postgresSkipReason(env({ ...missing, VERDICT_TEST_BACKENDS: "sqlite,postgres" }))).toThrow("VERDICT_TEST_BACKENDS asks for postgres");
  });
});

describe("without ../shared, Chromium, the browser user or python3", () => {
  const away = {
    VERDICT_SHARED_DIR: "/nonexistent/shared",
    CHROMIUM_PATH: "/nonexistent/chromium",
    VERDICT_BROWSER_USER: "no-such-browser-user",
    PATH: "/nonexistent",
  };

  it("tests skip with the reason and the fix on a developer machine", () => {
    expect(sharedSkipReason(["agreement"], env(away))).toMatch(
      /\.\.\/shared\/agreement is absent \(looked at \/nonexistent\/shared\/agreement; .*VERDICT_SHARED_DIR\)/,
    );
    expect(chromiumSkipReason(env(away))).toBe("no Chromium at /nonexistent/chromium (apt-get install -y chromium, or set CHROMIUM_PATH)");
    expect(browserUserSkipReason(env(away), 0)).toMatch(/as root without the browser user "no-such-browser-user" \(create it with scripts\/browser-user\.sh\)/);
    expect(browserUserSkipReason(env(away), 1000)).toBeNull();
    expect(python3SkipReason(env(away))).toMatch(/python3 is not installed/);
  });

  it("CI fails instead of skipping, naming what is missing", () => {
    const ci = env({ ...away, CI: "true" });
    expect(() => sharedSkipReason(["agreement"], ci)).toThrow(/^CI runs every test, but the shared reference material \.\.\/shared\/agreement is absent/);
    expect(() => chromiumSkipReason(ci)).toThrow("CI runs every test, but no Chromium at /nonexistent/chromium");
    expect(() => browserUserSkipReason(ci, 0)).toThrow('CI runs every test, but running as root without the browser user "no-such-browser-user"');
    expect(() => python3SkipReason(ci)).toThrow("CI runs every test, but python3 is not installed");
  });

  it("names the skip in the block's title", () => {
    expect(titled("runs", null)).toBe("runs");
    expect(titled("runs", "no Chromium at /x")).toBe("runs (skipped: no Chromium at /x)");
  });
});

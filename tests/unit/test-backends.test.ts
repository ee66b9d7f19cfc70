/**
 * The test helper's choice of database backends (VERDICT_TEST_BACKENDS) and when a missing PostgreSQL is a skip
 * and when a failure.
 */
import { describe, expect, it } from "vitest";
import { postgresSkipReason, testBackends } from "../helpers/postgres";

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

/**
 * A real, throwaway PostgreSQL server for tests (the server itself is scripts/bench/postgres.ts, shared with
 * `npm run bench`): Debian's binaries, initdb into a temp folder, a free port on
 * 127.0.0.1, the unix socket inside the temp folder, durability off (fsync, synchronous commit) since nothing in it
 * outlives the test, stopped and removed afterwards.
 *
 * PostgreSQL refuses to run as root, so when the tests run as root the server runs as the unprivileged user
 * `verdict-pg` (created like scripts/browser-user.sh creates the browser's user), owning the temp folder.
 *
 * Which backends the integration suites cover is VERDICT_TEST_BACKENDS (comma-separated, default `sqlite`; CI sets
 * `sqlite,postgres`). Tests that exist to compare the dialects (the schema parity test) run whenever the binaries
 * are there. Without binaries they skip with a message, except in CI (`CI` set), where that is a failure.
 *
 * Per file: `const pg = await startPostgres()` in beforeAll, `await pg.stop()` in afterAll; `pg.createDatabase()`
 * gives each test its own empty database on the same server. From a vitest globalSetup: start it in `setup`,
 * `provide("postgresUrl", pg.url)`, and stop it in the teardown.
 */
import { findPostgresBinDir, MISSING_POSTGRES, startPostgres, type ThrowawayPostgres } from "../../scripts/bench/postgres";

export { findPostgresBinDir, startPostgres };
export type TestPostgres = ThrowawayPostgres;

export type TestBackend = "sqlite" | "postgres";
const BACKENDS: readonly TestBackend[] = ["sqlite", "postgres"];

/** The backends named by VERDICT_TEST_BACKENDS (default sqlite). */
export function testBackends(env: NodeJS.ProcessEnv = process.env): TestBackend[] {
  const raw = (env.VERDICT_TEST_BACKENDS ?? "").trim();
  if (raw === "") return ["sqlite"];
  const names = raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  for (const n of names) {
    if (!BACKENDS.includes(n as TestBackend))
      throw new Error(`VERDICT_TEST_BACKENDS: unknown backend "${n}" (expected a comma-separated list of ${BACKENDS.join(", ")})`);
  }
  return [...new Set(names as TestBackend[])];
}

/**
 * Null when a server can be started; otherwise why not, for `describe.skipIf` and its message.
 * In CI a missing PostgreSQL is an error: .ci/run installs it, so its absence means the setup is broken; so it is
 * when VERDICT_TEST_BACKENDS names postgres.
 */
export function postgresSkipReason(env: NodeJS.ProcessEnv = process.env): string | null {
  if (findPostgresBinDir(env)) return null;
  const reason = MISSING_POSTGRES;
  if (env.CI) throw new Error(`CI must test PostgreSQL, but found ${reason}`);
  if (testBackends(env).includes("postgres")) throw new Error(`VERDICT_TEST_BACKENDS asks for postgres, but found ${reason}`);
  return reason;
}

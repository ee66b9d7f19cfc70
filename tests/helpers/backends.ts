/**
 * Running a suite on every database backend the run asks for (VERDICT_TEST_BACKENDS: `sqlite` by default,
 * `sqlite,postgres` in CI). A test file does:
 *
 *   describeEachBackend("labelling", (backend) => {
 *     let ctx: TestContext;
 *     beforeEach(async () => { ctx = await createBackendContext(backend); });
 *     afterEach(async () => { await ctx.cleanup(); });
 *     it("…", async () => { … });
 *   });
 *
 * On PostgreSQL every context gets its own migrated database, copied from a template, on the one server of the
 * whole run (tests/helpers/postgres-global-setup.ts); `cleanup()` drops it. Without a run server (another config)
 * the file starts a throwaway server of its own on first use and stops it when its tests end.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, it } from "vitest";
import { closeDatabase } from "../../db/database";
import { closeQueueFor } from "../../server/services/jobs/installation-queue";
import { migratePostgres, openPostgres, closePostgres } from "../../db/postgres";
import { createAppContext } from "../../server/context";
import { createTestContext, type TestContext } from "./context";
import { postgresSkipReason, startPostgres, testBackends, type TestBackend } from "./postgres";
import { adminQuery, databaseUrl, dropDatabase, runPostgres, uniqueDatabaseName } from "./run-postgres";

export type { TestBackend } from "./postgres";
export { testPostgresServer } from "./run-postgres";

/** Where contexts' databases come from: a server URL and a migrated template on it. */
interface DatabaseSource {
  url: string;
  template: string;
}

let ownSource: Promise<DatabaseSource> | null = null;

/** The run's server and template, or (without one) a server of this file's own with a template migrated once. */
function databaseSource(): Promise<DatabaseSource> {
  const run = runPostgres();
  if (run) return Promise.resolve({ url: run.url, template: run.template });
  if (!ownSource) {
    const server = startPostgres();
    ownSource = (async () => {
      const s = await server;
      const template = uniqueDatabaseName("template");
      const migrator = openPostgres(await s.createDatabase(template), { maxConnections: 1 });
      try {
        await migratePostgres(migrator);
      } finally {
        await closePostgres(migrator);
      }
      return { url: s.url, template };
    })();
    afterAll(async () => {
      ownSource = null;
      await (await server.catch(() => null))?.stop();
    });
  }
  return ownSource;
}

/** A describe block per backend in VERDICT_TEST_BACKENDS, titled `title [backend]`. */
export function describeEachBackend(title: string, body: (backend: TestBackend) => void): void {
  for (const backend of testBackends()) {
    if (backend === "postgres") {
      const skip = postgresSkipReason();
      if (skip) {
        describe.skip(`${title} [postgres] (skipped: ${skip})`, () => body(backend));
        continue;
      }
    }
    describe(`${title} [${backend}]`, () => body(backend));
  }
}

/** What `it` takes: a title, the test, and its timeout. */
export type TestRegistrar = (name: string, fn: () => unknown, timeout?: number) => void;

/**
 * `it` on one engine only, for a test inside a describeEachBackend block whose subject does not depend on the database
 * engine (what Chromium, a policy or a web server does): it runs on the first engine of VERDICT_TEST_BACKENDS and is
 * not registered on the others, so it runs once per run instead of once per engine without showing as a skip. What
 * the engine decides (how rows are stored and read, queue claims, leases, concurrency across workers) keeps `it`
 * and runs on both. The file says why its tests qualify.
 */
export function onOneEngine(backend: TestBackend, env: NodeJS.ProcessEnv = process.env): TestRegistrar {
  if (!isFirstEngine(backend, env)) return () => {};
  return (name, fn, timeout) => it(name, fn, timeout);
}

/**
 * Whether `backend` is the engine that runs the tests registered with onOneEngine. A describe block all of whose tests
 * are such tests is registered only `if (isFirstEngine(backend))`: vitest fails a block left with no test.
 */
export function isFirstEngine(backend: TestBackend, env: NodeJS.ProcessEnv = process.env): boolean {
  return backend === testBackends(env)[0];
}

/** A describe block on one engine only (see onOneEngine), titled `title [backend]`: a file none of whose tests depends on it. */
export function describeOnOneEngine(title: string, body: (backend: TestBackend) => void): void {
  const backend = testBackends()[0] ?? "sqlite";
  describe(`${title} [${backend}]`, () => body(backend));
}

/** A throwaway installation on `backend`: its own database, data folder and screenshot store. */
export async function createBackendContext(backend: TestBackend, prefix = "verdict-test-"): Promise<TestContext> {
  if (backend === "sqlite") return createTestContext(prefix);
  const source = await databaseSource();
  const name = uniqueDatabaseName("ctx");
  // A copy of the migrated template costs a fraction of running the migrations for every test.
  await adminQuery(source.url, `create database "${name}" template "${source.template}"`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const ctx = createAppContext({
    dbPath: path.join(dir, "unused.db"),
    postgresUrl: databaseUrl(source.url, name),
    dataDir: dir,
    chromiumPath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
  });
  return {
    ...ctx,
    dir,
    async cleanup() {
      await closeQueueFor(ctx.db);
      await closeDatabase(ctx.db);
      await dropDatabase(source.url, name);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

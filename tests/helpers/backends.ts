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
 * On PostgreSQL every context gets its own migrated database on one throwaway server per test file (started on
 * first use, stopped when the file's tests end).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe } from "vitest";
import { closeDatabase } from "../../db/database";
import { closeQueueFor } from "../../server/services/jobs/installation-queue";
import { migratePostgres, openPostgres, closePostgres } from "../../db/postgres";
import { createAppContext } from "../../server/context";
import { createTestContext, type TestContext } from "./context";
import { postgresSkipReason, startPostgres, testBackends, type TestBackend, type TestPostgres } from "./postgres";

export type { TestBackend } from "./postgres";

let server: Promise<TestPostgres> | null = null;
let template: Promise<string> | null = null;
let databaseCounter = 0;

function sharedServer(): Promise<TestPostgres> {
  if (!server) {
    server = startPostgres();
    template = null;
    afterAll(async () => {
      const s = await server;
      server = null;
      await s?.stop();
    });
  }
  return server;
}

/**
 * A new database already migrated: copied from a template migrated once per server, which costs a fraction of
 * running the migrations for every test.
 */
async function freshMigratedDatabase(pgServer: TestPostgres): Promise<string> {
  template ??= (async () => {
    const url = await pgServer.createDatabase(`verdict_template_${process.pid}`);
    const migrator = openPostgres(url, { maxConnections: 1 });
    try {
      await migratePostgres(migrator);
    } finally {
      await closePostgres(migrator);
    }
    return `verdict_template_${process.pid}`;
  })();
  const templateName = await template;
  const name = `verdict_ctx_${process.pid}_${++databaseCounter}`;
  const admin = new pg.Client({ connectionString: pgServer.url });
  await admin.connect();
  try {
    await admin.query(`create database "${name}" template "${templateName}"`);
  } finally {
    await admin.end();
  }
  return pgServer.url.replace(/\/[^/]*$/, `/${name}`);
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

/** A throwaway installation on `backend`: its own database, data folder and screenshot store. */
export async function createBackendContext(backend: TestBackend, prefix = "verdict-test-"): Promise<TestContext> {
  if (backend === "sqlite") return createTestContext(prefix);
  const url = await freshMigratedDatabase(await sharedServer());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const ctx = createAppContext({ dbPath: path.join(dir, "unused.db"), postgresUrl: url, dataDir: dir, chromiumPath: process.env.CHROMIUM_PATH || "/usr/bin/chromium" });
  return {
    ...ctx,
    dir,
    async cleanup() {
      await closeQueueFor(ctx.db);
      await closeDatabase(ctx.db);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * vitest globalSetup: one throwaway PostgreSQL server for the whole run, with a template database migrated once.
 * Every test file reaches it through `inject("postgres")` (tests/helpers/backends.ts) and gets its own databases
 * on it, copied from the template, instead of starting a server per file.
 *
 * Started when the run covers PostgreSQL (VERDICT_TEST_BACKENDS names it, or CI) and the binaries are there;
 * otherwise files that need a server start their own as before (a local SQLite run that includes the schema
 * parity test), or skip or fail as tests/helpers/postgres.ts decides.
 */
import type { TestProject } from "vitest/node";
import { closePostgres, migratePostgres, openPostgres } from "../../db/postgres";
import { findPostgresBinDir, startPostgres, testBackends } from "./postgres";
import type { RunPostgres } from "./run-postgres";

/** Room for two vitest workers' pools (10 per installation, pg-boss's, and the children some tests start). */
const RUN_MAX_CONNECTIONS = 200;
const RUN_TEMPLATE_DATABASE = "verdict_run_template";

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  const wanted = testBackends().includes("postgres") || Boolean(process.env.CI);
  if (!wanted || !findPostgresBinDir()) {
    project.provide("postgres", null);
    return;
  }
  const server = await startPostgres({ maxConnections: RUN_MAX_CONNECTIONS });
  try {
    const migrator = openPostgres(await server.createDatabase(RUN_TEMPLATE_DATABASE), { maxConnections: 1 });
    try {
      await migratePostgres(migrator);
    } finally {
      await closePostgres(migrator);
    }
  } catch (e) {
    await server.stop();
    throw e;
  }
  const provided: RunPostgres = { url: server.url, port: server.port, template: RUN_TEMPLATE_DATABASE };
  project.provide("postgres", provided);
  return async () => {
    await server.stop();
  };
}

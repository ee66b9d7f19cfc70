import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export default defineConfig({
  root,
  resolve: { alias: { "@": root } },
  test: {
    include: ["tests/unit/**/*.test.ts", "tests/integration/**/*.test.ts", "tests/security/**/*.test.ts"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Under CI a failed test runs once more. A pass on that retry still shows: `npm test` lists every retried test
    // with its first error at its end (tests/helpers/retried-tests-reporter.ts), and each one is a finding to fix.
    retry: process.env.CI ? 1 : 0,
    pool: "forks",
    // The files of a worker share one module graph: each worker process imports the server (routers, services,
    // schema) once instead of once per file. Isolated, the imports alone took 425 of the 1,170 s the files spent in
    // a run of tests/integration and tests/security (vitest's own breakdown); shared, 37 s. Files therefore must not
    // depend on module state another file left: each makes its own database, server and data folder
    // (tests/helpers/backends.ts), and what a file changes in process.env it puts back.
    isolate: false,
    // A worker per core (vitest's default leaves one core free): most files spend their time waiting on databases,
    // child processes and browsers. `npm test` asks for one more (VERDICT_TEST_VITEST_WORKERS) now that only the typecheck
    // and the build run beside vitest; with the lint, the format check and a browser run beside it too, a worker more
    // made the run slower (docs/testing.md, "How long it takes").
    maxWorkers: Number(process.env.VERDICT_TEST_VITEST_WORKERS) || os.availableParallelism(),
    // One PostgreSQL server for the run, a database per test context on it (tests/helpers/backends.ts).
    globalSetup: ["tests/helpers/postgres-global-setup.ts"],
  },
});

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
    pool: "forks",
    // A worker per core (vitest's default leaves one core free): most files spend their time waiting on databases,
    // child processes and browsers, so two files side by side use the cores a single worker leaves idle.
    maxWorkers: os.availableParallelism(),
    // One PostgreSQL server for the run, a database per test context on it (tests/helpers/backends.ts).
    globalSetup: ["tests/helpers/postgres-global-setup.ts"],
  },
});

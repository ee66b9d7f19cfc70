/**
 * The database engines the annotation, judge and analytics benches run on: the embedded SQLite file, and
 * PostgreSQL on a throwaway server started for the run (scripts/bench/postgres.ts), one fresh migrated database
 * per bench. `npm run bench -- --backend sqlite|postgres|both` picks them (default both); PostgreSQL is skipped,
 * with the reason printed, when its binaries are absent.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { closeDatabase } from "../../db/database";
import { closePostgres, migratePostgres, openPostgres } from "../../db/postgres";
import type { VerdictConfig } from "../../server/config";
import { createAppContext, type AppContext } from "../../server/context";
import { findPostgresBinDir, MISSING_POSTGRES, startPostgres, type ThrowawayPostgres } from "./postgres";

export type BenchBackend = "sqlite" | "postgres";
export const BENCH_BACKENDS: readonly BenchBackend[] = ["sqlite", "postgres"];

/** A throwaway installation for one bench: its folder, and the configuration pointing at its database. */
export interface BenchInstallation {
  dir: string;
  config: VerdictConfig;
  /** Removes the folder (the PostgreSQL database goes with the server). */
  remove(): void;
}

export interface BenchEngine {
  backend: BenchBackend;
  /** A new installation with an empty, migrated database of this engine. */
  install(prefix: string): Promise<BenchInstallation>;
}

/**
 * Runs a bench on a new installation of `engine` (`prefix` names its folder) with the app context on it; the database
 * is closed and the installation removed after, however the bench ends.
 */
export async function onNewInstallation<T>(engine: BenchEngine, prefix: string, run: (app: AppContext) => Promise<T>): Promise<T> {
  const installation = await engine.install(prefix);
  const app = createAppContext(installation.config);
  try {
    return await run(app);
  } finally {
    await closeDatabase(app.db);
    installation.remove();
  }
}

/** `--backend` of `npm run bench`: which engines to run on. */
export function parseBackendOption(value: string): BenchBackend[] {
  if (value === "both") return [...BENCH_BACKENDS];
  if ((BENCH_BACKENDS as readonly string[]).includes(value)) return [value as BenchBackend];
  throw new Error(`--backend: expected sqlite, postgres or both, got "${value}"`);
}

export function sqliteEngine(): BenchEngine {
  return {
    backend: "sqlite",
    async install(prefix) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      return {
        dir,
        config: { dbPath: path.join(dir, "verdict.db"), dataDir: dir, chromiumPath: "/usr/bin/chromium" },
        remove: () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
  };
}

/** Why PostgreSQL cannot be benched here, or null. */
export function postgresUnavailable(): string | null {
  return findPostgresBinDir() ? null : MISSING_POSTGRES;
}

/** PostgreSQL on a throwaway server, started on first use; `stop` shuts it down. */
export function postgresEngine(): BenchEngine & { stop(): Promise<void> } {
  let server: Promise<ThrowawayPostgres> | null = null;
  let count = 0;
  return {
    backend: "postgres",
    async install(prefix) {
      server ??= startPostgres();
      const url = await (await server).createDatabase(`verdict_bench_${process.pid}_${++count}`);
      const migrator = openPostgres(url, { maxConnections: 1 });
      try {
        await migratePostgres(migrator);
      } finally {
        await closePostgres(migrator);
      }
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      return {
        dir,
        config: { dbPath: path.join(dir, "unused.db"), postgresUrl: url, dataDir: dir, chromiumPath: "/usr/bin/chromium" },
        remove: () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
    async stop() {
      const s = server;
      server = null;
      if (s) await (await s).stop();
    },
  };
}

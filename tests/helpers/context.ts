/**
 * Throwaway Verdict installations for tests: a temp folder with its own SQLite file and screenshot store.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { closeDatabase } from "../../db/database";
import { closeQueueFor } from "../../server/services/jobs/installation-queue";
import { createAppContext, type AppContext } from "../../server/context";
import { sharedRoot, sharedSkipReason } from "./requirements";

export interface TestContext extends AppContext {
  dir: string;
  /** Closes the database and removes the folder (PostgreSQL contexts close their pool, hence the promise). */
  cleanup(): void | Promise<void>;
}

export function createTestContext(prefix = "verdict-test-"): TestContext {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const ctx = createAppContext({ dbPath: path.join(dir, "verdict.db"), dataDir: dir, chromiumPath: process.env.CHROMIUM_PATH || "/usr/bin/chromium" });
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

/**
 * Path inside ../shared, or null when the shared material is absent (a plain clone); under CI its absence is an
 * error naming the path (tests/helpers/requirements.ts).
 */
export function sharedPath(...parts: string[]): string | null {
  return sharedSkipReason(parts) === null ? path.join(sharedRoot(), ...parts) : null;
}

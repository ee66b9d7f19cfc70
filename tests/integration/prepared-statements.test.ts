/**
 * The one "prepare once per connection" mechanism (executePrepared in db/database.ts) that the annotators' hot
 * queries and the job queue's claim share: the query is built once per database and reused with new values; a
 * prepared query run inside `withTransaction` sees the transaction's own writes and rolls back with it, also while
 * other transactions run the same query at the same time (PostgreSQL); and claims with different type filters on
 * one connection each get the right job.
 */
import { eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { executePrepared, rawGet, tablesOf, withTransaction, type Db } from "../../db/database";
import { claimNextJob, enqueueJobs } from "../../db/repositories/jobs";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";

describeEachBackend("statements prepared once per connection", (backend) => {
  let ctx: TestContext;
  let db: Db;
  beforeEach(async () => {
    ctx = await createBackendContext(backend);
    db = ctx.db;
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  async function setsNamed(name: string, built: { n: number }) {
    const { taskSets } = tablesOf(db);
    return executePrepared(
      db,
      "testTaskSetsByName",
      () => {
        built.n++;
        return db
          .select({ id: taskSets.id, name: taskSets.name })
          .from(taskSets)
          .where(eq(taskSets.name, sql.placeholder("name")));
      },
      { name },
    );
  }

  it("runs one query with new values each time, built once per database", async () => {
    const { taskSets } = tablesOf(db);
    await db.insert(taskSets).values([
      { name: "a", benchmark: "webvoyager" },
      { name: "b", benchmark: "webvoyager" },
    ]);
    const built = { n: 0 };
    expect((await setsNamed("a", built)).map((r) => r.name)).toEqual(["a"]);
    expect((await setsNamed("b", built)).map((r) => r.name)).toEqual(["b"]);
    expect(await setsNamed("c", built)).toEqual([]);
    expect(built.n).toBe(1);
  });

  it("inside a transaction sees its writes, and nothing of a rolled-back one", async () => {
    const { taskSets } = tablesOf(db);
    const built = { n: 0 };
    await expect(
      withTransaction(db, async () => {
        await db.insert(taskSets).values({ name: "inside", benchmark: "webvoyager" });
        expect(await setsNamed("inside", built)).toHaveLength(1);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await setsNamed("inside", built)).toEqual([]);
  });

  // Only PostgreSQL runs transactions side by side; SQLite's take turns.
  if (backend === "postgres")
    it("runs the one built query on each caller's own connection while several transactions are open at once", async () => {
      const { taskSets } = tablesOf(db);
      let built = 0;
      const backendOfPrepared = () =>
        executePrepared(
          db,
          "testBackendPid",
          () => {
            built++;
            return db
              .select({ pid: sql<number>`pg_backend_pid()` })
              .from(taskSets)
              .limit(1);
          },
          {},
        );
      await db.insert(taskSets).values({ name: "any", benchmark: "webvoyager" });
      let arrived = 0;
      let release!: () => void;
      const allOpen = new Promise<void>((r) => (release = r));
      const seen = await Promise.all(
        [1, 2, 3].map(() =>
          withTransaction(db, async () => {
            const own = (await rawGet<{ pid: number }>(db, sql`select pg_backend_pid() as pid`))!.pid;
            if (++arrived === 3) release();
            await allOpen;
            return { own, prepared: (await backendOfPrepared())[0]!.pid };
          }),
        ),
      );
      for (const s of seen) expect(s.prepared).toBe(s.own);
      expect(new Set(seen.map((s) => s.own)).size).toBe(3);
      expect(built).toBe(1);
    });

  it("claims by type filter through one prepared claim, each filter getting its own job", async () => {
    await enqueueJobs(db, [
      { type: "import", groupKey: "g1", payload: {} },
      { type: "judge", groupKey: "g1", payload: {} },
      { type: "runner", groupKey: "g2", payload: {} },
    ]);
    expect((await claimNextJob(db, "w", 60_000, { types: ["judge"] }))?.type).toBe("judge");
    expect((await claimNextJob(db, "w", 60_000, { types: ["runner", "import"] }))?.type).toBe("import");
    expect(await claimNextJob(db, "w", 60_000, { types: ["judge"] })).toBeUndefined();
    expect((await claimNextJob(db, "w", 60_000, { groupKey: "g2" }))?.type).toBe("runner");
    expect(await claimNextJob(db, "w", 60_000)).toBeUndefined();
  });
});

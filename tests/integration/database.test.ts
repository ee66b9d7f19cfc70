/**
 * The dialect-neutral database layer (db/database.ts) that every repository is written against: the same code
 * reads and writes the same rows on SQLite and PostgreSQL, transactions commit or roll back as a whole, a nested
 * transaction joins the outer one, and concurrent read-then-write transactions keep their meaning (queued on
 * SQLite, serializable and retried on PostgreSQL).
 */
import { count, eq } from "drizzle-orm";
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { affectedRows, dialectOf, first, inTransaction, rawAll, rawGet, rawRun, sqlFor, tablesOf, withTransaction, type Db } from "../../db/database";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";

describeEachBackend("database layer", (backend) => {
  let ctx: TestContext;
  let db: Db;
  beforeEach(async () => {
    ctx = await createBackendContext(backend);
    db = ctx.db;
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  async function taskSetCount(benchmark: string): Promise<number> {
    const { taskSets } = tablesOf(db);
    const row = await first(db.select({ n: count() }).from(taskSets).where(eq(taskSets.benchmark, benchmark)).limit(1));
    return Number(row?.n ?? 0);
  }

  it("names its dialect and reads back what it wrote in the same shapes", async () => {
    expect(dialectOf(db)).toBe(backend);
    const { taskSets, tasks } = tablesOf(db);
    const set = (await db.insert(taskSets).values({ name: "shapes", benchmark: "webvoyager" }).returning())[0]!;
    expect(set.createdAt).toBeInstanceOf(Date);
    expect(Math.abs(set.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
    await db
      .insert(tasks)
      .values({ taskSetId: set.id, externalId: "t1", intent: "find", contentHash: "h", tags: ["a", "b"], extra: { nested: { label: "x", score: 2.5 } } });
    const task = await first(db.select().from(tasks).where(eq(tasks.externalId, "t1")).limit(1));
    expect(task?.tags).toEqual(["a", "b"]);
    expect(task?.extra).toEqual({ nested: { label: "x", score: 2.5 } });
    expect(await first(db.select().from(tasks).where(eq(tasks.externalId, "absent")).limit(1))).toBeUndefined();
    const updated = await db.update(tasks).set({ intent: "find again" }).where(eq(tasks.taskSetId, set.id));
    expect(affectedRows(updated)).toBe(1);
  });

  it("runs hand-written SQL and the expressions the dialects spell differently", async () => {
    const { taskSets, tasks } = tablesOf(db);
    const d = sqlFor(db);
    const set = (await db.insert(taskSets).values({ name: "raw", benchmark: "b" }).returning())[0]!;
    await db.insert(tasks).values([
      { taskSetId: set.id, externalId: "a", intent: "i", contentHash: "h", extra: { nested: { label: "x", score: 2.5 } } },
      { taskSetId: set.id, externalId: "b", intent: "i", contentHash: "h", extra: { nested: { label: "y", score: 4 } } },
    ]);
    const rows = await rawAll<{ label: string; score: number }>(
      db,
      sql`select ${d.jsonText(tasks.extra, "nested", "label")} as label, ${d.jsonNumber(tasks.extra, "nested", "score")} as score from ${tasks} order by ${tasks.externalId}`,
    );
    expect(rows.map((r) => [r.label, Number(r.score)])).toEqual([
      ["x", 2.5],
      ["y", 4],
    ]);
    const joined = await rawGet<{ ids: string }>(db, sql`select ${d.groupConcat(sql`${tasks.externalId}`, "|")} as ids from ${tasks}`);
    expect(joined?.ids.split("|").sort()).toEqual(["a", "b"]);
    const now = await rawGet<{ t: number | string }>(db, sql`select ${d.nowMs()} as t`);
    expect(Math.abs(Number(now?.t) - Date.now())).toBeLessThan(60_000);
    expect(await rawRun(db, sql`update ${tasks} set intent = 'changed' where ${tasks.externalId} = 'a'`)).toBe(1);
    expect(() => d.jsonText(tasks.extra, "x'); drop table tasks; --")).toThrow(/letters, digits/);
  });

  it("commits a transaction as a whole, and rolls it back as a whole when it throws", async () => {
    const { taskSets } = tablesOf(db);
    await withTransaction(db, async () => {
      expect(inTransaction(db)).toBe(true);
      await db.insert(taskSets).values({ name: "kept-1", benchmark: "tx" });
      await db.insert(taskSets).values({ name: "kept-2", benchmark: "tx" });
    });
    expect(inTransaction(db)).toBe(false);
    await expect(
      withTransaction(db, async () => {
        await db.insert(taskSets).values({ name: "lost-1", benchmark: "tx" });
        // A nested transaction joins the outer one: its write is lost with it.
        await withTransaction(db, async (inner) => {
          await inner.insert(taskSets).values({ name: "lost-2", benchmark: "tx" });
        });
        throw new Error("the reviewer cancelled");
      }),
    ).rejects.toThrow("the reviewer cancelled");
    expect(await taskSetCount("tx")).toBe(2);
  });

  /** Lets every pending callback run: whatever could proceed has, whatever still waits is blocked. */
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  };

  it("keeps concurrent read-then-write transactions from both acting on the same read", async () => {
    const { taskSets } = tablesOf(db);
    // Each claims the "race" slot only if nobody holds it yet; exactly one must succeed, however they interleave.
    // The first holds its read open until the other two have been started: they meet it, every time.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let firstRead!: () => void;
    const firstHasRead = new Promise<void>((r) => (firstRead = r));
    const events: string[] = [];
    let bodies = 0;
    let reads = 0;
    let allRead!: () => void;
    const threeHaveRead = new Promise<void>((r) => (allRead = r));
    const claim = (name: string) =>
      withTransaction(db, async () => {
        bodies++;
        events.push(`${name} reads`);
        const taken = await taskSetCount("race");
        if (++reads === 3) allRead();
        if (name === "first") firstRead();
        await gate;
        if (taken === 0) await db.insert(taskSets).values({ name, benchmark: "race" });
        events.push(`${name} ends`);
        return taken === 0;
      });
    const first = claim("first");
    await firstHasRead;
    const others = [claim("second"), claim("third")];
    if (backend === "sqlite") {
      // The other two wait for the first transaction: neither has read yet.
      await settle();
      expect(events).toEqual(["first reads"]);
    } else {
      // The other two read beside the first.
      await threeHaveRead;
    }
    release();
    const results = await Promise.all([first, ...others]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await taskSetCount("race")).toBe(1);
    if (backend === "sqlite") {
      // They met: the later two waited for the first to end before reading (transactions take turns).
      expect(events.slice(0, 2)).toEqual(["first reads", "first ends"]);
      expect(bodies).toBe(3);
    } else {
      // They met: the later two read while the first held its read open, and serializable isolation made at least
      // one of them start again.
      expect(events.slice(0, 3).sort()).toEqual(["first reads", "second reads", "third reads"]);
      expect(bodies).toBeGreaterThan(3);
    }
  });

  it("does not let another request see a transaction half-done", async () => {
    const { taskSets } = tablesOf(db);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let halfDone!: () => void;
    const firstWritten = new Promise<void>((r) => (halfDone = r));
    const writer = withTransaction(db, async () => {
      await db.insert(taskSets).values({ name: "half-1", benchmark: "half" });
      halfDone();
      await gate;
      await db.insert(taskSets).values({ name: "half-2", benchmark: "half" });
    });
    await firstWritten;
    let readerStarted = false;
    const seen = withTransaction(db, async () => {
      readerStarted = true;
      return taskSetCount("half");
    });
    if (backend === "sqlite") {
      // The reader waits for the writer's transaction to end, then sees all of it.
      await settle();
      expect(readerStarted).toBe(false);
      release();
      await writer;
      expect(await seen).toBe(2);
    } else {
      // The reader runs beside the open transaction and sees none of it.
      expect(await seen).toBe(0);
      release();
      await writer;
    }
    expect(await taskSetCount("half")).toBe(2);
  });

  it("keeps a plain write from another request out of a transaction that rolls back", async () => {
    const { taskSets } = tablesOf(db);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let halfDone!: () => void;
    const firstWritten = new Promise<void>((r) => (halfDone = r));
    const failing = withTransaction(db, async () => {
      await db.insert(taskSets).values({ name: "rolled-back", benchmark: "mixed" });
      halfDone();
      await gate;
      throw new Error("import failed half-way");
    });
    await firstWritten;
    // Another request writes without a transaction while the first one is open.
    let plainDone = false;
    const plain = db
      .insert(taskSets)
      .values({ name: "independent", benchmark: "mixed" })
      .then(() => {
        plainDone = true;
        return "written";
      });
    if (backend === "sqlite") {
      // It waits for the open transaction (one connection), so it cannot be rolled back with it.
      await settle();
      expect(plainDone).toBe(false);
    } else {
      // Its own connection: it commits while the transaction is still open.
      expect(await plain).toBe("written");
    }
    release();
    await expect(failing).rejects.toThrow("import failed half-way");
    expect(await plain).toBe("written");
    const names = (await db.select({ name: taskSets.name }).from(taskSets).where(eq(taskSets.benchmark, "mixed"))).map((r) => r.name);
    expect(names).toEqual(["independent"]);
  });

  it("rethrows the engine's own error for a failed statement, with its code and without the values", async () => {
    const { taskSets } = tablesOf(db);
    await db.insert(taskSets).values({ name: "unique-name", benchmark: "private-value-1" });
    const error = (await db
      .insert(taskSets)
      .values({ name: "unique-name", benchmark: "private-value-2" })
      .then(
        () => null,
        (e: unknown) => e,
      )) as { code?: string; message: string; query?: string } | null;
    expect(error).not.toBeNull();
    expect(String(error!.code)).toMatch(backend === "sqlite" ? /^SQLITE_CONSTRAINT/ : /^23505$/);
    expect(error!.message).not.toContain("private-value-2");
    expect(error!.message).not.toMatch(/^Failed query/);
    expect(error!.query).toMatch(/insert into "task_sets"/);
  });
});

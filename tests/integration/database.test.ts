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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    await db.insert(tasks).values({ taskSetId: set.id, externalId: "t1", intent: "find", contentHash: "h", tags: ["a", "b"], extra: { nested: { label: "x", score: 2.5 } } });
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

  it("keeps concurrent read-then-write transactions from both acting on the same read", async () => {
    const { taskSets } = tablesOf(db);
    // Each claims the "race" slot only if nobody holds it yet; exactly one must succeed, however they interleave.
    const claim = (name: string) =>
      withTransaction(db, async () => {
        const taken = await taskSetCount("race");
        await sleep(15);
        if (taken === 0) await db.insert(taskSets).values({ name, benchmark: "race" });
        return taken === 0;
      });
    const results = await Promise.all([claim("first"), claim("second"), claim("third")]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await taskSetCount("race")).toBe(1);
  });

  it("does not let another request see a transaction half-done", async () => {
    const { taskSets } = tablesOf(db);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const writer = withTransaction(db, async () => {
      await db.insert(taskSets).values({ name: "half-1", benchmark: "half" });
      await gate;
      await db.insert(taskSets).values({ name: "half-2", benchmark: "half" });
    });
    await sleep(20);
    const seen = withTransaction(db, async () => taskSetCount("half"));
    await sleep(20);
    release();
    await writer;
    expect([0, 2]).toContain(await seen);
    expect(await taskSetCount("half")).toBe(2);
  });

  it("keeps a plain write from another request out of a transaction that rolls back", async () => {
    const { taskSets } = tablesOf(db);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const failing = withTransaction(db, async () => {
      await db.insert(taskSets).values({ name: "rolled-back", benchmark: "mixed" });
      await gate;
      throw new Error("import failed half-way");
    });
    await sleep(20);
    // Another request writes without a transaction while the first one is open.
    const plain = db.insert(taskSets).values({ name: "independent", benchmark: "mixed" }).then(() => "written");
    await sleep(20);
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

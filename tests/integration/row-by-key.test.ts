/**
 * The row-by-key helpers every repository's get, update and delete go through (db/database.ts: rowBy,
 * preparedRowBy, updateBy, deleteBy), on SQLite and PostgreSQL: a key of one or several columns picks out its row
 * and no other, a prepared lookup answers for each value it is given, and a key that could match every row (empty,
 * a column the table lacks, a missing value) is refused by name instead of reading or changing rows it was not meant to.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { deleteBy, preparedRowBy, rowBy, tablesOf, updateBy } from "../../db/database";
import { ensureTaskSet, upsertTask } from "../../db/repositories/catalog";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";

describeEachBackend("rows by key", (backend) => {
  let ctx: TestContext;
  let setA: number;
  let setB: number;
  beforeEach(async () => {
    ctx = await createBackendContext(backend);
    setA = await ensureTaskSet(ctx.db, { name: "set-a", benchmark: "demo" });
    setB = await ensureTaskSet(ctx.db, { name: "set-b", benchmark: "demo" });
    for (const set of [setA, setB])
      for (const externalId of ["t1", "t2"]) await upsertTask(ctx.db, set, { externalId, intent: `${set}/${externalId}`, contentHash: "h" });
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  it("finds the one row whose columns hold every value of the key", async () => {
    const { tasks, taskSets } = tablesOf(ctx.db);
    expect((await rowBy(ctx.db, tasks, { taskSetId: setB, externalId: "t2" }))?.intent).toBe(`${setB}/t2`);
    expect((await rowBy(ctx.db, tasks, { taskSetId: setA, externalId: "t2" }))?.intent).toBe(`${setA}/t2`);
    expect(await rowBy(ctx.db, tasks, { taskSetId: setA, externalId: "t3" })).toBeUndefined();
    expect((await rowBy(ctx.db, taskSets, { name: "set-b" }))?.id).toBe(setB);
  });

  it("answers a prepared lookup for each value it is given, not the first one again", async () => {
    const { tasks } = tablesOf(ctx.db);
    const found = [];
    for (const [taskSetId, externalId] of [
      [setA, "t1"],
      [setB, "t1"],
      [setB, "t2"],
      [setA, "t9"],
    ] as const) {
      found.push((await preparedRowBy(ctx.db, "test_taskByKey", tasks, { taskSetId, externalId }))?.intent);
    }
    expect(found).toEqual([`${setA}/t1`, `${setB}/t1`, `${setB}/t2`, undefined]);
  });

  it("updates and deletes only the rows the key picks out, and says how many", async () => {
    const { tasks } = tablesOf(ctx.db);
    expect(await updateBy(ctx.db, tasks, { taskSetId: setA, externalId: "t1" }, { intent: "changed" })).toBe(1);
    expect((await rowBy(ctx.db, tasks, { taskSetId: setA, externalId: "t1" }))?.intent).toBe("changed");
    expect((await rowBy(ctx.db, tasks, { taskSetId: setB, externalId: "t1" }))?.intent).toBe(`${setB}/t1`);
    expect(await updateBy(ctx.db, tasks, { taskSetId: setA, externalId: "nope" }, { intent: "x" })).toBe(0);
    expect(await deleteBy(ctx.db, tasks, { taskSetId: setB })).toBe(2);
    expect(await rowBy(ctx.db, tasks, { taskSetId: setB, externalId: "t1" })).toBeUndefined();
    expect(await rowBy(ctx.db, tasks, { taskSetId: setA, externalId: "t2" })).toBeDefined();
  });

  it("refuses a key that would match every row, naming the table and the column", async () => {
    const { tasks } = tablesOf(ctx.db);
    await expect(rowBy(ctx.db, tasks, {})).rejects.toThrow(/tasks: a row key needs at least one column/);
    await expect(deleteBy(ctx.db, tasks, {})).rejects.toThrow(/tasks: a row key needs at least one column/);
    await expect(updateBy(ctx.db, tasks, { externalId: undefined }, { intent: "x" })).rejects.toThrow(
      /tasks\.externalId: a row key needs a value, got undefined/,
    );
    await expect(rowBy(ctx.db, tasks, { taskSetId: null as unknown as number })).rejects.toThrow(/tasks\.taskSetId: a row key needs a value, got null/);
    await expect(rowBy(ctx.db, tasks, { nosuch: 1 } as never)).rejects.toThrow(/tasks has no column "nosuch"/);
    // Nothing was changed by the refused calls.
    expect(await rowBy(ctx.db, tasks, { taskSetId: setA, externalId: "t1" })).toBeDefined();
    expect(await rowBy(ctx.db, tasks, { taskSetId: setB, externalId: "t2" })).toBeDefined();
  });
});

/**
 * Closing a database stops what runs on it first: a job queue started on it (pg-boss keeps timers on the pool) is
 * closed before the connection ends, so the composition root and the tests need not know which queues exist.
 * The mechanism is the same code on both engines (closeDatabase runs the stops, then ends the connection or pool);
 * SQLite is used here because its connection can be inspected after it closed.
 */
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { closeDatabase, onDatabaseClose, sqliteClient } from "../../db/database";
import { queueFor } from "../../server/services/jobs/installation-queue";
import { createTestContext, type TestContext } from "../helpers/context";

let ctx: TestContext | null = null;
afterEach(() => {
  if (ctx) fs.rmSync(ctx.dir, { recursive: true, force: true });
  ctx = null;
});

describe("closing a database", () => {
  it("runs what registered to stop, in order, while the connection is still open, and only once", async () => {
    ctx = createTestContext("verdict-close-");
    const db = ctx.db;
    const seen: string[] = [];
    onDatabaseClose(db, async () => {
      seen.push(`first, open: ${sqliteClient(db).open}`);
    });
    onDatabaseClose(db, async () => {
      seen.push(`second, open: ${sqliteClient(db).open}`);
    });
    await closeDatabase(db);
    expect(seen).toEqual(["first, open: true", "second, open: true"]);
    expect(sqliteClient(db).open).toBe(false);
    await closeDatabase(db);
    expect(seen).toHaveLength(2);
  });

  it("closes the installation's job queue before the connection, and forgets it", async () => {
    ctx = createTestContext("verdict-close-");
    const db = ctx.db;
    const queue = await queueFor(db);
    const events: string[] = [];
    const close = queue.close.bind(queue);
    queue.close = async () => {
      events.push(`queue closed, database open: ${sqliteClient(db).open}`);
      await close();
    };
    await closeDatabase(db);
    expect(events).toEqual(["queue closed, database open: true"]);
    // A later queueFor on the same database object starts a queue of its own instead of handing back the closed one.
    expect(await queueFor(db)).not.toBe(queue);
  });
});

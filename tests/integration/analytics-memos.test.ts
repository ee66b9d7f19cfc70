/**
 * Bootstrap results kept across restarts (server/services/analytics/memos.ts, table analytics_memos): a view computed
 * through another connection, as a restarted server or a second web server computes it, reads the stored results
 * instead of drawing them again, and every view equals a computation from an empty store after each kind of write.
 * A read-only database (a read replica) is asked to store once, says so in the log, and every view still answers.
 */
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { openDatabase } from "../../db/client";
import { closeDatabase, rawAll, rawRun, type Db } from "../../db/database";
import { openPostgresDatabase } from "../../db/postgres";
import { countMemos } from "../../db/repositories/analytics-memos";
import { humanAgreement, judgeMeasures } from "../../server/services/analytics";
import { analyticsMemosWritable, flushAnalyticsMemos } from "../../server/services/analytics/memos";
import superjson from "superjson";
import type { TestContext } from "../helpers/context";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { seedAnalyticsRows, type AnalyticsFixture } from "../helpers/analytics-fixture";

describeEachBackend("analytics bootstrap results kept across restarts", (backend) => {
  let ctx: TestContext;
  let fx: AnalyticsFixture;
  const opened: Db[] = [];

  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-analytics-memos-");
    fx = await seedAnalyticsRows(ctx.db);
  });
  afterEach(async () => {
    for (const db of opened.splice(0)) await closeDatabase(db);
    await ctx.cleanup();
  });

  /** A new connection to the same database: what a restarted server or another process starts with. */
  function restarted(): Db {
    const db = backend === "postgres" ? openPostgresDatabase(ctx.config.postgresUrl!).db : openDatabase(ctx.config.dbPath);
    opened.push(db);
    return db;
  }

  /** A connection that refuses writes as a read replica does: query_only on SQLite, read-only transactions on PostgreSQL. */
  async function readOnlyReplica(): Promise<Db> {
    if (backend === "sqlite") {
      const db = restarted();
      await rawRun(db, sql`pragma query_only = on`);
      return db;
    }
    const db = openPostgresDatabase(`${ctx.config.postgresUrl!}?options=${encodeURIComponent("-c default_transaction_read_only=on")}`).db;
    opened.push(db);
    return db;
  }

  /** The views that draw bootstraps: human agreement split by site (α, Fleiss' κ) and the judges' measures by site. */
  async function views(db: Db): Promise<unknown> {
    const humans = await humanAgreement(db, fx.campaignId, "site");
    const judge = await judgeMeasures(db, { scope: {}, unparseable: "exclude", by: "site" });
    await flushAnalyticsMemos(db);
    return { humans, judge };
  }

  /** The same views from an empty store and an empty memory. */
  async function fresh(): Promise<unknown> {
    await rawRun(ctx.db, sql`delete from analytics_memos`);
    return views(restarted());
  }

  it("stores what a view drew, and a restarted process uses it instead of drawing again", async () => {
    const first = await views(ctx.db);
    const kinds = await rawAll<{ kind: string }>(ctx.db, sql`select distinct kind from analytics_memos order by kind`);
    expect(kinds.map((k) => k.kind)).toEqual(["clustered-error-rates", "coefficient-interval"]);
    const stored = await countMemos(ctx.db);
    expect(await views(restarted())).toStrictEqual(first);
    // Nothing drawn again, so nothing new stored.
    expect(await countMemos(ctx.db)).toBe(stored);

    // A stored interval altered by hand shows through: the restarted process read it rather than drawing.
    const rows = await rawAll<{ id: string; value: string }>(ctx.db, sql`select id, value from analytics_memos where kind = 'coefficient-interval'`);
    for (const r of rows)
      await rawRun(ctx.db, sql`update analytics_memos set value = ${superjson.stringify({ ...superjson.parse<object>(r.value), n: 4242 })} where id = ${r.id}`);
    expect(JSON.stringify(await humanAgreement(restarted(), fx.campaignId, "site"))).toContain('"n":4242');
  });

  it("gives after each kind of write what a computation from an empty store gives", async () => {
    const db = ctx.db;
    await views(db);
    const writes: [string, () => Promise<unknown>][] = [
      [
        "a label",
        () => rawRun(db, sql`update labels set verdict = 'success', category = null where id = (select min(id) from labels where verdict = 'failure')`),
      ],
      [
        "a consolidated label",
        () =>
          rawRun(db, sql`update consolidated_labels set verdict = 'failure' where id = (select min(id) from consolidated_labels where verdict = 'success')`),
      ],
      [
        "a judge verdict",
        () =>
          rawRun(
            db,
            sql`update evaluator_verdicts set verdict = case verdict when 'success' then 'failure' else 'success' end where id = (select min(id) from evaluator_verdicts where evaluator_key = ${fx.judgeKey})`,
          ),
      ],
      ["a task's site", () => rawRun(db, sql`update tasks set site = 'Elsewhere' where id = (select task_id from trajectories where id = ${fx.ids.T2!})`)],
    ];
    for (const [what, write] of writes) {
      await write();
      const kept = await views(db);
      expect(kept, `after ${what}`).toStrictEqual(await fresh());
    }
  });

  it("answers on a read-only database, stores nothing there, says so once in the log and stops asking", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const replica = await readOnlyReplica();
      await expect(rawRun(replica, sql`delete from analytics_memos`)).rejects.toThrow(/read-?only/i);
      const expected = await fresh();
      await rawRun(ctx.db, sql`delete from analytics_memos`);
      expect(await views(replica)).toStrictEqual(expected);
      expect(await countMemos(ctx.db)).toBe(0);
      expect(analyticsMemosWritable(replica)).toBe(false);
      const refusals = warn.mock.calls.filter((c) => String(c[0]).includes("read-only"));
      expect(refusals).toHaveLength(1);

      // A label written on the primary makes the replica draw again: still right, nothing more asked of the replica.
      await rawRun(ctx.db, sql`update labels set verdict = 'success', category = null where id = (select min(id) from labels where verdict = 'failure')`);
      const after = await views(replica);
      expect(after).toStrictEqual(await fresh());
      expect(warn.mock.calls.filter((c) => String(c[0]).includes("read-only"))).toHaveLength(1);
      // The writable database keeps storing.
      expect(analyticsMemosWritable(ctx.db)).toBe(true);
    } finally {
      warn.mockRestore();
    }
  });
});

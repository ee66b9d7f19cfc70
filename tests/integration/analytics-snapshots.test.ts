/**
 * The analytics' starting data kept across restarts (server/services/analytics/snapshots.ts, table
 * analytics_snapshots): a restarted process (a new connection to the same database) reads the stored trajectory facts,
 * references, verdict sets and campaign labels instead of reading the tables again (the recomputations are counted,
 * not timed), and after every kind of write (a label, a consolidated label, a verdict, an import, a live run's
 * outcome, a deletion, a dedupe merge, a task flag) its views equal a computation from nothing stored.
 */
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openDatabase } from "../../db/client";
import { closeDatabase, rawAll, rawRun, tablesOf, type Db } from "../../db/database";
import { openPostgresDatabase } from "../../db/postgres";
import { listSnapshots } from "../../db/repositories/analytics-snapshots";
import { deleteTrajectory } from "../../db/repositories/trajectories";
import { upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { analyticsOverview, humanAgreement, humanConsensus, judgeAgreementDetail, judgeAgreementList } from "../../server/services/analytics";
import {
  decodeSnapshot,
  encodeSnapshot,
  flushAnalyticsSnapshots,
  packSnapshot,
  snapshotStats,
  SNAPSHOT_FORMAT,
  STORE_INTERVAL_MS,
  unpackSnapshot,
} from "../../server/services/analytics/snapshots";
import type { TestContext } from "../helpers/context";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { seedAnalyticsRows, type AnalyticsFixture } from "../helpers/analytics-fixture";

describe("snapshot encoding", () => {
  it("gives back typed arrays, Maps, undefined, NaN and nested objects as they were", () => {
    const value = {
      a: new Int32Array([1, -2, 2 ** 31 - 1]),
      b: new Uint8Array([0, 255, 7]),
      c: new Int8Array([-1, 3]),
      f: new Float64Array([0.1, -Infinity]),
      empty: new Int32Array(0),
      m: new Map([["lang", { values: ["en", "de"], code: new Int32Array([0, 1, -1]) }]]),
      u: undefined,
      n: [NaN, Infinity, -0.5, null, "text", true],
      $tagLike: { $t: "Int32Array", o: 0, n: 1 },
    };
    const back = decodeSnapshot(encodeSnapshot(value)) as typeof value;
    expect(back).toStrictEqual(value);
    expect("u" in back).toBe(true);
    expect(back.a).toBeInstanceOf(Int32Array);
    expect(back.f[1]).toBe(-Infinity);
  });

  it("packs raw or deflated, and gives back the same bytes either way", () => {
    const encoded = encodeSnapshot({ rows: Int32Array.from({ length: 10_000 }, (_, i) => i % 7) });
    const deflated = packSnapshot(encoded, true);
    expect(deflated.length).toBeLessThan(encoded.length / 4);
    expect(unpackSnapshot(deflated).equals(encoded)).toBe(true);
    expect(unpackSnapshot(packSnapshot(encoded, false)).equals(encoded)).toBe(true);
    expect(() => unpackSnapshot(Buffer.from("?rest"))).toThrow(/unknown packing/);
  });

  it("refuses what it cannot store, naming where it sits", () => {
    expect(() => encodeSnapshot({ facts: { rowOf: () => 1 } })).toThrow(/a function at \.facts\.rowOf/);
  });
});

describeEachBackend("analytics starting data kept across restarts", (backend) => {
  let ctx: TestContext;
  let fx: AnalyticsFixture;
  const opened: Db[] = [];

  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-analytics-snapshots-");
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

  /** Views that start from facts, the consolidated reference, every verdict, one judge's verdicts and the campaign's labels. */
  async function views(db: Db): Promise<unknown> {
    const scope = {};
    const out = {
      overview: await analyticsOverview(db, { scope, unparseable: "exclude", difficulty: "overall" }),
      judges: await judgeAgreementList(db, { scope, unparseable: "exclude" }),
      judge: await judgeAgreementDetail(db, { scope, unparseable: "exclude", evaluatorKey: fx.judgeKey }),
      humans: await humanAgreement(db, fx.campaignId),
      consensus: await humanConsensus(db, fx.campaignId, "label"),
    };
    await flushAnalyticsSnapshots(db);
    // Through JSON, as the API sends them.
    return JSON.parse(JSON.stringify(out));
  }

  /** The same views with nothing stored and nothing in memory (a first start). */
  async function fresh(): Promise<unknown> {
    await rawRun(ctx.db, sql`delete from analytics_snapshots`);
    return views(restarted());
  }

  const loads = (db: Db) =>
    [...snapshotStats(db).loads.entries()]
      .filter(([, n]) => n > 0)
      .map(([key]) => key)
      .sort();

  it("stores what the views started from, and a restarted process reads it instead of the tables", async () => {
    const first = await views(ctx.db);
    const stored = await listSnapshots(ctx.db);
    expect(stored.map((s) => s.key)).toEqual(expect.arrayContaining(["facts", "reference:latest", "verdicts:*", `labels:${fx.campaignId}`].sort()));
    expect(loads(ctx.db)).toEqual(expect.arrayContaining(["facts", "reference:latest", "verdicts:*", `labels:${fx.campaignId}`]));

    const db = restarted();
    expect(await views(db)).toStrictEqual(first);
    // Nothing the store holds was read from the tables again, and nothing was written back.
    const storedKeys = new Set(stored.map((s) => s.key));
    expect(loads(db).filter((k) => storedKeys.has(k))).toEqual([]);
    expect(snapshotStats(db).reused).toBeGreaterThanOrEqual(storedKeys.size);
    expect(snapshotStats(db).written).toBe(0);

    // A stored value altered by hand shows through: the restarted process read it rather than the tables.
    const facts = decodeSnapshot(
      unpackSnapshot(Buffer.from((await rawAll<{ value: Uint8Array }>(ctx.db, sql`select value from analytics_snapshots where key = 'facts'`))[0]!.value)),
    ) as { sites: string[] };
    facts.sites = facts.sites.map((site) => `${site} (as stored)`);
    await rawRun(ctx.db, sql`update analytics_snapshots set value = ${packSnapshot(encodeSnapshot(facts), backend === "postgres")} where key = 'facts'`);
    expect(JSON.stringify(await views(restarted()))).toContain("Shop (as stored)");
  });

  it("writes a key's row again at most once per interval while writes keep coming, and what waits on close", async () => {
    await views(ctx.db);
    const stampOf = async () => (await listSnapshots(ctx.db)).find((r) => r.key === "reference:latest")!.stamp;
    const before = await stampOf();
    const written = snapshotStats(ctx.db).written;
    await rawRun(
      ctx.db,
      sql`update consolidated_labels set verdict = 'failure' where id = (select min(id) from consolidated_labels where verdict = 'success')`,
    );
    await analyticsOverview(ctx.db, { scope: {}, unparseable: "exclude", difficulty: "overall" });
    // Read again (counted), but its row waits: this process wrote it less than STORE_INTERVAL_MS ago.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(snapshotStats(ctx.db).written).toBe(written);
    expect(await stampOf()).toBe(before);
    await flushAnalyticsSnapshots(ctx.db);
    expect(snapshotStats(ctx.db).written).toBe(written + 1);
    expect(await stampOf()).not.toBe(before);
    expect(STORE_INTERVAL_MS).toBeGreaterThanOrEqual(10_000);
  });

  it("reads the tables again, and says so, when a stored row cannot be read", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const expected = await views(ctx.db);
      await rawRun(ctx.db, sql`update analytics_snapshots set value = ${Buffer.from("?not a snapshot")} where key = 'facts'`);
      const db = restarted();
      expect(await views(db)).toStrictEqual(expected);
      expect(loads(db)).toContain("facts");
      expect(warn.mock.calls.some((c) => String(c[0]).includes("analytics snapshot facts") && String(c[0]).includes("unknown packing"))).toBe(true);
    } finally {
      warn.mockRestore();
    }
  });

  it("reads the tables again when the stored rows are of another format", async () => {
    await views(ctx.db);
    await rawRun(ctx.db, sql`update analytics_snapshots set format = ${`${SNAPSHOT_FORMAT}-old`}`);
    const db = restarted();
    expect(await views(db)).toStrictEqual(await fresh());
    expect(loads(db)).toEqual(expect.arrayContaining(["facts", "verdicts:*", `labels:${fx.campaignId}`]));
  });

  it("after each kind of write, a restarted process and the running one give what a first start gives", async () => {
    const db = ctx.db;
    const t = tablesOf(db);
    const one = async <T>(q: ReturnType<typeof sql>) => (await rawAll<T>(db, q))[0]!;
    // Each write with the stored value it makes stale, and whether a restart patches it (the rows written since) or reads it again.
    const writes: [what: string, write: () => Promise<unknown>, key: string, how: "patched" | "read"][] = [
      [
        "a label changed",
        () => rawRun(db, sql`update labels set verdict = 'success', category = null where id = (select min(id) from labels where verdict = 'failure')`),
        `labels:${fx.campaignId}`,
        "patched",
      ],
      [
        "a label added",
        async () => {
          const item = await one<{ id: number; trajectoryId: number }>(
            sql`select id, trajectory_id as "trajectoryId" from campaign_items where campaign_id = ${fx.campaignId} order by id limit 1`,
          );
          await db.insert(t.labels).values({
            campaignId: fx.campaignId,
            itemId: item.id,
            trajectoryId: item.trajectoryId,
            annotatorKey: "import:dee",
            annotatorName: "dee",
            origin: "import",
            verdict: "failure",
            category: "a new category",
          });
        },
        `labels:${fx.campaignId}`,
        "patched",
      ],
      ["a label deleted", () => rawRun(db, sql`delete from labels where id = (select max(id) from labels)`), `labels:${fx.campaignId}`, "read"],
      [
        "a consolidated label",
        () =>
          rawRun(db, sql`update consolidated_labels set verdict = 'failure' where id = (select min(id) from consolidated_labels where verdict = 'success')`),
        "reference:latest",
        "read",
      ],
      [
        "a judge verdict changed",
        () =>
          rawRun(
            db,
            sql`update evaluator_verdicts set verdict = case verdict when 'success' then 'failure' else 'success' end where id = (select min(id) from evaluator_verdicts where evaluator_key = ${fx.judgeKey})`,
          ),
        "verdicts:*",
        "patched",
      ],
      [
        "a verdict of a new judge",
        () =>
          upsertVerdict(db, {
            trajectoryId: fx.ids.T1!,
            kind: "judge",
            origin: "verdict",
            evaluatorKey: "judge:new",
            evaluatorName: "New judge",
            k: "1",
            promptVersion: "v2",
            verdict: "failure",
          }),
        "verdicts:*",
        "patched",
      ],
      ["a verdict deleted", () => rawRun(db, sql`delete from evaluator_verdicts where id = (select max(id) from evaluator_verdicts)`), "verdicts:*", "read"],
      [
        "an imported trajectory",
        async () => {
          const row = await one<{ taskId: number }>(sql`select task_id as "taskId" from trajectories where id = ${fx.ids.T1!}`);
          await db.insert(t.trajectories).values({
            runId: fx.runIds.beta,
            taskId: row.taskId,
            attempt: 7,
            finalAnswer: "done",
            outcome: "answered",
            stepCount: 9,
            sourceFormat: "test",
            contentHash: "snapshot-import",
          });
        },
        "facts",
        "read",
      ],
      [
        "a live run ending in an infrastructure error",
        () => rawRun(db, sql`update trajectories set outcome = 'infra_error' where id = ${fx.ids.T2!}`),
        "facts",
        "read",
      ],
      ["a trajectory deleted", () => deleteTrajectory(db, fx.ids.T3!), "facts", "read"],
      [
        // What dedupe does with a copy: its verdicts move to the kept trajectory, then the copy goes with what it holds.
        "a dedupe merge",
        async () => {
          await rawRun(db, sql`delete from evaluator_verdicts where trajectory_id = ${fx.ids.T5!}`);
          await rawRun(db, sql`update evaluator_verdicts set trajectory_id = ${fx.ids.T5!} where trajectory_id = ${fx.ids.T4!}`);
          await deleteTrajectory(db, fx.ids.T4!);
        },
        "facts",
        "read",
      ],
      [
        "a task flagged",
        async () => {
          const row = await one<{ taskId: number }>(sql`select task_id as "taskId" from trajectories where id = ${fx.ids.T6!}`);
          await db.insert(t.taskFlags).values({ taskId: row.taskId, status: "broken", reason: "the site changed", userName: "tester", createdAt: new Date() });
        },
        "facts",
        "read",
      ],
      [
        "a task's site",
        () => rawRun(db, sql`update tasks set site = 'Elsewhere' where id = (select task_id from trajectories where id = ${fx.ids.T7!})`),
        "facts",
        "read",
      ],
    ];
    await views(db);
    const loadsOf = (of: Db, key: string) => snapshotStats(of).loads.get(key) ?? 0;
    for (const [what, write, key, how] of writes) {
      await write();
      const readBefore = loadsOf(db, key);
      const running = await views(db);
      const readByRunning = loadsOf(db, key) - readBefore;
      const next = restarted();
      const afterRestart = await views(next);
      const expected = await fresh();
      expect(afterRestart, `a restart after ${what}`).toStrictEqual(expected);
      expect(running, `the running process after ${what}`).toStrictEqual(expected);
      // A write that can be patched in is: neither process reads the value again. Otherwise the running process
      // reads it again and stores it, and the restarted one takes that row as it is.
      const stats = snapshotStats(next);
      expect(stats.reused + stats.patched, `stored values used after ${what}`).toBeGreaterThan(0);
      expect(loads(next), `values the restart read from the tables after ${what}`).not.toContain(key);
      if (how === "patched") {
        expect(readByRunning, `the running process after ${what}`).toBe(0);
        expect(stats.patched, `patched after a restart, after ${what}`).toBeGreaterThan(0);
      } else expect(readByRunning, `the running process after ${what}`).toBe(1);
      // Stored again after `fresh`: the next write starts from current rows.
      await views(db);
    }
  });

  it("answers on a read-only database, stores nothing there and says so once in the log", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      let replica: Db;
      if (backend === "sqlite") {
        replica = restarted();
        await rawRun(replica, sql`pragma query_only = on`);
      } else {
        replica = openPostgresDatabase(`${ctx.config.postgresUrl!}?options=${encodeURIComponent("-c default_transaction_read_only=on")}`).db;
        opened.push(replica);
      }
      const expected = await fresh();
      await rawRun(ctx.db, sql`delete from analytics_snapshots`);
      expect(await views(replica)).toStrictEqual(expected);
      expect(await listSnapshots(ctx.db)).toEqual([]);
      await rawRun(ctx.db, sql`update labels set verdict = 'success', category = null where id = (select min(id) from labels where verdict = 'failure')`);
      expect(await views(replica)).toStrictEqual(await fresh());
      expect(warn.mock.calls.filter((c) => String(c[0]).includes("read-only") && String(c[0]).includes("starting data"))).toHaveLength(1);
    } finally {
      warn.mockRestore();
    }
  });
});

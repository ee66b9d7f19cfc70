/**
 * Moving an installation from SQLite to PostgreSQL (db/store-copy.ts): every row of every table arrives, checked by
 * per-table counts and order-independent digests of the values; ids keep counting after the copied ones; a target
 * that is not empty, not migrated, or refuses a row is left exactly as it was.
 */
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sqliteClient } from "../../db/database";
import { readPostgresCatalogue, readSqliteCatalogue } from "../../db/introspect";
import { closePostgres, migratePostgres, openPostgres, type PgDb } from "../../db/postgres";
import { enqueueJobs } from "../../db/repositories/jobs";
import { compareDigests, copySqliteToPostgres, digestPostgresTables, digestSqliteTables } from "../../db/store-copy";
import { seedDemoAccounts } from "../../server/services/accounts/demo-accounts";
import { runImport } from "../../server/services/imports/ingest";
import { seedAnalyticsFixture } from "../helpers/analytics-fixture";
import { createTestContext, type TestContext } from "../helpers/context";
import { postgresSkipReason, type TestPostgres } from "../helpers/postgres";
import { testPostgresServer } from "../helpers/run-postgres";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";

const skipReason = postgresSkipReason();
if (skipReason) console.warn(`Skipping the SQLite → PostgreSQL copy tests: ${skipReason}`);

describe.skipIf(!!skipReason)("copying a SQLite installation to PostgreSQL", { timeout: 180_000 }, () => {
  let server: TestPostgres;
  let ctx: TestContext;
  const pgDbs: PgDb[] = [];

  async function postgres(migrated = true): Promise<PgDb> {
    const db = openPostgres(await server.createDatabase(), { maxConnections: 2 });
    pgDbs.push(db);
    if (migrated) await migratePostgres(db);
    return db;
  }
  const pgCount = async (db: PgDb, table: string) => Number((await db.$client.query(`select count(*) as n from "${table}"`)).rows[0].n);

  beforeAll(async () => {
    server = await testPostgresServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  beforeEach(async () => {
    // Demo-like content through the application's own code paths: an imported run with steps and screenshots, the
    // analytics dataset (campaign, labels, consolidated labels, judge configuration and verdicts), the demo
    // accounts with their campaign, and queued jobs.
    ctx = createTestContext("verdict-store-copy-");
    const src = await writeWebVoyagerFixture(path.join(ctx.dir, "wv"), [
      { id: "Copy--1", intent: "Find the “blue” kettle — 2 L.", url: "https://shop.test/", actions: ["Click [3]", "Type [1]; kettle", "ANSWER; found it"] },
      { id: "Copy--2", intent: "Open the cart.", url: "https://shop.test/", actions: ["Click [0]", "ANSWER; done"] },
    ]);
    await runImport(ctx, { path: src });
    await seedAnalyticsFixture(ctx.db);
    await seedDemoAccounts(ctx);
    await enqueueJobs(ctx.db, [
      { type: "judge.verdict", groupKey: "judge-batch:1", payload: { trajectoryId: 1, k: "full", note: "ünïcode ✓" }, dedupeKey: "copy-test-1" },
      { type: "runner.task", payload: { taskId: 2 } },
    ]);
  });
  afterEach(async () => {
    await ctx.cleanup();
    for (const db of pgDbs.splice(0)) await closePostgres(db);
  });

  it("brings every row of every table, with the same counts and values, in small batches", async () => {
    // Integers past 2^31 that the application can store: a label's time summed over long revisions, a judge seed.
    sqliteClient(ctx.db).prepare("update labels set time_spent_ms = 3000000000 where id = (select min(id) from labels)").run();
    sqliteClient(ctx.db).prepare("update judge_configs set seed = 1099511627776").run();
    const target = await postgres();
    const progress = new Map<string, number>();
    const copied = await copySqliteToPostgres(sqliteClient(ctx.db), target.$client, { batchRows: 7, onProgress: (t, n) => progress.set(t, n) });

    const sqliteTables = readSqliteCatalogue(sqliteClient(ctx.db)).tables;
    const targetTables = (await readPostgresCatalogue(target.$client)).tables;
    const source = digestSqliteTables(sqliteClient(ctx.db), targetTables);
    const arrived = await digestPostgresTables(target.$client, sqliteTables);
    expect(compareDigests(source, arrived)).toEqual([]);
    expect(Object.fromEntries(copied.map((c) => [c.table, c.rows]))).toEqual(Object.fromEntries(Object.entries(source).map(([t, d]) => [t, d.rows])));
    expect(Object.fromEntries(progress)).toEqual(Object.fromEntries(copied.map((c) => [c.table, c.rows])));

    // The content is broad enough to mean something: the tables the fixtures fill all arrived non-empty.
    const filled = Object.entries(source)
      .filter(([, d]) => d.rows > 0)
      .map(([t]) => t);
    expect(filled).toEqual(
      expect.arrayContaining([
        "task_sets",
        "tasks",
        "agent_runs",
        "trajectories",
        "steps",
        "screenshots",
        "users",
        "accounts",
        "annotation_campaigns",
        "campaign_annotators",
        "campaign_items",
        "labels",
        "consolidated_labels",
        "judge_configs",
        "evaluator_verdicts",
        "jobs",
        "change_counters",
        "instance_info",
      ]),
    );
    expect(source.steps!.rows).toBeGreaterThan(7);

    // The behaviour search's entries are not copied but written again by the target's triggers: the same text, field by field.
    const entries = "select field, count(*) as n, sum(length(body)) as chars from search_entries group by field order by field";
    const sqliteEntries = (sqliteClient(ctx.db).prepare(entries).all() as { field: string; n: number; chars: number }[]).map((r) => ({
      ...r,
      n: Number(r.n),
      chars: Number(r.chars),
    }));
    expect(sqliteEntries.map((r) => r.field)).toEqual(expect.arrayContaining(["action", "element", "intent", "thought"]));
    expect(
      (await target.$client.query(entries)).rows.map((r: { field: string; n: string; chars: string }) => ({
        field: r.field,
        n: Number(r.n),
        chars: Number(r.chars),
      })),
    ).toEqual(sqliteEntries);

    // The installation keeps its identity and its change counters.
    const sqliteId = sqliteClient(ctx.db).prepare("select id from instance_info").pluck().get();
    expect((await target.$client.query("select id from instance_info")).rows).toEqual([{ id: sqliteId }]);

    // New rows get ids after the copied ones.
    const maxId = sqliteClient(ctx.db).prepare("select max(id) from task_sets").pluck().get() as number;
    const inserted = await target.$client.query("insert into task_sets (name, benchmark) values ('After the move', 'adhoc') returning id");
    expect(inserted.rows[0].id).toBe(maxId + 1);
  });

  it("the digests notice a changed value, a missing row and an extra one", async () => {
    const target = await postgres();
    await copySqliteToPostgres(sqliteClient(ctx.db), target.$client);
    const sqliteTables = readSqliteCatalogue(sqliteClient(ctx.db)).tables;
    const source = digestSqliteTables(sqliteClient(ctx.db), (await readPostgresCatalogue(target.$client)).tables);
    await target.$client.query("update steps set thought = thought || '.' where id = (select min(id) from steps)");
    await target.$client.query("delete from reservations; delete from jobs where type = 'runner.task'");
    await target.$client.query("insert into task_sets (name, benchmark) values ('Extra', 'adhoc')");
    const differences = compareDigests(source, await digestPostgresTables(target.$client, sqliteTables));
    expect(differences).toEqual([
      expect.stringMatching(/^jobs: 2 rows in SQLite, 1 in PostgreSQL$/),
      expect.stringMatching(/^steps: same \d+ rows counted, but their values differ/),
      expect.stringMatching(/^task_sets: \d+ rows in SQLite, \d+ in PostgreSQL$/),
    ]);
  });

  it("refuses a target that already holds data, and one that is not migrated", async () => {
    const target = await postgres();
    await copySqliteToPostgres(sqliteClient(ctx.db), target.$client);
    await expect(copySqliteToPostgres(sqliteClient(ctx.db), target.$client)).rejects.toThrow(
      /already holds rows in \w+; copy into a freshly migrated, empty database/,
    );

    const bare = await postgres(false);
    await expect(copySqliteToPostgres(sqliteClient(ctx.db), bare.$client)).rejects.toThrow(
      "The PostgreSQL database has none of Verdict's tables; run `npm run cli -- migrate` against it first",
    );

    // A PostgreSQL schema behind the SQLite one (a column added to SQLite and not yet ported) is named.
    const behind = await postgres();
    await behind.$client.query("alter table labels drop column annotator_name");
    await expect(copySqliteToPostgres(sqliteClient(ctx.db), behind.$client)).rejects.toThrow(
      "The PostgreSQL database lacks column labels.annotator_name that the SQLite database has",
    );
  });

  it("leaves the target as it was when a row is refused half-way, naming the table and rows", async () => {
    const target = await postgres();
    const identity = (await target.$client.query("select id from instance_info")).rows;
    await target.$client.query("alter table labels add constraint refuse_unsure check (verdict <> 'unsure')");
    await expect(copySqliteToPostgres(sqliteClient(ctx.db), target.$client, { batchRows: 5 })).rejects.toThrow(
      /^Copying labels, rows \d+–\d+ of \d+: .*refuse_unsure/,
    );
    for (const table of ["task_sets", "trajectories", "steps", "users", "labels"]) expect(await pgCount(target, table)).toBe(0);
    expect((await target.$client.query("select id from instance_info")).rows).toEqual(identity);
    // The SQLite file is not held in a transaction afterwards: the app can write again.
    sqliteClient(ctx.db).prepare("insert into task_sets (name, benchmark) values ('Still writable', 'adhoc')").run();
  });
});

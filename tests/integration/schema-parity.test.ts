/**
 * SQLite and PostgreSQL stay one schema: a fresh database of each dialect, migrated, has the same tables, columns
 * (nullability, type family, defaults), primary keys, indexes, foreign keys and change-counter triggers, and the
 * triggers count the same writes. When a SQLite migration adds something the PostgreSQL schema lacks, the failure
 * lists each difference by name (see tests/helpers/schema-compare.ts).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "../../db/client";
import { closeDatabase, sqliteClient } from "../../db/database";
import { readPostgresCatalogue, readSqliteCatalogue } from "../../db/introspect";
import { closePostgres, migratePostgres, openPostgres, type PgDb } from "../../db/postgres";
import { COUNTED_TABLES } from "../../db/schema/changes";
import { SEARCH_TRIGGERS } from "../../db/schema/search";
import { postgresSkipReason, type TestPostgres } from "../helpers/postgres";
import { testPostgresServer } from "../helpers/run-postgres";
import { compareCatalogues } from "../helpers/schema-compare";

const root = path.resolve(__dirname, "..", "..");
const run = promisify(execFile);
const skipReason = postgresSkipReason();
if (skipReason) console.warn(`Skipping the SQLite/PostgreSQL schema parity tests: ${skipReason}`);

describe.skipIf(!!skipReason)("SQLite and PostgreSQL schemas", () => {
  let server: TestPostgres;
  let sqlite: Db;
  const pgDbs: PgDb[] = [];

  async function migratedPostgres(): Promise<PgDb> {
    const db = openPostgres(await server.createDatabase(), { maxConnections: 2 });
    pgDbs.push(db);
    await migratePostgres(db);
    return db;
  }

  beforeAll(async () => {
    server = await testPostgresServer();
    sqlite = openDatabase(":memory:");
  });
  afterAll(async () => {
    if (sqlite) await closeDatabase(sqlite);
    for (const db of pgDbs) await closePostgres(db);
    await server?.stop();
  });

  it("have the same tables, columns, keys, indexes, foreign keys and triggers after migrating", async () => {
    const pg = await migratedPostgres();
    const sqliteCatalogue = readSqliteCatalogue(sqliteClient(sqlite));
    const pgCatalogue = await readPostgresCatalogue(pg.$client);
    // Guard against comparing two empty catalogues.
    expect(sqliteCatalogue.tables.map((t) => t.name)).toContain("labels");
    // Insert, delete and update per counted table, the verdicts' and the labels' identity changes
    // (VERDICT_REMOVALS_COUNTER, LABEL_REMOVALS_COUNTER), and the behaviour search's entries.
    expect(sqliteCatalogue.triggers.length).toBe(Object.keys(COUNTED_TABLES).length * 3 + 2 + SEARCH_TRIGGERS.length);
    expect(sqliteCatalogue.triggers.map((t) => t.name)).toEqual(expect.arrayContaining([...SEARCH_TRIGGERS]));
    expect(compareCatalogues(sqliteCatalogue, pgCatalogue)).toEqual([]);
  });

  it("names each difference when the PostgreSQL schema drifts", async () => {
    const pg = await migratedPostgres();
    await pg.$client.query(`
      alter table labels alter column note set not null;
      alter table steps alter column marks_burned_in drop default;
      alter table steps alter column marks_burned_in type integer using marks_burned_in::int;
      alter table jobs alter column status set default 'waiting';
      drop index labels_user_idx;
      create index labels_user_idx on labels (user_id, id);
      alter table sessions drop constraint sessions_user_id_users_id_fk;
      alter table jobs add column owner text;
      drop trigger labels_count_update on labels;
      create table only_here (id integer primary key);`);
    const differences = compareCatalogues(readSqliteCatalogue(sqliteClient(sqlite)), await readPostgresCatalogue(pg.$client));
    expect(differences.sort()).toEqual(
      [
        "column labels.note: nullable in SQLite, not null in PostgreSQL",
        "column steps.marks_burned_in: SQLite boolean (declared integer) needs PostgreSQL boolean, found integer",
        "column steps.marks_burned_in: default false in SQLite, none in PostgreSQL",
        "column jobs.status: default 'queued' in SQLite, 'waiting' in PostgreSQL",
        "index labels_user_idx on labels: (user_id) in SQLite, (user_id, id) in PostgreSQL",
        "foreign key on sessions: (user_id) → users(id) on delete cascade, on update no action in SQLite, not in PostgreSQL",
        "column jobs.owner: in PostgreSQL (text), missing in SQLite",
        "trigger labels_count_update: after update of (campaign_id, status, annotator_key, verdict, category, item_id, trajectory_id, first_failing_step) on labels in SQLite, missing in PostgreSQL (add it to a custom migration in db/migrations-pg)",
        "table only_here: in PostgreSQL, missing in SQLite",
      ].sort(),
    );
  });

  it("migrating PostgreSQL again changes nothing", async () => {
    const pg = await migratedPostgres();
    const before = await readPostgresCatalogue(pg.$client);
    const applied = (await pg.$client.query("select count(*)::int as n from drizzle.__drizzle_migrations")).rows[0].n;
    await migratePostgres(pg);
    expect(await readPostgresCatalogue(pg.$client)).toEqual(before);
    expect((await pg.$client.query("select count(*)::int as n from drizzle.__drizzle_migrations")).rows[0].n).toBe(applied);
    expect(applied).toBe(pgJournal().entries.length);
  });

  it("migrate PostgreSQL once when several processes start together", async () => {
    // Two pools stand for two web servers starting at once against a new database; without the advisory lock the
    // second would try to create the same tables and fail.
    const url = await server.createDatabase();
    const a = openPostgres(url, { maxConnections: 1 });
    const b = openPostgres(url, { maxConnections: 1 });
    pgDbs.push(a, b);
    await Promise.all([migratePostgres(a), migratePostgres(b), migratePostgres(a), migratePostgres(b)]);
    expect((await a.$client.query("select count(*)::int as n from drizzle.__drizzle_migrations")).rows[0].n).toBe(pgJournal().entries.length);
    expect((await a.$client.query("select count(*)::int as n from change_counters")).rows[0].n).toBe(Object.keys(COUNTED_TABLES).length + 2);
  });

  it("count the same writes in the change counters on both dialects", async () => {
    const pg = await migratedPostgres();
    // Portable SQL: the same statements run on both, so any difference is the triggers'.
    const seed = `
      insert into task_sets (id, name, benchmark) values (1, 'Set', 'demo');
      insert into tasks (id, task_set_id, external_id, intent, content_hash) values (1, 1, 't1', 'Find it', 'h');
      insert into agent_runs (id, run_key, name, agent_name, source_system) values (1, 'run:1', 'Run', 'agent', 'demo');
      insert into trajectories (id, run_id, task_id, outcome, step_count, source_format, content_hash) values (1, 1, 1, 'answered', 3, 'native', 'h');
      insert into users (id, name, email) values ('u1', 'Ann', 'ann@example.org');
      insert into annotation_campaigns (id, name, label_schema, annotators_per_item, selection) values (1, 'C', '{}', 1, '{"description":"all"}');
      insert into campaign_items (id, campaign_id, trajectory_id, item_no) values (1, 1, 1, 1);`;
    const writes = [
      "insert into labels (campaign_id, item_id, trajectory_id, annotator_key, user_id, annotator_name, origin, verdict) values (1, 1, 1, 'user:u1', 'u1', 'Ann', 'verdict', 'success')",
      "update labels set note = 'seen'",
      "update labels set verdict = 'failure'",
      "update trajectories set final_answer = 'x'",
      "update trajectories set step_count = 4",
      "delete from labels",
    ];
    const sqliteCounters = () =>
      Object.fromEntries(
        (sqliteClient(sqlite).prepare("select name, version from change_counters").all() as { name: string; version: number }[]).map((r) => [
          r.name,
          Number(r.version),
        ]),
      );
    const pgCounters = async () =>
      Object.fromEntries(
        (await pg.$client.query<{ name: string; version: string }>("select name, version from change_counters")).rows.map((r) => [r.name, Number(r.version)]),
      );

    const sqliteSteps: Record<string, number>[] = [];
    sqliteClient(sqlite).exec(seed);
    sqliteSteps.push(sqliteCounters());
    for (const w of writes) {
      sqliteClient(sqlite).exec(w);
      sqliteSteps.push(sqliteCounters());
    }
    const pgSteps: Record<string, number>[] = [];
    await pg.$client.query(seed);
    pgSteps.push(await pgCounters());
    for (const w of writes) {
      await pg.$client.query(w);
      pgSteps.push(await pgCounters());
    }
    expect(pgSteps).toEqual(sqliteSteps);
    // And the counters did move where analytics care: insert, verdict change, delete of the label; step count.
    const labels = sqliteSteps.map((s) => s.labels);
    expect(labels).toEqual([0, 1, 1, 2, 2, 2, 3]);
    expect(sqliteSteps.map((s) => s.trajectories)).toEqual([1, 1, 1, 1, 1, 2, 2]);
  });
});

interface Journal {
  dialect: string;
  entries: { idx: number; when: number; tag: string }[];
}
const readJournal = (folder: string): Journal => JSON.parse(fs.readFileSync(path.join(root, "db", folder, "meta", "_journal.json"), "utf8"));
const pgJournal = () => readJournal("migrations-pg");

describe("migration folders", () => {
  for (const [folder, dialect] of [
    ["migrations", "sqlite"],
    ["migrations-pg", "postgresql"],
  ] as const) {
    it(`db/${folder}: every SQL file has a journal entry and a snapshot, in order`, () => {
      const journal = readJournal(folder);
      expect(journal.dialect).toBe(dialect);
      const files = fs
        .readdirSync(path.join(root, "db", folder))
        .filter((f) => f.endsWith(".sql"))
        .map((f) => f.replace(/\.sql$/, ""))
        .sort();
      const tags = journal.entries.map((e) => e.tag);
      expect({ withoutJournalEntry: files.filter((f) => !tags.includes(f)), withoutSqlFile: tags.filter((t) => !files.includes(t)) }).toEqual({
        withoutJournalEntry: [],
        withoutSqlFile: [],
      });
      expect(journal.entries.map((e) => e.idx)).toEqual(journal.entries.map((_, i) => i));
      for (const e of journal.entries) {
        expect(e.tag.startsWith(String(e.idx).padStart(4, "0") + "_"), `journal entry ${e.idx} is tagged ${e.tag}`).toBe(true);
        expect(
          fs.existsSync(path.join(root, "db", folder, "meta", `${e.tag.slice(0, 4)}_snapshot.json`)),
          `db/${folder}/meta/${e.tag.slice(0, 4)}_snapshot.json`,
        ).toBe(true);
      }
      // drizzle's migrators apply only migrations stamped later than the last one applied: a merged migration
      // stamped earlier than its predecessor would be skipped silently on databases that already have it.
      const late = journal.entries.filter((e, i) => i > 0 && e.when <= journal.entries[i - 1]!.when).map((e) => e.tag);
      expect(late, "migrations stamped no later than the one before them").toEqual([]);
    });
  }
});

describe("drizzle schema modules and committed migrations", () => {
  for (const [folder, dialect, schema] of [
    ["migrations", "sqlite", "./db/schema/index.ts"],
    ["migrations-pg", "postgresql", "./db/schema-pg/index.ts"],
  ] as const) {
    it(`db/${folder} already holds every change of ${schema} (npm run db:generate has nothing to add)`, { timeout: 120_000 }, async () => {
      // drizzle-kit generate against a copy of the folder, so a missing migration shows up here and not in the tree.
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-generate-"));
      try {
        fs.cpSync(path.join(root, "db", folder), path.join(tmp, folder), { recursive: true });
        // drizzle-kit prefixes "./" to --out, so it must be relative to the working directory.
        const out = path.relative(root, path.join(tmp, folder));
        const r = await run(path.join(root, "node_modules", ".bin", "drizzle-kit"), ["generate", "--dialect", dialect, "--schema", schema, "--out", out], {
          cwd: root,
        });
        const added = fs.readdirSync(path.join(tmp, folder)).filter((f) => f.endsWith(".sql") && !fs.existsSync(path.join(root, "db", folder, f)));
        expect(added, `drizzle-kit generated ${added.join(", ")}: run npm run db:generate and commit the migration`).toEqual([]);
        expect(r.stdout + r.stderr).toContain("No schema changes");
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });
  }
});

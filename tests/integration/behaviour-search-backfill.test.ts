/**
 * The behaviour search's migration (SQLite 0024, PostgreSQL 0010) indexes what was stored before it: a database
 * migrated up to the migration before, holding a trajectory with a thought, an element text, an answer, a note and
 * a rationale, finds each of them once migrated, through the same list query as new data.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import { migrate as migrateSqlite } from "drizzle-orm/better-sqlite3/migrator";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../db/client";
import { closeDatabase, type Db } from "../../db/database";
import { migratePostgres, openPostgresDatabase } from "../../db/postgres";
import { scopeSearch } from "../../server/services/access";
import { listTrajectoryPage } from "../../server/services/trajectory-views";
import { postgresSkipReason } from "../helpers/postgres";
import { testPostgresServer } from "../helpers/run-postgres";

const root = path.resolve(__dirname, "..", "..");
const temp: string[] = [];
afterAll(() => {
  for (const dir of temp) fs.rmSync(dir, { recursive: true, force: true });
});

/** A copy of a migrations folder that stops before the search's migration (later ones are left out too). */
function foldersBefore(folder: string, searchTag: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-search-migrations-"));
  temp.push(dir);
  fs.cpSync(path.join(root, "db", folder), dir, { recursive: true });
  const journalFile = path.join(dir, "meta", "_journal.json");
  const journal = JSON.parse(fs.readFileSync(journalFile, "utf8")) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag === searchTag);
  expect(at, `${folder} has the migration ${searchTag}`).toBeGreaterThan(0);
  for (const e of journal.entries.splice(at)) fs.rmSync(path.join(dir, `${e.tag}.sql`));
  fs.writeFileSync(journalFile, JSON.stringify(journal));
  return dir;
}

/** Rows written as an older Verdict wrote them (plain SQL, both dialects). */
const OLD_ROWS = [
  `insert into task_sets (id, name, benchmark) values (1, 'Old set', 'webvoyager')`,
  `insert into tasks (id, task_set_id, external_id, intent, content_hash) values (1, 1, 'old-1', 'Book a ferry to Skye', 'h1')`,
  `insert into agent_runs (id, run_key, name, agent_name, source_system) values (1, 'old', 'Old run', 'agent', 'test')`,
  `insert into trajectories (id, run_id, task_id, attempt, final_answer, outcome, step_count, source_format, content_hash) values (1, 1, 1, 0, 'Booked for Tuesday', 'answered', 1, 'test', 'c1')`,
  `insert into steps (trajectory_id, idx, thought, action_raw, action, elements) values (1, 0, 'The timetable shows a ferry', 'Click [3]', '{"type":"click","target":"3"}', '[{"label":"3","bbox":null,"text":"Reserve seat"}]')`,
  `insert into evaluator_verdicts (trajectory_id, kind, origin, evaluator_key, evaluator_name, k, prompt_version, verdict, rationale) values (1, 'judge', 'verdict', 'judge:1', 'Judge', '1', 'v1', 'success', 'The pelican booking matches')`,
];

async function expectFound(db: Db): Promise<void> {
  const find = async (search: string) =>
    (
      await listTrajectoryPage(db, { search, textSearch: scopeSearch(search, { wholeCatalog: true }), sort: "relevance", dir: "desc", page: 1, pageSize: 50 })
    ).rows.map((r) => r.id);
  for (const search of ["intent:ferry skye", "thought:timetable", "text:reserve", "answer:tuesday", "action:click", "rationale:pelican"]) {
    expect(await find(search), search).toEqual([1]);
  }
}

describe("behaviour search migration [sqlite]", () => {
  it("indexes the rows stored before it", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-search-db-"));
    temp.push(dir);
    const file = path.join(dir, "old.db");
    const old = new Database(file);
    old.pragma("foreign_keys = ON");
    migrateSqlite(drizzleSqlite({ client: old }), { migrationsFolder: foldersBefore("migrations", "0024_behaviour_search") });
    for (const statement of OLD_ROWS) old.exec(statement);
    old.close();
    const db = openDatabase(file);
    try {
      await expectFound(db);
    } finally {
      await closeDatabase(db);
    }
  });
});

const skip = postgresSkipReason();
describe.skipIf(!!skip || !process.env.VERDICT_TEST_BACKENDS?.includes("postgres"))("behaviour search migration [postgres]", () => {
  it("indexes the rows stored before it", async () => {
    const server = await testPostgresServer();
    const url = await server.createDatabase();
    const { db, raw } = openPostgresDatabase(url, { maxConnections: 2 });
    try {
      await migratePg(drizzlePg({ client: raw.$client }), { migrationsFolder: foldersBefore("migrations-pg", "0010_behaviour_search") });
      for (const statement of OLD_ROWS) await raw.$client.query(statement);
      await migratePostgres(raw);
      await expectFound(db);
    } finally {
      await closeDatabase(db);
      await server.stop();
    }
  });
});

/**
 * The PostgreSQL commands of `npm run cli`, against a real throwaway server: `migrate` with
 * VERDICT_DATABASE_URL=postgres://… creates the schema there (and again changes nothing) and the other commands then
 * work on that database; `migrate-store --to` moves an installation's rows there and reports them verified.
 */
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDatabase, sqliteClient } from "../../db/database";
import { seedAnalyticsFixture } from "../helpers/analytics-fixture";
import { createTestContext } from "../helpers/context";
import { postgresSkipReason, type TestPostgres } from "../helpers/postgres";
import { testPostgresServer } from "../helpers/run-postgres";
import { startTestS3 } from "../helpers/s3";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";
import { FolderObjectStore } from "../../server/storage/folder-object-store";
import { S3ObjectStore } from "../../server/storage/s3-object-store";
import { sha256 } from "../../server/domain/content-hash";
import { cliRunner } from "../helpers/cli";

const root = path.resolve(__dirname, "..", "..");
const skipReason = postgresSkipReason();
if (skipReason) console.warn(`Skipping the PostgreSQL CLI tests: ${skipReason}`);

/** The CLI (the first call of each command as a process of its own, tests/helpers/cli.ts). */
const runCommand = cliRunner(root);
const cli = (args: string[], env: Record<string, string>) => runCommand(args, { ...process.env, ...env });

async function rowCount(url: string, table: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>(`select count(*) as n from "${table}"`)).rows[0]!.n);
  } finally {
    await client.end();
  }
}

async function publicTables(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'public' order by table_name");
    return r.rows.map((row) => row.table_name);
  } finally {
    await client.end();
  }
}

describe.skipIf(!!skipReason)("npm run cli with VERDICT_DATABASE_URL=postgres://…", { timeout: 240_000 }, () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await testPostgresServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("migrate creates the schema in PostgreSQL, and a second run changes nothing", async () => {
    const url = await server.createDatabase();
    // A password in the URL must not be printed (the test server trusts loopback, so any password works).
    const withPassword = url.replace("verdict@", "verdict:s3cret@");
    const first = await cli(["migrate"], { VERDICT_DATABASE_URL: withPassword });
    expect(first.stderr).toContain("is up to date");
    expect(first.stderr).not.toContain("s3cret");
    expect(first.code).toBe(0);
    const tables = await publicTables(url);
    expect(tables).toEqual(expect.arrayContaining(["labels", "trajectories", "change_counters", "instance_info"]));
    const second = await cli(["migrate"], { VERDICT_DATABASE_URL: withPassword });
    expect(second.code).toBe(0);
    expect(await publicTables(url)).toEqual(tables);

    // The migrated database is the installation's from then on: accounts made by the CLI live there.
    const added = await cli(["user", "add", "--email", "lead@example.org", "--name", "Lead", "--role", "researcher", "--password", "lead-password", "--json"], {
      VERDICT_DATABASE_URL: url,
    });
    expect(added.stderr).toMatch(/first account, so it was made admin/);
    expect(added.code).toBe(0);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query("select email, role from users")).rows).toEqual([{ email: "lead@example.org", role: "admin" }]);
    } finally {
      await client.end();
    }
    const listed = await cli(["user", "list", "--json"], { VERDICT_DATABASE_URL: url });
    expect(JSON.parse(listed.stdout).users.map((u: { email: string }) => u.email)).toEqual(["lead@example.org"]);
  });

  it("migrate names the database it could not reach", async () => {
    const r = await cli(["migrate"], { VERDICT_DATABASE_URL: `postgres://verdict@127.0.0.1:${server.port}/no_such_database` });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Error: .*no_such_database/);
  });

  it("migrate-store copies every row into PostgreSQL and reports the tables verified", async () => {
    const installation = createTestContext("verdict-cli-store-");
    await seedAnalyticsFixture(installation.db);
    const sqlite = sqliteClient(installation.db);
    const count = (t: string) => sqlite.prepare(`select count(*) from "${t}"`).pluck().get() as number;
    // The behaviour search's entries are not copied: PostgreSQL's triggers write them again from the rows copied, and
    // SQLite's full-text tables (search_fts*) have no counterpart there.
    const searchEntries = count("search_entries");
    const expected = Object.fromEntries(
      (
        sqlite
          .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '__drizzle%'")
          .pluck()
          .all() as string[]
      )
        // Nor are the stored analytics snapshots: the target reads its own (db/store-copy.ts).
        .filter((t) => !/^search_(entries$|fts)/.test(t) && t !== "analytics_snapshots")
        .map((t) => [t, count(t)]),
    );
    await closeDatabase(installation.db);
    const env = { VERDICT_DATA_DIR: installation.dir, VERDICT_DB: path.join(installation.dir, "verdict.db") };
    try {
      const url = await server.createDatabase();
      const r = await cli(["migrate-store", "--to", url, "--json"], env);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout);
      expect(report).toMatchObject({ to: url, verified: true });
      expect(Object.fromEntries(report.tables.map((t: { table: string; rows: number }) => [t.table, t.rows]))).toEqual(expected);
      expect(await publicTables(url)).toEqual([...Object.keys(expected), "search_entries", "analytics_snapshots"].sort());
      expect(searchEntries).toBeGreaterThan(0);
      expect(await rowCount(url, "search_entries")).toBe(searchEntries);

      const usage = await cli(["migrate-store", "--to", "mysql://db/verdict"], env);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain("--to must be a postgres:// or postgresql:// URL");

      // An installation already on PostgreSQL has no SQLite rows to move: said, rather than copying an empty file.
      const already = await cli(["migrate-store", "--to", url], { ...env, VERDICT_DATABASE_URL: url });
      expect(already.code).toBe(2);
      expect(already.stderr).toContain("VERDICT_DATABASE_URL is set, so this installation already uses PostgreSQL");
    } finally {
      fs.rmSync(installation.dir, { recursive: true, force: true });
    }
  });
  it("migrate-store --files-to-bucket also copies every screenshot into the bucket, checked by hash, and can be run again", async () => {
    const installation = createTestContext("verdict-cli-files-");
    const s3 = await startTestS3();
    const dataEnv = { VERDICT_DATA_DIR: installation.dir, VERDICT_DB: path.join(installation.dir, "verdict.db") };
    try {
      await closeDatabase(installation.db);
      const results = await writeWebVoyagerFixture(path.join(installation.dir, "results"), [
        { id: "Allrecipes--1", intent: "Find a recipe", url: "https://www.allrecipes.com/", actions: ["Click [1]", "Type [1]; soup", "ANSWER; soup"] },
        { id: "Allrecipes--2", intent: "Find a cake", url: "https://www.allrecipes.com/", actions: ["Click [0]", "ANSWER; cake"] },
      ]);
      const imported = await cli(["import", results, "--json"], dataEnv);
      expect(imported.code, imported.stderr).toBe(0);
      const folder = new FolderObjectStore(path.join(installation.dir, "screenshots"));
      const names: string[] = [];
      for await (const o of folder.list()) names.push(o.name);
      expect(names.length).toBeGreaterThanOrEqual(5);

      // Without a bucket configured the option says what it needs.
      const noBucket = await cli(["migrate-store", "--to", await server.createDatabase(), "--files-to-bucket"], dataEnv);
      expect(noBucket.code).toBe(2);
      expect(noBucket.stderr).toContain("--files-to-bucket needs the bucket: set VERDICT_S3_BUCKET");

      const env = { ...dataEnv, ...s3.env() };
      const r = await cli(["migrate-store", "--to", await server.createDatabase(), "--files-to-bucket", "--json"], env);
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout);
      expect(report).toMatchObject({ verified: true, files: { objects: names.length, copied: names.length, alreadyThere: 0 } });
      const bucket = new S3ObjectStore(s3.config(), "sha256");
      for (const name of names) expect(sha256((await bucket.read(name))!)).toBe(name);
      expect(s3.puts.filter((k) => k.startsWith("sha256/")).sort()).toEqual(names.map((n) => `sha256/${n.slice(0, 2)}/${n}`).sort());

      // Again (an interrupted move started over, into a fresh database): nothing is uploaded twice.
      s3.resetEvents();
      const again = await cli(["migrate-store", "--to", await server.createDatabase(), "--files-to-bucket", "--json"], env);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout).files).toMatchObject({ objects: names.length, copied: 0, alreadyThere: names.length });
      expect(s3.puts).toEqual([]);

      // A damaged file is named, not copied.
      const damaged = names[0]!;
      await bucket.delete(damaged);
      fs.writeFileSync(folder.pathFor(damaged), "not the screenshot any more");
      const bad = await cli(["migrate-store", "--to", await server.createDatabase(), "--files-to-bucket", "--json"], env);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain(`${folder.pathFor(damaged)}: its contents do not match its name`);
      expect(await bucket.has(damaged)).toBe(false);
    } finally {
      await s3.stop();
      fs.rmSync(installation.dir, { recursive: true, force: true });
    }
  });
});

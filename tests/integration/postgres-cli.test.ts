/**
 * The PostgreSQL commands of `npm run cli`, against a real throwaway server: `migrate` with
 * VERDICT_DATABASE_URL=postgres://… creates the schema there (and again changes nothing) and the other commands then
 * work on that database; `migrate-store --to` moves an installation's rows there and reports them verified.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDatabase, sqliteClient } from "../../db/database";
import { seedAnalyticsFixture } from "../helpers/analytics-fixture";
import { createTestContext } from "../helpers/context";
import { postgresSkipReason, startPostgres, type TestPostgres } from "../helpers/postgres";

const run = promisify(execFile);
const root = path.resolve(__dirname, "..", "..");
const skipReason = postgresSkipReason();
if (skipReason) console.warn(`Skipping the PostgreSQL CLI tests: ${skipReason}`);

async function cli(args: string[], env: Record<string, string>) {
  try {
    const r = await run(process.execPath, ["--import", "tsx", path.join(root, "scripts", "cli.ts"), ...args], { cwd: root, env: { ...process.env, ...env } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
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
    server = await startPostgres();
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
    const added = await cli(["user", "add", "--email", "lead@example.org", "--name", "Lead", "--role", "researcher", "--password", "lead-password", "--json"], { VERDICT_DATABASE_URL: url });
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
    const expected = Object.fromEntries(
      (sqlite.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '__drizzle%'").pluck().all() as string[]).map((t) => [
        t,
        sqlite.prepare(`select count(*) from "${t}"`).pluck().get() as number,
      ]),
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
      expect(await publicTables(url)).toEqual(Object.keys(expected).sort());

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
});

/**
 * VERDICT_MIGRATIONS_DIR reaches the SQLite migrator through the configuration (the composition root passes it
 * down), not by the database layer reading the environment: a bundled server finds its migrations where it says.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { closeDatabase, sqliteClient } from "../../db/database";
import { loadConfig } from "../../server/config";
import { createAppContext } from "../../server/context";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("VERDICT_MIGRATIONS_DIR", () => {
  it("is the folder the SQLite migrations are read from when the configuration names one", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-migrations-"));
    dirs.push(dir);
    // A copy of the migrations whose journal stops one migration short: opening through it applies one fewer.
    const copy = path.join(dir, "migrations");
    fs.cpSync(path.resolve(__dirname, "..", "..", "db", "migrations"), copy, { recursive: true });
    const journalFile = path.join(copy, "meta", "_journal.json");
    const journal = JSON.parse(fs.readFileSync(journalFile, "utf8")) as { entries: unknown[] };
    const all = journal.entries.length;
    journal.entries.pop();
    fs.writeFileSync(journalFile, JSON.stringify(journal));

    const config = loadConfig({ VERDICT_DATA_DIR: dir, VERDICT_DB: path.join(dir, "verdict.db"), VERDICT_MIGRATIONS_DIR: copy });
    expect(config.migrationsDir).toBe(copy);
    const ctx = createAppContext(config);
    const applied = (sqliteClient(ctx.db).prepare("select count(*) as n from __drizzle_migrations").get() as { n: number }).n;
    await closeDatabase(ctx.db);
    expect(applied).toBe(all - 1);
  });
});

/**
 * `migrate-store --to postgres://…`: moves this installation's database rows from SQLite into PostgreSQL and checks
 * they all arrived. Files stay in the data folder (or the object store).
 */
import { loadConfig } from "../../config";
import { getAppContext } from "../../context";
import { moveStoreToPostgres, redactPostgresUrl } from "../../services/postgres";
import { UsageError, flagBool, flagString, parseArgs } from "../args";
import { createProgressBar } from "../progress";
import type { CliCommand } from "../types";

export const migrateStoreCommand: CliCommand = {
  name: "migrate-store",
  summary: "copy every database row from SQLite into an empty PostgreSQL database and verify it",
  usage: [
    "npm run cli -- migrate-store --to postgres://user:password@host:5432/database [--json]",
    "",
    "Migrates the PostgreSQL database, copies every table of the SQLite database (VERDICT_DB) into it in one",
    "transaction, then compares each table's row count and a digest of its rows on both sides. The PostgreSQL",
    "database must hold no data yet. Stop the web server and workers first, so nothing writes during the copy.",
    "Screenshots, image variants and bundles are files: they stay in VERDICT_DATA_DIR and are not copied.",
    "Afterwards, set VERDICT_DATABASE_URL to the same URL and restart the web server and workers: they then serve from PostgreSQL.",
  ].join("\n"),
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["to"], boolFlags: ["json"] });
    if (args.positionals.length) throw new UsageError(`unexpected arguments: ${args.positionals.join(" ")}`);
    const to = flagString(args, "to");
    if (!to) throw new UsageError("--to postgres://… is required (the PostgreSQL database to copy into)");
    if (!/^postgres(ql)?:\/\//i.test(to.trim())) throw new UsageError(`--to must be a postgres:// or postgresql:// URL, got ${JSON.stringify(redactPostgresUrl(to))}`);
    const json = flagBool(args, "json");
    if (loadConfig(io.env).postgresUrl) {
      throw new UsageError("VERDICT_DATABASE_URL is set, so this installation already uses PostgreSQL; migrate-store copies from the SQLite file (VERDICT_DB): run it without VERDICT_DATABASE_URL");
    }
    const ctx = getAppContext(io.env);
    const bar = createProgressBar(io, "Copying", { enabled: !json });
    let report;
    try {
      report = await moveStoreToPostgres(ctx.db, to.trim(), (table, copied, total) => bar.update(copied, total, table));
    } finally {
      bar.finish();
    }
    const target = redactPostgresUrl(to.trim());
    if (json) {
      io.stdout(JSON.stringify({ from: ctx.config.dbPath, to: target, rows: report.rows, tables: report.tables, verified: true }) + "\n");
    } else {
      const lines = report.tables.map((t) => `  ${t.table.padEnd(26)} ${String(t.rows).padStart(9)}`);
      io.stdout(
        [`Copied ${report.rows} rows from ${ctx.config.dbPath} to ${target}; counts and digests match on both sides.`, ...lines, `Files stay in ${ctx.config.dataDir}.`].join("\n") + "\n",
      );
    }
    return 0;
  },
};

/**
 * `migrate-store --to postgres://…`: moves this installation's database rows from SQLite into PostgreSQL and checks
 * they all arrived. With `--files-to-bucket`, the screenshots (and the HARs and input images stored beside them) go
 * from the data folder into the bucket the VERDICT_S3_* variables describe, each checked against its hash.
 */
import path from "node:path";
import { loadConfig } from "../../config";
import { getAppContext } from "../../context";
import { moveStoreToPostgres, redactPostgresUrl } from "../../services/postgres";
import { copyObjects, type ObjectCopyReport } from "../../storage/copy-objects";
import { FolderObjectStore } from "../../storage/folder-object-store";
import { S3ObjectStore } from "../../storage/s3-object-store";
import { UsageError, flagBool, flagString, parseArgs } from "../args";
import { createProgressBar } from "../progress";
import type { CliCommand } from "../types";

export const migrateStoreCommand: CliCommand = {
  name: "migrate-store",
  summary: "copy every database row from SQLite into an empty PostgreSQL database and verify it",
  usage: [
    "npm run cli -- migrate-store --to postgres://user:password@host:5432/database [--files-to-bucket] [--json]",
    "",
    "Migrates the PostgreSQL database, copies every table of the SQLite database (VERDICT_DB) into it in one",
    "transaction, then compares each table's row count and a digest of its rows on both sides. The PostgreSQL",
    "database must hold no data yet. Stop the web server and workers first, so nothing writes during the copy.",
    "Screenshots, image variants and bundles are files: they stay in VERDICT_DATA_DIR, unless --files-to-bucket is given:",
    "then every screenshot (and HAR and input image) of VERDICT_DATA_DIR/screenshots is also copied into the bucket that",
    "VERDICT_S3_BUCKET (and the other VERDICT_S3_* variables) name, each checked against its hash, and counted on both sides.",
    "Objects the bucket holds already are skipped, so an interrupted copy can be run again. Variants are made again on first view.",
    "Afterwards, set VERDICT_DATABASE_URL to the same URL and restart the web server and workers: they then serve from PostgreSQL.",
  ].join("\n"),
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["to"], boolFlags: ["json", "files-to-bucket"], noPositionals: true });
    const to = flagString(args, "to");
    if (!to) throw new UsageError("--to postgres://… is required (the PostgreSQL database to copy into)");
    if (!/^postgres(ql)?:\/\//i.test(to.trim()))
      throw new UsageError(`--to must be a postgres:// or postgresql:// URL, got ${JSON.stringify(redactPostgresUrl(to))}`);
    const json = flagBool(args, "json");
    const config = loadConfig(io.env);
    if (config.postgresUrl) {
      throw new UsageError(
        "VERDICT_DATABASE_URL is set, so this installation already uses PostgreSQL; migrate-store copies from the SQLite file (VERDICT_DB): run it without VERDICT_DATABASE_URL",
      );
    }
    const filesToBucket = flagBool(args, "files-to-bucket");
    if (filesToBucket && !config.objectStorage) {
      throw new UsageError(
        "--files-to-bucket needs the bucket: set VERDICT_S3_BUCKET (and VERDICT_S3_ENDPOINT and the credentials for MinIO, R2 or another S3-compatible store)",
      );
    }
    const ctx = getAppContext(io.env);
    let files: (ObjectCopyReport & { from: string; to: string }) | null = null;
    if (config.objectStorage && filesToBucket) {
      // Files first: their copy can be run again, the rows' copy wants an empty database. The source is the data
      // folder itself, whatever store the variables would give the running installation.
      const from = new FolderObjectStore(path.join(config.dataDir, "screenshots"));
      const into = new S3ObjectStore(config.objectStorage, "sha256");
      const fileBar = createProgressBar(io, "Screenshots", { enabled: !json });
      try {
        files = { from: from.location, to: into.location, ...(await copyObjects(from, into, { onProgress: (done, total) => fileBar.update(done, total) })) };
      } finally {
        fileBar.finish();
      }
    }
    const bar = createProgressBar(io, "Copying", { enabled: !json });
    let report;
    try {
      report = await moveStoreToPostgres(ctx.db, to.trim(), (table, copied, total) => bar.update(copied, total, table));
    } finally {
      bar.finish();
    }
    const target = redactPostgresUrl(to.trim());
    if (json) {
      io.stdout(JSON.stringify({ from: ctx.config.dbPath, to: target, rows: report.rows, tables: report.tables, verified: true, files }) + "\n");
    } else {
      const lines = report.tables.map((t) => `  ${t.table.padEnd(26)} ${String(t.rows).padStart(9)}`);
      io.stdout(
        [
          `Copied ${report.rows} rows from ${ctx.config.dbPath} to ${target}; counts and digests match on both sides.`,
          ...lines,
          files
            ? `Copied ${files.copied} of ${files.objects} screenshot file(s) (${(files.bytes / 1e6).toFixed(1)} MB) from ${files.from} to ${files.to}, ${files.alreadyThere} there already; every one checked against its hash and found in the bucket.`
            : `Files stay in ${ctx.config.dataDir}.`,
        ].join("\n") + "\n",
      );
    }
    return 0;
  },
};

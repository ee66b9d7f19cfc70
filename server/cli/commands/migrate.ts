import { getAppContext } from "../../context";
import { loadConfig } from "../../config";
import { migratePostgresDatabase, redactPostgresUrl } from "../../services/postgres";
import { parseArgs } from "../args";
import type { CliCommand } from "../types";

export const migrateCommand: CliCommand = {
  name: "migrate",
  summary: "create the database or bring it up to date (SQLite: also done on every open; PostgreSQL: VERDICT_DATABASE_URL)",
  usage: "npm run cli -- migrate   (VERDICT_DATABASE_URL=postgres://… migrates that PostgreSQL database instead of the SQLite file)",
  async run(argv, io) {
    parseArgs(argv, {});
    const { postgresUrl } = loadConfig(io.env);
    if (postgresUrl) {
      await migratePostgresDatabase(postgresUrl);
      io.stderr(`PostgreSQL database ${redactPostgresUrl(postgresUrl)} is up to date.\n`);
      return 0;
    }
    const ctx = getAppContext(io.env);
    io.stderr(`Database ${ctx.config.dbPath} is up to date.\n`);
    return 0;
  },
};

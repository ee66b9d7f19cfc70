import { getAppContext } from "../../context";
import { parseArgs } from "../args";
import type { CliCommand } from "../types";

export const migrateCommand: CliCommand = {
  name: "migrate",
  summary: "create the database or bring it up to date (also done on every open)",
  usage: "npm run cli -- migrate",
  async run(argv, io) {
    parseArgs(argv, {});
    const ctx = getAppContext(io.env);
    io.stderr(`Database ${ctx.config.dbPath} is up to date.\n`);
    return 0;
  },
};

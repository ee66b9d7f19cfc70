import { describeDatabase, getAppContext } from "../../context";
import { collectStats } from "../../services/stats";
import { flagBool, parseArgs } from "../args";
import type { CliCommand } from "../types";

export const statsCommand: CliCommand = {
  name: "stats",
  summary: "counts of task sets, tasks, runs, trajectories, steps, screenshots",
  usage: "npm run cli -- stats [--json]",
  async run(argv, io) {
    const args = parseArgs(argv, { boolFlags: ["json"] });
    const ctx = getAppContext(io.env);
    const s = await collectStats(ctx.db);
    if (flagBool(args, "json")) {
      io.stdout(JSON.stringify(s) + "\n");
    } else {
      io.stdout(
        [
          `Database: ${describeDatabase(ctx.config)}`,
          `Data folder: ${ctx.config.dataDir}`,
          ...Object.entries(s).map(([k, v]) => `  ${k.padEnd(12)} ${v}`),
        ].join("\n") + "\n",
      );
    }
    return 0;
  },
};

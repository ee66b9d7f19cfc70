import { getAppContext } from "../../context";
import { exportBundle } from "../../services/bundle-io";
import { exportAtif } from "../../services/trajectories";
import { trajectoryIdsOf } from "../../services/trajectory-views";
import { UsageError, flagBool, flagString, parseArgs, userPath } from "../args";
import { createProgressBar } from "../progress";
import type { CliCommand } from "../types";

export const exportCommand: CliCommand = {
  name: "export",
  summary: "export trajectories as a native bundle or as ATIF (--format atif), to a folder or a .zip",
  usage: "npm run cli -- export <trajectory-id | --run ID | --all> <out-dir-or-zip> [--format native|atif] [--json]",
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["run", "format"], boolFlags: ["all", "json"] });
    const format = flagString(args, "format") ?? "native";
    if (format !== "native" && format !== "atif") throw new UsageError(`--format: native or atif, got ${JSON.stringify(format)}`);
    const runId = flagString(args, "run");
    const all = flagBool(args, "all");
    const ctx = getAppContext(io.env);
    let ids: number[];
    let out: string | undefined;
    if (runId !== undefined || all) {
      if (runId !== undefined && all) throw new UsageError("give either --run or --all, not both");
      [out] = args.positionals;
      if (args.positionals.length !== 1) throw new UsageError("expected exactly one output path");
      if (runId !== undefined) {
        const id = Number(runId);
        if (!Number.isInteger(id)) throw new Error(`No run with id ${runId}`);
        ids = await trajectoryIdsOf(ctx.db, { runId: id });
      } else {
        ids = await trajectoryIdsOf(ctx.db);
      }
    } else {
      if (args.positionals.length !== 2) throw new UsageError("expected <trajectory-id> <out-dir-or-zip>");
      const id = Number(args.positionals[0]);
      if (!Number.isInteger(id)) throw new UsageError(`not a trajectory id: ${args.positionals[0]}`);
      ids = [id];
      out = args.positionals[1];
    }
    const bar = createProgressBar(io, "Exporting");
    let result;
    try {
      const write = format === "atif" ? exportAtif : exportBundle;
      result = await write(ctx, ids, userPath(io, out!), (d, t) => bar.update(d, t));
    } finally {
      bar.finish();
    }
    if (flagBool(args, "json")) io.stdout(JSON.stringify(result) + "\n");
    else io.stderr(`Exported ${result.trajectories} trajectories${format === "atif" ? " as ATIF" : ""} and ${result.images} images to ${result.out}\n`);
    return 0;
  },
};

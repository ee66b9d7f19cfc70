import { getAppContext } from "../../context";
import { collectUnreferencedObjects, DEFAULT_GC_MIN_AGE_MS } from "../../services/operations";
import { expireReports } from "../../services/trajectories";
import { UsageError, flagBool, flagString, parseArgs } from "../args";
import type { CliCommand } from "../types";

export const gcScreenshotsCommand: CliCommand = {
  name: "gc-screenshots",
  summary: "remove stored screenshots and variants no screenshot row refers to (left by failed imports), and the zips of expired reports",
  usage: "npm run cli -- gc-screenshots [--min-age-hours 24] [--dry-run] [--json]",
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["min-age-hours"], boolFlags: ["dry-run", "json"] });
    const hoursText = flagString(args, "min-age-hours");
    const hours = hoursText === undefined ? DEFAULT_GC_MIN_AGE_MS / 3_600_000 : Number(hoursText);
    // Younger objects may belong to an import still running: its rows are not committed yet.
    if (!Number.isFinite(hours) || hours < 1)
      throw new UsageError("--min-age-hours is a number of hours, at least 1 (objects of imports still running must stay)");
    const ctx = getAppContext(io.env);
    const dryRun = flagBool(args, "dry-run");
    const report = await collectUnreferencedObjects(ctx, { minAgeMs: hours * 3_600_000, dryRun });
    const reports = await expireReports(ctx, { dryRun });
    if (flagBool(args, "json"))
      io.stdout(
        JSON.stringify({ store: ctx.store.originals.location, dryRun, ...report, expiredReports: reports.removed, reportFiles: reports.location }) + "\n",
      );
    else {
      io.stderr(
        `${dryRun ? "Would remove" : "Removed"} ${report.removed.length} screenshot(s) and ${report.removedVariants.length} variant(s) from ${ctx.store.originals.location}; ` +
          `kept ${report.keptYoung} unreferenced object(s) younger than ${hours} h; ` +
          `${dryRun ? "would remove" : "removed"} the zips of ${reports.removed.length} expired report(s) from ${reports.location}.\n`,
      );
    }
    return 0;
  },
};

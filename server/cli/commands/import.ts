import { getAppContext } from "../../context";
import { runImport } from "../../services/ingest";
import { IMPORTERS } from "../../importers/registry";
import { UsageError, flagBool, flagString, parseArgs } from "../args";
import { createProgressBar } from "../progress";
import type { CliCommand } from "../types";

export const importCommand: CliCommand = {
  name: "import",
  summary: "import trajectories or task sets from a path (format sniffed)",
  usage: `npm run cli -- import <path> [--format auto|${IMPORTERS.map((i) => i.format).join("|")}] [--tasks FILE] [--json]`,
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["format", "tasks"], boolFlags: ["json"] });
    const [input, ...extra] = args.positionals;
    if (!input) throw new UsageError("missing <path> to import");
    if (extra.length) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
    const json = flagBool(args, "json");
    const ctx = getAppContext(io.env);
    const bar = createProgressBar(io, "Importing");
    const started = Date.now();
    let report;
    try {
      report = await runImport(ctx, {
        path: input,
        format: flagString(args, "format"),
        tasksFile: flagString(args, "tasks"),
        onProgress: (p) => bar.update(p.done, p.total, p.label),
      });
    } finally {
      bar.finish();
    }
    if (json) {
      io.stdout(
        JSON.stringify({
          created: report.created,
          updated: report.updated,
          unchanged: report.unchanged,
          trajectories: report.trajectories.map((t) => ({
            id: t.id,
            externalTaskId: t.externalTaskId,
            steps: t.steps,
            screenshots: t.screenshots,
            rawScreenshots: t.rawScreenshots,
            finalAnswer: t.finalAnswer,
            status: t.status,
          })),
          tasks: report.tasks,
          format: report.format,
          screenshotsAdded: report.screenshotsAdded,
        }) + "\n",
      );
      return 0;
    }
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    const n = report.trajectories.length;
    const lines = [`Imported ${input} as ${report.format} in ${secs}s`];
    if (n || report.tasks.created + report.tasks.updated + report.tasks.unchanged === 0) {
      lines.push(`  trajectories: ${n} (${report.created} created, ${report.updated} updated, ${report.unchanged} unchanged)`);
    }
    const t = report.tasks;
    if (t.created + t.updated + t.unchanged) lines.push(`  tasks: ${t.created} created, ${t.updated} updated, ${t.unchanged} unchanged`);
    lines.push(`  screenshots added: ${report.screenshotsAdded}`);
    if (n && report.created + report.updated === 0 && t.created + t.updated === 0) lines.push("  Nothing changed: this source was already imported.");
    io.stderr(lines.join("\n") + "\n");
    return 0;
  },
};

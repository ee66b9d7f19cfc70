import { getAppContext } from "../../context";
import { ledgerCsv } from "../../domain/catalog/task-validity";
import { taskValidityLedger } from "../../services/catalog";
import { flagString, parseArgs, UsageError } from "../args";
import { answerExport } from "../answer";
import type { CliCommand } from "../types";

export const taskValidityCommand: CliCommand = {
  name: "task-validity",
  summary: "export the task validity ledger (flagged tasks, every revision) as CSV or JSON, per benchmark or task set",
  usage: "npm run cli -- task-validity export [--benchmark NAME | --set ID] [--format csv|json] [--out FILE] [--json]",
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["benchmark", "set", "format", "out"], boolFlags: ["json"] });
    if (args.positionals[0] !== "export") throw new UsageError("task-validity: the subcommand is export");
    const format = flagString(args, "format") ?? "csv";
    if (format !== "csv" && format !== "json") throw new UsageError(`--format: csv or json, got ${JSON.stringify(format)}`);
    const setText = flagString(args, "set");
    if (setText !== undefined && !/^\d{1,9}$/.test(setText)) throw new UsageError(`--set: a task set id, got ${JSON.stringify(setText)}`);
    const ctx = getAppContext(io.env);
    const entries = await taskValidityLedger(ctx.db, {
      benchmark: flagString(args, "benchmark"),
      taskSetId: setText === undefined ? undefined : Number(setText),
    });
    const body = format === "csv" ? ledgerCsv(entries) : JSON.stringify(entries, null, 2) + "\n";
    return answerExport(io, args, body, (out, typed) => ({
      json: { file: out, format, revisions: entries.length },
      text: `Wrote ${entries.length} revision${entries.length === 1 ? "" : "s"} of ${new Set(entries.map((e) => e.taskId)).size} tasks to ${typed}\n`,
    }));
  },
};

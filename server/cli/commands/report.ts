/**
 * `npm run cli -- report --out <folder|zip>`: a shareable read-only report (server/services/trajectories/static-report.ts)
 * of a trajectory-list selection, given as the list's URL query (`--filter "run=2&site=shopping"`) or its common
 * flags. The same service builds the dashboard's "Download report".
 */
import { getAppContext } from "../../context";
import { parseTrajectoryListParams, type TrajectoryListInput } from "../../domain/trajectory-list-query";
import { buildReport, writeReport, type ReportOptions } from "../../services/trajectories";
import { flagBool, flagString, parseArgs, UsageError, userPath } from "../args";
import { actorFromArgs } from "../label-args";
import { createProgressBar } from "../progress";
import type { CliCommand } from "../types";

/** The selection: the list's URL query, with the flags given on their own taking precedence. */
function selectionOf(args: ReturnType<typeof parseArgs>): TrajectoryListInput {
  const params = new URLSearchParams(flagString(args, "filter") ?? "");
  for (const [flag, key] of [
    ["run", "run"],
    ["set", "set"],
    ["site", "site"],
    ["search", "search"],
    ["ids", "ids"],
    ["sample", "sample"],
    ["seed", "seed"],
  ] as const) {
    const v = flagString(args, flag);
    if (v !== undefined) params.set(key, v);
  }
  const { sort: _sort, dir: _dir, page: _page, pageSize: _size, ...selection } = parseTrajectoryListParams(params);
  return selection;
}

function labelsOf(text: string | undefined): ReportOptions["labels"] {
  const v = text ?? "consolidated";
  if (v !== "none" && v !== "consolidated" && v !== "all") throw new UsageError(`--labels: none, consolidated or all, got ${JSON.stringify(v)}`);
  return v;
}

function judgesOf(text: string | undefined): ReportOptions["judges"] {
  if (text === undefined || text === "all") return "all";
  if (text === "none") return [];
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

export const reportCommand: CliCommand = {
  name: "report",
  summary: "a shareable read-only report (static pages, opens without a server) of a trajectory-list selection",
  usage: [
    "npm run cli -- report --out <folder|file.zip> [--filter <list URL query>] [--run ID] [--set ID] [--site S] [--search Q] [--ids 1,2]",
    "       [--sample N [--seed S]] [--labels none|consolidated|all] [--judges all|none|<ref,ref>] [--names] [--no-agreement]",
    "       [--title T] [--as <email>] [--json]",
    "Annotators' names are withheld unless --names is given. --filter takes the query of a trajectory-list URL.",
  ].join("\n"),
  async run(argv, io) {
    const args = parseArgs(argv, {
      valueFlags: ["out", "filter", "run", "set", "site", "search", "ids", "sample", "seed", "labels", "judges", "title", "as"],
      boolFlags: ["names", "no-agreement", "json"],
      noPositionals: true,
    });
    const out = flagString(args, "out");
    if (!out) throw new UsageError("--out <folder|file.zip> is required");
    const ctx = getAppContext(io.env);
    const options: ReportOptions = {
      selection: selectionOf(args),
      labels: labelsOf(flagString(args, "labels")),
      judges: judgesOf(flagString(args, "judges")),
      annotatorNames: flagBool(args, "names"),
      agreement: !flagBool(args, "no-agreement"),
      title: flagString(args, "title"),
    };
    const target = userPath(io, out);
    const bar = createProgressBar(io, "Building report");
    let files;
    try {
      files = await buildReport(ctx.db, await actorFromArgs(ctx, args), options, (d, t) => bar.update(d, t));
      await writeReport(ctx.store, files, target);
    } finally {
      bar.finish();
    }
    const { counts } = files.manifest;
    if (flagBool(args, "json")) io.stdout(JSON.stringify({ out: target, ...counts }) + "\n");
    else io.stderr(`Wrote a report of ${counts.trajectories} trajectories (${counts.steps} steps, ${counts.screenshots} screenshots) to ${target}\n`);
    return 0;
  },
};

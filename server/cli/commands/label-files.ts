/**
 * Labels in a benchmark's own format (Online-Mind2Web human_label.json, AgentRewardBench annotations.csv, a
 * CUAVerifierBench-shaped table) or Verdict's CSV / JSONL, out of a campaign and back in: the `--format` half of
 * `labels export` and `labels import` (server/cli/commands/labels.ts). `export-labels` and `import-labels`, the
 * commands this used to be, stay one release as aliases that say so on stderr.
 */
import path from "node:path";
import type { AppContext } from "../../context";
import { LABEL_FORMAT_DESCRIPTIONS, LABEL_FORMATS } from "../../domain/annotation/label-formats";
import { exportLabelsAs, importLabelsAs } from "../../services/annotation";
import { flagBool, flagString, UsageError, userPath, type ParsedArgs } from "../args";
import { actorFromArgs, describeImport, importTarget, labelImportExit, positiveInt, readLabelFile } from "../label-args";
import { answerExport } from "../answer";
import type { CliCommand, CliIO } from "../types";

export const FORMATS_HELP = LABEL_FORMATS.map((f) => `  ${f.padEnd(18)} ${LABEL_FORMAT_DESCRIPTIONS[f]}`).join("\n");

/** Whether `--format` names a label file format (rather than the plain csv / jsonl export). */
export function isLabelFormat(value: string): boolean {
  return (LABEL_FORMATS as readonly string[]).includes(value);
}

/** `labels export <id> --format <label format>`. */
export async function exportLabelFile(app: AppContext, args: ParsedArgs, io: CliIO, format: string): Promise<number> {
  const id = positiveInt(args.positionals[0], "campaign id");
  if (id === undefined) throw new UsageError("which campaign? give its id (see `npm run cli -- labels campaigns`)");
  const file = await exportLabelsAs(app.db, await actorFromArgs(app, args), id, format);
  answerExport(io, args, file.body, (out, typed) => ({ json: { file: out, format, leftOut: file.leftOut }, text: `Wrote ${typed} (${format})\n` }));
  if (file.leftOut && !flagBool(args, "json")) io.stderr(`${file.leftOut} label(s) left out: ${format} cannot hold their verdict\n`);
  return 0;
}

/** `labels import <file> --format <label format>`. */
export async function importLabelFile(app: AppContext, args: ParsedArgs, io: CliIO, format: string): Promise<number> {
  const file = args.positionals[0];
  if (!file) throw new UsageError("which file?");
  const campaign = importTarget(args);
  const text = readLabelFile(userPath(io, file), file);
  const report = await importLabelsAs(app.db, await actorFromArgs(app, args), {
    format,
    text,
    source: path.basename(file),
    annotator: flagString(args, "annotator"),
    campaign,
    dryRun: flagBool(args, "dry-run"),
    unmatchedLimit: Number.POSITIVE_INFINITY,
  });
  io.stdout(describeImport(report, args));
  return labelImportExit(report);
}

/** An old command name kept for one release: it says what to type instead, then does the same. */
function alias(name: string, sub: "export" | "import", labels: CliCommand): CliCommand {
  return {
    name,
    summary: `old name of \`labels ${sub} --format …\` (kept for one release)`,
    usage: `npm run cli -- ${name} … is now npm run cli -- labels ${sub} … --format <format>`,
    async run(argv, io) {
      io.stderr(`Note: \`${name}\` is now \`labels ${sub}\` (same options); the old name goes in the next release.\n`);
      if (!argv.includes("--format") && !argv.some((a) => a.startsWith("--format="))) throw new UsageError(`give --format, one of:\n${FORMATS_HELP}`);
      return labels.run([sub, ...argv], io);
    },
  };
}

export const exportLabelsAlias = (labels: CliCommand) => alias("export-labels", "export", labels);
export const importLabelsAlias = (labels: CliCommand) => alias("import-labels", "import", labels);

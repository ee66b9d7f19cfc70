/**
 * `npm run cli -- export-labels` / `import-labels`: a campaign's labels in a benchmark's own format (Online-Mind2Web
 * human_label.json, AgentRewardBench annotations.csv, a CUAVerifierBench-shaped table) or Verdict's CSV / JSONL,
 * and the same files back into a campaign. Actions are attributed to an account (--as <email>, default: the first
 * admin).
 */
import fs from "node:fs";
import path from "node:path";
import { getAppContext } from "../../context";
import { LABEL_FORMAT_DESCRIPTIONS, LABEL_FORMATS } from "../../domain/annotation/label-formats";
import { exportLabelsAs, importLabelsAs } from "../../services/annotation";
import { flagBool, flagString, parseArgs, UsageError, userPath } from "../args";
import { actorFromArgs, describeImport, importTarget, labelImportExit, positiveInt, readLabelFile } from "../label-args";
import type { CliCommand } from "../types";

const FORMATS_HELP = LABEL_FORMATS.map((f) => `  ${f.padEnd(18)} ${LABEL_FORMAT_DESCRIPTIONS[f]}`).join("\n");

function formatFlag(value: string | undefined): string {
  if (!value) throw new UsageError(`give --format, one of:\n${FORMATS_HELP}`);
  if (!(LABEL_FORMATS as readonly string[]).includes(value)) throw new UsageError(`unknown --format ${JSON.stringify(value)}; one of:\n${FORMATS_HELP}`);
  return value;
}

export const exportLabelsCommand: CliCommand = {
  name: "export-labels",
  summary: "write a campaign's labels as Online-Mind2Web, AgentRewardBench, CUAVerifierBench or Verdict files",
  usage: ["npm run cli -- export-labels <campaign-id> --format <format> [--out <file>] [--as <email>] [--json]", "", "Formats:", FORMATS_HELP].join("\n"),
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["format", "out", "as"], boolFlags: ["json"] });
    const id = positiveInt(args.positionals[0], "campaign id");
    if (id === undefined) throw new UsageError("which campaign? give its id (see `npm run cli -- labels campaigns`)");
    const format = formatFlag(flagString(args, "format"));
    const app = getAppContext(io.env);
    const file = await exportLabelsAs(app.db, await actorFromArgs(app, args), id, format);
    const outFlag = flagString(args, "out");
    const out = outFlag === undefined ? undefined : userPath(io, outFlag);
    const json = flagBool(args, "json");
    if (!out) {
      if (json) throw new UsageError("--json needs --out (the export itself would be stdout)");
      io.stdout(file.body);
    } else {
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, file.body);
      if (json) io.stdout(JSON.stringify({ file: out, format, leftOut: file.leftOut }) + "\n");
      else io.stderr(`Wrote ${outFlag} (${format})\n`);
    }
    if (file.leftOut && !json) io.stderr(`${file.leftOut} label(s) left out: ${format} cannot hold their verdict\n`);
    return 0;
  },
};

export const importLabelsCommand: CliCommand = {
  name: "import-labels",
  summary: "read labels from an Online-Mind2Web, AgentRewardBench, CUAVerifierBench or Verdict file into a campaign",
  usage: [
    "npm run cli -- import-labels <file> --format <format> (--campaign <id> | --new-campaign <name> [--annotators-per-item N])",
    "                             [--annotator <name>] [--dry-run] [--as <email>] [--json]",
    "",
    "--annotator: Online-Mind2Web only, who the file's labels are attributed to (it names no annotators).",
    "Exit 3 when some rows match no trajectory (--json lists every one).",
    "Formats:",
    FORMATS_HELP,
  ].join("\n"),
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["format", "as", "campaign", "new-campaign", "annotators-per-item", "annotator"], boolFlags: ["json", "dry-run"] });
    const file = args.positionals[0];
    if (!file) throw new UsageError("which file?");
    const format = formatFlag(flagString(args, "format"));
    const campaign = importTarget(args);
    const text = readLabelFile(userPath(io, file), file);
    const app = getAppContext(io.env);
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
  },
};

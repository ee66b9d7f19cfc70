/**
 * `npm run cli -- labels …`: one command for label files. A campaign's labels out as Verdict's CSV/JSONL or a
 * benchmark's own format, and labels made elsewhere in, from a benchmark's format (--format) or any table with a
 * column mapping (--preset, --mapping). Actions are attributed to an account (--as <email>, default: the first admin).
 */
import fs from "node:fs";
import path from "node:path";
import { getAppContext } from "../../context";
import { LABEL_IMPORT_PRESETS, labelImportMappingSchema, type LabelImportMapping } from "../../domain/annotation/label-io";
import { exportCampaignLabels, importLabelsFile, listAllCampaigns, pairwisePreferencePairs } from "../../services/annotation";
import { flagBool, flagString, parseArgs, UsageError, userPath, type ParsedArgs } from "../args";
import { exportLabelFile, FORMATS_HELP, importLabelFile, isLabelFormat } from "./label-files";
import { actorFromArgs, describeImport, importTarget, labelImportExit, positiveInt, readLabelBytes } from "../label-args";
import { answerExport } from "../answer";
import type { CliCommand, CliIO } from "../types";
import type { AppContext } from "../../context";

const USAGE = [
  "npm run cli -- labels export <campaign-id> [--format csv|jsonl|preference-pairs|<format>] [--out <file>] [--as <email>] [--json]",
  "       npm run cli -- labels import <file.csv|file.xlsx> (--campaign <id> | --new-campaign <name> [--annotators-per-item N])",
  "                                   [--preset " +
    Object.keys(LABEL_IMPORT_PRESETS).join("|") +
    "] [--mapping <mapping.json>] [--sheet <name|N>] [--dry-run] [--as <email>] [--json]",
  "       npm run cli -- labels import <file> --format <format> (--campaign <id> | --new-campaign <name>) [--annotator <name>] [--dry-run] [--as <email>] [--json]",
  "       npm run cli -- labels campaigns [--json]",
  "",
  "preference-pairs: a pairwise campaign's answers, one JSON line each: {task, a, b, winner, …} (see docs/guide/campaigns.md).",
  "",
  "Formats (export and import):",
  FORMATS_HELP,
  "--annotator: Online-Mind2Web only, who the file's labels are attributed to (it names no annotators).",
  "",
  'A mapping file is JSON: {"annotator": "col", "verdict": "col", "verdictValues": {"Yes": "success", …},',
  '  "trajectoryId": "col" | "taskId": "col", "model": "col", "benchmark": "col", "category": "col", "note": "col", …}',
  "A wide table (several annotators on one row) maps each annotator's columns instead of annotator/verdict:",
  '  "labels": [{"annotator": "Evaluator1", "verdict": "Overall1"}, {"annotatorName": "Carol", "verdict": "Carol"}, …]',
  "Exit 3 when some rows match no trajectory (--json lists every one), as a partial trajectory import does.",
].join("\n");

function readMapping(file: string, resolved: string): LabelImportMapping {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(resolved, "utf8"));
  } catch (e) {
    throw new UsageError(`--mapping ${file}: ${(e as Error).message}`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new UsageError(`--mapping ${file}: expected a JSON object`);
  // The rules the dashboard's import form is held to; a key neither knows is a typo, not something to ignore.
  const checked = labelImportMappingSchema.strict().safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const where = issue.code === "unrecognized_keys" ? issue.keys.join(", ") : issue.path.join(".") || "(mapping)";
    throw new UsageError(`--mapping ${file}: ${where}: ${issue.code === "unrecognized_keys" ? "not a mapping field" : issue.message}`);
  }
  return checked.data;
}

/** `labels export <id> --format preference-pairs`: a pairwise campaign's answers as JSONL. */
async function exportPreferencePairs(app: AppContext, args: ParsedArgs, io: CliIO, id: number): Promise<number> {
  const file = await pairwisePreferencePairs(app.db, await actorFromArgs(app, args), id);
  return answerExport(io, args, file.jsonl, (out, typed) => ({
    json: { file: out, format: "preference-pairs", records: file.lines },
    text: `Wrote ${file.lines} preference pairs to ${typed}\n`,
  }));
}

export const labelsCommand: CliCommand = {
  name: "labels",
  summary: "export a campaign's labels (CSV, JSONL or a benchmark's format) or import labels (a benchmark's format, or any table with a mapping)",
  usage: USAGE,
  async run(argv, io) {
    const [sub, ...rest] = argv;
    const args = parseArgs(rest, {
      valueFlags: ["format", "out", "as", "campaign", "new-campaign", "annotators-per-item", "preset", "mapping", "sheet", "annotator"],
      boolFlags: ["json", "dry-run"],
    });
    const json = flagBool(args, "json");
    const app = getAppContext(io.env);

    if (sub === "campaigns") {
      const rows = (await listAllCampaigns(app.db)).map((c) => ({
        id: c.id,
        name: c.name,
        status: c.status,
        origin: c.origin,
        kind: c.kind,
        annotatorsPerItem: c.annotatorsPerItem,
        blind: c.blind,
      }));
      if (json) io.stdout(JSON.stringify({ campaigns: rows }) + "\n");
      else
        io.stdout(
          (rows.length
            ? rows
                .map(
                  (r) =>
                    `${String(r.id).padStart(4)}  ${r.name}  (${r.kind === "pairwise" ? "pairwise, " : ""}${r.status}, ${r.origin}, k=${r.annotatorsPerItem}${r.blind ? ", blind" : ""})`,
                )
                .join("\n")
            : "No campaigns.") + "\n",
        );
      return 0;
    }

    if (sub === "export") {
      const id = positiveInt(args.positionals[0], "campaign id");
      if (id === undefined) throw new UsageError("which campaign? give its id (see `labels campaigns`)");
      const format = flagString(args, "format") ?? "csv";
      if (format === "preference-pairs") return exportPreferencePairs(app, args, io, id);
      if (isLabelFormat(format)) return exportLabelFile(app, args, io, format);
      if (format !== "csv" && format !== "jsonl") throw new UsageError(`unknown --format ${JSON.stringify(format)}; csv, jsonl or one of:\n${FORMATS_HELP}`);
      const file = await exportCampaignLabels(app.db, await actorFromArgs(app, args), id, format);
      const records = file.body.split("\n").filter((l) => l.trim() !== "").length - (format === "csv" ? 1 : 0);
      return answerExport(io, args, file.body, (out, typed) => ({ json: { file: out, format, records }, text: `Wrote ${records} records to ${typed}\n` }));
    }

    if (sub === "import") {
      const presetName = flagString(args, "preset");
      const mappingFile = flagString(args, "mapping");
      const format = flagString(args, "format");
      if (format !== undefined) {
        if (presetName || mappingFile) throw new UsageError("give --format, or --preset / --mapping, not both");
        if (!isLabelFormat(format)) throw new UsageError(`unknown --format ${JSON.stringify(format)}; one of:\n${FORMATS_HELP}`);
        return importLabelFile(app, args, io, format);
      }
      const file = args.positionals[0];
      if (!file) throw new UsageError("which label file (.csv or .xlsx)?");
      if (!presetName && !mappingFile) throw new UsageError("give --format, --preset or --mapping");
      let mapping: LabelImportMapping;
      if (mappingFile) mapping = readMapping(mappingFile, userPath(io, mappingFile));
      else {
        const preset = LABEL_IMPORT_PRESETS[presetName!];
        if (!preset) throw new UsageError(`unknown preset ${JSON.stringify(presetName)}; known: ${Object.keys(LABEL_IMPORT_PRESETS).join(", ")}`);
        mapping = preset.mapping;
      }
      const campaign = importTarget(args);
      const bytes = readLabelBytes(userPath(io, file));
      const report = await importLabelsFile(app.db, await actorFromArgs(app, args), {
        bytes,
        sheet: flagString(args, "sheet"),
        source: path.basename(file),
        mapping,
        campaign,
        dryRun: flagBool(args, "dry-run"),
        unmatchedLimit: Number.POSITIVE_INFINITY,
      });
      io.stdout(describeImport(report, args));
      return labelImportExit(report);
    }
    throw new UsageError(
      sub ? `unknown labels command ${JSON.stringify(sub)}; known: export, import, campaigns` : "which labels command? export, import or campaigns",
    );
  },
};

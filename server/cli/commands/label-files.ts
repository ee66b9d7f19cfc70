/**
 * `npm run cli -- export-labels` / `import-labels`: a campaign's labels in a benchmark's own format (Online-Mind2Web
 * human_label.json, AgentRewardBench annotations.csv, a CUAVerifierBench-shaped table) or Verdict's CSV / JSONL,
 * and the same files back into a campaign. Actions are attributed to an account (--as <email>, default: the first
 * admin).
 */
import fs from "node:fs";
import path from "node:path";
import { findAccountByEmail, firstAdmin } from "../../services/accounts";
import type { Actor } from "../../auth/roles";
import { getAppContext, type AppContext } from "../../context";
import { LABEL_FORMAT_DESCRIPTIONS, LABEL_FORMATS } from "../../domain/annotation/label-formats";
import { AppError } from "../../errors";
import { exportLabelsAs, importLabelsAs } from "../../services/annotation";
import { flagBool, flagString, parseArgs, UsageError } from "../args";
import type { CliCommand } from "../types";

const FORMATS_HELP = LABEL_FORMATS.map((f) => `  ${f.padEnd(18)} ${LABEL_FORMAT_DESCRIPTIONS[f]}`).join("\n");

function actorFor(app: AppContext, email: string | undefined): Actor {
  const user = email ? findAccountByEmail(app, email) : firstAdmin(app);
  if (!user) throw new AppError("NOT_FOUND", email ? `No account with email ${email}` : "No admin account yet; create one with `npm run cli -- user add`");
  return { userId: user.id, name: user.name, role: user.role };
}

function positiveInt(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`--${flag} must be a positive whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

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
    const file = exportLabelsAs(app.db, actorFor(app, flagString(args, "as")), id, format);
    const out = flagString(args, "out");
    const json = flagBool(args, "json");
    if (!out) {
      if (json) throw new UsageError("--json needs --out (the export itself would be stdout)");
      io.stdout(file.body);
    } else {
      fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
      fs.writeFileSync(out, file.body);
      if (json) io.stdout(JSON.stringify({ file: path.resolve(out), format, leftOut: file.leftOut }) + "\n");
      else io.stderr(`Wrote ${out} (${format})\n`);
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
    "Formats:",
    FORMATS_HELP,
  ].join("\n"),
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["format", "as", "campaign", "new-campaign", "annotators-per-item", "annotator"], boolFlags: ["json", "dry-run"] });
    const file = args.positionals[0];
    if (!file) throw new UsageError("which file?");
    const format = formatFlag(flagString(args, "format"));
    const campaignId = positiveInt(flagString(args, "campaign"), "campaign");
    const newName = flagString(args, "new-campaign");
    if ((campaignId === undefined) === (newName === undefined)) throw new UsageError("give exactly one of --campaign <id> and --new-campaign <name>");
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (e) {
      throw new AppError("NOT_FOUND", `${file}: ${(e as Error).message}`);
    }
    const app = getAppContext(io.env);
    const report = importLabelsAs(app.db, actorFor(app, flagString(args, "as")), {
      format,
      text,
      source: path.basename(file),
      annotator: flagString(args, "annotator"),
      campaign: campaignId !== undefined ? { id: campaignId } : { name: newName!, annotatorsPerItem: positiveInt(flagString(args, "annotators-per-item"), "annotators-per-item") },
      dryRun: flagBool(args, "dry-run"),
    });
    if (flagBool(args, "json")) io.stdout(JSON.stringify(report) + "\n");
    else {
      io.stdout(
        [
          `${flagBool(args, "dry-run") ? "Dry run (nothing written): " : ""}campaign ${report.campaignId ?? "(new)"}`,
          `  rows ${report.rows}: created ${report.created}, updated ${report.updated}, unchanged ${report.unchanged}, skipped ${report.skipped}, unmatched ${report.unmatchedCount}`,
          `  trajectories added to the campaign: ${report.itemsAdded}; annotators: ${report.annotators.join(", ") || "none"}`,
          ...report.unmatched.slice(0, 10).map((u) => `  line ${u.line}: ${u.reason}`),
          ...(report.unmatchedCount > 10 ? [`  … and ${report.unmatchedCount - 10} more unmatched rows`] : []),
        ].join("\n") + "\n",
      );
    }
    return 0;
  },
};

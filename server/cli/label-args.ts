/**
 * What the label commands (`labels export|import`, and their old names `export-labels`, `import-labels`) share: who the action is
 * attributed to (--as <email>, default the first admin), which campaign an import goes into (--campaign <id> or
 * --new-campaign <name>), reading the label file, and the summary printed after an import.
 */
import fs from "node:fs";
import type { Actor } from "../domain/access/actor";
import type { AppContext } from "../context";
import { AppError, ValidationError } from "../errors";
import { findAccountByEmail, firstAdmin } from "../services/accounts";
import type { LabelImportReport } from "../services/annotation";
import { flagBool, flagString, UsageError, type ParsedArgs } from "./args";
import { labelFileKind } from "../domain/annotation/label-workbook";

/** The account an action is attributed to: the one with `email`, or the first admin when none is given. */
export async function actorFor(app: Pick<AppContext, "db" | "config">, email: string | undefined): Promise<Actor> {
  const user = email ? await findAccountByEmail(app, email) : await firstAdmin(app);
  if (!user) throw new AppError("NOT_FOUND", email ? `No account with email ${email}` : "No admin account yet; create one with `npm run cli -- user add`");
  return { userId: user.id, name: user.name, role: user.role };
}

/** `--as <email>` of a label command, as the acting account. */
export async function actorFromArgs(app: Pick<AppContext, "db" | "config">, args: ParsedArgs): Promise<Actor> {
  return actorFor(app, flagString(args, "as"));
}

export function positiveInt(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`--${flag} must be a positive whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

export type ImportTarget = { id: number } | { name: string; annotatorsPerItem?: number };

/** The campaign an import fills: an existing one (--campaign <id>) or a new one (--new-campaign <name>). */
export function importTarget(args: ParsedArgs): ImportTarget {
  const campaignId = positiveInt(flagString(args, "campaign"), "campaign");
  const newName = flagString(args, "new-campaign");
  if ((campaignId === undefined) === (newName === undefined)) throw new UsageError("give exactly one of --campaign <id> and --new-campaign <name>");
  return campaignId !== undefined
    ? { id: campaignId }
    : { name: newName!, annotatorsPerItem: positiveInt(flagString(args, "annotators-per-item"), "annotators-per-item") };
}

/** The bytes of a label file, or an error naming the file. */
export function readLabelBytes(file: string): Uint8Array {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new AppError("NOT_FOUND", `${file}: ${(e as Error).message}`);
  }
}

/** The text of a label file; a file that is not text (a workbook, a PDF…) is refused with what it is. */
export function readLabelFile(file: string, shown: string = file): string {
  const bytes = readLabelBytes(file);
  const kind = labelFileKind(bytes);
  if (kind.kind === "xlsx")
    throw new ValidationError(
      `${shown} is an .xlsx workbook; read it with \`labels import ${shown} --mapping <mapping.json> [--sheet NAME]\`, or save the sheet as CSV`,
    );
  if (kind.kind === "unsupported") throw new ValidationError(`${shown} is ${kind.type}, which Verdict cannot read labels from; ${kind.advice}`);
  return new TextDecoder("utf-8").decode(bytes);
}

/** Exit status of a label import: 0 when every row landed or was skipped on purpose, 3 when some matched no trajectory. */
export const LABEL_IMPORT_EXIT = { ok: 0, unmatched: 3 } as const;

export function labelImportExit(report: LabelImportReport): number {
  return report.unmatchedCount > 0 ? LABEL_IMPORT_EXIT.unmatched : LABEL_IMPORT_EXIT.ok;
}

/** What an import did (or would do, with --dry-run), for people; with --json the report itself. */
export function describeImport(report: LabelImportReport, args: ParsedArgs): string {
  if (flagBool(args, "json")) return JSON.stringify(report) + "\n";
  return (
    [
      `${flagBool(args, "dry-run") ? "Dry run (nothing written): " : ""}campaign ${report.campaignId ?? "(new)"}`,
      ...(report.sheet !== undefined ? [`  sheet ${JSON.stringify(report.sheet)}`] : []),
      `  rows ${report.rows}${report.labels !== report.rows ? ` (${report.labels} labels)` : ""}: created ${report.created}, updated ${report.updated}, unchanged ${report.unchanged}, skipped ${report.skipped}, unmatched rows ${report.unmatchedCount}`,
      `  trajectories added to the campaign: ${report.itemsAdded}; annotators: ${report.annotators.join(", ") || "none"}`,
      ...(report.unmatchedCount > 0 ? [`  Rows that match no trajectory (their labels were not imported; --json lists every one):`] : []),
      ...report.unmatched.slice(0, 10).map((u) => `  line ${u.line}: ${u.reason}`),
      ...(report.unmatchedCount > 10 ? [`  … and ${report.unmatchedCount - 10} more unmatched rows`] : []),
    ].join("\n") + "\n"
  );
}

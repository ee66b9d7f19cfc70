/**
 * Ratings out of a CSV table, for `agreement csv` and the dashboard's CSV tool: which column names the item, the
 * rater and the label, which rows count, and what was left out.
 *
 * - Columns named by the caller: every row (after `where`) is one rating, values compared exactly as written.
 * - Verdict's own label export (columns `kind`, `campaign_id`, `item_id`, `annotator_id`, `annotator_name`,
 *   `verdict`), recognised from its header with no columns named: the ratings are the annotators' labels
 *   (`kind` = annotation) of success or failure, as the Human agreement page counts them. Consolidated rows are the
 *   campaign's outcome, not another rater, and "unsure" is no verdict: both are left out and counted. The rater is
 *   the annotator's name (with the id beside it when two annotators share a name), the item the campaign item.
 *   With columns named on an export, consolidated rows are still left out unless a `where` condition is on `kind`.
 * - `where` conditions (`COL=VALUE`, `COL!=VALUE`, all must hold) filter any table before anything is counted.
 */
import type { CsvTable } from "../csv";
import { AgreementInputError } from "./labels";
import type { RatingRecord } from "./ratings";

export interface WhereCondition {
  column: string;
  op: "=" | "!=";
  value: string;
}

export interface RatingColumns {
  item: string[];
  rater: string;
  label: string;
}

/** The columns of Verdict's label export this reader needs (server/domain/annotation/label-io.ts writes them). */
const EXPORT_COLUMNS = ["kind", "campaign_id", "item_id", "annotator_id", "annotator_name", "verdict"] as const;

export function isVerdictLabelExport(header: readonly string[]): boolean {
  return EXPORT_COLUMNS.every((c) => header.includes(c));
}

/** `COL=VALUE` or `COL!=VALUE` (the first `=` splits; the value may contain more). */
export function parseWhere(text: string): WhereCondition {
  const eq = text.indexOf("=");
  if (eq <= 0) throw new AgreementInputError(`--where needs COLUMN=VALUE or COLUMN!=VALUE, got ${JSON.stringify(text)}`);
  const negated = text[eq - 1] === "!";
  const column = text.slice(0, negated ? eq - 1 : eq);
  if (!column) throw new AgreementInputError(`--where needs a column name before "=", got ${JSON.stringify(text)}`);
  return { column, op: negated ? "!=" : "=", value: text.slice(eq + 1) };
}

export interface RatingTableRead {
  layout: "verdict-export" | "columns";
  records: RatingRecord[];
  /** Data rows in the file. */
  rows: number;
  /** Rows the `where` conditions left out. */
  filteredOut: number;
  /** Rows of a Verdict export left out on purpose, by reason (consolidated labels, unsure labels). */
  leftOut: { reason: string; rows: number }[];
  /** The columns used, by role. */
  columns: RatingColumns;
}

function columnIndex(header: readonly string[], name: string, role: string, file: string): number {
  const first = header.indexOf(name);
  if (first < 0)
    throw new AgreementInputError(
      `${role}: column ${JSON.stringify(name)} is not in the header of ${file}; the columns are ${header.map((h) => JSON.stringify(h)).join(", ")}`,
    );
  if (header.indexOf(name, first + 1) >= 0)
    throw new AgreementInputError(`${role}: the header of ${file} has more than one column named ${JSON.stringify(name)}`);
  return first;
}

/**
 * `rolePrefix` goes before the role in messages about a missing column ("--" for the CLI's flags: "--rater: column
 * …"; "" for the dashboard's pickers).
 */
export function readRatingTable(
  table: CsvTable,
  options: { file: string; columns?: RatingColumns; where?: WhereCondition[]; rolePrefix?: string },
): RatingTableRead {
  const { header, rows } = table;
  const file = options.file;
  const where = (options.where ?? []).map((w) => ({ ...w, index: columnIndex(header, w.column, `--where ${w.column}${w.op}${w.value}`, file) }));
  const exportLayout = isVerdictLabelExport(header);
  if (!options.columns && !exportLayout) {
    throw new AgreementInputError(
      `${file}: name the item, rater and label columns (--item, --rater, --label); the file is not a Verdict label export (it lacks ${EXPORT_COLUMNS.filter((c) => !header.includes(c)).join(", ")})`,
    );
  }
  const kept: number[] = [];
  for (let r = 0; r < rows.length; r++) {
    if (where.every((w) => (rows[r]![w.index] === w.value) === (w.op === "="))) kept.push(r);
  }
  const filteredOut = rows.length - kept.length;
  const leftOut: { reason: string; rows: number }[] = [];
  const source = (r: number) => `line ${table.lines[r]}`;

  if (options.columns) {
    const prefix = options.rolePrefix ?? "";
    const itemCols = options.columns.item.map((c) => columnIndex(header, c, `${prefix}item`, file));
    const raterCol = columnIndex(header, options.columns.rater, `${prefix}rater`, file);
    const labelCol = columnIndex(header, options.columns.label, `${prefix}label`, file);
    let rowsToRead = kept;
    if (exportLayout && !where.some((w) => w.column === "kind")) {
      // A consolidated label is the campaign's outcome: counted as a rater it inflates agreement.
      const kind = header.indexOf("kind");
      rowsToRead = kept.filter((r) => rows[r]![kind] !== "consolidated");
      if (rowsToRead.length < kept.length)
        leftOut.push({
          reason: "consolidated labels (the campaign's outcome, not a rater; add --where kind=consolidated to see them)",
          rows: kept.length - rowsToRead.length,
        });
    }
    const records = rowsToRead.map((r) => {
      const fields = rows[r]!;
      return {
        // Several item columns form one key; JSON of the value list keeps ("a,b","c") and ("a","b,c") apart.
        item: itemCols.length === 1 ? fields[itemCols[0]!]! : JSON.stringify(itemCols.map((c) => fields[c]!)),
        rater: fields[raterCol]!,
        label: fields[labelCol]!,
        source: source(r),
      };
    });
    return { layout: "columns", records, rows: rows.length, filteredOut, leftOut, columns: options.columns };
  }

  const col = Object.fromEntries(EXPORT_COLUMNS.map((c) => [c, header.indexOf(c)])) as Record<(typeof EXPORT_COLUMNS)[number], number>;
  let consolidated = 0;
  let undecided = 0;
  const annotations: number[] = [];
  for (const r of kept) {
    const fields = rows[r]!;
    if (fields[col.kind] !== "annotation") consolidated++;
    else if (fields[col.verdict] !== "success" && fields[col.verdict] !== "failure") undecided++;
    else annotations.push(r);
  }
  if (consolidated) leftOut.push({ reason: "consolidated labels (the campaign's outcome, not a rater)", rows: consolidated });
  if (undecided)
    leftOut.push({ reason: "annotations without a success or failure verdict (unsure), as the Human agreement page leaves them out", rows: undecided });
  // An annotator is their id; the name stands for them unless two ids share it.
  const idsOfName = new Map<string, Set<string>>();
  for (const r of annotations) {
    const name = rows[r]![col.annotator_name]!;
    (idsOfName.get(name) ?? idsOfName.set(name, new Set()).get(name)!).add(rows[r]![col.annotator_id]!);
  }
  const campaigns = new Set(annotations.map((r) => rows[r]![col.campaign_id]!));
  const records = annotations.map((r) => {
    const fields = rows[r]!;
    const name = fields[col.annotator_name]!;
    const id = fields[col.annotator_id]!;
    return {
      item: campaigns.size > 1 ? JSON.stringify([fields[col.campaign_id]!, fields[col.item_id]!]) : fields[col.item_id]!,
      rater: (idsOfName.get(name)?.size ?? 0) > 1 ? `${name} (${id || "no id"})` : name || id,
      label: fields[col.verdict]!,
      source: source(r),
    };
  });
  return {
    layout: "verdict-export",
    records,
    rows: rows.length,
    filteredOut,
    leftOut,
    columns: { item: campaigns.size > 1 ? ["campaign_id", "item_id"] : ["item_id"], rater: "annotator_name", label: "verdict" },
  };
}

/**
 * Agreement of a CSV of ratings uploaded in the dashboard: the same analysis as `npm run cli -- agreement csv`
 * (one row = one rater's label of one item; items keyed by one or more columns; values compared exactly as written).
 */
import { analyzeRatings, DEFAULT_MIN_SHARED_ITEMS, type RatingRecord, type RatingsAgreementReport } from "../../domain/agreement";
import { CsvError, parseCsvTable } from "../../domain/csv";
import { ValidationError } from "../../errors";

export interface CsvAgreementInput {
  fileName: string;
  text: string;
  itemColumns: string[];
  raterColumn: string;
  labelColumn: string;
  delimiter?: string;
  minSharedItems?: number;
}

export interface CsvAgreementResult {
  fileName: string;
  rows: number;
  report: RatingsAgreementReport;
}

function column(header: string[], name: string, role: string, fileName: string): number {
  const first = header.indexOf(name);
  if (first < 0) throw new ValidationError(`${role}: column ${JSON.stringify(name)} is not in the header of ${fileName}; the columns are ${header.map((h) => JSON.stringify(h)).join(", ")}`);
  if (header.indexOf(name, first + 1) >= 0) throw new ValidationError(`${role}: the header of ${fileName} has more than one column named ${JSON.stringify(name)}`);
  return first;
}

export function csvAgreement(input: CsvAgreementInput): CsvAgreementResult {
  const delimiter = input.delimiter ?? ",";
  let table;
  try {
    table = parseCsvTable(input.text, { delimiter, source: input.fileName });
  } catch (e) {
    if (e instanceof CsvError || e instanceof Error) throw new ValidationError(e.message);
    throw e;
  }
  if (input.itemColumns.length === 0) throw new ValidationError("item: pick at least one column that identifies the rated item");
  const itemCols = input.itemColumns.map((c) => column(table.header, c, "item", input.fileName));
  const raterCol = column(table.header, input.raterColumn, "rater", input.fileName);
  const labelCol = column(table.header, input.labelColumn, "label", input.fileName);
  const records: RatingRecord[] = table.rows.map((fields, r) => ({
    // Several item columns form one key; JSON of the value list keeps ("a,b","c") and ("a","b,c") apart (as the CLI does).
    item: itemCols.length === 1 ? fields[itemCols[0]!]! : JSON.stringify(itemCols.map((c) => fields[c]!)),
    rater: fields[raterCol]!,
    label: fields[labelCol]!,
    source: `line ${table.lines[r]}`,
  }));
  if (records.length === 0) throw new ValidationError(`${input.fileName}: no rating rows after the header`);
  try {
    return { fileName: input.fileName, rows: records.length, report: analyzeRatings(records, { minSharedItems: input.minSharedItems ?? DEFAULT_MIN_SHARED_ITEMS }) };
  } catch (e) {
    throw new ValidationError(`${input.fileName}: ${(e as Error).message}`);
  }
}

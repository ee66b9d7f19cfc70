/**
 * Agreement of a CSV of ratings uploaded in the dashboard: the same analysis as `npm run cli -- agreement csv`
 * (one row = one rater's label of one item; items keyed by one or more columns; values compared exactly as written).
 */
import { AgreementInputError, analyzeRatings, DEFAULT_MIN_SHARED_ITEMS, readRatingTable, type RatingsAgreementReport } from "../../domain/agreement";
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
  /** Rows of a Verdict label export left out on purpose (its consolidated labels are not a rater). */
  leftOut: { reason: string; rows: number }[];
  report: RatingsAgreementReport;
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
  let read;
  try {
    read = readRatingTable(table, { file: input.fileName, columns: { item: input.itemColumns, rater: input.raterColumn, label: input.labelColumn } });
  } catch (e) {
    if (e instanceof AgreementInputError) throw new ValidationError(e.message);
    throw e;
  }
  if (read.records.length === 0) throw new ValidationError(`${input.fileName}: no rating rows after the header${read.leftOut.length ? ` (${read.leftOut.map((l) => `${l.rows} ${l.reason}`).join("; ")})` : ""}`);
  try {
    return { fileName: input.fileName, rows: read.records.length, leftOut: read.leftOut, report: analyzeRatings(read.records, { minSharedItems: input.minSharedItems ?? DEFAULT_MIN_SHARED_ITEMS }) };
  } catch (e) {
    throw new ValidationError(`${input.fileName}: ${(e as Error).message}`);
  }
}

/**
 * Agreement of a CSV of ratings uploaded in the dashboard: the same analysis as `npm run cli -- agreement csv`
 * (one row = one rater's label of one item; items keyed by one or more columns; values compared exactly as written).
 *
 * From the dashboard it runs as a job: the web server keeps the file and queues the job (startCsvAgreement), a
 * worker parses and analyses it in a thread of its own (./csv-agreement-job.ts), and the page polls for the result
 * (csvAgreementJob). Parsing a large file holds a CPU for seconds; that must never be the web server's.
 */
import { analyzeRatings, DEFAULT_MIN_SHARED_ITEMS, readRatingTable, type RatingsAgreementReport } from "../../domain/agreement";
import { CsvError, parseCsvTable } from "../../domain/csv";
import type { Actor } from "../../domain/access/actor";
import type { AppContext } from "../../context";
import { ValidationError } from "../../errors";
import { enqueueUploadedTextJob, requestedJob, type RequestedJobPayload, type RequestedJobView } from "../jobs";
import type { StagedText } from "../../storage/uploaded-text";

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
  const read = readRatingTable(table, { file: input.fileName, columns: { item: input.itemColumns, rater: input.raterColumn, label: input.labelColumn } });
  if (read.records.length === 0)
    throw new ValidationError(
      `${input.fileName}: no rating rows after the header${read.leftOut.length ? ` (${read.leftOut.map((l) => `${l.rows} ${l.reason}`).join("; ")})` : ""}`,
    );
  try {
    return {
      fileName: input.fileName,
      rows: read.records.length,
      leftOut: read.leftOut,
      report: analyzeRatings(read.records, { minSharedItems: input.minSharedItems ?? DEFAULT_MIN_SHARED_ITEMS }),
    };
  } catch (e) {
    throw new ValidationError(`${input.fileName}: ${(e as Error).message}`);
  }
}

export const CSV_AGREEMENT_JOB_TYPE = "analysis.csv-agreement";

/** What a CSV agreement job carries: the file (staged) and the choices made on the page. */
export interface CsvAgreementJobPayload extends RequestedJobPayload, Omit<CsvAgreementInput, "text"> {
  file: StagedText;
}

/** Keeps the file and queues its analysis for a worker; resolves to the job's id. */
export async function startCsvAgreement(ctx: AppContext, actor: Actor, input: CsvAgreementInput): Promise<number> {
  if (input.itemColumns.length === 0) throw new ValidationError("item: pick at least one column that identifies the rated item");
  const { text, ...choices } = input;
  return enqueueUploadedTextJob<CsvAgreementJobPayload>(ctx, actor, CSV_AGREEMENT_JOB_TYPE, { text, bytes: Buffer.byteLength(text, "utf8") }, (file) => ({
    ...choices,
    file,
  }));
}

/** The analysis as the page that started it polls it. */
export async function csvAgreementJob(ctx: AppContext, actor: Actor, id: number): Promise<RequestedJobView<CsvAgreementResult>> {
  return requestedJob<CsvAgreementResult>(ctx, actor, CSV_AGREEMENT_JOB_TYPE, id);
}

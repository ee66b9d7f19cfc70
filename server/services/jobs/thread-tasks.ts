/**
 * The work a job may hand to a thread of its own (./threads.ts): CPU-bound steps that would otherwise hold a
 * worker's event loop for seconds, and with it the lease renewals of every other job that worker runs. Each task
 * takes and returns plain data (copied between threads).
 */
import { csvAgreement, type CsvAgreementInput, type CsvAgreementResult } from "../analytics/csv-agreement";
import { parseCsvTable, type CsvTable } from "../../domain/csv";
import { readWorkbookTable, type SheetTable } from "../../domain/annotation/label-workbook";

export const THREAD_TASKS = {
  /** The agreement of a CSV of ratings: parsing and the statistics. */
  "csv-agreement": (input: CsvAgreementInput): CsvAgreementResult => csvAgreement(input),
  /** A CSV read as a header and rows (label imports). */
  "csv-table": (input: { text: string; source: string; delimiter?: string }): CsvTable => {
    return parseCsvTable(input.text, { source: input.source, delimiter: input.delimiter });
  },
  /** One sheet of an .xlsx workbook (sent as base64) read as a header and rows (label imports from the campaign page). */
  "workbook-table": async (input: { base64: string; source: string; sheet?: string; chooseSheet?: string }): Promise<SheetTable> => {
    return await readWorkbookTable(Buffer.from(input.base64, "base64"), input.source, input.sheet, input.chooseSheet);
  },
};

export type ThreadTasks = typeof THREAD_TASKS;
export type ThreadTask = keyof ThreadTasks;

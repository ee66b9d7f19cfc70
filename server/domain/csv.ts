/**
 * CSV in and out, through csv-parse and csv-stringify, with the rules Verdict needs on top.
 *
 * Reading: field values are the exact strings between the delimiters — never trimmed or converted — because
 * labels are compared by exact equality downstream. Records end with CRLF, LF or a lone CR (mixed in one file is
 * fine); quoted fields may hold delimiters, line breaks and quotes written as ""; a leading byte-order mark is
 * dropped. Malformed quoting is rejected with the file name and line. `parseCsv` returns every record as read (a
 * blank line is a record with one empty field); `parseCsvTable` takes the first record as the header, skips blank
 * lines and requires every row to have as many fields as the header.
 *
 * Writing: every CSV Verdict hands out (label exports, analytics tables) goes through `formatCsv`, which
 * neutralises cells a spreadsheet would run as a formula: an annotator's note such as `=HYPERLINK(…)` must not
 * execute in the researcher's spreadsheet. Such cells get a leading `'`. Plain numbers (e.g. `-0.25`) are left
 * alone: they cannot be formulas and analysis needs them as numbers. Pipelines that want the text exactly as
 * stored ask for `raw`.
 */
import { ValidationError } from "../errors";
import { parse, CsvError as ParserError } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";

export class CsvError extends ValidationError {
  constructor(
    message: string,
    /** 1-based line the problem was found on. */
    readonly line: number,
  ) {
    super(message);
    this.name = "CsvError";
  }
}

export interface CsvOptions {
  /** One-character field separator (default ","). */
  delimiter?: string;
  /** Name used in error messages, e.g. the file name. */
  source?: string;
}

export interface CsvRecord {
  fields: string[];
  /** 1-based line on which the record starts. */
  line: number;
}

export interface CsvTable {
  header: string[];
  rows: string[][];
  /** 1-based starting line of each row, for error messages. */
  lines: number[];
}

function checkDelimiter(delimiter: string): void {
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === "\n" || delimiter === "\r") {
    throw new Error(`CSV delimiter must be one character other than a quote or line break, got ${JSON.stringify(delimiter)}`);
  }
}

/** The parser's complaint in words a person fixing the file can act on. */
function describeParseError(e: ParserError): string {
  switch (e.code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return "a quoted field is never closed";
    case "INVALID_OPENING_QUOTE":
      return 'quote inside an unquoted field (quote the whole field and write the quote as "")';
    case "CSV_INVALID_CLOSING_QUOTE":
      return 'unexpected text after a closing quote (a quote inside a quoted field is written "")';
    default:
      return e.message;
  }
}

export function parseCsvRecords(text: string, options: CsvOptions = {}): CsvRecord[] {
  const delimiter = options.delimiter ?? ",";
  checkDelimiter(delimiter);
  const prefix = options.source ? `${options.source}: ` : "";
  let parsed: { record: string[]; info: { lines: number } }[];
  try {
    // With `info`, each record comes with where it ended (the typings describe only the plain form).
    parsed = parse(text, {
      bom: true,
      delimiter,
      record_delimiter: ["\r\n", "\n", "\r"],
      relax_column_count: true,
      skip_empty_lines: false,
      info: true,
    }) as unknown as typeof parsed;
  } catch (e) {
    if (e instanceof ParserError) {
      const line = (e as ParserError & { lines?: number }).lines ?? 1;
      throw new CsvError(`${prefix}line ${line}: ${describeParseError(e)}`, line);
    }
    throw e;
  }
  // The parser reports the line each record ends on; a record starts right after the previous one.
  const records: CsvRecord[] = [];
  let nextLine = 1;
  for (const { record, info } of parsed) {
    records.push({ fields: record, line: nextLine });
    nextLine = info.lines + 1;
  }
  return records;
}

/** All records as arrays of field strings. */
export function parseCsv(text: string, options: CsvOptions = {}): string[][] {
  return parseCsvRecords(text, options).map((r) => r.fields);
}

/** Header plus rows; blank lines are skipped; a row with the wrong number of fields is an error. */
export function parseCsvTable(text: string, options: CsvOptions = {}): CsvTable {
  const records = parseCsvRecords(text, options).filter((r) => !(r.fields.length === 1 && r.fields[0] === ""));
  const prefix = options.source ? `${options.source}: ` : "";
  const first = records[0];
  if (!first) throw new CsvError(`${prefix}the file is empty (no header row)`, 1);
  const header = first.fields;
  const rows: string[][] = [];
  const lines: number[] = [];
  for (let r = 1; r < records.length; r++) {
    const rec = records[r]!;
    if (rec.fields.length !== header.length) {
      throw new CsvError(
        `${prefix}line ${rec.line} has ${rec.fields.length} field${rec.fields.length === 1 ? "" : "s"}, the header has ${header.length}`,
        rec.line,
      );
    }
    rows.push(rec.fields);
    lines.push(rec.line);
  }
  return { header, rows, lines };
}

export interface CsvWriteOptions {
  delimiter?: string;
  /** Write cells exactly as given, formulas included (for pipelines, never for spreadsheets). */
  raw?: boolean;
}

/** First characters that make a spreadsheet treat a cell as a formula (with the full-width forms some normalise). */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A cell as a spreadsheet will read it safely: text that would start a formula gets a leading `'`. */
export function neutraliseFormula(value: string): string {
  return FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
}

/** Records to CSV text with CRLF line ends (RFC 4180); formula cells neutralised unless `raw`. */
export function formatCsv(records: readonly (readonly string[])[], options: CsvWriteOptions = {}): string {
  const delimiter = options.delimiter ?? ",";
  checkDelimiter(delimiter);
  const cells = options.raw ? records : records.map((r) => r.map(neutraliseFormula));
  // A lone CR or LF inside a cell must be quoted too, or a reader would end the record there.
  return stringify(cells as string[][], { delimiter, record_delimiter: "\r\n", quoted_match: /[\r\n]/ });
}

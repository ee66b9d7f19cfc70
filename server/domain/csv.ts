/**
 * RFC 4180 CSV, read exactly: field values are the exact strings between the delimiters — never trimmed, never
 * unquoted twice, never converted — because labels are compared by exact equality downstream.
 *
 * Accepted: fields separated by a delimiter (default ","); records ended by CRLF, LF or a lone CR; fields enclosed
 * in double quotes may contain delimiters, line breaks (kept verbatim) and quotes written as ""; a leading UTF-8
 * byte-order mark is dropped; the final line break is optional. Rejected with the line and column: a quote inside
 * an unquoted field, text after a closing quote, and a quote that is never closed.
 *
 * `parseCsv` returns every record as read (a blank line is a record with one empty field, as the RFC has it);
 * `parseCsvTable` takes the first record as the header, skips blank lines and requires every row to have as many
 * fields as the header.
 */

export class CsvError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
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

const QUOTE = 34; // "
const LF = 10;
const CR = 13;

export function parseCsvRecords(text: string, options: CsvOptions = {}): CsvRecord[] {
  const delimiter = options.delimiter ?? ",";
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === "\n" || delimiter === "\r") {
    throw new Error(`CSV delimiter must be one character other than a quote or line break, got ${JSON.stringify(delimiter)}`);
  }
  const DELIM = delimiter.charCodeAt(0);
  const where = (line: number, column: number) => `${options.source ? `${options.source}: ` : ""}line ${line}, column ${column}`;
  const records: CsvRecord[] = [];
  const len = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let lineStart = i;
  if (i >= len) return records;

  let fields: string[] = [];
  let recordLine = line;
  for (;;) {
    // At the start of a field.
    let value: string;
    if (text.charCodeAt(i) === QUOTE) {
      const openLine = line;
      const openColumn = i - lineStart + 1;
      i++;
      let parts = "";
      for (;;) {
        const close = text.indexOf('"', i);
        if (close < 0) throw new CsvError(`${where(openLine, openColumn)}: quoted field is never closed`, openLine, openColumn);
        // Line breaks inside the quotes are part of the value; keep the line count right for later messages.
        for (let p = i; p < close; p++) {
          const ch = text.charCodeAt(p);
          if (ch === LF || (ch === CR && text.charCodeAt(p + 1) !== LF)) {
            line++;
            lineStart = p + 1;
          }
        }
        parts += text.slice(i, close);
        if (text.charCodeAt(close + 1) === QUOTE) {
          parts += '"';
          i = close + 2;
          continue;
        }
        i = close + 1;
        break;
      }
      value = parts;
      if (i < len) {
        const ch = text.charCodeAt(i);
        if (ch !== DELIM && ch !== LF && ch !== CR) {
          const column = i - lineStart + 1;
          throw new CsvError(`${where(line, column)}: unexpected ${JSON.stringify(text[i])} after a closing quote (a quote inside a quoted field is written "")`, line, column);
        }
      }
    } else {
      const start = i;
      while (i < len) {
        const ch = text.charCodeAt(i);
        if (ch === DELIM || ch === LF || ch === CR) break;
        if (ch === QUOTE) {
          const column = i - lineStart + 1;
          throw new CsvError(`${where(line, column)}: quote inside an unquoted field (quote the whole field and write the quote as "")`, line, column);
        }
        i++;
      }
      value = text.slice(start, i);
    }
    fields.push(value);

    if (i >= len) {
      records.push({ fields, line: recordLine });
      return records;
    }
    const ch = text.charCodeAt(i);
    if (ch === DELIM) {
      i++;
      if (i >= len) {
        // "a," ends with an empty last field.
        fields.push("");
        records.push({ fields, line: recordLine });
        return records;
      }
      continue;
    }
    // Line break: CRLF, LF or a lone CR.
    i += ch === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
    records.push({ fields, line: recordLine });
    line++;
    lineStart = i;
    if (i >= len) return records;
    fields = [];
    recordLine = line;
  }
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
  if (!first) throw new CsvError(`${prefix}the file is empty (no header row)`, 1, 1);
  const header = first.fields;
  const rows: string[][] = [];
  const lines: number[] = [];
  for (let r = 1; r < records.length; r++) {
    const rec = records[r]!;
    if (rec.fields.length !== header.length) {
      throw new CsvError(`${prefix}line ${rec.line} has ${rec.fields.length} field${rec.fields.length === 1 ? "" : "s"}, the header has ${header.length}`, rec.line, 1);
    }
    rows.push(rec.fields);
    lines.push(rec.line);
  }
  return { header, rows, lines };
}

/** One field for writing: quoted when it contains the delimiter, a quote, CR or LF. */
export function formatCsvField(value: string, delimiter = ","): string {
  if (value.includes(delimiter) || value.includes('"') || value.includes("\n") || value.includes("\r")) {
    return `"${value.replaceAll('"', '""')}"`;
  }
  return value;
}

/** Records to CSV text with CRLF line ends (RFC 4180). */
export function formatCsv(records: readonly (readonly string[])[], delimiter = ","): string {
  return records.map((r) => r.map((f) => formatCsvField(f, delimiter)).join(delimiter) + "\r\n").join("");
}

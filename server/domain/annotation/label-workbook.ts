/**
 * Label files as researchers keep them: a CSV, or a spreadsheet workbook (.xlsx) with one sheet of labels. What a
 * file is comes from its bytes, not its name, and a file Verdict cannot read is named by what it is (an old binary
 * Excel file, an OpenDocument spreadsheet, a PDF…) with what to do instead, rather than failing as a broken CSV.
 *
 * A sheet becomes the same table a CSV does (header row, rows, and each row's number as the spreadsheet shows it),
 * so one mapping reads either.
 */
import { ValidationError } from "../../errors";
import type ExcelJS from "exceljs";
import type { CsvTable } from "../csv";

export type LabelFileKind = { kind: "text" } | { kind: "xlsx" } | { kind: "unsupported"; type: string; advice: string };

const SAVE_AS = "save it as .xlsx or as CSV (UTF-8) and import that";

function startsWith(bytes: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

/** What a label file is, from its first bytes (and, for a zip, the names of the files inside it). */
export function labelFileKind(bytes: Uint8Array): LabelFileKind {
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) || startsWith(bytes, [0x50, 0x4b, 0x05, 0x06])) {
    // A zip's entry names are stored in plain bytes; which ones it holds says what made it.
    const names = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
    if (names.includes("xl/workbook.xml")) return { kind: "xlsx" };
    if (names.includes("application/vnd.oasis.opendocument.spreadsheet"))
      return { kind: "unsupported", type: "an OpenDocument spreadsheet (.ods)", advice: SAVE_AS };
    if (names.includes("word/document.xml"))
      return { kind: "unsupported", type: "a Word document (.docx)", advice: "put the labels in a spreadsheet or a CSV file" };
    if (names.includes("Index/Document.iwa"))
      return { kind: "unsupported", type: "an Apple Numbers file", advice: "export it from Numbers as Excel (.xlsx) or CSV" };
    return { kind: "unsupported", type: "a zip archive", advice: "unpack it and import the label file inside" };
  }
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) {
    return { kind: "unsupported", type: "an Excel 97–2003 workbook (.xls) or another old Office file", advice: SAVE_AS };
  }
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46]))
    return { kind: "unsupported", type: "a PDF document", advice: "import the spreadsheet or CSV the table came from" };
  if (startsWith(bytes, [0x1f, 0x8b])) return { kind: "unsupported", type: "a gzip-compressed file", advice: "unpack it first" };
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47]) || startsWith(bytes, [0xff, 0xd8, 0xff]))
    return { kind: "unsupported", type: "an image", advice: "import the spreadsheet or CSV the labels are in" };
  if (startsWith(bytes, [0xff, 0xfe]) || startsWith(bytes, [0xfe, 0xff])) {
    // Excel's "Unicode Text" export: UTF-16, tab-separated.
    return { kind: "unsupported", type: 'UTF-16 text (as Excel\'s "Unicode Text" writes it)', advice: SAVE_AS };
  }
  const head = bytes.subarray(0, 8192);
  if (head.includes(0))
    return { kind: "unsupported", type: "a binary file (not text, not a workbook)", advice: "import the spreadsheet (.xlsx) or CSV file the labels are in" };
  return { kind: "text" };
}

export class WorkbookError extends ValidationError {
  constructor(message: string) {
    super(message);
    this.name = "WorkbookError";
  }
}

/** A cell as the text the sheet shows for it; a formula gives its saved result. */
function cellText(value: ExcelJS.CellValue, where: () => string): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso;
  }
  if ("richText" in value) return value.richText.map((r) => r.text).join("");
  if ("error" in value) return value.error;
  if ("formula" in value || "sharedFormula" in value) {
    const result = (value as ExcelJS.CellFormulaValue).result;
    if (result === undefined)
      throw new WorkbookError(`${where()} holds a formula with no saved value; open the workbook in a spreadsheet program, save it, and import it again`);
    return cellText(result as ExcelJS.CellValue, where);
  }
  if ("text" in value) return typeof value.text === "string" ? value.text : cellText(value.text as ExcelJS.CellValue, where);
  return String(value);
}

export interface SheetTable extends CsvTable {
  /** The sheet read. */
  sheet: string;
}

/**
 * One sheet of an .xlsx workbook as a table: the first non-empty row is the header (names trimmed), every later
 * row with any value is a row, numbered as the spreadsheet numbers it. `sheet` names the sheet (or gives its
 * 1-based position); without it the workbook must have exactly one sheet with data in it. `chooseSheet` says
 * where the user names a sheet (the command line's flag, or the campaign page's field).
 */
export async function readWorkbookTable(bytes: Uint8Array, source: string, sheet?: string, chooseSheet = "with --sheet"): Promise<SheetTable> {
  // exceljs is loaded when a workbook is read: it is the largest library the API imports, and most processes never
  // read a workbook.
  const { default: Excel } = await import("exceljs");
  const workbook = new Excel.Workbook();
  try {
    // exceljs's typings name Node's older Buffer; the bytes are the same.
    await workbook.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ArrayBuffer);
  } catch (e) {
    throw new WorkbookError(`${source}: not a readable .xlsx workbook (${(e as Error).message})`);
  }
  const sheets = workbook.worksheets;
  const described = () => sheets.map((s) => `${JSON.stringify(s.name)} (${s.actualRowCount} row${s.actualRowCount === 1 ? "" : "s"})`).join(", ");
  let ws: ExcelJS.Worksheet | undefined;
  if (sheet !== undefined) {
    ws = sheets.find((s) => s.name === sheet) ?? sheets.find((s) => s.name.trim().toLowerCase() === sheet.trim().toLowerCase());
    if (!ws && /^\d+$/.test(sheet)) ws = sheets[Number(sheet) - 1];
    if (!ws) throw new WorkbookError(`${source}: no sheet ${JSON.stringify(sheet)}; the workbook has ${described()}`);
  } else {
    const withData = sheets.filter((s) => s.actualRowCount > 0);
    if (withData.length === 0) throw new WorkbookError(`${source}: every sheet is empty`);
    if (withData.length > 1)
      throw new WorkbookError(`${source}: the workbook has ${withData.length} sheets with data (${described()}); choose one ${chooseSheet}`);
    ws = withData[0]!;
  }
  const name = ws.name;
  const at = (address: string) => () => `${source}, sheet ${JSON.stringify(name)}, cell ${address}`;

  let header: string[] | null = null;
  const rows: string[][] = [];
  const lines: number[] = [];
  ws.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const cells: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell, col) => {
      cells[col - 1] = cellText(cell.value, at(cell.address));
    });
    for (let i = 0; i < cells.length; i++) cells[i] ??= "";
    if (cells.every((c) => c.trim() === "")) return;
    if (header === null) {
      header = cells.map((c) => c.trim());
      const seen = new Map<string, number>();
      header.forEach((h, i) => {
        if (h === "") return;
        const first = seen.get(h);
        if (first !== undefined)
          throw new WorkbookError(
            `${source}, sheet ${JSON.stringify(name)}: the header names ${JSON.stringify(h)} twice (columns ${columnLetter(first)} and ${columnLetter(i)})`,
          );
        seen.set(h, i);
      });
      return;
    }
    rows.push(cells);
    lines.push(rowNumber);
  });
  if (header === null) throw new WorkbookError(`${source}: sheet ${JSON.stringify(name)} is empty (no header row)`);
  const width = Math.max((header as string[]).length, ...rows.map((r) => r.length));
  // Columns past the header's last name, or without a name, stay readable to no mapping: they get a name no header has.
  const fullHeader = Array.from({ length: width }, (_, i) => (header as string[])[i] || `(column ${columnLetter(i)})`);
  return { header: fullHeader, rows: rows.map((r) => Array.from({ length: width }, (_, i) => r[i] ?? "")), lines, sheet: name };
}

/** A 0-based column index as the spreadsheet letters it (0 → A, 26 → AA). */
export function columnLetter(index: number): string {
  let n = index + 1;
  let out = "";
  while (n > 0) {
    const r = (n - 1) % 26;
    out = String.fromCharCode(65 + r) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

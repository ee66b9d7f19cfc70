import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { columnLetter, labelFileKind, readWorkbookTable, WorkbookError } from "../../server/domain/annotation/label-workbook";

async function workbook(build: (wb: ExcelJS.Workbook) => void): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  build(wb);
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

const bytes = (...b: number[]) => new Uint8Array([...b, ...new Array(16).fill(0x20)]);

describe("labelFileKind", () => {
  it("tells a workbook and text apart by content, whatever the name", async () => {
    expect(labelFileKind(await workbook((wb) => wb.addWorksheet("S").addRow(["a"])))).toEqual({ kind: "xlsx" });
    expect(labelFileKind(new TextEncoder().encode("\uFEFFannotator,verdict\nA,success\n"))).toEqual({ kind: "text" });
    expect(labelFileKind(new TextEncoder().encode("Annotateur;Verdict\nÉloïse;réussi\n"))).toEqual({ kind: "text" });
  });

  it.each([
    ["an old .xls", bytes(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1), /Excel 97–2003 workbook \(\.xls\)/],
    ["a PDF", new TextEncoder().encode("%PDF-1.7\n…"), /a PDF document/],
    ["gzip", bytes(0x1f, 0x8b, 0x08), /gzip-compressed/],
    ["a PNG", bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a), /an image/],
    ["UTF-16 text", bytes(0xff, 0xfe, 0x61, 0x00), /UTF-16 text/],
    [
      "an ODS",
      new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...new TextEncoder().encode("mimetypeapplication/vnd.oasis.opendocument.spreadsheet")]),
      /OpenDocument spreadsheet \(\.ods\)/,
    ],
    ["another zip", new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...new TextEncoder().encode("labels.csv")]), /a zip archive/],
    ["binary", new Uint8Array([0x01, 0x00, 0x02, 0x00]), /a binary file/],
  ])("names %s and what to do instead", (_, b, type) => {
    const kind = labelFileKind(b);
    expect(kind.kind).toBe("unsupported");
    if (kind.kind === "unsupported") {
      expect(kind.type).toMatch(type);
      expect(kind.advice.length).toBeGreaterThan(10);
    }
  });
});

describe("readWorkbookTable", () => {
  it("reads the one sheet with data: header trimmed, rows numbered as the sheet numbers them, cells as shown", async () => {
    const b = await workbook((wb) => {
      wb.addWorksheet("Notes");
      const ws = wb.addWorksheet("Human evaluation");
      ws.getRow(2).values = ["Task ", "Evaluator1", "Overall1", "When", "Sum"];
      ws.getRow(3).values = ["Shop--1", { richText: [{ text: "A" }, { text: "nn" }] }, 1, new Date(Date.UTC(2025, 2, 4)), { formula: "C3+1", result: 2 }];
      // An empty row in the middle of the sheet is no row of labels.
      ws.getRow(5).values = ["Shop--2", "Bob", 0, null, { formula: "C5+1", result: 1 }];
      ws.getCell("H5").value = "aside";
    });
    const t = await readWorkbookTable(b, "study.xlsx");
    expect(t.sheet).toBe("Human evaluation");
    expect(t.header).toEqual(["Task", "Evaluator1", "Overall1", "When", "Sum", "(column F)", "(column G)", "(column H)"]);
    expect(t.lines).toEqual([3, 5]);
    expect(t.rows).toEqual([
      ["Shop--1", "Ann", "1", "2025-03-04", "2", "", "", ""],
      ["Shop--2", "Bob", "0", "", "1", "", "", "aside"],
    ]);
  });

  it("wants --sheet when several sheets hold data, and names them when the one asked for is not there", async () => {
    const b = await workbook((wb) => {
      wb.addWorksheet("Round 1").addRows([
        ["t", "v"],
        ["a", "1"],
      ]);
      wb.addWorksheet("Round 2").addRows([
        ["t", "v"],
        ["a", "0"],
        ["b", "1"],
      ]);
    });
    await expect(readWorkbookTable(b, "s.xlsx")).rejects.toThrow(
      `s.xlsx: the workbook has 2 sheets with data ("Round 1" (2 rows), "Round 2" (3 rows)); choose one with --sheet`,
    );
    expect((await readWorkbookTable(b, "s.xlsx", "Round 2")).rows).toEqual([
      ["a", "0"],
      ["b", "1"],
    ]);
    expect((await readWorkbookTable(b, "s.xlsx", "round 1")).sheet).toBe("Round 1");
    expect((await readWorkbookTable(b, "s.xlsx", "2")).sheet).toBe("Round 2");
    await expect(readWorkbookTable(b, "s.xlsx", "Round 3")).rejects.toThrow(
      `s.xlsx: no sheet "Round 3"; the workbook has "Round 1" (2 rows), "Round 2" (3 rows)`,
    );
  });

  it.each([
    [
      "a formula without a saved value",
      (wb: ExcelJS.Workbook) => {
        const ws = wb.addWorksheet("S");
        ws.addRow(["t", "v"]);
        ws.addRow(["a", { formula: "1+1" }]);
      },
      /s\.xlsx, sheet "S", cell B2 holds a formula with no saved value/,
    ],
    [
      "a header naming a column twice",
      (wb: ExcelJS.Workbook) =>
        wb.addWorksheet("S").addRows([
          ["t", "v", "t"],
          ["a", "1", "b"],
        ]),
      /the header names "t" twice \(columns A and C\)/,
    ],
    ["an empty workbook", (wb: ExcelJS.Workbook) => wb.addWorksheet("S"), /every sheet is empty/],
  ])("refuses %s, naming where", async (_, build, message) => {
    const b = await workbook(build);
    await expect(readWorkbookTable(b, "s.xlsx")).rejects.toThrow(WorkbookError);
    await expect(readWorkbookTable(b, "s.xlsx")).rejects.toThrow(message);
  });

  it("refuses bytes that only look like a workbook", async () => {
    const broken = new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...new TextEncoder().encode("xl/workbook.xml truncated")]);
    await expect(readWorkbookTable(broken, "s.xlsx")).rejects.toThrow(/s\.xlsx: not a readable \.xlsx workbook/);
  });

  it("letters columns as spreadsheets do", () => {
    expect([0, 25, 26, 27, 701, 702].map(columnLetter)).toEqual(["A", "Z", "AA", "AB", "ZZ", "AAA"]);
  });
});

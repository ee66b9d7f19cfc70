/**
 * The long functions still to split (issue 34): the lint's list of ceilings (LONG_FUNCTIONS_TO_SPLIT in
 * eslint.config.mjs) must name exactly the files in which scripts/long-functions.ts measures a function over 150
 * lines, so a file whose last long function was split leaves the list, and a new long function has no entry to hide
 * under. Once the list is empty, no product function is over 150 lines.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { LONG_FUNCTIONS_TO_SPLIT, MAX_FUNCTION_LINES } from "../../eslint.config.mjs";
import { longFunctions, longFunctionsIn, productFiles } from "../../scripts/long-functions";

const root = path.resolve(__dirname, "..", "..");

/** A function of exactly `lines` lines, named `name`, written the way `shape` says. */
function functionOf(name: string, lines: number, shape: "declaration" | "arrow" | "method"): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join("\n");
  if (shape === "declaration") return `export function ${name}() {\n${body}\n}\n`;
  if (shape === "arrow") return `export const ${name} = () => {\n${body}\n};\n`;
  return `class C {\n  ${name}() {\n${body}\n  }\n}\n`;
}

describe("measuring long functions", () => {
  it("counts a function from its first line to its last, whatever its shape, and names it", () => {
    for (const shape of ["declaration", "arrow", "method"] as const) {
      expect(longFunctionsIn("a.ts", functionOf("fits", 150, shape), 150)).toEqual([]);
      expect(longFunctionsIn("a.ts", functionOf("tooLong", 151, shape), 150)).toEqual([
        { file: "a.ts", name: "tooLong", line: shape === "method" ? 2 : 1, lines: 151 },
      ]);
    }
  });

  it("reads components in .tsx files", () => {
    const inner = Array.from({ length: 10 }, (_, i) => `    <p key={${i}}>{${i}}</p>,`).join("\n");
    const tsx = `export function Page() {\n  const rows = [\n${inner}\n  ];\n  return <div>{rows}</div>;\n}\n`;
    expect(longFunctionsIn("p.tsx", tsx, 10)).toEqual([{ file: "p.tsx", name: "Page", line: 1, lines: 15 }]);
  });

  it("reads product code only", () => {
    const files = productFiles(root);
    expect(files).toContain("server/config.ts");
    expect(files.some((f) => f.startsWith("tests/") || f.includes("/migrations"))).toBe(false);
  });
});

describe("the lint's list of long functions", () => {
  const measured: Record<string, number> = {};
  for (const f of longFunctions(root, MAX_FUNCTION_LINES)) measured[f.file] = Math.max(measured[f.file] ?? 0, f.lines);

  it("lists exactly the files that still have a function over 150 lines", () => {
    expect(Object.keys(LONG_FUNCTIONS_TO_SPLIT).sort()).toEqual(Object.keys(measured).sort());
  });

  it("gives each listed file a ceiling no lower than its longest function", () => {
    const under = Object.entries(measured).filter(([file, lines]) => (LONG_FUNCTIONS_TO_SPLIT[file] ?? 0) < lines);
    expect(under).toEqual([]);
  });
});

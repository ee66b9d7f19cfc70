/**
 * No function in product code over 150 lines: the lint refuses a longer one anywhere in app/, server/, db/ and
 * scripts/, and the functions that were longer when the rule came in may not grow past their file's ceiling.
 */
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { LONG_FUNCTIONS_TO_SPLIT } from "../../eslint.config.mjs";

const root = path.resolve(__dirname, "..", "..");

/** The rule's messages for a function of `lines` lines written at `file`. */
async function lengthErrors(file: string, lines: number) {
  const body = Array.from({ length: lines - 3 }, (_, i) => `  const v${i} = ${i};`).join("\n");
  const code = `export function longOne(): number {\n${body}\n  return v0;\n}\n`;
  const eslint = new ESLint({
    cwd: root,
    overrideConfig: {
      languageOptions: { parserOptions: { projectService: false } },
      rules: { "@typescript-eslint/no-floating-promises": "off", "@typescript-eslint/no-misused-promises": "off" },
    },
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.filter((m) => m.ruleId === "max-lines-per-function").map((m) => m.message);
}

describe("function length in product code", () => {
  it("refuses a function of 151 lines and accepts one of 150, on every product floor", async () => {
    for (const file of [
      "server/services/annotation/_check.ts",
      "app/(annotation)/annotate/_components/_check.tsx",
      "db/repositories/_check.ts",
      "scripts/_check.ts",
    ]) {
      expect(await lengthErrors(file, 150)).toEqual([]);
      expect(await lengthErrors(file, 151)).toEqual(["Function 'longOne' has too many lines (151). Maximum allowed is 150."]);
    }
  });

  it("leaves tests alone", async () => {
    expect(await lengthErrors("tests/unit/_check.test.ts", 400)).toEqual([]);
  });

  it("holds the annotation pages, parentheses in their paths included, to 150 lines now that no file has a ceiling", async () => {
    // The files that were longer when the rule came in have all been split: none may grow past 150 again.
    expect(LONG_FUNCTIONS_TO_SPLIT).toEqual({});
    const file = "app/(annotation)/annotate/_components/label-panel.tsx";
    expect(await lengthErrors(file, 150)).toEqual([]);
    expect(await lengthErrors(file, 151)).toEqual(["Function 'longOne' has too many lines (151). Maximum allowed is 150."]);
  });
});

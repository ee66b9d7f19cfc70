/**
 * The area doors and the no-cycle rule (issue 34): another area, a router, the CLI or a script reaches a services area
 * only through its index.ts, and no chain of value imports comes back to where it started. A planted side-door import
 * and a planted cycle must fail lint (and so `npm test`); type-only imports pass both.
 */
import fs from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { buildGraph, circles } from "../../scripts/architecture/graph.mjs";

const root = path.resolve(__dirname, "..", "..");

async function lint(file: string, code: string, rule: string) {
  // The snippets are not files of the TypeScript project, so the type-aware rules (floating promises) are off here.
  const eslint = new ESLint({
    cwd: root,
    overrideConfig: {
      languageOptions: { parserOptions: { projectService: false } },
      rules: { "@typescript-eslint/no-floating-promises": "off", "@typescript-eslint/no-misused-promises": "off" },
    },
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.filter((m) => m.ruleId === rule).map((m) => m.message);
}

const doors = (file: string, code: string) => lint(file, code, "verdict/area-doors");
const cycles = (file: string, code: string) => lint(file, code, "verdict/no-import-cycles");

describe("area doors", () => {
  it("refuses a router, a CLI command, a script or another area reaching past a services area's index.ts", async () => {
    const sideDoor = `import { nextAssignment } from "@/server/services/annotation/labelling";\nexport const x = nextAssignment;\n`;
    for (const file of ["server/api/routers/_check.ts", "server/cli/commands/_check.ts", "scripts/bench/_check.ts", "server/services/analytics/_check.ts"])
      expect(await doors(file, sideDoor), file).toEqual([
        expect.stringContaining("'@/server/services/annotation/labelling' is inside server/services/annotation: import it through the area's door"),
      ]);
    expect(await doors("server/services/_check.ts", `export { resolveSelection } from "./annotation/campaigns";\n`)).toHaveLength(1);
    expect(await doors("server/api/routers/_check.ts", `export async function f() { return import("../../services/annotation/qa"); }\n`)).toHaveLength(1);
  });

  it("lets callers use the door, files inside the area use each other, and type-only imports through", async () => {
    expect(
      await doors("server/api/routers/_check.ts", `import { nextAssignment } from "../../services/annotation";\nexport const x = nextAssignment;\n`),
    ).toEqual([]);
    expect(await doors("server/services/annotation/_check.ts", `import { nextAssignment } from "./labelling";\nexport const x = nextAssignment;\n`)).toEqual(
      [],
    );
    expect(
      await doors("server/api/routers/_check.ts", `import type { Assignment } from "../../services/annotation/labelling";\nexport type X = Assignment;\n`),
    ).toEqual([]);
  });
  it("a recorded door pass that the file no longer makes is reported, so the list cannot go stale", async () => {
    const config = fs.readFileSync(path.join(root, "eslint.config.mjs"), "utf8");
    const [, file, target] = /const DOOR_PASSES = \{\s*"([^"]+)": \{\s*"([^"]+)"/.exec(config)!;
    expect(await doors(file!, `export const x = 1;\n`)).toEqual([expect.stringContaining(`'${target}' is recorded as a door pass of this file, but`)]);
  });
});

describe("no runtime import cycles", () => {
  // A real value import on disk, B → A: planting A → B in A's text closes a circle of two.
  const { edges } = buildGraph(root);
  const [importer, imported] = [...edges].flatMap(([from, list]) =>
    list.filter((e) => !e.typeOnly && e.target.startsWith("server/services/") && from.startsWith("server/services/")).map((e) => [from, e.target]),
  )[0]!;
  const spelling = (rel: string) => `@/${rel.replace(/\.tsx?$/, "")}`;

  it("refuses an import that closes a circle, naming the files it passes", async () => {
    expect(await cycles(imported!, `import * as back from "${spelling(importer!)}";\nexport const x = back;\n`)).toEqual([
      expect.stringContaining(`closes a runtime import cycle: ${imported} → ${importer} → ${imported}`),
    ]);
    expect(await cycles(imported!, `export { default } from "${spelling(importer!)}";\n`)).toHaveLength(1);
  });

  it("finds longer circles through files in between", async () => {
    // annotation's door re-exports its campaigns, which import item numbers: the numbers importing the door goes round.
    expect(
      await cycles("server/services/annotation/item-numbers.ts", `import { resolveSelection } from "./index";\nexport const x = resolveSelection;\n`),
    ).toEqual([
      expect.stringContaining(
        "item-numbers.ts → server/services/annotation/index.ts → server/services/annotation/campaigns.ts → server/services/annotation/item-numbers.ts.",
      ),
    ]);
  });

  it("lets type-only imports go round, and is quiet where no chain comes back", async () => {
    expect(await cycles(imported!, `import type * as back from "${spelling(importer!)}";\nexport type X = typeof back;\n`)).toEqual([]);
    expect(await cycles("server/services/_check.ts", `import { resolveSelection } from "./annotation";\nexport const x = resolveSelection;\n`)).toEqual([]);
  });

  it("the product has no runtime import cycle on disk", () => {
    const value = (f: string) => (edges.get(f) ?? []).filter((e) => !e.typeOnly).map((e) => e.target);
    expect(circles([...edges.keys()], value)).toEqual([]);
  });
});

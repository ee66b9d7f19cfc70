/**
 * The layer rule: app → api → services → db, domain pure, data only through services. A wrong import must fail
 * lint (and so `npm test`), whichever spelling reaches the module (relative, `@/`, re-export, dynamic import).
 */
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..", "..");

async function lint(file: string, code: string) {
  // The snippets are not files of the TypeScript project, so the type-aware rules (floating promises) are off here.
  const eslint = new ESLint({
    cwd: root,
    overrideConfig: {
      languageOptions: { parserOptions: { projectService: false } },
      rules: { "@typescript-eslint/no-floating-promises": "off", "@typescript-eslint/no-misused-promises": "off" },
    },
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.filter((m) => m.ruleId === "verdict/layer-imports").map((m) => m.message);
}

describe("layer imports", () => {
  it("routers and CLI commands reach data only through services", async () => {
    expect(await lint("server/api/routers/_check.ts", `import { listVerdicts } from "../../../db/repositories/evaluation";\nexport const x = listVerdicts;\n`)).toEqual([
      expect.stringContaining("The routers layer may not import '../../../db/repositories/evaluation'"),
    ]);
    expect(await lint("server/cli/commands/_check.ts", `import { ROLES } from "../../../db/schema/index";\nexport const x = ROLES;\n`)).toHaveLength(1);
    expect(await lint("server/api/routers/_check.ts", `import { listTrajectoryPage } from "../../services/trajectory-views";\nexport const x = listTrajectoryPage;\n`)).toEqual([]);
  });

  it("no arrow points up: services may not import routers or the CLI, db may not import services", async () => {
    expect(await lint("server/services/_check.ts", `import { appRouter } from "../api/root";\nexport const x = appRouter;\n`)).toHaveLength(1);
    expect(await lint("server/services/_check.ts", `export { importCommand } from "../cli/commands/import";\n`)).toHaveLength(1);
    expect(await lint("db/repositories/_check.ts", `import { runImport } from "@/server/services/imports/ingest";\nexport const x = runImport;\n`)).toHaveLength(1);
    expect(await lint("server/importers/_check.ts", `export async function f() { return import("../services/ingest"); }\n`)).toHaveLength(1);
  });

  it("the domain is pure: no I/O modules, no other layer; hashing is allowed", async () => {
    expect(await lint("server/domain/_check.ts", `import fs from "node:fs";\nexport const x = fs;\n`)).toHaveLength(1);
    expect(await lint("server/domain/_check.ts", `import { getSteps } from "../../db/repositories/trajectories";\nexport const x = getSteps;\n`)).toHaveLength(1);
    expect(await lint("server/domain/_check.ts", `import crypto from "node:crypto";\nexport const x = crypto;\n`)).toEqual([]);
  });

  it("type-only imports cross layers freely", async () => {
    expect(await lint("server/api/routers/_check.ts", `import type { StepRow } from "../../../db/schema/index";\nexport type X = StepRow;\n`)).toEqual([]);
    expect(await lint("server/domain/_check.ts", `import { type Db } from "../../db/client";\nexport type X = Db;\n`)).toEqual([]);
  });
});

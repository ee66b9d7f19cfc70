/**
 * The layer rule, as scripts/architecture/model.mjs describes the floors: app → api → services → db, domain pure,
 * data only through services, pages through tRPC, demo content given to services. A wrong import must fail lint (and
 * so `npm test`), whichever spelling reaches the module (relative, `@/`, re-export, dynamic import); the imports
 * recorded to be removed pass, and an entry whose import is gone is reported so the list only shrinks.
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
    expect(
      await lint("server/api/routers/_check.ts", `import { listVerdicts } from "../../../db/repositories/evaluation";\nexport const x = listVerdicts;\n`),
    ).toEqual([expect.stringContaining("The api floor may not import '../../../db/repositories/evaluation': routers call services")]);
    expect(await lint("server/cli/commands/_check.ts", `import { ROLES } from "../../../db/schema/index";\nexport const x = ROLES;\n`)).toHaveLength(1);
    expect(
      await lint(
        "server/api/routers/_check.ts",
        `import { listTrajectoryPage } from "../../services/trajectory-views";\nexport const x = listTrajectoryPage;\n`,
      ),
    ).toEqual([]);
  });

  it("no arrow points up: services may not import routers or the CLI, db may not import services", async () => {
    expect(await lint("server/services/_check.ts", `import { appRouter } from "../api/root";\nexport const x = appRouter;\n`)).toHaveLength(1);
    expect(await lint("server/services/_check.ts", `export { importCommand } from "../cli/commands/import";\n`)).toHaveLength(1);
    expect(
      await lint("db/repositories/_check.ts", `import { runImport } from "@/server/services/imports/ingest";\nexport const x = runImport;\n`),
    ).toHaveLength(1);
    expect(await lint("server/importers/_check.ts", `export async function f() { return import("../services/ingest"); }\n`)).toHaveLength(1);
  });

  it("the domain is pure: no I/O modules, no other layer; hashing is allowed", async () => {
    expect(await lint("server/domain/_check.ts", `import fs from "node:fs";\nexport const x = fs;\n`)).toHaveLength(1);
    expect(await lint("server/domain/_check.ts", `import { getSteps } from "../../db/repositories/trajectories";\nexport const x = getSteps;\n`)).toHaveLength(
      1,
    );
    expect(await lint("server/domain/_check.ts", `import crypto from "node:crypto";\nexport const x = crypto;\n`)).toEqual([]);
  });

  it("type-only imports cross layers freely", async () => {
    expect(await lint("server/api/routers/_check.ts", `import type { StepRow } from "../../../db/schema/index";\nexport type X = StepRow;\n`)).toEqual([]);
    expect(await lint("server/domain/_check.ts", `import { type Db } from "../../db/client";\nexport type X = Db;\n`)).toEqual([]);
  });
});

describe("the floors of scripts/architecture/model.mjs", () => {
  it("pages reach the server through tRPC, never services, the composition root or data", async () => {
    expect(await lint("app/runs/_check.tsx", `import { createContext } from "@/server/context";\nexport const x = createContext;\n`)).toEqual([
      expect.stringContaining("The pages floor may not import '@/server/context': pages reach the server through tRPC"),
    ]);
    expect(await lint("app/runs/_check.tsx", `import { listRuns } from "@/server/services/catalog";\nexport const x = listRuns;\n`)).toHaveLength(1);
    expect(await lint("app/runs/_check.tsx", `import { createCaller } from "@/server/api/root";\nexport const x = createCaller;\n`)).toEqual([]);
  });

  it("services are given demo content by the commands that seed it; scripts call services, not repositories or tests", async () => {
    expect(
      await lint("server/services/live/_check.ts", `import { DEMO_TASKS } from "../../demo-sites/demo-trajectories";\nexport const x = DEMO_TASKS;\n`),
    ).toEqual([expect.stringContaining("The services floor may not import '../../demo-sites/demo-trajectories'")]);
    expect(await lint("scripts/bench/_check.ts", `import { getSteps } from "../../db/repositories/trajectories";\nexport const x = getSteps;\n`)).toHaveLength(
      1,
    );
    expect(
      await lint("scripts/bench/_check.ts", `import { startFakeOpenAI } from "../../tests/helpers/fake-openai";\nexport const x = startFakeOpenAI;\n`),
    ).toHaveLength(1);
    expect(
      await lint("server/cli/commands/_check.ts", `import { DEMO_TASKS } from "../../demo-sites/demo-trajectories";\nexport const x = DEMO_TASKS;\n`),
    ).toEqual([]);
  });

  it("no arrow runs up even where no FORBIDDEN rule names the floor: the composition root stands below services", async () => {
    expect(await lint("server/context.ts", `import { x } from "./services/jobs/_nothing";\nexport const y = x;\n`)).toEqual([
      expect.stringContaining("The root floor may not import './services/jobs/_nothing'"),
    ]);
    // The root closed the job queue itself once; now closing the database stops what runs on it.
    expect(
      await lint("server/context.ts", `import { closeQueueFor } from "./services/jobs/installation-queue";\nexport const y = closeQueueFor;\n`),
    ).toHaveLength(1);
  });

  it("an import recorded to be removed passes, and a recorded import the file no longer makes is reported", async () => {
    const recorded = `import { listVerdicts } from "../../db/repositories/evaluation/verdicts";\nimport { syntheticPage } from "../../tests/fixtures/synthetic-pages";\nexport const x = [listVerdicts, syntheticPage];\n`;
    expect(await lint("scripts/bench/player.ts", recorded)).toEqual([]);
    expect(await lint("scripts/bench/player.ts", `export const x = 1;\n`)).toEqual([
      expect.stringContaining("'db/repositories/evaluation/verdicts.ts' is recorded as an import of this file to remove, but the file no longer makes it"),
      expect.stringContaining("'tests/fixtures/synthetic-pages.ts' is recorded"),
    ]);
    // Recorded for scripts/bench/player.ts only: the same imports elsewhere are errors.
    expect(await lint("scripts/bench/_check.ts", recorded)).toHaveLength(2);
  });

  it("pages that once reached services directly now pass only through tRPC: their entries are gone", async () => {
    expect(await lint("app/page.tsx", `import { getAppContext } from "@/server/context";\nexport const x = getAppContext;\n`)).toEqual([
      expect.stringContaining("The pages floor may not import '@/server/context'"),
    ]);
  });
});

describe("the environment is read by the configuration and the entry points only", () => {
  async function envMessages(file: string, code: string) {
    const eslint = new ESLint({
      cwd: root,
      overrideConfig: {
        languageOptions: { parserOptions: { projectService: false } },
        rules: { "@typescript-eslint/no-floating-promises": "off", "@typescript-eslint/no-misused-promises": "off" },
      },
    });
    const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
    return result!.messages.filter((m) => m.ruleId === "no-restricted-properties").map((m) => m.message);
  }
  const reads = `export const port = process.env.PORT;\nconst { env } = process;\nexport const dir = env.VERDICT_DATA_DIR;\n`;

  it("refuses process.env in services, routers, the database layer, adapters and pages, the browser bundle included", async () => {
    // The last five files that read it (issue 34) are refused by name: none of them is excused any more.
    const files = [
      "app/_trpc/client.tsx",
      "server/api/trpc.ts",
      "server/auth/auth.ts",
      "server/browser/launch.ts",
      "server/services/live/browser-network.ts",
      "server/services/live/_check.ts",
      "server/api/routers/_check.ts",
      "db/repositories/_check.ts",
      "app/runs/_check.tsx",
    ];
    for (const file of files) {
      expect(await envMessages(file, reads), file).toEqual([expect.stringContaining("not process.env"), expect.stringContaining("not process.env")]);
    }
  });

  it("lets the configuration schema, the composition root and the entry points read it", async () => {
    for (const file of ["server/config.ts", "server/context.ts", "scripts/worker.ts", "instrumentation.ts"])
      expect(await envMessages(file, reads), file).toEqual([]);
  });
});

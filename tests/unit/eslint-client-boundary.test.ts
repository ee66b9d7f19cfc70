import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..", "..");

async function lint(code: string) {
  // The snippet is not a file of the TypeScript project, so the type-aware rules (floating promises) are off here.
  const eslint = new ESLint({
    cwd: root,
    overrideConfig: {
      languageOptions: { parserOptions: { projectService: false } },
      rules: { "@typescript-eslint/no-floating-promises": "off", "@typescript-eslint/no-misused-promises": "off" },
    },
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(root, "app", "_boundary-check.tsx") });
  return result!.messages.filter((m) => m.ruleId === "verdict/no-server-imports-in-client");
}

describe("client/server import boundary", () => {
  it("rejects value imports of db/ and server services from a 'use client' file", async () => {
    const messages = await lint(
      `"use client";\nimport { getTrajectoryDetail } from "@/db/repositories/trajectories";\nimport { runImport } from "../server/services/ingest";\nexport const x = [getTrajectoryDetail, runImport];\n`,
    );
    expect(messages).toHaveLength(2);
    expect(messages[0]!.message).toContain("@/db/repositories/trajectories");
  });
  it("allows type-only imports and server files", async () => {
    expect(await lint(`"use client";\nimport type { AppRouter } from "@/server/api/root";\nexport type X = AppRouter;\n`)).toHaveLength(0);
    expect(await lint(`import { getTrajectoryDetail } from "@/db/repositories/trajectories";\nexport const x = getTrajectoryDetail;\n`)).toHaveLength(0);
  });
});

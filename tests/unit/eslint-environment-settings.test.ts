/**
 * `verdict/no-environment-settings` (eslint.config.mjs): a setting is read from the environment by name only in the
 * configuration (server/config.ts) and the entry points; everywhere else it arrives typed. Each spelling of a read by
 * name is refused in each product floor; a lookup by a name someone gave (a computed key) passes, as do members of
 * other objects that happen to be in capitals.
 */
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..", "..");

async function readsByName(file: string, code: string) {
  // The snippets are not files of the TypeScript project, so the type-aware rules (floating promises) are off here.
  const eslint = new ESLint({
    cwd: root,
    overrideConfig: {
      languageOptions: { parserOptions: { projectService: false } },
      rules: { "@typescript-eslint/no-floating-promises": "off", "@typescript-eslint/no-misused-promises": "off" },
    },
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.filter((m) => m.ruleId === "verdict/no-environment-settings").map((m) => m.message);
}

const BY_NAME = [
  "export const a = (env: Record<string, string>) => env.VERDICT_JUDGE_MODEL;",
  'export const b = (env: Record<string, string>) => env["VERDICT_JUDGE_BASE_URL"];',
  "export const c = (env: Record<string, string>) => env[`VERDICT_DEMO_PORT`];",
  "export const d = (io: { env: Record<string, string> }) => io.env.VERDICT_DEBUG;",
  "export const e = (opts: { env: Record<string, string> }) => opts.env?.PORT;",
  "export const f = (rawEnv: Record<string, string>) => rawEnv.NEXT_RUNTIME;",
  "export function g(env: Record<string, string>) { const { VERDICT_DB, other } = env; return [VERDICT_DB, other]; }",
];

const BY_A_GIVEN_NAME = [
  // A judge configuration's key variable, `--from-env VAR`, the variables passed on to the browser's process.
  "export const h = (env: Record<string, string>, named: string) => env[named];",
  "export const i = (io: { env: Record<string, string> }, from: string) => io.env[from];",
  "export const j = (env: Record<string, string>, k: string) => env[`${k}_URL`];",
  // Members in capitals of objects that are not an environment, and lower-case members of one.
  'export const k = { RED: "#f00" }.RED;',
  "export const l = (config: { PORT: number }) => config.PORT;",
  "export const m = (env: Record<string, string>) => env.length;",
];

describe("settings are read by name only in the configuration and the entry points", () => {
  it("refuses env.NAME, env['NAME'], io.env.NAME and destructuring in services, routers, the CLI, the database layer, the domain and pages", async () => {
    for (const file of [
      "server/services/evaluation/_check.ts",
      "server/api/routers/_check.ts",
      "server/cli/commands/_check.ts",
      "db/repositories/_check.ts",
      "server/domain/_check.ts",
      "app/runs/_check.tsx",
    ]) {
      const messages = await readsByName(file, BY_NAME.join("\n"));
      expect(messages, file).toHaveLength(BY_NAME.length);
      expect(messages[0], file).toBe(
        "'VERDICT_JUDGE_MODEL' is read from the environment by name: declare it in server/config.ts's schema and take its typed value from the configuration (AppContext's config, judgeSettings(), demoSitesPort(), …).",
      );
      expect(
        messages.map((m) => /^'(\w+)'/.exec(m)![1]),
        file,
      ).toEqual(["VERDICT_JUDGE_MODEL", "VERDICT_JUDGE_BASE_URL", "VERDICT_DEMO_PORT", "VERDICT_DEBUG", "PORT", "NEXT_RUNTIME", "VERDICT_DB"]);
    }
  });

  it("lets a lookup by a name someone gave pass, and members of other objects", async () => {
    for (const file of ["server/services/evaluation/_check.ts", "server/cli/commands/_check.ts"]) {
      expect(await readsByName(file, BY_A_GIVEN_NAME.join("\n")), file).toEqual([]);
    }
  });

  it("lets the configuration schema, the composition root and the entry points read settings by name", async () => {
    for (const file of ["server/config.ts", "server/context.ts", "scripts/worker.ts", "instrumentation.ts", "proxy.ts"]) {
      expect(await readsByName(file, BY_NAME.join("\n")), file).toEqual([]);
    }
  });
});

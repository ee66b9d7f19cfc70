/**
 * Rewrites the table of environment variables in docs/configuration.md from the configuration schema (server/config.ts).
 * Run after adding or changing a variable: `npx tsx scripts/env-table.ts`.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ENV_TABLE_END, ENV_TABLE_START, environmentTableMarkdown } from "../server/config";

const page = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "docs", "configuration.md");
const text = fs.readFileSync(page, "utf8");
const start = text.indexOf(ENV_TABLE_START);
const end = text.indexOf(ENV_TABLE_END);
if (start < 0 || end < start) {
  console.error(`docs/configuration.md has no table markers; put these two lines where the table belongs:\n${ENV_TABLE_START}\n${ENV_TABLE_END}`);
  process.exit(1);
}
fs.writeFileSync(page, `${text.slice(0, start + ENV_TABLE_START.length)}\n${environmentTableMarkdown()}\n${text.slice(end)}`);
console.log("docs/configuration.md: environment table updated");

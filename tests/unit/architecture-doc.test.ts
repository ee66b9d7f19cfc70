/**
 * docs/architecture.md is where a newcomer learns where things are: every path it names must exist, and every
 * product area of scripts/architecture/model.mjs must have its row, so a move that forgets the page fails here.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..", "..");
const doc = fs.readFileSync(path.join(root, "docs/architecture.md"), "utf8");

/** Code spans that name a file or folder of the repository: `a/b.ts`, `app/(x)/y/`, `proxy.ts` (lint rules' names aside). */
function namedPaths(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  return spans.filter((s) => /^[\w.()[\]-]+(\/[\w.()[\]-]+)*\/?$/.test(s) && (s.includes("/") || /\.(ts|tsx|mjs|md)$/.test(s)) && !s.startsWith("verdict/"));
}

describe("docs/architecture.md", () => {
  it("names only paths that exist", () => {
    const paths = namedPaths(doc);
    // The page names dozens of paths; a handful would mean the extraction broke, not that the page is short.
    expect(paths.length).toBeGreaterThan(60);
    const missing = paths.filter((p) => !fs.existsSync(path.join(root, p)));
    expect(missing).toEqual([]);
  });

  it("finds a moved path", () => {
    const paths = namedPaths(
      "see `server/services/runner/worker.ts` and `db/repositories/live/runs.ts`, not `.all()`, `verdict/layer-imports` or `npm run arch:graph`",
    );
    expect(paths).toEqual(["server/services/runner/worker.ts", "db/repositories/live/runs.ts"]);
    expect(paths.filter((p) => !fs.existsSync(path.join(root, p)))).toEqual(["server/services/runner/worker.ts"]);
  });

  it("has a row for every product area", () => {
    const model = fs.readFileSync(path.join(root, "scripts/architecture/model.mjs"), "utf8");
    const areas = JSON.parse(/export const AREAS = (\[[^\]]*\])/.exec(model)![1]!) as string[];
    expect(areas.length).toBeGreaterThan(5);
    const rows = new Set([...doc.matchAll(/^\| ([a-z]+) \|/gm)].map((m) => m[1]));
    expect(areas.filter((a) => !rows.has(a))).toEqual([]);
  });
});

/**
 * What the analytics pages' browser code pulls in. Every module a "use client" part imports (statically: a dynamic
 * `import()` loads on demand) ships with the page and is parsed before the charts draw, so server-side weight has no
 * place there: zod (the API's schemas, 100 KB) and the CSV writer with its Buffer shim (60 KB, loaded when a CSV
 * button is clicked). The walk follows the import statements as written, like the bundler does.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { packagesReached, root, serverWeightReached, valueImports } from "../helpers/client-imports";

const analytics = path.join(root, "app", "analytics");

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/**
 * The client parts of the chart pages (overview, judges, humans, annotators, errors, step budgets). Left out: the
 * CSV agreement tool, which parses the uploaded CSV in the browser by design, and the failure clusters' launcher,
 * which checks its slice with the API's schema (not timed as a chart page).
 */
const LEFT_OUT = ["app/analytics/_components/csv-tool.tsx", "app/analytics/clusters/"];
const clientParts = filesUnder(analytics).filter(
  (f) => /^\s*["']use client["']/.test(fs.readFileSync(f, "utf8")) && !LEFT_OUT.some((l) => path.relative(root, f).startsWith(l)),
);
const SERVER_WEIGHT = ["zod", "csv-parse", "csv-stringify"];

describe("the analytics pages' browser code", () => {
  it("finds the client parts and what they import (the walk sees recharts behind the charts)", () => {
    expect(clientParts.map((f) => path.relative(root, f))).toEqual(
      expect.arrayContaining(["app/analytics/_components/charts.tsx", "app/analytics/_components/filter-bar.tsx", "app/analytics/_components/figure.tsx"]),
    );
    expect([...packagesReached(path.join(analytics, "_components", "charts.tsx")).keys()]).toContain("recharts");
    expect(valueImports(`import type { A } from "x";\nimport { b, type C } from "y";\nexport { d } from "z";\nconst e = await import("w");\n`)).toEqual([
      "y",
      "z",
    ]);
  });

  it.each(clientParts.map((f) => [path.relative(root, f), f]))("%s reaches no zod and no CSV library", (_name, file) => {
    expect(serverWeightReached(file, SERVER_WEIGHT)).toEqual([]);
  });
});

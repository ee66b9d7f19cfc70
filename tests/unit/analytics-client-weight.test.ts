/**
 * What the analytics pages' browser code pulls in. Every module a "use client" part imports (statically: a dynamic
 * `import()` loads on demand) ships with the page and is parsed before the charts draw, so server-side weight has no
 * place there: zod (the API's schemas, 100 KB) and the CSV writer with its Buffer shim (60 KB, loaded when a CSV
 * button is clicked). The walk follows the import statements as written, like the bundler does.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..", "..");
const analytics = path.join(root, "app", "analytics");

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** Value imports and re-exports of a module (type-only ones are erased by the compiler; dynamic ones load later). */
function valueImports(source: string): string[] {
  const out: string[] = [];
  const re = /^\s*(?:import|export)\s+(type\s+)?(?:[^"';]*?\s+from\s+)?["']([^"']+)["']/gm;
  for (let m = re.exec(source); m; m = re.exec(source)) if (!m[1]) out.push(m[2]!);
  return out;
}

function resolveLocal(from: string, spec: string): string | null {
  const base = spec.startsWith("@/") ? path.join(root, spec.slice(2)) : path.resolve(path.dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts"), path.join(base, "index.tsx")]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  throw new Error(`${path.relative(root, from)}: cannot resolve ${spec}`);
}

/** Packages reached from `entry`, each with the chain of files that reaches it. */
function packagesReached(entry: string): Map<string, string[]> {
  const reached = new Map<string, string[]>();
  const seen = new Set<string>();
  const walk = (file: string, chain: string[]) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of valueImports(fs.readFileSync(file, "utf8"))) {
      if (spec.startsWith(".") || spec.startsWith("@/")) {
        const next = resolveLocal(file, spec);
        if (next) walk(next, [...chain, path.relative(root, next)]);
      } else {
        const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!;
        if (!reached.has(name)) reached.set(name, chain);
      }
    }
  };
  walk(entry, [path.relative(root, entry)]);
  return reached;
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
    const reached = packagesReached(file);
    const heavy = SERVER_WEIGHT.filter((p) => reached.has(p)).map((p) => `${p} via ${reached.get(p)!.join(" → ")}`);
    expect(heavy).toEqual([]);
  });
});

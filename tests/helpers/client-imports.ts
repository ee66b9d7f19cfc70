/**
 * What a page's browser code pulls in, read from the import statements as written (as the bundler follows them).
 * Every module a "use client" part imports statically ships with the page and is parsed before it hydrates (a
 * dynamic `import()` loads on demand, a type-only import is erased), so server-side weight such as zod (the API's
 * schemas, about 100 KB) or the CSV library has no place there.
 */
import fs from "node:fs";
import path from "node:path";

export const root = path.resolve(__dirname, "..", "..");

/** Value imports and re-exports of a module (type-only ones are erased by the compiler; dynamic ones load later). */
export function valueImports(source: string): string[] {
  const out: string[] = [];
  const re = /^\s*(?:import|export)\s+(type\s+)?(?:[^"';]*?\s+from\s+)?["']([^"']+)["']/gm;
  for (let m = re.exec(source); m; m = re.exec(source)) if (!m[1]) out.push(m[2]!);
  return out;
}

function resolveLocal(from: string, spec: string): string {
  const base = spec.startsWith("@/") ? path.join(root, spec.slice(2)) : path.resolve(path.dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts"), path.join(base, "index.tsx")]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  throw new Error(`${path.relative(root, from)}: cannot resolve ${spec}`);
}

const SERVER_ONLY = [`server${path.sep}`, `db${path.sep}`];
const isLocal = (spec: string) => spec.startsWith(".") || spec.startsWith("@/");
const isClientModule = (source: string) => /^\s*["']use client["']/.test(source);
const packageName = (spec: string) => (spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!);

/**
 * Packages the browser loads for `entry`, each with the chain of files that reaches it. From a page (a server
 * component) the walk follows its modules outside server/ and db/ to its "use client" parts and counts from there; from a
 * "use client" file it counts everything that file imports.
 */
export function packagesReached(entry: string): Map<string, string[]> {
  const reached = new Map<string, string[]>();
  const seen = new Set<string>();
  const walk = (file: string, chain: string[], inClient: boolean) => {
    const source = fs.readFileSync(file, "utf8");
    const client = inClient || isClientModule(source);
    const key = `${client ? "client" : "server"}:${file}`;
    if (seen.has(key)) return;
    seen.add(key);
    for (const spec of valueImports(source)) {
      if (isLocal(spec)) {
        const next = resolveLocal(file, spec);
        // server/ and db/ (services, the router, repositories) hold no client part: the server side stops there.
        if (client || !SERVER_ONLY.some((dir) => path.relative(root, next).startsWith(dir))) walk(next, [...chain, path.relative(root, next)], client);
      } else if (client && !reached.has(packageName(spec))) reached.set(packageName(spec), chain);
    }
  };
  walk(entry, [path.relative(root, entry)], false);
  return reached;
}

/** The heavy server-side packages among those reached, each as "package via a → b → c". */
export function serverWeightReached(entry: string, heavy: readonly string[]): string[] {
  const reached = packagesReached(entry);
  return heavy.filter((p) => reached.has(p)).map((p) => `${p} via ${reached.get(p)!.join(" → ")}`);
}

/**
 * Lists the product functions longer than a limit (150 lines by default), longest first, counted as the lint's
 * `max-lines-per-function` counts them: from the line the function starts on to the line it ends on, blank lines and
 * comments included. The lint refuses a new one; this list is how the ones still waiting to be split are measured
 * (issue 34). `npx tsx scripts/long-functions.ts [--max N]`.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export type LongFunction = { file: string; name: string; line: number; lines: number };

/** The folders and files that are product code (tests, migrations and generated files are not). */
const PRODUCT_ROOTS = ["app", "server", "db", "scripts", "instrumentation.ts", "proxy.ts"];
const SKIPPED_FOLDERS = new Set(["node_modules", "migrations", "migrations-pg", "public"]);

/** Every .ts/.tsx product file below `root`, as paths relative to it with forward slashes. */
export function productFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    const full = path.join(root, relative);
    if (!fs.existsSync(full)) return;
    if (fs.statSync(full).isDirectory()) {
      for (const entry of fs.readdirSync(full).sort()) {
        if (!SKIPPED_FOLDERS.has(entry)) walk(path.posix.join(relative, entry));
      }
    } else if (/\.tsx?$/.test(relative) && !relative.endsWith(".d.ts")) {
      found.push(relative);
    }
  };
  for (const entry of PRODUCT_ROOTS) walk(entry);
  return found;
}

/** The name a reader would look for: the function's own, its variable's, its property's, or its method's. */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText(source);
  }
  if (ts.isCallExpression(parent)) {
    const callee = parent.expression.getText(source);
    return `(callback of ${callee.length > 40 ? `${callee.slice(0, 40)}…` : callee})`;
  }
  return "(anonymous)";
}

/** The functions in one file's text longer than `max` lines. */
export function longFunctionsIn(file: string, text: string, max: number): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      const lines = last - first + 1;
      if (lines > max) found.push({ file, name: nameOf(node as ts.FunctionLikeDeclaration, source), line: first, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every product function below `root` longer than `max` lines, longest first. */
export function longFunctions(root: string, max = 150): LongFunction[] {
  return productFiles(root)
    .flatMap((file) => longFunctionsIn(file, fs.readFileSync(path.join(root, file), "utf8"), max))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf("--max");
  const max = at > 0 ? Number(process.argv[at + 1]) : 150;
  if (!Number.isInteger(max) || max < 1) {
    console.error(`--max takes a whole number of lines, not "${process.argv[at + 1] ?? ""}"`);
    process.exit(2);
  }
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const list = longFunctions(root, max);
  for (const f of list) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
  console.log(`${list.length} product function${list.length === 1 ? "" : "s"} over ${max} lines`);
}

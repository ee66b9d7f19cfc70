// @ts-check
/**
 * The product's import graph, read from the source: every `import`, `export … from` and `import()` of every product
 * file, resolved to the file it names (relative and `@/` paths), with value and type-only edges kept apart. Type-only
 * edges leave nothing at run time, so cycles and upward arrows are judged on value edges only.
 *
 * Used by the lint rule (`verdict/layer-imports` resolves imports with it) and by `npm run arch:graph`.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const SOURCE = /\.(ts|tsx|mjs|js)$/;
const PRODUCT_ROOTS = ["app", "server", "db", "scripts"];
const PRODUCT_FILES = ["instrumentation.ts", "proxy.ts"];
const SKIP = /(^|\/)(node_modules|\.next|migrations|migrations-pg|public)(\/|$)|\.d\.ts$/;

/** Every product source file, repository-relative with forward slashes. */
export function productFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (SKIP.test(rel)) continue;
      if (entry.isDirectory()) walk(rel);
      else if (SOURCE.test(entry.name)) out.push(rel);
    }
  };
  for (const dir of PRODUCT_ROOTS) if (fs.existsSync(path.join(root, dir))) walk(dir);
  for (const file of PRODUCT_FILES) if (fs.existsSync(path.join(root, file))) out.push(file);
  return out.sort();
}

/**
 * The module specifiers a file names, each with whether the edge is type-only.
 * @param {string} code
 * @param {string} fileName
 * @returns {{ specifier: string, typeOnly: boolean }[]}
 */
export function importsOf(code, fileName) {
  const kind = fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : fileName.endsWith(".ts") ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, false, kind);
  /** @type {{ specifier: string, typeOnly: boolean }[]} */
  const out = [];
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      let typeOnly = false;
      if (clause) {
        if (clause.isTypeOnly) typeOnly = true;
        else if (!clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings)) {
          const elements = clause.namedBindings.elements;
          typeOnly = elements.length > 0 && elements.every((e) => e.isTypeOnly);
        }
      }
      out.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      let typeOnly = node.isTypeOnly;
      if (!typeOnly && node.exportClause && ts.isNamedExports(node.exportClause)) {
        const elements = node.exportClause.elements;
        typeOnly = elements.length > 0 && elements.every((e) => e.isTypeOnly);
      }
      out.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) out.push({ specifier: arg.text, typeOnly: false });
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) out.push({ specifier: arg.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

const EXTENSIONS = ["", ".ts", ".tsx", ".mjs", ".js", "/index.ts", "/index.tsx", "/index.mjs"];

/**
 * The repository-relative file a specifier names from `fromRel`, or null for packages and Node built-ins.
 * Unresolvable local paths come back as the normalised path itself, so rules can still judge where they point.
 */
export function resolveSpecifier(
  root,
  fromRel,
  specifier,
  exists = (rel) => fs.existsSync(path.join(root, rel)) && fs.statSync(path.join(root, rel)).isFile(),
) {
  let base;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith(".")) base = path.posix.normalize(path.posix.join(path.posix.dirname(fromRel), specifier));
  else return null;
  const stripped = base.replace(/\.js$/, "");
  for (const candidate of [base, stripped]) {
    for (const ext of EXTENSIONS) {
      if (exists(candidate + ext)) return candidate + ext;
    }
  }
  return base;
}

/**
 * The graph of product files. `overrides` replaces files' text (the lint rule passes the file being linted).
 * @param {string} root
 * @param {Record<string, string>} [overrides]
 */
export function buildGraph(root, overrides = {}) {
  const files = productFiles(root);
  for (const rel of Object.keys(overrides)) if (!files.includes(rel)) files.push(rel);
  const known = new Set(files);
  const exists = (rel) => known.has(rel);
  /** @type {Map<string, { target: string, typeOnly: boolean, specifier: string }[]>} */
  const edges = new Map();
  for (const rel of files) {
    const code = overrides[rel] ?? fs.readFileSync(path.join(root, rel), "utf8");
    const list = [];
    for (const { specifier, typeOnly } of importsOf(code, rel)) {
      const target = resolveSpecifier(root, rel, specifier, exists);
      if (target && known.has(target)) list.push({ target, typeOnly, specifier });
    }
    edges.set(rel, list);
  }
  return { files, edges };
}

/**
 * Strongly connected components with more than one member (or a self-loop) of a directed graph: its circles.
 * @param {string[]} nodes
 * @param {(n: string) => string[]} next
 * @returns {string[][]}
 */
export function circles(nodes, next) {
  let index = 0;
  const indexOf = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const out = [];
  const strong = (v) => {
    // Iterative Tarjan: deep import chains would overflow the call stack.
    const work = [{ v, i: 0, succ: next(v) }];
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    while (work.length) {
      const top = work[work.length - 1];
      if (top.i < top.succ.length) {
        const w = top.succ[top.i++];
        if (!indexOf.has(w)) {
          indexOf.set(w, index);
          low.set(w, index);
          index++;
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0, succ: next(w) });
        } else if (onStack.has(w)) {
          low.set(top.v, Math.min(low.get(top.v), indexOf.get(w)));
        }
      } else {
        work.pop();
        if (work.length) {
          const parent = work[work.length - 1];
          low.set(parent.v, Math.min(low.get(parent.v), low.get(top.v)));
        }
        if (low.get(top.v) === indexOf.get(top.v)) {
          const component = [];
          let w;
          do {
            w = stack.pop();
            onStack.delete(w);
            component.push(w);
          } while (w !== top.v);
          if (component.length > 1 || next(top.v).includes(top.v)) out.push(component.sort());
        }
      }
    }
  };
  for (const v of nodes) if (!indexOf.has(v)) strong(v);
  return out;
}

// @ts-check
import path from "node:path";
import tseslint from "typescript-eslint";

/**
 * Client components ("use client" files) run in the browser: they must never import the database, server
 * services, importers or the browser runner. Type-only imports (e.g. `import type { AppRouter }`) are fine.
 */
const SERVER_ONLY = /(^|\/)(db|server\/(services|storage|importers|browser|cli|context|config))(\/|$|\.)/;

const noServerImportsInClient = {
  meta: {
    type: "problem",
    messages: {
      serverImport: "Client component imports server-only module '{{source}}'. Go through tRPC instead (type-only imports are allowed).",
    },
    schema: [],
  },
  create(context) {
    const body = context.sourceCode.ast.body;
    const isClient = body.some(
      (n) => n.type === "ExpressionStatement" && n.directive === "use client",
    );
    if (!isClient) return {};
    return {
      ImportDeclaration(node) {
        if (node.importKind === "type") return;
        if (node.specifiers.length && node.specifiers.every((s) => s.type === "ImportSpecifier" && s.importKind === "type")) return;
        const source = String(node.source.value);
        if (SERVER_ONLY.test(source.replace(/^@\//, ""))) {
          context.report({ node, messageId: "serverImport", data: { source } });
        }
      },
    };
  },
};

/**
 * The layers, top to bottom: app/ renders; server/api routes (thin tRPC routers; app/api route handlers are the
 * HTTP edge of the same layer); server/services decide; db/ stores; server/domain is pure. An import may only
 * point down. Data is reached through services: only services (and db itself) import db/repositories or db/schema
 * values. The composition root (server/context.ts, server/config.ts) and the adapters (importers, browser, auth, storage)
 * sit beside services. Type-only imports cross freely: they leave nothing behind at run time.
 */
const LAYERS = [
  { name: "domain", files: /^server\/domain\//, forbid: /^(db|app|server\/(services|api|cli|importers|browser|auth|storage|context|config|demo-sites))(\/|$|\.)|^node:(?!crypto$)/ },
  { name: "db", files: /^db\//, forbid: /^(app|server\/(services|api|cli|importers|browser|auth|storage|demo-sites))(\/|$|\.)/ },
  { name: "services", files: /^server\/services\//, forbid: /^(app|server\/(api|cli))(\/|$|\.)/ },
  { name: "adapters", files: /^server\/(importers|browser|auth|storage)\//, forbid: /^(app|server\/(services|api|cli))(\/|$|\.)/ },
  { name: "routers", files: /^server\/api\//, forbid: /^(app|server\/cli|db\/(repositories|schema))(\/|$|\.)/ },
  { name: "cli", files: /^server\/cli\//, forbid: /^(app|server\/api|db\/(repositories|schema))(\/|$|\.)/ },
  { name: "app", files: /^app\//, forbid: /^(server\/cli|db\/(repositories|schema))(\/|$|\.)/ },
];

const layerImports = {
  meta: {
    type: "problem",
    messages: {
      upward: "The {{layer}} layer may not import '{{source}}' (arrows only go down: app → api → services → db; domain is pure, hashing aside; data only through services).",
    },
    schema: [],
  },
  create(context) {
    const rel = path.relative(process.cwd(), context.filename).split(path.sep).join("/");
    const layer = LAYERS.find((l) => l.files.test(rel));
    if (!layer) return {};
    const check = (node, source) => {
      let target = source;
      if (source.startsWith("@/")) target = source.slice(2);
      else if (source.startsWith(".")) target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), source));
      if (layer.forbid.test(target)) context.report({ node, messageId: "upward", data: { layer: layer.name, source } });
    };
    return {
      ImportDeclaration(node) {
        if (node.importKind === "type") return;
        if (node.specifiers.length && node.specifiers.every((s) => s.type === "ImportSpecifier" && s.importKind === "type")) return;
        check(node, String(node.source.value));
      },
      ExportNamedDeclaration(node) {
        if (node.source && node.exportKind !== "type") check(node, String(node.source.value));
      },
      ExportAllDeclaration(node) {
        if (node.exportKind !== "type") check(node, String(node.source.value));
      },
      ImportExpression(node) {
        if (node.source.type === "Literal") check(node, String(node.source.value));
      },
    };
  },
};

/**
 * No function in product code runs over 150 lines (blank lines and comments counted): past that a reader cannot
 * hold it in mind, and its parts want names of their own. The functions below were longer when the rule came in;
 * each file's longest is its ceiling until it is split, so none of them may grow and no new one may join them.
 */
const MAX_FUNCTION_LINES = 150;
const LONG_FUNCTIONS_TO_SPLIT = {
  "app/(annotation)/annotate/_components/label-panel.tsx": 467,
  "server/services/live/run-task.ts": 421,
  "app/live/_components/new-run-form.tsx": 356,
  "app/(annotation)/annotate/_components/reveal-panel.tsx": 302,
  "app/trajectories/_components/trajectory-table.tsx": 276,
  "app/trajectories/[id]/_components/player.tsx": 274,
  "server/services/analytics/humans.ts": 265,
  "app/(annotation)/qa/_components/qa-workspace.tsx": 252,
  "app/(annotation)/campaigns/_components/new-campaign-form.tsx": 233,
  "app/(annotation)/campaigns/_components/quality-panel.tsx": 215,
  "app/(annotation)/campaigns/_components/review-workspace.tsx": 212,
  "app/compare/_components/compare-view.tsx": 204,
  "app/(accounts)/users/user-admin.tsx": 198,
  "app/live/_components/live-run-view.tsx": 192,
  "app/analytics/_lib/judge-measures.ts": 189,
  "app/(evaluation)/judges/_components/batch-progress.tsx": 188,
  "app/analytics/_lib/humans.ts": 188,
  "app/(evaluation)/judges/_components/batch-form.tsx": 185,
  "server/importers/online-mind2web.ts": 185,
  "server/browser/recorder.ts": 181,
  "server/domain/agreement/ratings.ts": 164,
  "app/analytics/_components/csv-tool.tsx": 162,
  "app/trajectories/_components/filter-bar.tsx": 157,
  "server/services/imports/ingest.ts": 157,
  "server/importers/webvoyager.ts": 153,
  "server/services/evaluation/judge-verdict.ts": 153,
  "server/services/jobs/worker.ts": 152,
};
const PRODUCT_CODE = ["app/**/*.ts", "app/**/*.tsx", "server/**/*.ts", "db/**/*.ts", "scripts/**/*.ts", "instrumentation.ts", "proxy.ts"];
const functionLength = (max) => ["error", { max, skipBlankLines: false, skipComments: false, IIFEs: true }];

export default tseslint.config(
  {
    ignores: ["node_modules/**", "tmp/**", ".next/**", "data/**", "test-results/**", "playwright-report/**", "next-env.d.ts", "db/migrations/**"],
  },
  ...tseslint.configs.recommended,
  {
    plugins: { verdict: { rules: { "no-server-imports-in-client": noServerImportsInClient, "layer-imports": layerImports } } },
    rules: {
      "verdict/no-server-imports-in-client": "error",
      "verdict/layer-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports", disallowTypeAnnotations: false }],
      "@typescript-eslint/no-explicit-any": "error",
    },
  },
  {
    // Product code reaches the database only through db/database.ts's dialect-neutral surface, so the same code runs
    // on SQLite and PostgreSQL (see that file's header).
    files: ["db/repositories/**/*.ts", "server/**/*.ts", "scripts/**/*.ts", "app/**/*.ts", "app/**/*.tsx"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[arguments.length=0] > MemberExpression.callee[property.name=/^(all|get|run)$/]",
          message: "Await the query instead: SQLite's synchronous executors do not exist on PostgreSQL (db/database.ts).",
        },
        {
          selector: "MemberExpression[property.name='$client']",
          message: "Use sqliteClient(db) or postgresPool(db) from db/database.ts, and only where the work is specific to one engine.",
        },
        {
          selector: "CallExpression > MemberExpression.callee[property.name='transaction']",
          message: "Use withTransaction(db, async () => …) from db/database.ts: it works on both engines and joins an open transaction.",
        },
      ],
    },
  },
  {
    // A query or service call that is not awaited runs after the request has answered, or never; the type-aware
    // checks find them (and awaits of things that are not promises).
    files: ["db/**/*.ts", "server/**/*.ts", "scripts/**/*.ts", "app/**/*.ts", "app/**/*.tsx", "tests/**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
    },
  },
  {
    files: PRODUCT_CODE,
    rules: { "max-lines-per-function": functionLength(MAX_FUNCTION_LINES) },
  },
  ...Object.entries(LONG_FUNCTIONS_TO_SPLIT).map(([file, lines]) => ({ files: [file.replace(/[[\]()]/g, "\\$&")], rules: { "max-lines-per-function": functionLength(lines) } })),
);

// @ts-check
import path from "node:path";
import tseslint from "typescript-eslint";
import { buildGraph, resolveSpecifier } from "./scripts/architecture/graph.mjs";
import { FORBIDDEN, floorOf, serviceDoorOf } from "./scripts/architecture/model.mjs";

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
    const isClient = body.some((n) => n.type === "ExpressionStatement" && n.directive === "use client");
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
 * The floors and what each may import are data in scripts/architecture/model.mjs (also read by `npm run arch:graph`
 * and docs/architecture.md's test): an import may not point to a higher floor nor match its floor's FORBIDDEN rule
 * (data only through services, the domain pure, pages through tRPC, demo content given to services by the commands
 * that seed it…). Type-only imports cross freely: they leave nothing behind at run time.
 *
 * The imports below broke those rules when the rule came to read the model; each is to be removed, none may be
 * added, and an entry whose import is gone must be deleted here (the rule says so), so the list only shrinks.
 * `npm run arch:graph` lists the imports between product files; the test helpers the benches borrow and the Node
 * module the configuration uses are not product files, so only this list names them.
 */
const FORBIDDEN_IMPORTS_TO_REMOVE = {
  "scripts/bench/annotation.ts": ["db/repositories/catalog.ts", "db/repositories/trajectories.ts"],
  "scripts/bench/arb-memory-child.ts": ["db/repositories/trajectories.ts"],
  "scripts/bench/heuristics.ts": ["db/repositories/catalog.ts", "db/repositories/evaluation/verdicts.ts", "db/repositories/trajectories.ts"],
  "scripts/bench/judge.ts": ["db/repositories/evaluation/verdicts.ts", "tests/helpers/judge-fixtures.ts"],
  "scripts/bench/large-trajectory.ts": ["tests/helpers/long-trajectory.ts"],
  "scripts/bench/player.ts": ["db/repositories/evaluation/verdicts.ts", "tests/fixtures/synthetic-pages.ts"],
  "scripts/bench/runner-overhead.ts": ["db/repositories/jobs.ts", "db/repositories/live/runs.ts", "db/repositories/trajectories.ts"],
  "scripts/e2e-postgres.ts": ["tests/helpers/postgres.ts"],
  "server/auth/auth.ts": ["db/repositories/accounts/users.ts"],
  "server/config.ts": ["node:path"],
  "server/services/demo-data.ts": ["server/demo-sites/demo-trajectories.ts", "server/demo-sites/server.ts"],
  "server/services/live/demo-scripts.ts": ["server/demo-sites/demo-trajectories.ts"],
  "server/services/live/demo-tasks.ts": ["server/demo-sites/demo-trajectories.ts"],
  "server/services/live/worker.ts": ["server/demo-sites/server.ts"],
};

/** The value imports a file makes, as ESLint visits them, each passed to `check(node, specifier)`. */
function valueImportVisitors(check) {
  const valueImport = (node) =>
    node.importKind !== "type" && !(node.specifiers.length && node.specifiers.every((s) => s.type === "ImportSpecifier" && s.importKind === "type"));
  return {
    ImportDeclaration(node) {
      if (valueImport(node)) check(node, String(node.source.value));
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
}

/** Why an import from `rel` (on `floor`) to `specifier` breaks the model's rules, or null when it may be made. */
function layerViolation(rel, floor, specifier) {
  const resolved = resolveSpecifier(process.cwd(), rel, specifier);
  const target = resolved === null ? specifier : resolved;
  const rule = FORBIDDEN[floor.name];
  if (rule && rule.re.test(target.replace(/(\/index)?\.(ts|tsx|mjs|js)$/, ""))) return { target, why: rule.why };
  const to = resolved === null ? null : floorOf(resolved);
  if (to && to.rank > floor.rank) return { target, why: `arrows only run down, and ${to.name} stands above ${floor.name}` };
  return null;
}

const layerImports = {
  meta: {
    type: "problem",
    messages: {
      upward: "The {{layer}} floor may not import '{{source}}': {{why}} (scripts/architecture/model.mjs).",
      stale:
        "'{{target}}' is recorded as an import of this file to remove, but the file no longer makes it: delete it from FORBIDDEN_IMPORTS_TO_REMOVE in eslint.config.mjs.",
    },
    schema: [],
  },
  create(context) {
    const rel = path.relative(process.cwd(), context.filename).split(path.sep).join("/");
    const floor = floorOf(rel);
    if (!floor) return {};
    const recorded = FORBIDDEN_IMPORTS_TO_REMOVE[rel] ?? [];
    const seen = new Set();
    const check = (node, source) => {
      const violation = layerViolation(rel, floor, source);
      if (!violation) return;
      if (recorded.includes(violation.target)) {
        seen.add(violation.target);
        return;
      }
      context.report({ node, messageId: "upward", data: { layer: floor.name, source, why: violation.why } });
    };
    return {
      ...valueImportVisitors(check),
      "Program:exit"(node) {
        for (const target of recorded) if (!seen.has(target)) context.report({ node, messageId: "stale", data: { target } });
      },
    };
  },
};

/**
 * Another area, a router, the CLI or a script reaches a services area only through its door (its index.ts), so an area
 * can rearrange its files without its callers noticing. The imports below pass a door on purpose, each for the reason
 * given: what stands outside a door is what the web process must not load (the live runner drives Chromium) or what
 * imports every area itself (the job runtime, its supervisor, the tasks run in threads). An entry whose import is gone
 * is reported, so the list cannot go stale; a new entry needs a reason of the same kind.
 */
const RUNNER = "the live runner drives Chromium: it stays outside the live door, which the web process loads";
const SUPERVISOR =
  "the launchers (`npm start`, `npm run worker`) load only the supervisor that restarts a worker, not the queues and database behind the jobs door";
const THREADS =
  "jobs/threads.ts names its thread's entry file by URL, which the web build cannot bundle: only the job handlers that run in the worker import it";
const DOOR_PASSES = {
  "server/services/annotation/label-import-job.ts": { "server/services/jobs/threads.ts": THREADS },
  "server/services/analytics/csv-agreement-job.ts": { "server/services/jobs/threads.ts": THREADS },
  "scripts/worker.ts": {
    "server/services/jobs/runtime.ts": "the worker process starts the job runtime, which imports every area's handlers and so cannot be behind the jobs door",
  },
  "scripts/serve.ts": { "server/services/jobs/supervisor.ts": SUPERVISOR },
  "scripts/run-worker.ts": { "server/services/jobs/supervisor.ts": SUPERVISOR },
  "server/services/jobs/runtime.ts": {
    "server/services/live/worker.ts": RUNNER,
    "server/services/analytics/csv-agreement-job.ts": THREADS,
    "server/services/annotation/label-import-job.ts": THREADS,
  },
  "server/cli/commands/run.ts": { "server/services/live/worker.ts": RUNNER },
  "scripts/bench/runner-overhead.ts": { "server/services/live/worker.ts": RUNNER },
  "server/services/jobs/thread-tasks.ts": {
    "server/services/analytics/csv-agreement.ts": "a job's thread loads only the module its task runs, not the whole analytics area behind the door",
  },
};

const areaDoors = {
  meta: {
    type: "problem",
    messages: {
      sideDoor: "'{{source}}' is inside {{area}}: import it through the area's door, {{door}} (scripts/architecture/model.mjs).",
      stale: "'{{target}}' is recorded as a door pass of this file, but the file no longer makes it: delete it from DOOR_PASSES in eslint.config.mjs.",
    },
    schema: [],
  },
  create(context) {
    const rel = path.relative(process.cwd(), context.filename).split(path.sep).join("/");
    if (!floorOf(rel)) return {};
    const recorded = Object.keys(DOOR_PASSES[rel] ?? {});
    const seen = new Set();
    return {
      ...valueImportVisitors((node, source) => {
        const target = resolveSpecifier(process.cwd(), rel, source);
        const door = target === null ? null : serviceDoorOf(target);
        if (!door || target === door || serviceDoorOf(rel) === door) return;
        if (recorded.includes(target)) {
          seen.add(target);
          return;
        }
        context.report({ node, messageId: "sideDoor", data: { source, door, area: door.replace(/\/index\.ts$/, "") } });
      }),
      "Program:exit"(node) {
        for (const target of recorded) if (!seen.has(target)) context.report({ node, messageId: "stale", data: { target } });
      },
    };
  },
};

/** The product's value imports as they stand on disk, read once per lint run (the file being linted speaks for itself). */
let valueEdgesOnDisk = null;
function valueEdges() {
  if (!valueEdgesOnDisk) {
    const { edges } = buildGraph(process.cwd());
    valueEdgesOnDisk = new Map([...edges].map(([file, list]) => [file, [...new Set(list.filter((e) => !e.typeOnly).map((e) => e.target))]]));
  }
  return valueEdgesOnDisk;
}

/** The files a chain of value imports passes from `start` until it comes back to `home`, or null when it never does. */
function chainBack(start, home) {
  const edges = valueEdges();
  const cameFrom = new Map([[start, null]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i];
    if (file === home) {
      const chain = [];
      for (let at = file; at !== null; at = cameFrom.get(at)) chain.unshift(at);
      return chain;
    }
    for (const next of edges.get(file) ?? [])
      if (!cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
  }
  return null;
}

/**
 * No runtime import cycles: in a circle of modules one of them runs before the others are ready, and whichever it is
 * depends on which file a process happens to load first. What two files both need moves down to a module of its own.
 * Type-only imports leave nothing at run time and may go round.
 */
const noImportCycles = {
  meta: {
    type: "problem",
    messages: { cycle: "Importing '{{source}}' closes a runtime import cycle: {{chain}}. Move what both sides need down to a module of its own." },
    schema: [],
  },
  create(context) {
    const rel = path.relative(process.cwd(), context.filename).split(path.sep).join("/");
    if (!floorOf(rel)) return {};
    const reported = new Set();
    return valueImportVisitors((node, source) => {
      const target = resolveSpecifier(process.cwd(), rel, source);
      if (target === null || reported.has(target) || !valueEdges().has(target)) return;
      const chain = target === rel ? [rel] : chainBack(target, rel);
      if (!chain) return;
      reported.add(target);
      context.report({ node, messageId: "cycle", data: { source, chain: [rel, ...chain].join(" → ") } });
    });
  },
};

/**
 * No function in product code runs over 150 lines (blank lines and comments counted): past that a reader cannot
 * hold it in mind, and its parts want names of their own. The functions below were longer when the rule came in;
 * each file's longest is its ceiling until it is split, so none of them may grow and no new one may join them.
 * The ceilings are counted as Prettier lays the code out (issue 34); formatting lengthened some functions past 150
 * lines, and those joined the list with their formatted length rather than by being written longer. Each ceiling is
 * at least the file's longest function (`npx tsx scripts/long-functions.ts` measures them); whoever splits one lowers its
 * ceiling to the new length, and tests/unit/long-functions.test.ts fails while a listed file has no function over 150
 * lines left, or a long function has no entry.
 */
export const MAX_FUNCTION_LINES = 150;
export const LONG_FUNCTIONS_TO_SPLIT = {};
/**
 * The environment is read in one place: the configuration schema (server/config.ts) checks every variable once, and
 * the entry points and the composition root hand the result down (issue 34: typed configuration passed down). No
 * other product file reads process.env.
 */
const ENVIRONMENT_READERS = ["server/config.ts", "server/context.ts", "scripts/**", "instrumentation.ts", "proxy.ts"];

/** A settings name as the environment spells it: capitals, digits and "_" (PORT, VERDICT_DEBUG). */
const SETTING_NAME = /^[A-Z][A-Z0-9_]+$/;

/** `env`, `rawEnv`, `childEnv`, `environment`, or any `….env` (process.env, io.env, opts.env, deps.env). */
function isEnvironment(node) {
  if (node.type === "Identifier") return /(^|[a-z_])(env|environment)$/i.test(node.name);
  return node.type === "MemberExpression" && !node.computed && node.property.type === "Identifier" && node.property.name === "env";
}

/** The name a member expression reads when it is written out (env.X, env["X"], env[`X`]); null for a computed key. */
function literalKey(member) {
  if (!member.computed) return member.property.type === "Identifier" ? member.property.name : null;
  const key = member.property;
  if (key.type === "Literal" && typeof key.value === "string") return key.value;
  if (key.type === "TemplateLiteral" && key.expressions.length === 0) return key.quasis[0].value.cooked;
  return null;
}

/**
 * Settings are read by name in the configuration only (issue 34: typed configuration passed down): everywhere else a
 * setting arrives typed, from the AppContext's config or a function of server/config.ts (judgeSettings, demoSitesPort,
 * runnerAllowedDestinations, cliStackTraces). A read of `env.NAME`, `env["NAME"]` or `const { NAME } = env` outside
 * ENVIRONMENT_READERS is refused. A lookup by a name someone gave (the variable holding a judge configuration's key,
 * `--from-env VAR`, the variables passed on to a child process) has a computed key, `env[name]`, and passes.
 */
const noEnvironmentSettings = {
  meta: {
    type: "problem",
    messages: {
      byName:
        "'{{name}}' is read from the environment by name: declare it in server/config.ts's schema and take its typed value from the configuration (AppContext's config, judgeSettings(), demoSitesPort(), …).",
    },
    schema: [],
  },
  create(context) {
    return {
      MemberExpression(node) {
        if (!isEnvironment(node.object)) return;
        const name = literalKey(node);
        if (name !== null && SETTING_NAME.test(name)) context.report({ node, messageId: "byName", data: { name } });
      },
      VariableDeclarator(node) {
        if (node.id.type !== "ObjectPattern" || !node.init || !isEnvironment(node.init)) return;
        for (const prop of node.id.properties) {
          if (prop.type !== "Property") continue;
          const name = prop.computed
            ? prop.key.type === "Literal"
              ? String(prop.key.value)
              : null
            : prop.key.type === "Identifier"
              ? prop.key.name
              : String(prop.key.value);
          if (name !== null && SETTING_NAME.test(name)) context.report({ node: prop, messageId: "byName", data: { name } });
        }
      },
    };
  },
};

const PRODUCT_CODE = ["app/**/*.ts", "app/**/*.tsx", "server/**/*.ts", "db/**/*.ts", "scripts/**/*.ts", "instrumentation.ts", "proxy.ts"];
const functionLength = (max) => ["error", { max, skipBlankLines: false, skipComments: false, IIFEs: true }];

export default tseslint.config(
  {
    ignores: ["node_modules/**", "tmp/**", ".next/**", "data/**", "test-results/**", "playwright-report/**", "next-env.d.ts", "db/migrations/**"],
  },
  ...tseslint.configs.recommended,
  {
    plugins: {
      verdict: {
        rules: {
          "no-server-imports-in-client": noServerImportsInClient,
          "layer-imports": layerImports,
          "area-doors": areaDoors,
          "no-import-cycles": noImportCycles,
          "no-environment-settings": noEnvironmentSettings,
        },
      },
    },
    rules: {
      "verdict/no-server-imports-in-client": "error",
      "verdict/layer-imports": "error",
      "verdict/area-doors": "error",
      "verdict/no-import-cycles": "error",
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
  {
    files: PRODUCT_CODE,
    ignores: ENVIRONMENT_READERS,
    rules: {
      "verdict/no-environment-settings": "error",
      "no-restricted-properties": [
        "error",
        {
          object: "process",
          property: "env",
          message:
            "Read settings from the configuration (AppContext's config, judgeSettings() and the other readers of server/config.ts, or runtimeEnvironment() to pass the environment on), not process.env.",
        },
      ],
    },
  },
  ...Object.entries(LONG_FUNCTIONS_TO_SPLIT).map(([file, lines]) => ({
    files: [file.replace(/[[\]()]/g, "\\$&")],
    rules: { "max-lines-per-function": functionLength(lines) },
  })),
);

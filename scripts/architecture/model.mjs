// @ts-check
/**
 * Verdict's architecture as data: the floors (layers) every product file stands on, the product areas, and what a
 * file may import. One description read by the lint rule (`verdict/layer-imports` in eslint.config.mjs), by the
 * import-graph drawing (`npm run arch:graph`) and by docs/architecture.md's test, so the three cannot drift apart.
 *
 * Two axes: a file's floor says what kind of code it is (pages render, routers route, services decide, the database
 * stores, the domain is pure); its area says which part of the product it serves. Arrows (value imports) only run
 * down or stay on their floor; crossing into another area goes through that area's door (its index.ts).
 */

/** The product areas: the same word names an area on every floor. */
export const AREAS = ["catalog", "trajectories", "imports", "annotation", "evaluation", "analytics", "live", "accounts", "access"];

/**
 * Shared service modules that are not product areas (the job runtime, file storage, the operator's tools). They have
 * doors like areas do.
 */
export const SHARED_MODULES = ["jobs", "storage", "operations"];

/**
 * Floors, top to bottom. `rank` orders them: an arrow may go to a lower or equal rank, never to a higher one.
 * The first matching entry wins.
 */
export const FLOORS = [
  {
    name: "entry",
    rank: 8,
    match: /^(scripts\/|instrumentation\.ts$|proxy\.ts$)/,
    what: "processes' entry points: the CLI and worker scripts, benchmarks, Next's instrumentation and proxy",
  },
  { name: "pages", rank: 7, match: /^app\/(?!api\/)/, what: "Next.js pages and components: render, talk to the server through tRPC" },
  { name: "api", rank: 6, match: /^(server\/api\/|app\/api\/)/, what: "tRPC routers and route handlers: check the input and the role, call one service" },
  { name: "cli", rank: 6, match: /^server\/cli\//, what: "command-line commands: parse arguments, call services, print" },
  { name: "demo-sites", rank: 6, match: /^server\/demo-sites\//, what: "the demo websites live runs browse, and the demo content" },
  { name: "services", rank: 5, match: /^server\/services\//, what: "the product's decisions: transactions, rules, jobs; the only callers of repositories" },
  { name: "root", rank: 4, match: /^server\/context\.ts$/, what: "the composition root: one installation's config, database and stores" },
  {
    name: "adapters",
    rank: 3,
    match: /^server\/(importers|browser|auth|storage)\//,
    what: "adapters to the outside: trajectory formats, the browser, sign-in, file storage (folder or bucket)",
  },
  { name: "db", rank: 2, match: /^db\//, what: "storage: the database, both schemas, repositories by aggregate" },
  {
    name: "domain",
    rank: 1,
    match: /^server\/(domain\/|config\.ts$|errors\.ts$)/,
    what: "pure code: types, rules, statistics, formats; configuration and errors",
  },
];

/** The floor a repository path stands on, or null for files outside the product (tests, configs). */
export function floorOf(rel) {
  return FLOORS.find((f) => f.match.test(rel)) ?? null;
}

const AREA_FOLDERS = [
  /^server\/services\/([^/]+)\//,
  /^server\/domain\/([^/]+)\//,
  /^db\/repositories\/([^/]+)\//,
  /^server\/api\/routers\/([^/.]+)\.ts$/,
  /^server\/cli\/commands\/([^/.]+)\.ts$/,
  /^db\/schema(?:-pg)?\/([^/.]+)\.ts$/,
  /^app\/([^/_(][^/]*)\//,
  /^app\/\(([^)]+)\)\//,
];

/** The area (or shared module) a file belongs to by its folder, or null. */
export function areaOf(rel) {
  for (const re of AREA_FOLDERS) {
    const m = re.exec(rel);
    if (m && (AREAS.includes(m[1]) || SHARED_MODULES.includes(m[1]))) return m[1];
  }
  return null;
}

/** A service module's door: the one file other areas, routers, the CLI and pages may import. */
export function serviceDoorOf(rel) {
  const m = /^server\/services\/([^/]+)\//.exec(rel);
  return m ? `server/services/${m[1]}/index.ts` : null;
}

/**
 * The node a file is drawn as: its floor and, where it has one, its area ("services/evaluation"); loose files of a
 * floor are drawn together ("services").
 */
export function roomOf(rel) {
  const floor = floorOf(rel);
  if (!floor) return null;
  if (floor.name === "services") {
    const m = /^server\/services\/([^/]+)\//.exec(rel);
    return m ? `services/${m[1]}` : "services";
  }
  if (floor.name === "db") {
    if (/^db\/schema(-pg)?\//.test(rel)) return "db/schema";
    const m = /^db\/repositories\/([^/]+)\//.exec(rel);
    return m ? `db/${m[1]}` : "db";
  }
  if (floor.name === "domain") {
    // The error classes every floor throws import nothing: a box of their own, so no area is drawn as depending on
    // the domain's loose files for them.
    if (rel === "server/errors.ts") return "domain/errors";
    const m = /^server\/domain\/([^/]+)\//.exec(rel);
    return m ? `domain/${m[1]}` : "domain";
  }
  return floor.name;
}

/**
 * What each floor may not import (value imports; type-only imports cross freely). Paths are repository-relative,
 * without extension. Together with the ranks above this says: data only through services, the domain is pure,
 * adapters are used by services only, demo content only by the commands that seed or serve it.
 */
export const FORBIDDEN = {
  domain: {
    re: /^(db|app|scripts|tests|server\/(?!domain\/|config$|errors$))(\/|$)|^node:(?!crypto$)/,
    why: "the domain is pure (hashing aside): no I/O, no other layer",
  },
  db: { re: /^(app|scripts|tests|server\/(?!domain\/|config$|errors$))(\/|$)/, why: "the database layer imports only the domain" },
  adapters: {
    re: /^(app|scripts|tests|server\/(services|api|cli|demo-sites|context)|db\/repositories)(\/|$)/,
    why: "adapters sit below services and reach data only through their callers",
  },
  root: {
    re: /^(app|scripts|tests|server\/(services|api|cli|demo-sites|importers|browser)|db\/repositories)(\/|$)/,
    why: "the composition root stands below services",
  },
  services: {
    re: /^(app|scripts|tests|server\/(api|cli|demo-sites))(\/|$)/,
    why: "services decide; demo content is given to them by the commands that seed it",
  },
  "demo-sites": {
    re: /^(app|scripts|tests|server\/(api|cli|services|importers|context)|db)(\/|$)/,
    why: "the demo sites serve static content and may not reach the product's data",
  },
  api: {
    re: /^(app\/(?!api\/)|scripts|tests|server\/(cli|importers|browser|demo-sites)|db\/(repositories|schema))(\/|$)/,
    why: "routers call services; data, formats and the browser only through them",
  },
  cli: {
    re: /^(app|scripts|tests|server\/(api|importers|browser)|db\/(repositories|schema))(\/|$)/,
    why: "CLI commands call services; data, formats and the browser only through them",
  },
  pages: {
    re: /^(scripts|tests|server\/(services|cli|importers|browser|context|demo-sites)|db)(\/|$)/,
    why: "pages reach the server through tRPC (server/api), never services or data",
  },
  entry: { re: /^(tests|db\/repositories)(\/|$)/, why: "scripts call services like the CLI does, and never test code" },
};

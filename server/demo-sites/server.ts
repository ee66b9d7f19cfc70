/**
 * A tiny static HTTP server for the bundled demo sites (server/demo-sites/public): a recipe site, an outdoor-gear
 * shop and an encyclopedia. It binds to 127.0.0.1 only and serves files, nothing else: no directory listings, no
 * paths outside the public folder, no caching headers that would make two recordings of a page differ.
 *
 * A site's pages are one shell each (`pageShell`): a title, the page's name on <body data-page> and the site's
 * `app.js`, which renders the page from the site's `data.json`. The pages are listed in PAGE_SHELLS below.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { DEMO_SITES_DEFAULT_PORT, demoSitesDir } from "../config";
import { escapeHtml, htmlDocument } from "../domain/html";

export { DEMO_SITES_DEFAULT_PORT };

export const DEMO_SITES = [
  { path: "/recipes/", name: "Saffron & Thyme", description: "recipes with search, filters and a servings scaler" },
  { path: "/shop/", name: "Trailhead Supply", description: "outdoor gear with category filters, sorting and a cart" },
  { path: "/wiki/", name: "Tidewater Encyclopedia", description: "long articles that need scrolling, with links between them" },
] as const;

/** The sites' pages: URL path → [the page app.js draws, the title the page opens with]. */
const PAGE_SHELLS: Record<string, readonly [page: string, title: string]> = {
  "/recipes/index.html": ["home", "Saffron & Thyme · Recipes"],
  "/recipes/search.html": ["search", "Search · Saffron & Thyme"],
  "/recipes/recipe.html": ["recipe", "Recipe · Saffron & Thyme"],
  "/shop/index.html": ["catalogue", "Trailhead Supply · Outdoor gear"],
  "/shop/product.html": ["product", "Product · Trailhead Supply"],
  "/shop/cart.html": ["cart", "Your cart · Trailhead Supply"],
  "/shop/checkout.html": ["checkout", "Checkout · Trailhead Supply"],
  "/wiki/index.html": ["home", "Tidewater · The encyclopedia of the Wexmoor coast"],
  "/wiki/article.html": ["article", "Article · Tidewater"],
  "/wiki/search.html": ["search", "Search · Tidewater"],
};

/** A site's page: everything on it is drawn by the site's app.js (a module that imports its data.json). */
export function pageShell(title: string, page: string): string {
  return htmlDocument({
    title,
    head: ['<link rel="icon" href="data:,">', '<link rel="stylesheet" href="style.css">'],
    bodyAttributes: ` data-page="${escapeHtml(page)}"`,
    body: '<div id="root"></div>\n<script type="module" src="app.js"></script>',
  });
}

/** Each page's shell by URL path. */
const PAGES = new Map(Object.entries(PAGE_SHELLS).map(([urlPath, [page, title]]) => [urlPath, Buffer.from(pageShell(title, page))]));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json; charset=utf-8",
  ".ico": "image/x-icon",
};

/** Finds public/ next to this file, or under the working directory when bundled elsewhere. */
export function demoSitesRoot(): string {
  const candidates = [
    demoSitesDir(),
    path.join(path.dirname(fileURLToPath(import.meta.url)), "public"),
    path.join(process.cwd(), "server", "demo-sites", "public"),
  ].filter((p): p is string => !!p);
  const found = candidates.find((p) => fs.existsSync(path.join(p, "index.html")));
  if (!found) throw new Error(`Cannot find the demo sites (looked in ${candidates.join(", ")})`);
  return found;
}

export interface DemoSitesServer {
  /** "http://127.0.0.1:<port>" without a trailing slash. */
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

export interface DemoSitesOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
}

async function resolveFile(root: string, urlPath: string): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes("\0")) return null;
  let file = path.join(root, path.normalize(decoded));
  if (file !== root && !file.startsWith(root + path.sep)) return null;
  try {
    const st = await fsp.stat(file);
    if (st.isDirectory()) file = path.join(file, "index.html");
    else if (!st.isFile()) return null;
    return file;
  } catch {
    return null;
  }
}

/** File bodies by path, reused while the file's mtime is unchanged (the sites are tiny; edits still show up). */
const bodies = new Map<string, { mtimeMs: number; body: Buffer }>();

async function readCached(file: string): Promise<Buffer> {
  const { mtimeMs } = await fsp.stat(file);
  const hit = bodies.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return hit.body;
  const body = await fsp.readFile(file);
  bodies.set(file, { mtimeMs, body });
  return body;
}

/** A page's shell, or a file under the public folder, with its content type; null when there is neither. */
async function bodyFor(root: string, urlPath: string): Promise<{ body: Buffer; type: string } | null> {
  const shell = PAGES.get(urlPath.endsWith("/") ? urlPath + "index.html" : urlPath);
  if (shell) return { body: shell, type: TYPES[".html"]! };
  const file = await resolveFile(root, urlPath);
  if (!file) return null;
  return { body: await readCached(file), type: TYPES[path.extname(file)] ?? "application/octet-stream" };
}

export async function startDemoSites(options: DemoSitesOptions = {}): Promise<DemoSitesServer> {
  const root = path.resolve(demoSitesRoot());
  const host = options.host ?? "127.0.0.1";
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD" }).end();
      return;
    }
    const url = new URL(req.url ?? "/", "http://demo.invalid");
    // "/recipes" → "/recipes/" so that relative links inside the site resolve.
    if (!path.extname(url.pathname) && !url.pathname.endsWith("/")) {
      const dir = PAGES.has(url.pathname + "/index.html") || (await resolveFile(root, url.pathname + "/"));
      if (dir) {
        res.writeHead(301, { Location: url.pathname + "/" + url.search }).end();
        return;
      }
    }
    const found = await bodyFor(root, url.pathname);
    if (!found) {
      res.writeHead(404, { "Content-Type": "text/html; charset=utf-8" });
      res.end(
        `<!doctype html><title>Not found</title><p style="font-family:sans-serif">No page at ${url.pathname.replace(/[<>&"]/g, "")}. <a href="/">All demo sites</a></p>`,
      );
      return;
    }
    const { body, type } = found;
    res.writeHead(200, { "Content-Type": type, "Content-Length": body.length, "Cache-Control": "no-store" });
    res.end(req.method === "HEAD" ? undefined : body);
  };
  const server = http.createServer((req, res) => {
    // A file that vanished or could not be read mid-request answers 500 instead of leaving the browser waiting.
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      reject(e.code === "EADDRINUSE" ? new Error(`Port ${options.port} on ${host} is already in use; choose another with --port`) : e);
    };
    server.once("error", onError);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

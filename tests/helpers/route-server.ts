/**
 * The app's route handlers (auth, tRPC, screenshots, imports, report downloads, health, MCP) behind a real HTTP server on 127.0.0.1, for
 * tests that need the HTTP layer itself: body limits, headers, client addresses, status codes. Requests are handed to the same
 * exported GET/POST functions Next calls; the installation is the one VERDICT_DB / VERDICT_DATA_DIR name, read on
 * every request as in the web server. The server also installs the client-address stamp, as instrumentation.ts
 * does at web server start.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import * as authRoute from "../../app/api/auth/[...all]/route";
import * as folderFileRoute from "../../app/api/imports/folders/[session]/files/[sha]/route";
import * as folderSessionRoute from "../../app/api/imports/folders/[session]/route";
import * as foldersRoute from "../../app/api/imports/folders/route";
import * as healthRoute from "../../app/api/health/route";
import * as importsRoute from "../../app/api/imports/route";
import * as mcpRoute from "../../app/api/mcp/route";
import * as reportDownloadRoute from "../../app/api/reports/[id]/download/route";
import * as screenshotRoute from "../../app/api/screenshots/[hash]/route";
import * as trpcRoute from "../../app/api/trpc/[trpc]/route";
import * as v1ImportRoute from "../../app/api/v1/imports/[id]/route";
import * as v1ImportsRoute from "../../app/api/v1/imports/route";
import * as v1TrajectoriesRoute from "../../app/api/v1/trajectories/route";
import * as v1TrajectoryRoute from "../../app/api/v1/trajectories/[id]/route";
import * as v1VerdictsRoute from "../../app/api/v1/trajectories/[id]/verdicts/route";
import { installClientAddressHeader } from "../../server/auth/client-address";

export interface RouteServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

async function dispatch(req: Request): Promise<Response> {
  const { pathname } = new URL(req.url);
  const method = req.method as "GET" | "POST";
  if (pathname.startsWith("/api/auth/")) return authRoute[method](req);
  if (pathname.startsWith("/api/trpc/")) return trpcRoute[method](req);
  if (pathname === "/api/health" && method === "GET") return healthRoute.GET(req);
  if (pathname === "/api/imports" && method === "POST") return importsRoute.POST(req);
  const folder = folderDispatch(req, pathname, req.method);
  if (folder) return folder;
  // Next answers 405 for a method a route does not export (the MCP route has no GET stream).
  if (pathname === "/api/mcp") return method === "POST" ? mcpRoute.POST(req) : new Response(null, { status: 405, headers: { Allow: "POST" } });
  const v1 = v1Dispatch(req, pathname, method);
  if (v1) return v1;
  const shot = /^\/api\/screenshots\/([^/]+)$/.exec(pathname);
  if (shot && method === "GET") return screenshotRoute.GET(req, { params: Promise.resolve({ hash: decodeURIComponent(shot[1]!) }) });
  const report = /^\/api\/reports\/([^/]+)\/download$/.exec(pathname);
  if (report && method === "GET") return reportDownloadRoute.GET(req, { params: Promise.resolve({ id: decodeURIComponent(report[1]!) }) });
  return new Response("not found\n", { status: 404 });
}

/** The Import page's folder upload (docs/guide/importing.md). */
function folderDispatch(req: Request, pathname: string, method: string): Promise<Response> | null {
  if (pathname === "/api/imports/folders" && method === "POST") return foldersRoute.POST(req);
  const file = /^\/api\/imports\/folders\/([^/]+)\/files\/([^/]+)$/.exec(pathname);
  if (file && method === "PUT") return folderFileRoute.PUT(req, { params: Promise.resolve({ session: file[1]!, sha: file[2]! }) });
  const session = /^\/api\/imports\/folders\/([^/]+)$/.exec(pathname);
  if (session && method === "POST") return folderSessionRoute.POST(req, { params: Promise.resolve({ session: session[1]! }) });
  return null;
}

/** The script API under /api/v1 (docs/guide/api.md). */
function v1Dispatch(req: Request, pathname: string, method: "GET" | "POST"): Promise<Response> | null {
  const params = (id: string) => ({ params: Promise.resolve({ id: decodeURIComponent(id) }) });
  if (pathname === "/api/v1/imports" && method === "POST") return v1ImportsRoute.POST(req);
  if (pathname === "/api/v1/trajectories" && method === "GET") return v1TrajectoriesRoute.GET(req);
  const job = /^\/api\/v1\/imports\/([^/]+)$/.exec(pathname);
  if (job && method === "GET") return v1ImportRoute.GET(req, params(job[1]!));
  const trajectory = /^\/api\/v1\/trajectories\/([^/]+)$/.exec(pathname);
  if (trajectory && method === "GET") return v1TrajectoryRoute.GET(req, params(trajectory[1]!));
  const verdicts = /^\/api\/v1\/trajectories\/([^/]+)\/verdicts$/.exec(pathname);
  if (verdicts && method === "POST") return v1VerdictsRoute.POST(req, params(verdicts[1]!));
  return null;
}

export async function startRouteServer(options: { trustedProxies?: string[] } = {}): Promise<RouteServer> {
  installClientAddressHeader(options.trustedProxies ?? []);
  const server = http.createServer((req, res) => {
    void (async () => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const request = new Request(new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`), {
        method: req.method,
        headers,
        body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
        duplex: "half",
      } as RequestInit);
      let response: Response;
      try {
        response = await dispatch(request);
      } catch (e) {
        console.error(e);
        response = new Response("internal error\n", { status: 500 });
      }
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      res.end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  ms: number;
}

/**
 * One HTTP request with node:http, so the test controls what fetch would not let it: the Host header, the local
 * address the connection comes from (127.0.0.x), and a body sent in chunks without a Content-Length.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer | (() => AsyncIterable<Buffer>); localAddress?: string } = {},
): Promise<RawResponse> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? "GET", headers: options.headers, localAddress: options.localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8"), ms: Date.now() - started }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    const body = options.body;
    if (typeof body === "function") {
      void (async () => {
        try {
          for await (const chunk of body()) if (!req.write(chunk)) await new Promise((r) => req.once("drain", r));
          req.end();
        } catch {
          req.destroy();
        }
      })();
    } else {
      req.end(body);
    }
  });
}

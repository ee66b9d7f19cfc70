/**
 * The HTTP server of the annotation bench (scripts/bench/annotation.ts), run in its own process: better-auth at
 * /api/auth and the app's tRPC router at /api/trpc, behind the same fetch handlers as app/api/…/route.ts, on
 * 127.0.0.1 with a free port. Prints "listening <url>" when ready. argv: database file, data folder, PostgreSQL URL
 * (or "-" for the SQLite file).
 */
import http from "node:http";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "../../server/api/root";
import { createTRPCContext } from "../../server/api/trpc";
import { getAuth } from "../../server/auth/auth";
import { closeDatabase } from "../../db/database";
import { createAppContext } from "../../server/context";

const [dbPath, dataDir, postgresUrl] = process.argv.slice(2);
const app = createAppContext({
  dbPath: dbPath!,
  dataDir: dataDir!,
  ...(postgresUrl && postgresUrl !== "-" ? { postgresUrl } : {}),
  chromiumPath: "/usr/bin/chromium",
});
const auth = await getAuth(app);

async function answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  try {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (Array.isArray(v)) for (const x of v) headers.append(k, x);
      else if (v !== undefined) headers.set(k, v);
    }
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks),
    });
    const response = req.url!.startsWith("/api/auth/")
      ? await auth.handler(request)
      : await fetchRequestHandler({
          endpoint: "/api/trpc",
          req: request,
          router: appRouter,
          createContext: () => createTRPCContext({ headers: request.headers }, app),
          // A failed call fails the bench: say why, with the engine's own error.
          onError: ({ path, error }) =>
            console.error(`[bench server] ${path}: ${error.message}; cause: ${String((error.cause as { cause?: unknown } | undefined)?.cause ?? error.cause)}`),
        });
    const out: Record<string, string | string[]> = {};
    response.headers.forEach((v, k) => {
      if (k !== "set-cookie") out[k] = v;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length) out["set-cookie"] = cookies;
    res.writeHead(response.status, out);
    res.end(Buffer.from(await response.arrayBuffer()));
  } catch (e) {
    res.writeHead(500, { "content-type": "text/plain" });
    res.end(String(e));
  }
}

const server = http.createServer((req, res) => void answer(req, res));
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const port = (server.address() as { port: number }).port;
  process.stdout.write(`listening http://127.0.0.1:${port}\n`);
});
process.on("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  void closeDatabase(app.db).finally(() => process.exit(0));
});

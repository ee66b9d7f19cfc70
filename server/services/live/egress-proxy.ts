/**
 * The live runner's egress proxy: every connection a run's browser makes goes through it, and it decides at connect
 * time whether the destination may be reached (rules in server/domain/live/safety.ts, `egressRefusal`).
 *
 * Why a proxy: Playwright's routes see only the first URL of a redirect chain and no WebSockets, and a guard that
 * resolves a name while Chromium resolves it again can be fooled by DNS rebinding. Here every hop of a redirect,
 * every subresource, frame, fetch, WebSocket and HTTPS tunnel is a separate request to the proxy; the proxy resolves
 * the name once, checks every address it got, and connects to exactly the address it checked. A name that does not
 * resolve is refused.
 *
 * It speaks plain-HTTP proxying (absolute-form request URLs) and CONNECT tunnels (HTTPS, WebSockets); Chromium is
 * pointed at it with --proxy-server (and `<-loopback>` so loopback is not bypassed). It listens on 127.0.0.1 on a
 * free port of VERDICT_RUNNER_PROXY_PORTS, in the worker process: the browser user's network rules
 * (scripts/browser-user.sh) let the browser reach those ports and nothing else, so a connection Chromium makes
 * around its proxy setting (WebRTC, a bug) goes nowhere. For a browser on another machine (VERDICT_BROWSER_WS) it
 * listens on VERDICT_RUNNER_PROXY_HOST instead and, being reachable from the network, serves only clients that
 * present its per-proxy random credentials (Basic proxy authentication, which Playwright answers for the context).
 */
import crypto from "node:crypto";
import dns from "node:dns";
import http from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import { egressRefusal, isIpLiteral, type EgressRules } from "../../domain/live/safety";
import { DEFAULT_RUNNER_PROXY_PORTS, type PortRange } from "../../config";

/** Resolves a host name to its addresses; throws (or returns none) when it does not resolve. */
export type HostResolver = (host: string) => Promise<string[]>;

export interface EgressRefusalEvent {
  host: string;
  port: number;
  reason: string;
  /** "blocked request to 127.0.0.1:9997 (loopback)": what researchers read in the step's error. */
  message: string;
}

export interface EgressProxyOptions {
  rules: EgressRules;
  resolveHost?: HostResolver;
  onRefusal?: (event: EgressRefusalEvent) => void;
  /** How long a connection to the destination may take before it is given up (default 15 s). */
  connectTimeoutMs?: number;
  /** Address to listen on and give the browser (default 127.0.0.1). */
  host?: string;
  /** Refuse clients without this proxy's random credentials (a proxy the network can reach). */
  requireCredentials?: boolean;
  /** Ports to listen on, one free one is taken (default DEFAULT_RUNNER_PROXY_PORTS). */
  ports?: PortRange;
}

/** What a browser context needs to use the proxy (Playwright's `proxy` option). */
export interface ProxySettings {
  server: string;
  username?: string;
  password?: string;
}

const AUTH_REQUIRED = 'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="verdict-egress"\r\nContent-Length: 0\r\n\r\n';

const DNS_TIMEOUT_MS = 5_000;

/** The system resolver (hosts file, DNS), with a time limit: a name that takes too long is a name that failed. */
export async function systemResolveHost(host: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${DNS_TIMEOUT_MS / 1000} s`)), DNS_TIMEOUT_MS);
    timer.unref();
  });
  try {
    const found = await Promise.race([dns.promises.lookup(host, { all: true, verbatim: true }), timeout]);
    return found.map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
}

type Decision = { address: string } | { refusal: EgressRefusalEvent };

/** Hop-by-hop headers and the proxy's own: never forwarded. */
const HOP_HEADERS = new Set([
  "connection",
  "proxy-connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function forwardedHeaders(raw: string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    const key = name.toLowerCase();
    if (HOP_HEADERS.has(key)) continue;
    const prev = out[name];
    out[name] = prev === undefined ? raw[i + 1]! : [...(Array.isArray(prev) ? prev : [prev]), raw[i + 1]!];
  }
  return out;
}

function displayHost(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** host and port of a CONNECT target ("example.com:443", "[::1]:80"). */
function parseAuthority(authority: string): { host: string; port: number } | null {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(authority);
  if (!m) return null;
  const port = Number(m[3]);
  return port > 0 && port < 65536 ? { host: m[1] ?? m[2]!, port } : null;
}

/** Listens on a free port of `range`, starting at a random one so that several workers rarely try the same. */
async function listenInRange(server: http.Server, host: string, range: PortRange): Promise<void> {
  const size = range.to - range.from + 1;
  const offset = crypto.randomInt(size);
  for (let i = 0; i < size; i++) {
    const port = range.from + ((offset + i) % size);
    try {
      await new Promise<void>((resolve, reject) => {
        const fail = (e: Error) => reject(e);
        server.once("error", fail);
        server.listen(port, host, () => {
          server.off("error", fail);
          resolve();
        });
      });
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE") throw e;
    }
  }
  throw new Error(
    `No free port for the runner's egress proxy in ${range.from}-${range.to} (VERDICT_RUNNER_PROXY_PORTS): widen the range, or run fewer runs at once on this machine`,
  );
}

export class EgressProxy {
  private readonly resolveHost: HostResolver;
  private readonly sockets = new Set<net.Socket | Duplex>();
  private readonly credentials: { username: string; password: string } | null;
  private constructor(
    private readonly server: http.Server,
    readonly port: number,
    private readonly options: EgressProxyOptions,
  ) {
    this.resolveHost = options.resolveHost ?? systemResolveHost;
    this.credentials = options.requireCredentials ? { username: "verdict", password: crypto.randomBytes(18).toString("base64url") } : null;
  }

  /** The address to give Chromium (`--proxy-server`, or a context's proxy). */
  get url(): string {
    return `http://${displayHost(this.options.host ?? "127.0.0.1")}:${this.port}`;
  }

  /** The proxy as a browser context is given it, with its credentials when it asks for them. */
  get settings(): ProxySettings {
    return { server: this.url, ...(this.credentials ?? {}) };
  }

  /** True when the request carries this proxy's credentials, or none are required. */
  private authorized(req: http.IncomingMessage): boolean {
    if (!this.credentials) return true;
    const expected = Buffer.from(`Basic ${Buffer.from(`${this.credentials.username}:${this.credentials.password}`).toString("base64")}`);
    const given = Buffer.from(req.headers["proxy-authorization"] ?? "");
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  }

  static async start(options: EgressProxyOptions): Promise<EgressProxy> {
    const server = http.createServer();
    // Tunnels and long downloads live as long as the browser keeps them; the run closes the proxy at its end.
    server.requestTimeout = 0;
    await listenInRange(server, options.host ?? "127.0.0.1", options.ports ?? DEFAULT_RUNNER_PROXY_PORTS);
    const proxy = new EgressProxy(server, (server.address() as net.AddressInfo).port, options);
    server.on("connection", (s: net.Socket) => proxy.track(s));
    server.on("request", (req, res) => void proxy.onRequest(req, res));
    server.on("connect", (req, socket, head) => void proxy.onConnect(req, socket, head));
    server.on("upgrade", (req, socket, head) => void proxy.onUpgrade(req, socket, head));
    return proxy;
  }

  private track(s: net.Socket | Duplex): void {
    this.sockets.add(s);
    s.on("close", () => this.sockets.delete(s));
    s.on("error", () => {});
  }

  /** Resolves `host` once, checks every address, and names the one to connect to (or why not). */
  async decide(host: string, port: number): Promise<Decision> {
    const bare = host.replace(/^\[|\]$/g, "");
    const refuse = (reason: string): Decision => {
      const refusal = { host: bare, port, reason, message: `blocked request to ${displayHost(bare)}:${port} (${reason})` };
      this.options.onRefusal?.(refusal);
      return { refusal };
    };
    let addresses: string[];
    if (isIpLiteral(bare)) addresses = [bare];
    else {
      try {
        addresses = await this.resolveHost(bare);
      } catch (e) {
        return refuse(`the name did not resolve: ${String((e as Error)?.message ?? e).split("\n")[0]}`);
      }
      if (!addresses.length) return refuse("the name did not resolve");
    }
    for (const address of addresses) {
      const reason = egressRefusal(bare, port, address, this.options.rules);
      if (reason) return refuse(reason);
    }
    return { address: addresses[0]! };
  }

  private connectTo(address: string, port: number): net.Socket {
    const upstream = net.connect({ host: address, port });
    this.track(upstream);
    upstream.setTimeout(this.options.connectTimeoutMs ?? 15_000, () => upstream.destroy(new Error("connect timeout")));
    upstream.once("connect", () => upstream.setTimeout(0));
    return upstream;
  }

  private async onRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!this.authorized(req)) {
      res.writeHead(407, { "Proxy-Authenticate": 'Basic realm="verdict-egress"', "Content-Length": "0" }).end();
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? "");
    } catch {
      res.writeHead(400, { "Content-Type": "text/plain" }).end("this is a forward proxy: send absolute URLs");
      return;
    }
    if (target.protocol !== "http:") {
      res.writeHead(400, { "Content-Type": "text/plain" }).end(`${target.protocol} is not proxied here`);
      return;
    }
    const port = Number(target.port || 80);
    const decision = await this.decide(target.hostname, port);
    if ("refusal" in decision) {
      res.writeHead(403, { "Content-Type": "text/plain; charset=utf-8" }).end(`Verdict's live runner ${decision.refusal.message}`);
      return;
    }
    const upstream = http.request({
      host: decision.address,
      port,
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers: forwardedHeaders(req.rawHeaders),
      setHost: false,
      agent: false,
      timeout: this.options.connectTimeoutMs ?? 15_000,
    });
    upstream.on("socket", (s) => {
      this.track(s);
      s.once("connect", () => upstream.setTimeout(0));
    });
    upstream.on("timeout", () => upstream.destroy(new Error("connect timeout")));
    upstream.on("response", (up) => {
      const headers = forwardedHeaders(up.rawHeaders);
      res.writeHead(up.statusCode ?? 502, up.statusMessage, headers);
      up.pipe(res);
      up.on("error", () => res.destroy());
    });
    upstream.on("error", (e) => {
      if (!res.headersSent) res.writeHead(502, { "Content-Type": "text/plain" }).end(`upstream error: ${e.message}`);
      else res.destroy();
    });
    req.pipe(upstream);
  }

  private async onConnect(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    this.track(socket);
    if (!this.authorized(req)) {
      socket.end(AUTH_REQUIRED);
      return;
    }
    const authority = parseAuthority(req.url ?? "");
    if (!authority) {
      socket.end("HTTP/1.1 400 Bad Request\r\n\r\n");
      return;
    }
    const decision = await this.decide(authority.host, authority.port);
    if ("refusal" in decision) {
      socket.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    if (socket.destroyed) return;
    const upstream = this.connectTo(decision.address, authority.port);
    let connected = false;
    upstream.once("connect", () => {
      connected = true;
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on("error", () => {
      if (!connected && socket.writable) socket.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
      else socket.destroy();
    });
    socket.on("close", () => upstream.destroy());
    upstream.on("close", () => socket.destroy());
  }

  /** An Upgrade (WebSocket) request sent in absolute form rather than through CONNECT: same check, then a pipe. */
  private async onUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    this.track(socket);
    if (!this.authorized(req)) {
      socket.end(AUTH_REQUIRED);
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? "");
    } catch {
      socket.end("HTTP/1.1 400 Bad Request\r\n\r\n");
      return;
    }
    const port = Number(target.port || (target.protocol === "https:" || target.protocol === "wss:" ? 443 : 80));
    const decision = await this.decide(target.hostname, port);
    if ("refusal" in decision) {
      socket.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    if (socket.destroyed) return;
    const upstream = this.connectTo(decision.address, port);
    upstream.once("connect", () => {
      const lines = [`${req.method} ${target.pathname}${target.search} HTTP/1.1`];
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
        if (/^proxy-/i.test(req.rawHeaders[i]!)) continue;
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      }
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on("error", () => socket.destroy());
    socket.on("close", () => upstream.destroy());
    upstream.on("close", () => socket.destroy());
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

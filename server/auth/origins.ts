/**
 * Which sites may drive this installation. A page served under some other DNS name can point that name at
 * 127.0.0.1 (DNS rebinding) and then talk to a local install as if it were the install's own page, so a request's
 * Host header alone never vouches for it. Trusted are: VERDICT_BASE_URL's origin and VERDICT_TRUSTED_ORIGINS;
 * without configuration, only names that cannot be rebound: `localhost` and IP addresses (a LAN install reached
 * at http://192.168.1.5:3000 keeps working).
 */
import net from "node:net";
import type { VerdictConfig } from "../config";

type OriginConfig = Pick<VerdictConfig, "baseUrl" | "trustedOrigins">;

function hostnameOf(host: string): string {
  // "[::1]:3000" → "::1"; "example.org:3000" → "example.org"
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  if (bracketed) return bracketed[1]!.toLowerCase();
  return host.replace(/:\d+$/, "").toLowerCase();
}

function isUnrebindable(hostname: string): boolean {
  return hostname === "localhost" || net.isIP(hostname) !== 0;
}

/** The configured origins (VERDICT_BASE_URL first). */
export function configuredOrigins(config: OriginConfig): string[] {
  const origins = config.baseUrl ? [new URL(config.baseUrl).origin] : [];
  return [...origins, ...(config.trustedOrigins ?? [])];
}

/** Whether a request addressed to `host` (its Host header) may be served. */
export function isAllowedHost(host: string | null, config: OriginConfig): boolean {
  if (!host) return false;
  const hostname = hostnameOf(host);
  if (isUnrebindable(hostname)) return true;
  return configuredOrigins(config).some((o) => new URL(o).hostname.toLowerCase() === hostname);
}

/** Origins whose pages may sign in and change things, for a request arriving with `host` over `protocol`. */
export function trustedOriginsFor(config: OriginConfig, request: { protocol: string; host: string | null } | null): string[] {
  const origins = configuredOrigins(config);
  if (request?.host && isUnrebindable(hostnameOf(request.host))) origins.push(`${request.protocol}//${request.host}`);
  return origins;
}

/** The refusal for a request to a name this installation was not told about. */
export function misdirectedResponse(host: string | null): Response {
  const message =
    `This Verdict installation does not answer to ${JSON.stringify(host ?? "")}. ` +
    "Set VERDICT_BASE_URL (or VERDICT_TRUSTED_ORIGINS) to the address people use, or open it by IP address or localhost.";
  return new Response(JSON.stringify({ error: message }) + "\n", {
    status: 421,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
  });
}

/** Methods that change something: a page of another origin must not be able to send them with the user's cookie. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Why a request to a route handler is refused before it is looked at, or null when it may be served:
 * - addressed to a name this installation does not answer to (DNS rebinding): 421;
 * - carrying an Origin that is not one of this installation's (a page on another site, or on another port of this
 *   host, whose same-site requests carry the SameSite=Lax cookies): 403;
 * - a state-changing request a browser marks as coming from another site (Sec-Fetch-Site) without an Origin: 403.
 * Clients that are not browsers (the CLI, scripts, health checks) send neither header and are served.
 */
export function foreignRequestRefusal(req: Request, config: OriginConfig): Response | null {
  const host = req.headers.get("host");
  if (!isAllowedHost(host, config)) return misdirectedResponse(host);
  const origin = req.headers.get("origin");
  let protocol = "http:";
  try {
    protocol = new URL(req.url).protocol;
  } catch {
    // A relative URL cannot reach a handler; the request's own origin then counts as http.
  }
  if (origin !== null) {
    if (!trustedOriginsFor(config, { protocol, host }).includes(origin)) return crossSiteResponse(`a page at ${origin}`);
  } else if (!SAFE_METHODS.has(req.method.toUpperCase())) {
    const site = req.headers.get("sec-fetch-site");
    if (site === "cross-site" || site === "same-site") return crossSiteResponse(`a ${site} page`);
  }
  return null;
}

function crossSiteResponse(who: string): Response {
  const message = `Requests from ${who} are refused: this installation answers only its own pages (VERDICT_BASE_URL, VERDICT_TRUSTED_ORIGINS).`;
  return new Response(JSON.stringify({ error: message }) + "\n", {
    status: 403,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
  });
}

/**
 * Who is on the other end of a request, for the sign-in rate limit.
 *
 * Route handlers only see headers, and `next start` copies the connecting socket's address into X-Forwarded-For
 * only when the client sent none, so any client could choose its own rate-limit bucket by sending that header.
 * Instead, as each request arrives at the Node HTTP server (before Next sees it), we write the connection's
 * address into our own header, replacing whatever the client sent. X-Forwarded-For is believed only when the
 * connection comes from a configured reverse proxy (VERDICT_TRUSTED_PROXIES), and then only the hop that proxy
 * appended.
 */
import diagnosticsChannel from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import net from "node:net";

/** Set by the web server on every request; never taken from the client. */
export const CLIENT_ADDRESS_HEADER = "x-verdict-client-address";

function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** The proxies as a set of networks; a malformed entry is a configuration error naming the entry. */
export function proxyList(trustedProxies: readonly string[]): net.BlockList {
  const list = new net.BlockList();
  for (const entry of trustedProxies) {
    const [address, prefix] = entry.split("/");
    const family = net.isIP(address ?? "");
    if (!family) throw new Error(`VERDICT_TRUSTED_PROXIES: ${JSON.stringify(entry)} is not an IP address or CIDR range`);
    const type = family === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(address!, type);
    else {
      const bits = Number(prefix);
      if (!/^\d+$/.test(prefix) || bits > (family === 6 ? 128 : 32))
        throw new Error(`VERDICT_TRUSTED_PROXIES: ${JSON.stringify(entry)} has a bad prefix length`);
      list.addSubnet(address!, bits, type);
    }
  }
  return list;
}

function isListed(list: net.BlockList, address: string): boolean {
  const family = net.isIP(address);
  return family !== 0 && list.check(address, family === 6 ? "ipv6" : "ipv4");
}

/**
 * The client's address: the socket's, unless the socket is a trusted proxy, in which case the right-most
 * X-Forwarded-For entry that is not itself a trusted proxy (entries further left are the client's own words).
 */
export function resolveClientAddress(socketAddress: string | undefined, forwardedFor: string | undefined, proxies: net.BlockList): string | null {
  if (!socketAddress) return null;
  const direct = plainAddress(socketAddress);
  if (!isListed(proxies, direct) || !forwardedFor) return direct;
  const hops = forwardedFor
    .split(",")
    .map((h) => plainAddress(h.trim()))
    .filter((h) => h !== "");
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (!net.isIP(hop)) return direct;
    if (!isListed(proxies, hop)) return hop;
  }
  return direct;
}

const installed = globalThis as unknown as { verdictClientAddress?: { proxies: net.BlockList } };

/**
 * Stamps every request this process's HTTP servers receive with CLIENT_ADDRESS_HEADER. Called once at web server
 * start (instrumentation.ts); calling it again only replaces the proxy list.
 */
export function installClientAddressHeader(trustedProxies: readonly string[]): void {
  const proxies = proxyList(trustedProxies);
  if (installed.verdictClientAddress) {
    installed.verdictClientAddress.proxies = proxies;
    return;
  }
  const state = (installed.verdictClientAddress = { proxies });
  diagnosticsChannel.subscribe("http.server.request.start", (message) => {
    const request = (message as { request: IncomingMessage }).request;
    const xff = request.headers["x-forwarded-for"];
    const address = resolveClientAddress(request.socket.remoteAddress, Array.isArray(xff) ? xff.join(",") : xff, state.proxies);
    if (address) request.headers[CLIENT_ADDRESS_HEADER] = address;
    else delete request.headers[CLIENT_ADDRESS_HEADER];
  });
}

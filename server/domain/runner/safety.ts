/**
 * Safety rules of a live run, as pure functions: which hosts the agent may navigate to, which addresses are private,
 * which elements it may not act on. The runner's browser guard (server/services/runner/safety-guard.ts) applies them.
 *
 * Host allowlist entries are host names, optionally with a port: "example.com" allows example.com and every
 * subdomain of it (sites move between www. and the bare domain); "example.com:8080" also pins the port;
 * "*.example.com" allows the subdomains only. The default allowlist is the start URL's host without a leading "www.".
 */
import type { ParsedAction, SomElement } from "../types";

/** Lower-cased host[:port] from an allowlist entry, a URL or a bare host; null when it is not one. */
export function normaliseHostEntry(entry: string): string | null {
  let s = entry.trim().toLowerCase();
  if (!s) return null;
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(s)) {
    try {
      const u = new URL(s);
      s = u.port ? `${u.hostname}:${u.port}` : u.hostname;
    } catch {
      return null;
    }
  } else {
    s = s.replace(/[/?#].*$/, "");
  }
  s = s.replace(/\.$/, "");
  if (!/^(\*\.)?(\[[0-9a-f:.]+\]|[a-z0-9_-]+(\.[a-z0-9_-]+)*)(:\d{1,5})?$/.test(s)) return null;
  return s;
}

/** Splits and normalises a user's allowlist (commas, spaces or new lines); names the entries that are not hosts. */
export function parseHostList(text: string | string[]): { hosts: string[]; invalid: string[] } {
  const parts = (Array.isArray(text) ? text : text.split(/[\s,]+/)).map((p) => p.trim()).filter(Boolean);
  const hosts: string[] = [];
  const invalid: string[] = [];
  for (const p of parts) {
    const h = normaliseHostEntry(p);
    if (h) {
      if (!hosts.includes(h)) hosts.push(h);
    } else invalid.push(p);
  }
  return { hosts, invalid };
}

/** The allowlist a run gets when none is given: the start URL's host (a leading "www." dropped). */
export function defaultAllowlist(startUrl: string | null): string[] {
  if (!startUrl) return [];
  try {
    const u = new URL(startUrl);
    const host = u.hostname.toLowerCase().replace(/^www\./, "");
    return host ? [host] : [];
  } catch {
    return [];
  }
}

function splitHostPort(entry: string): { host: string; port: string | null } {
  const m = /^(.*?)(?::(\d{1,5}))?$/.exec(entry)!;
  if (entry.startsWith("[")) {
    const v6 = /^(\[[^\]]+\])(?::(\d{1,5}))?$/.exec(entry);
    if (v6) return { host: v6[1]!, port: v6[2] ?? null };
  }
  return { host: m[1]!, port: m[2] ?? null };
}

function defaultPort(protocol: string): string {
  return protocol === "https:" ? "443" : protocol === "http:" ? "80" : "";
}

/** Whether a URL's host is covered by one of the allowlist entries. */
export function hostAllowed(url: URL, allowlist: readonly string[]): boolean {
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const port = url.port || defaultPort(url.protocol);
  return allowlist.some((entry) => {
    const e = splitHostPort(entry);
    if (e.port !== null && e.port !== port) return false;
    if (e.host.startsWith("*.")) return host.endsWith(e.host.slice(1));
    return host === e.host || host.endsWith(`.${e.host}`);
  });
}

// ---- private addresses ----

function ipv4Parts(s: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

function privateV4([a, b]: number[]): boolean {
  return (
    a === 0 || // "this network"
    a === 10 ||
    a === 127 ||
    (a === 100 && b! >= 64 && b! <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) || // IETF protocol assignments
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    a! >= 224 // multicast and reserved
  );
}

/** Expands an IPv6 literal (no brackets) to eight 16-bit groups; null when it is not one. */
function ipv6Groups(s: string): number[] | null {
  let text = s.toLowerCase().replace(/%.*$/, "");
  if (!/^[0-9a-f:.]+$/.test(text) || !text.includes(":")) return null;
  // A trailing dotted quad (::ffff:10.0.0.1) becomes two groups.
  const dotted = /(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(text);
  if (dotted) {
    const v4 = ipv4Parts(dotted[1]!);
    if (!v4) return null;
    text = text.slice(0, dotted.index) + `${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (h: string) => (h ? h.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)) : []);
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  if ([...head, ...tail].some(Number.isNaN)) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  return [...head, ...Array(halves.length === 2 ? missing : 0).fill(0), ...tail];
}

/**
 * True for loopback, private, link-local, unique-local, carrier-grade NAT, unspecified, multicast and reserved
 * addresses (IPv4, IPv6 and IPv4-mapped IPv6). A host name is not an address: false.
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  const v4 = ipv4Parts(bare);
  if (v4) return privateV4(v4);
  const g = ipv6Groups(bare);
  if (!g) return false;
  if (g.every((x) => x === 0)) return true; // ::
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return true; // ::1
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) forms carry an IPv4 address.
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) {
    return privateV4([g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff]);
  }
  const first = g[0]!;
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00 || (first === 0x2001 && g[1] === 0x0db8);
}

/** True when a host is an IP literal (v4, or v6 in brackets or not). */
export function isIpLiteral(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return ipv4Parts(bare) !== null || ipv6Groups(bare) !== null;
}

/** Names that resolve to the loopback interface without asking DNS. */
export function isLoopbackName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost");
}

/** "host:port" of a URL with its default port filled in, the form the private-origin exceptions use. */
export function originKey(url: URL): string {
  return `${url.hostname.toLowerCase()}:${url.port || defaultPort(url.protocol)}`;
}

// ---- element text blocklist ----

/** Actions that act on an element's function; hovering and scrolling over a "Delete" button harm nothing. */
const GUARDED_ACTIONS = new Set<ParsedAction["type"]>(["click", "dblclick", "type", "clear", "select", "drag", "upload"]);

function squash(s: string): string {
  return s.toLowerCase().replace(/\s+/g, " ").trim();
}

/** Splits a user's blocklist: one entry per line (commas are kept: "Yes, delete it" is one entry). */
export function parseTextList(text: string | string[]): string[] {
  const parts = Array.isArray(text) ? text : text.split(/\n/);
  const out: string[] = [];
  for (const p of parts.map((x) => x.trim()).filter(Boolean)) if (!out.includes(p)) out.push(p);
  return out;
}

/**
 * The blocklist entry an action's target element matches (case-insensitive, whitespace-insensitive substring of
 * the element's text), or null when the action may go ahead.
 */
export function blockedElementText(action: ParsedAction, elements: readonly SomElement[], blocklist: readonly string[]): string | null {
  if (!blocklist.length || !GUARDED_ACTIONS.has(action.type) || !action.target) return null;
  const el = elements.find((e) => e.label === action.target);
  const text = squash(el?.text ?? "");
  if (!text) return null;
  return blocklist.find((b) => squash(b) && text.includes(squash(b))) ?? null;
}

/** URLs an action navigates to by itself (goto, new tab with a URL), checked before it runs. */
export function actionNavigationTarget(action: ParsedAction, currentUrl: string): URL | null {
  if (action.type !== "goto" && action.type !== "new_tab") return null;
  const text = action.value?.trim();
  if (!text) return null;
  try {
    const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(text) ? text : /^[\w-]+(\.[\w-]+)+/.test(text) ? `https://${text}` : text;
    return new URL(withScheme, currentUrl);
  } catch {
    return null;
  }
}

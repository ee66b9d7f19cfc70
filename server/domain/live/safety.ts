/**
 * Safety rules of a live run, as pure functions: which hosts the agent may navigate to, which addresses are private,
 * which elements it may not act on. The runner's browser guard (server/services/live/safety-guard.ts) applies them.
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
  return protocol === "https:" || protocol === "wss:" ? "443" : protocol === "http:" || protocol === "ws:" ? "80" : "";
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

/** Why an address is not on the public internet: the label a refusal names ("blocked … (loopback)"). */
export type AddressKind = "unspecified" | "loopback" | "private" | "carrier-grade NAT" | "link-local" | "unique-local" | "multicast" | "reserved";

function v4Kind([a, b, c]: number[]): AddressKind | null {
  if (a === 0) return "unspecified"; // "this network"; 0.0.0.0 reaches the machine itself on Linux
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 100 && b! >= 64 && b! <= 127) return "carrier-grade NAT";
  if (a === 169 && b === 254) return "link-local"; // includes the cloud metadata service 169.254.169.254
  if (a! >= 224 && a! <= 239) return "multicast";
  if (a! >= 240) return "reserved"; // and the broadcast address
  if ((a === 192 && b === 0 && c === 0) || (a === 198 && (b === 18 || b === 19))) return "reserved"; // IETF, benchmarking
  return null;
}

function v4FromGroups(hi: number, lo: number): number[] {
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
}

/**
 * What kind of non-public address this is, or null for a public one (and for anything that is not an address).
 * IPv6 forms that carry an IPv4 address (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96,
 * 6to4 2002::/16) are judged by the IPv4 address they carry.
 */
export function addressKind(address: string): AddressKind | null {
  const bare = address.replace(/^\[|\]$/g, "");
  const v4 = ipv4Parts(bare);
  if (v4) return v4Kind(v4);
  const g = ipv6Groups(bare);
  if (!g) return null;
  if (g.every((x) => x === 0)) return "unspecified";
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return "loopback";
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) return v4Kind(v4FromGroups(g[6]!, g[7]!));
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4Kind(v4FromGroups(g[6]!, g[7]!));
  if (g[0] === 0x2002) return v4Kind(v4FromGroups(g[1]!, g[2]!));
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00) return "unique-local";
  if ((first & 0xffc0) === 0xfe80) return "link-local";
  if ((first & 0xff00) === 0xff00) return "multicast";
  if (first === 0x2001 && g[1] === 0x0db8) return "reserved"; // documentation
  return null;
}

/**
 * Cloud instance metadata services: they hand out the machine's credentials to whoever asks from inside it, so no
 * setting reaches them, neither for a run's browser nor for a judge endpoint. IPv4 and IPv6 addresses; IPv6 forms
 * that carry an IPv4 address are unwrapped first (see `embeddedV4`).
 */
const METADATA_ADDRESSES: readonly { address: string; service: string }[] = [
  { address: "169.254.169.254", service: "AWS, GCP, Azure, OpenStack, Oracle, DigitalOcean, Hetzner instance metadata" },
  { address: "169.254.170.2", service: "AWS ECS task metadata and credentials" },
  { address: "169.254.170.23", service: "AWS EKS pod identity credentials" },
  { address: "169.254.0.23", service: "Tencent Cloud metadata" },
  { address: "100.100.100.200", service: "Alibaba Cloud metadata" },
  { address: "168.63.129.16", service: "Azure wire server" },
  { address: "fd00:ec2::254", service: "AWS IPv6 instance metadata" },
  { address: "fd00:ec2::23", service: "AWS EKS pod identity credentials (IPv6)" },
];

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), as a dotted quad; null otherwise. */
function embeddedV4(g: number[]): string | null {
  let v4: number[] | null = null;
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0) && !(g[5] === 0 && g[6] === 0)) v4 = v4FromGroups(g[6]!, g[7]!);
  else if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) v4 = v4FromGroups(g[6]!, g[7]!);
  else if (g[0] === 0x2002) v4 = v4FromGroups(g[1]!, g[2]!);
  return v4 ? v4.join(".") : null;
}

/** Canonical form of an address for comparing it with the metadata list: dotted quad, or expanded IPv6 groups. */
function metadataForm(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, "").toLowerCase();
  const v4 = ipv4Parts(bare);
  if (v4) return v4.join(".");
  const g = ipv6Groups(bare);
  if (!g) return null;
  return embeddedV4(g) ?? g.map((x) => x.toString(16)).join(":");
}

/** The metadata service an address belongs to ("Alibaba Cloud metadata"), or null for any other address or name. */
export function metadataService(address: string): string | null {
  const form = metadataForm(address);
  if (form === null) return null;
  return METADATA_ADDRESSES.find((m) => metadataForm(m.address) === form)?.service ?? null;
}

/**
 * True for loopback, private, link-local, unique-local, carrier-grade NAT, unspecified, multicast and reserved
 * addresses (IPv4, IPv6 and the IPv6 forms that carry an IPv4 address). A host name is not an address: false.
 */
export function isPrivateAddress(address: string): boolean {
  return addressKind(address) !== null;
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

/** Canonical form of an IP address for comparisons (IPv6 lower-case without brackets); other text is lower-cased. */
function canonicalAddress(address: string): string {
  const bare = address.replace(/^\[|\]$/g, "").toLowerCase();
  const g = ipv6Groups(bare);
  return g ? g.map((x) => x.toString(16)).join(":") : bare;
}

/**
 * What a live run's browser may connect to, checked by the runner's egress proxy on every request and tunnel: the
 * public internet, and of the rest only `allowedDestinations`, host:port entries an admin declared (the bundled demo
 * sites, VERDICT_RUNNER_ALLOWED_DESTINATIONS, a deployment profile's sites). An entry matches the name the page asked
 * for or the address actually connected to, on that port. No run setting opens anything more: researchers start
 * runs, admins decide where inside the network they may go.
 */
export interface EgressRules {
  allowedDestinations: readonly string[];
}

/**
 * Why the browser may not connect to `address` (one of the addresses `host` resolved to) on `port`, or null when it
 * may. The refusal is the short reason researchers see in "blocked request to host:port (reason)". Cloud metadata
 * services are refused first, whatever is listed: they hand out the machine's credentials.
 */
export function egressRefusal(host: string, port: number, address: string, rules: EgressRules): string | null {
  const name = canonicalAddress(host.replace(/\.$/, ""));
  const addr = canonicalAddress(address);
  if (metadataService(address) ?? metadataService(host))
    return name === addr || !isIpLiteral(address) ? "cloud metadata service" : `resolves to ${address}, cloud metadata service`;
  const explicitlyAllowed = rules.allowedDestinations.some((entry) => {
    const e = splitHostPort(entry.toLowerCase());
    if (e.port === null || Number(e.port) !== port) return false;
    const h = canonicalAddress(e.host);
    return h === name || h === addr;
  });
  if (explicitlyAllowed) return null;
  const kind = addressKind(address);
  if (kind === null) return isIpLiteral(address) ? null : `${address} is not an IP address`;
  return name === addr ? kind : `resolves to ${address}, ${kind}`;
}

/**
 * Splits and normalises a list of allowed destinations (host:port, port required); names the entries that are not,
 * and those that are cloud metadata services (never allowed, see `metadataService`).
 */
export function parseDestinationList(text: string | string[]): { destinations: string[]; invalid: string[]; metadata: string[] } {
  const { hosts, invalid } = parseHostList(text);
  const destinations: string[] = [];
  const metadata: string[] = [];
  for (const h of hosts) {
    if (h.startsWith("*.") || splitHostPort(h).port === null) invalid.push(h);
    else if (metadataService(splitHostPort(h).host)) metadata.push(h);
    else destinations.push(h);
  }
  return { destinations, invalid, metadata };
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

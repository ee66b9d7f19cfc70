/**
 * Where a judge configuration may send requests (and the key with them), as pure functions.
 *
 * Judge configurations are edited by researchers, but the endpoints they call receive an API key and are reached
 * from inside the installation's network, so the hosts are decided by admins:
 * - allowed by default: api.openai.com (over https on port 443 only) and the host of VERDICT_JUDGE_BASE_URL;
 * - admins add hosts with VERDICT_JUDGE_ALLOWED_HOSTS ("host" or "host:port", comma separated) or in the settings
 *   they save through the admin API;
 * - loopback servers (a local vLLM or Ollama) only on the ports listed in VERDICT_JUDGE_ALLOW_LOOPBACK ("8000,11434"),
 *   or when listed by name and port: never every port of the machine, where the web app and other services listen;
 * - private and link-local addresses only when an admin listed that very host; cloud metadata services never.
 * A host is checked twice: its URL when a configuration is saved and before each call, and the addresses its
 * name resolves to when the connection is made (a public-looking name may resolve to an internal address).
 *
 * API keys come from a closed set of sources, so a configuration cannot name any other server variable, and each
 * key goes only to the endpoint an admin bound it to (`keyDestination`): OPENAI_API_KEY to https://api.openai.com,
 * VERDICT_JUDGE_API_KEY to VERDICT_JUDGE_BASE_URL (or OpenAI), VERDICT_JUDGE_KEY_<NAME> to VERDICT_JUDGE_KEY_<NAME>_URL.
 */
import { z } from "zod";
import { isIpLiteral, isLoopbackName, isPrivateAddress, metadataService, normaliseHostEntry } from "../live/safety";

export const OPENAI_API_HOST = "api.openai.com";
/** The OpenAI API's base URL: where configurations without one go, and the only place OPENAI_API_KEY is sent. */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";

// ---- key sources ----

/** Environment variables a configuration may read its key from: these two, or any with the prefix. */
export const SHARED_KEY_ENVS = ["VERDICT_JUDGE_API_KEY", "OPENAI_API_KEY"] as const;
export const JUDGE_KEY_ENV_PREFIX = "VERDICT_JUDGE_KEY_";

/** The variable naming where VERDICT_JUDGE_KEY_<NAME> may be sent. */
export function keyUrlEnv(keyEnv: string): string {
  return `${keyEnv}_URL`;
}

export function isAllowedKeyEnv(name: string): boolean {
  return (SHARED_KEY_ENVS as readonly string[]).includes(name) || (new RegExp(`^${JUDGE_KEY_ENV_PREFIX}[A-Z0-9_]+$`).test(name) && !name.endsWith("_URL"));
}

export const KEY_ENV_RULE = `${SHARED_KEY_ENVS.join(", ")} or a variable named ${JUDGE_KEY_ENV_PREFIX}<SUFFIX> (capitals, digits, _; not ending in _URL)`;

/** Where each key variable may be sent, as the configuration read it (server/config.ts, `judgeSettings`). */
export interface KeyBindings {
  /** VERDICT_JUDGE_BASE_URL: where VERDICT_JUDGE_API_KEY goes (the OpenAI API when unset). */
  defaultBaseUrl?: string;
  /**
   * The key variables and their bindings by name (VERDICT_JUDGE_KEY_<NAME>_URL): a configuration names the variable
   * holding its key, so these are looked up by that name rather than read as settings.
   */
  keyVariables: Readonly<Record<string, string | undefined>>;
}

/**
 * The base URL a key variable may be sent to, as an admin declared it: OPENAI_API_KEY to the OpenAI API only;
 * VERDICT_JUDGE_API_KEY to VERDICT_JUDGE_BASE_URL when set, else the OpenAI API; VERDICT_JUDGE_KEY_<NAME> to
 * VERDICT_JUDGE_KEY_<NAME>_URL, and nowhere while that is not set. `problem` says why the key goes nowhere.
 */
export function keyDestination(keyEnv: string, bindings: KeyBindings): { url: string } | { problem: string } {
  if (keyEnv === "OPENAI_API_KEY") return { url: OPENAI_BASE_URL };
  if (keyEnv === "VERDICT_JUDGE_API_KEY") return { url: bindings.defaultBaseUrl?.trim() || OPENAI_BASE_URL };
  const declared = bindings.keyVariables[keyUrlEnv(keyEnv)]?.trim();
  if (!declared) {
    return { problem: `${keyEnv} is sent only to the endpoint an admin declares for it in ${keyUrlEnv(keyEnv)}, which is not set` };
  }
  try {
    const u = new URL(declared);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    return { problem: `${keyUrlEnv(keyEnv)} ${JSON.stringify(declared)} is not an http(s) URL` };
  }
  return { url: declared };
}

function pathSegments(u: URL): string[] {
  return u.pathname.split("/").filter(Boolean);
}

/**
 * True when a key bound to `bound` may go with a call to the endpoint `endpoint`: same scheme, host and port, and
 * the endpoint's path is the bound path or below it (`https://proxy.lab/v1` covers `https://proxy.lab/v1/`, not
 * `https://proxy.lab/other`).
 */
export function keyMayGoTo(bound: string, endpoint: URL): boolean {
  let b: URL;
  try {
    b = new URL(bound);
  } catch {
    return false;
  }
  if (
    b.protocol !== endpoint.protocol ||
    b.hostname.toLowerCase().replace(/\.$/, "") !== endpoint.hostname.toLowerCase().replace(/\.$/, "") ||
    portOf(b) !== portOf(endpoint)
  )
    return false;
  const want = pathSegments(b);
  const have = pathSegments(endpoint);
  return want.every((seg, i) => have[i] === seg);
}

/** The one check of a configuration's `apiKeyEnv`, used by the web API and the CLI. */
export const judgeKeyEnvSchema = z
  .string()
  .trim()
  .superRefine((name, ctx) => {
    if (!isAllowedKeyEnv(name))
      ctx.addIssue({ code: "custom", message: `apiKeyEnv ${JSON.stringify(name)} is not an allowed key source: use ${KEY_ENV_RULE}` });
  });

// ---- host policy ----

export interface AllowedHost {
  /** Lower-case host name or IP literal (IPv6 in brackets). */
  host: string;
  /** Null = any port. */
  port: string | null;
  /** Listed by an admin by name: it may be a loopback or private address. */
  explicit: boolean;
}

export interface JudgeHostPolicy {
  hosts: AllowedHost[];
  /** Ports on which loopback servers (127.0.0.0/8, ::1, localhost) may be called. */
  loopbackPorts: PortSet;
}

/** The admins' settings, as values: the configuration parsed the environment's (server/config.ts, `judgeSettings`). */
export interface JudgeHostSettings {
  /** VERDICT_JUDGE_BASE_URL: the installation's default endpoint, set by an admin. */
  defaultBaseUrl?: string;
  /** VERDICT_JUDGE_ALLOWED_HOSTS' entries ("host" or "host:port"). */
  allowedHosts?: readonly string[];
  /** VERDICT_JUDGE_ALLOW_LOOPBACK: the local judge servers' ports. */
  loopbackPorts?: PortSet;
  /** What admins saved through the admin API (entries already normalised by `parseAllowedHosts`). */
  saved?: { allowedHosts: readonly string[] };
}

/** A set of TCP ports: single ports and ranges ("8000", "8000-8010"). */
export interface PortSet {
  ranges: readonly (readonly [number, number])[];
}

export function portInSet(port: string | number, set: PortSet): boolean {
  const n = Number(port);
  return set.ranges.some(([lo, hi]) => n >= lo && n <= hi);
}

/** "8000, 11434, 9000-9010" as written back, for messages and the settings view. */
export function portSetText(set: PortSet): string[] {
  return set.ranges.map(([lo, hi]) => (lo === hi ? String(lo) : `${lo}-${hi}`));
}

/**
 * VERDICT_JUDGE_ALLOW_LOOPBACK: the ports of the judge servers on this machine ("8000, 11434", ranges as
 * "8000-8010"); blank or 0 for none. The 1 of earlier versions allowed every port and is refused with what to write
 * instead. A problem is worded to follow the variable's name (the configuration puts it first).
 */
export function parseLoopbackPorts(text: string | undefined): PortSet | { problem: string } {
  const raw = (text ?? "").trim();
  if (!raw || ["0", "false", "no", "off"].includes(raw.toLowerCase())) return { ranges: [] };
  if (["1", "true", "yes", "on"].includes(raw.toLowerCase())) {
    return {
      problem:
        `lists the ports of the judge servers on this machine (e.g. 8000,11434), ${JSON.stringify(raw)} is not one: ` +
        "allowing every port let any judge configuration reach every local service",
    };
  }
  const ranges: [number, number][] = [];
  for (const part of raw.split(/[\s,]+/).filter(Boolean)) {
    const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(part);
    const lo = Number(m?.[1]);
    const hi = m?.[2] === undefined ? lo : Number(m[2]);
    if (!m || lo < 2 || hi > 65535 || hi < lo) {
      return {
        problem: `${JSON.stringify(part)} is not a TCP port (2–65535) or range (8000-8010); list ports such as 8000,11434`,
      };
    }
    ranges.push([lo, hi]);
  }
  return { ranges };
}

function entry(text: string, explicit: boolean): AllowedHost {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(text)!;
  return { host: m[1]!, port: m[2] ?? null, explicit };
}

/**
 * Normalises allowlist entries ("Host.Example:8000" → "host.example:8000"); names those that are not a bare host or
 * host:port (URLs, wildcards, paths are refused: an entry allows exactly one host).
 */
export function parseAllowedHosts(entries: readonly string[]): { hosts: string[]; invalid: string[] } {
  const hosts: string[] = [];
  const invalid: string[] = [];
  for (const raw of entries.map((e) => e.trim()).filter(Boolean)) {
    const h = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) || raw.startsWith("*") || /[/?#\s]/.test(raw) ? null : normaliseHostEntry(raw);
    if (!h) invalid.push(raw);
    else if (!hosts.includes(h)) hosts.push(h);
  }
  return { hosts, invalid };
}

/** What is wrong with an allowlist entry `parseAllowedHosts` refused, as admins read it after the variable's name. */
export function allowedHostEntryProblem(entry: string): string {
  return `entry ${JSON.stringify(entry)} is not a host or host:port`;
}

/** The admins' policy from their settings; `problems` names settings that could not be read (they allow nothing). */
export function judgeHostPolicy(settings: JudgeHostSettings): { policy: JudgeHostPolicy; problems: string[] } {
  const problems: string[] = [];
  const hosts: AllowedHost[] = [{ host: OPENAI_API_HOST, port: "443", explicit: false }];
  if (settings.defaultBaseUrl?.trim()) {
    const h = normaliseHostEntry(settings.defaultBaseUrl.trim());
    if (h && /^https?:\/\//i.test(settings.defaultBaseUrl.trim())) hosts.push(entry(h, true));
    else problems.push(`VERDICT_JUDGE_BASE_URL ${JSON.stringify(settings.defaultBaseUrl)} is not an http(s) URL`);
  }
  const fromEnv = parseAllowedHosts(settings.allowedHosts ?? []);
  for (const bad of fromEnv.invalid) problems.push(`VERDICT_JUDGE_ALLOWED_HOSTS ${allowedHostEntryProblem(bad)}`);
  const saved = parseAllowedHosts(settings.saved?.allowedHosts ?? []);
  for (const h of [...fromEnv.hosts, ...saved.hosts]) hosts.push(entry(h, true));
  return { policy: { hosts, loopbackPorts: settings.loopbackPorts ?? { ranges: [] } }, problems };
}

function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/\.$/, "");
}

function portOf(url: URL): string {
  return url.port || (url.protocol === "https:" ? "443" : "80");
}

/** True for 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").toLowerCase();
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare)) return true;
  if (/^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare)) return true;
  return /^(0{0,4}:){2,7}0{0,3}1$/.test(bare) || bare === "::1";
}

function matchOf(url: URL, policy: JudgeHostPolicy): AllowedHost | undefined {
  const host = hostOf(url);
  const port = portOf(url);
  return policy.hosts.find((h) => h.host === host && (h.port === null || h.port === port));
}

function describe(url: URL): string {
  return url.port ? `${hostOf(url)}:${url.port}` : hostOf(url);
}

/** An allowlist entry as admins write it (the OpenAI API without its one port). */
export function allowedHostText(h: AllowedHost): string {
  return h.port && !(h.host === OPENAI_API_HOST && h.port === "443") ? `${h.host}:${h.port}` : h.host;
}

function allowedList(policy: JudgeHostPolicy): string {
  return [...policy.hosts.map(allowedHostText), ...portSetText(policy.loopbackPorts).map((p) => `loopback:${p}`)].join(", ");
}

/**
 * Why a judge endpoint URL may not be called under the policy, or null when it may. Only the URL is looked at:
 * the addresses a name resolves to are checked by `resolvedAddressRefusal` when connecting.
 */
export function endpointUrlRefusal(url: URL, policy: JudgeHostPolicy): string | null {
  if (url.protocol !== "http:" && url.protocol !== "https:") return `judge endpoints are http(s) URLs, not ${url.protocol}`;
  if (url.username || url.password) return "judge endpoint URLs may not carry a user name or password";
  const host = hostOf(url);
  const metadata = metadataService(host);
  if (metadata) return `judge endpoint ${describe(url)} is a cloud metadata service (${metadata}), which no setting allows`;
  if (host === OPENAI_API_HOST && (url.protocol !== "https:" || portOf(url) !== "443")) {
    return `the OpenAI API is called over https on port 443 only, not ${url.protocol}//${describe(url)} (the key would travel in clear or elsewhere)`;
  }
  const match = matchOf(url, policy);
  const loopback = isLoopbackName(host) || (isIpLiteral(host) && isLoopbackAddress(host));
  if (match) {
    if (match.explicit || !isIpLiteral(host) || !isPrivateAddress(host)) return null;
  } else if (loopback && portInSet(portOf(url), policy.loopbackPorts)) {
    return null;
  }
  if (loopback) {
    return (
      `judge endpoint ${describe(url)} is a loopback address on a port an admin has not allowed; an admin lists the local judge servers' ports ` +
      `in VERDICT_JUDGE_ALLOW_LOOPBACK (e.g. ${portOf(url)}) or the host:port in VERDICT_JUDGE_ALLOWED_HOSTS`
    );
  }
  if (isIpLiteral(host) && isPrivateAddress(host)) {
    return `judge endpoint ${describe(url)} is a private or link-local address; only an admin can allow it, by listing it in VERDICT_JUDGE_ALLOWED_HOSTS`;
  }
  return `judge endpoint host ${describe(url)} is not on the admins' allowlist (${allowedList(policy)}); an admin can add it to VERDICT_JUDGE_ALLOWED_HOSTS`;
}

/**
 * Why connecting to `addresses` (what the URL's host resolved to) is refused, or null when it is allowed.
 * A host an admin listed by name may resolve anywhere; any other host must resolve to public addresses only
 * (loopback too when an admin allowed loopback servers). No address at all (DNS failure) is refused.
 */
export function resolvedAddressRefusal(url: URL, addresses: readonly string[], policy: JudgeHostPolicy): string | null {
  if (addresses.length === 0) return `judge endpoint host ${describe(url)} could not be resolved`;
  const metadata = addresses.map((a) => metadataService(a)).find((m) => m !== null);
  if (metadata) return `judge endpoint host ${describe(url)} resolves to a cloud metadata service (${metadata}), which no setting allows`;
  if (matchOf(url, policy)?.explicit) return null;
  for (const a of addresses) {
    if (!isPrivateAddress(a)) continue;
    if (portInSet(portOf(url), policy.loopbackPorts) && isLoopbackAddress(a)) continue;
    return `judge endpoint host ${describe(url)} resolves to ${isLoopbackAddress(a) ? "a loopback" : "a private, link-local or reserved"} address, which an admin has not allowed`;
  }
  return null;
}

// ---- errors shown to users ----

export const MAX_ENDPOINT_ERROR_CHARS = 200;

/**
 * An endpoint's error as people may see it (batch and job errors, run errors): at most 200 characters, with every
 * secret replaced. Callers pass a short status line, never the endpoint's response body.
 */
export function scrubEndpointError(text: string, secrets: readonly (string | null | undefined)[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4 && s !== "no-key") out = out.split(s).join("[redacted]");
  out = out.replace(/\s+/g, " ").trim();
  return out.length > MAX_ENDPOINT_ERROR_CHARS ? `${out.slice(0, MAX_ENDPOINT_ERROR_CHARS - 1)}…` : out;
}

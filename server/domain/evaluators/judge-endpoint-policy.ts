/**
 * Where a judge configuration may send requests (and the key with them), as pure functions.
 *
 * Judge configurations are edited by researchers, but the endpoints they call receive an API key and are reached
 * from inside the installation's network, so the hosts are decided by admins:
 * - allowed by default: api.openai.com and the host of VERDICT_JUDGE_BASE_URL;
 * - admins add hosts with VERDICT_JUDGE_ALLOWED_HOSTS ("host" or "host:port", comma separated) or in the settings
 *   they save through the admin API;
 * - loopback servers (a local vLLM or Ollama) only with VERDICT_JUDGE_ALLOW_LOOPBACK=1 (or the saved setting), or when
 *   listed by name;
 * - private, link-local and cloud-metadata addresses only when an admin listed that very host.
 * A host is checked twice: its URL when a configuration is saved and before each call, and the addresses its
 * name resolves to when the connection is made (a public-looking name may resolve to an internal address).
 *
 * API keys come from a closed set of sources, so a configuration cannot name any other server variable.
 */
import { z } from "zod";
import { isIpLiteral, isLoopbackName, isPrivateAddress, normaliseHostEntry } from "../runner/safety";

export const OPENAI_API_HOST = "api.openai.com";

// ---- key sources ----

/** Environment variables a configuration may read its key from: these two, or any with the prefix. */
export const SHARED_KEY_ENVS = ["VERDICT_JUDGE_API_KEY", "OPENAI_API_KEY"] as const;
export const JUDGE_KEY_ENV_PREFIX = "VERDICT_JUDGE_KEY_";

export function isAllowedKeyEnv(name: string): boolean {
  return (SHARED_KEY_ENVS as readonly string[]).includes(name) || new RegExp(`^${JUDGE_KEY_ENV_PREFIX}[A-Z0-9_]+$`).test(name);
}

export const KEY_ENV_RULE = `${SHARED_KEY_ENVS.join(", ")} or a variable named ${JUDGE_KEY_ENV_PREFIX}<SUFFIX> (capitals, digits, _)`;

/** The one check of a configuration's `apiKeyEnv`, used by the web API and the CLI. */
export const judgeKeyEnvSchema = z
  .string()
  .trim()
  .superRefine((name, ctx) => {
    if (!isAllowedKeyEnv(name)) ctx.addIssue({ code: "custom", message: `apiKeyEnv ${JSON.stringify(name)} is not an allowed key source: use ${KEY_ENV_RULE}` });
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
  /** Loopback servers (127.0.0.0/8, ::1, localhost) allowed on any port. */
  allowLoopback: boolean;
}

export interface JudgeHostSettings {
  /** VERDICT_JUDGE_BASE_URL: the installation's default endpoint, set by an admin. */
  defaultBaseUrl?: string;
  /** VERDICT_JUDGE_ALLOWED_HOSTS. */
  allowedHosts?: string;
  /** VERDICT_JUDGE_ALLOW_LOOPBACK. */
  allowLoopback?: string;
  /** What admins saved through the admin API (entries already normalised by `parseAllowedHosts`). */
  saved?: { allowedHosts: readonly string[]; allowLoopback: boolean };
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

/** The admins' policy from their settings; `problems` names settings that could not be read (they allow nothing). */
export function judgeHostPolicy(settings: JudgeHostSettings): { policy: JudgeHostPolicy; problems: string[] } {
  const problems: string[] = [];
  const hosts: AllowedHost[] = [{ host: OPENAI_API_HOST, port: null, explicit: false }];
  if (settings.defaultBaseUrl?.trim()) {
    const h = normaliseHostEntry(settings.defaultBaseUrl.trim());
    if (h && /^https?:\/\//i.test(settings.defaultBaseUrl.trim())) hosts.push(entry(h, true));
    else problems.push(`VERDICT_JUDGE_BASE_URL ${JSON.stringify(settings.defaultBaseUrl)} is not an http(s) URL`);
  }
  const fromEnv = parseAllowedHosts((settings.allowedHosts ?? "").split(","));
  for (const bad of fromEnv.invalid) problems.push(`VERDICT_JUDGE_ALLOWED_HOSTS entry ${JSON.stringify(bad)} is not a host or host:port`);
  const saved = parseAllowedHosts(settings.saved?.allowedHosts ?? []);
  for (const h of [...fromEnv.hosts, ...saved.hosts]) hosts.push(entry(h, true));
  const flag = (settings.allowLoopback ?? "").trim().toLowerCase();
  if (!["", "0", "1", "true", "false", "yes", "no"].includes(flag)) problems.push(`VERDICT_JUDGE_ALLOW_LOOPBACK must be 1 or 0, got ${JSON.stringify(settings.allowLoopback)}`);
  return { policy: { hosts, allowLoopback: ["1", "true", "yes"].includes(flag) || !!settings.saved?.allowLoopback }, problems };
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

function allowedList(policy: JudgeHostPolicy): string {
  return [...policy.hosts.map((h) => (h.port ? `${h.host}:${h.port}` : h.host)), ...(policy.allowLoopback ? ["loopback"] : [])].join(", ");
}

/**
 * Why a judge endpoint URL may not be called under the policy, or null when it may. Only the URL is looked at:
 * the addresses a name resolves to are checked by `resolvedAddressRefusal` when connecting.
 */
export function endpointUrlRefusal(url: URL, policy: JudgeHostPolicy): string | null {
  if (url.protocol !== "http:" && url.protocol !== "https:") return `judge endpoints are http(s) URLs, not ${url.protocol}`;
  if (url.username || url.password) return "judge endpoint URLs may not carry a user name or password";
  const host = hostOf(url);
  const match = matchOf(url, policy);
  const loopback = isLoopbackName(host) || (isIpLiteral(host) && isLoopbackAddress(host));
  if (match) {
    if (match.explicit || !isIpLiteral(host) || !isPrivateAddress(host)) return null;
  } else if (loopback && policy.allowLoopback) {
    return null;
  }
  if (loopback) {
    return `judge endpoint ${describe(url)} is a loopback address; an admin must allow local judge servers (VERDICT_JUDGE_ALLOW_LOOPBACK=1) or list the host in VERDICT_JUDGE_ALLOWED_HOSTS`;
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
  if (matchOf(url, policy)?.explicit) return null;
  for (const a of addresses) {
    if (!isPrivateAddress(a)) continue;
    if (policy.allowLoopback && isLoopbackAddress(a)) continue;
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

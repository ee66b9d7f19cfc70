/**
 * Deployment profiles: a lab's own deployment of the VisualWebArena / WebArena sites, as an admin describes it.
 *
 * Task configs name their sites with placeholders (`__REDDIT__/f/food`); a profile maps each placeholder to the URL
 * where that lab serves the site, says how an agent signs in there (a login recipe run once per run, or a Playwright
 * storage-state file) and how the site is put back to its initial state between tasks (a reset hook). A profile is
 * also an admin's allowance: a run's browser using it may reach exactly its sites' (and login pages') host:port
 * destinations, private or not, and nothing else private; its reset hooks are called by the runner at their exact
 * URLs and are not among the browser's destinations. Cloud metadata addresses are refused in any of its URLs.
 *
 * Pure: validation, placeholder substitution and the facts a run derives from a task's config.
 */
import { z } from "zod";
import { resolvePlaceholders } from "../evaluation/vwa/url-match";
import { metadataService, originKey } from "./safety";

export const SITE_PLACEHOLDERS = [
  "__REDDIT__",
  "__SHOPPING__",
  "__CLASSIFIEDS__",
  "__GITLAB__",
  "__WIKIPEDIA__",
  "__MAP__",
  "__SHOPPING_ADMIN__",
  "__HOMEPAGE__",
] as const;
export type SitePlaceholder = (typeof SITE_PLACEHOLDERS)[number];

function httpUrl(field: string) {
  return z
    .string()
    .trim()
    .min(1, `${field} is required`)
    .max(2_000)
    .refine((s) => {
      try {
        const u = new URL(s);
        return (u.protocol === "http:" || u.protocol === "https:") && !u.username && !u.password;
      } catch {
        return false;
      }
    }, `${field} must be an http(s) URL without user name or password in it`);
}

const selector = z.string().trim().min(1).max(500);

/** Signs in by filling a form: open `url`, type the account into the two fields, submit. */
export const loginRecipeSchema = z.object({
  kind: z.literal("recipe"),
  url: httpUrl("login.url"),
  usernameSelector: selector,
  passwordSelector: selector,
  /** Clicked to submit; without it Enter is pressed in the password field. */
  submitSelector: selector.nullish(),
  username: z.string().min(1).max(300),
  /** Plain text on the way in; stored sealed. Left out on an update: the stored one is kept. */
  password: z.string().min(1).max(1_000).optional(),
});

/** A Playwright storage-state file (`context.storageState()`), as uploaded. */
export const storageStateLoginSchema = z.object({
  kind: z.literal("storageState"),
  /** The file's JSON text; left out on an update: the stored one is kept. */
  state: z.string().max(2_000_000).optional(),
});

export const resetHookSchema = z.object({
  method: z.enum(["POST", "GET"]).default("POST"),
  url: httpUrl("reset.url"),
});

export const deploymentSiteSchema = z.object({
  placeholder: z.enum(SITE_PLACEHOLDERS),
  url: httpUrl("url"),
  login: z.discriminatedUnion("kind", [loginRecipeSchema, storageStateLoginSchema]).nullish(),
  reset: resetHookSchema.nullish(),
});

export const deploymentProfileInputSchema = z.object({
  name: z.string().trim().min(1).max(120),
  description: z.string().trim().max(2_000).nullish(),
  sites: z.array(deploymentSiteSchema).min(1).max(SITE_PLACEHOLDERS.length),
});

export type DeploymentSiteInput = z.input<typeof deploymentSiteSchema>;
export type DeploymentProfileInput = z.input<typeof deploymentProfileInputSchema>;
export type DeploymentProfileParsed = z.output<typeof deploymentProfileInputSchema>;

/** What a run needs of a profile without its secrets: written into the run's config and each task's job. */
export interface DeploymentPlan {
  profileId: number;
  profileName: string;
  /** placeholder → base URL (no trailing slash). */
  siteUrls: Record<string, string>;
  /** host:port of every site and login page: the only private destinations the run's browser may reach. */
  destinations: string[];
  /** The reset hooks' URLs: called by the runner only, refused to the run's pages. */
  resetUrls?: string[];
  /** Host names of the sites: the run's navigation allowlist. */
  hosts: string[];
  /** Placeholders with a login (recipe or storage state). */
  loginSites: string[];
  /** Placeholders with a reset hook. */
  resetSites: string[];
}

/** Problems a profile's sites have beyond their shapes: duplicates, storage-state files that are not one. */
export function deploymentProfileProblems(p: DeploymentProfileParsed): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  p.sites.forEach((s, i) => {
    if (seen.has(s.placeholder)) problems.push(`sites[${i}].placeholder: ${s.placeholder} is listed twice`);
    seen.add(s.placeholder);
    const urls: [string, string | undefined][] = [
      ["url", s.url],
      ["login.url", s.login?.kind === "recipe" ? s.login.url : undefined],
      ["reset.url", s.reset?.url],
    ];
    for (const [field, url] of urls) {
      const service = url ? metadataService(new URL(url).hostname) : null;
      if (service)
        problems.push(`sites[${i}] (${s.placeholder}).${field}: ${new URL(url!).host} is a cloud metadata service (${service}), which runs never reach`);
    }
    if (s.login?.kind === "storageState" && s.login.state !== undefined) {
      const err = storageStateProblem(s.login.state);
      if (err) problems.push(`sites[${i}] (${s.placeholder}).login.state: ${err}`);
    }
  });
  return problems;
}

export interface StorageState {
  cookies: Record<string, unknown>[];
  origins: { origin: string; localStorage: { name: string; value: string }[] }[];
}

/** Why a text is not a Playwright storage-state file, or null when it is one. */
export function storageStateProblem(text: string): string | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return `not JSON (${(e as Error).message})`;
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) return "a storage-state file is a JSON object with cookies and origins";
  const d = data as Record<string, unknown>;
  if (!Array.isArray(d.cookies)) return 'the "cookies" array is missing';
  if (d.origins !== undefined && !Array.isArray(d.origins)) return '"origins" must be an array';
  for (const [i, c] of (d.cookies as unknown[]).entries()) {
    const cookie = c as Record<string, unknown> | null;
    if (!cookie || typeof cookie.name !== "string" || typeof cookie.value !== "string" || typeof cookie.domain !== "string") {
      return `cookies[${i}] needs a name, a value and a domain`;
    }
  }
  return null;
}

export function parseStorageState(text: string): StorageState {
  const d = JSON.parse(text) as Partial<StorageState>;
  return { cookies: d.cookies ?? [], origins: d.origins ?? [] };
}

/** One storage state holding all of several (a task signed in on two sites). */
export function mergeStorageStates(states: StorageState[]): StorageState {
  return { cookies: states.flatMap((s) => s.cookies), origins: states.flatMap((s) => s.origins) };
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

export function deploymentPlan(profile: { id: number; name: string; sites: z.output<typeof deploymentSiteSchema>[] }): DeploymentPlan {
  const siteUrls: Record<string, string> = {};
  const destinations = new Set<string>();
  const hosts = new Set<string>();
  const resetUrls: string[] = [];
  for (const s of profile.sites) {
    siteUrls[s.placeholder] = stripSlash(s.url);
    const u = new URL(s.url);
    destinations.add(originKey(u));
    hosts.add(u.hostname.toLowerCase());
    if (s.login?.kind === "recipe") destinations.add(originKey(new URL(s.login.url)));
    if (s.reset) resetUrls.push(s.reset.url);
  }
  return {
    profileId: profile.id,
    profileName: profile.name,
    siteUrls,
    destinations: [...destinations],
    resetUrls,
    hosts: [...hosts],
    loginSites: profile.sites.filter((s) => s.login).map((s) => s.placeholder),
    resetSites: profile.sites.filter((s) => s.reset).map((s) => s.placeholder),
  };
}

/** Placeholders written in a text (`__REDDIT__/f/food` → ["__REDDIT__"]). */
export function placeholdersIn(text: string): string[] {
  return [...new Set([...text.matchAll(/__[A-Z][A-Z0-9_]*?__/g)].map((m) => m[0]))];
}

/** A text with the profile's site URLs in place of its placeholders; unknown placeholders are named. */
export function substituteSites(text: string, siteUrls: Record<string, string>): { text: string; unresolved: string[] } {
  const r = resolvePlaceholders(text, siteUrls, null);
  return { text: r.text, unresolved: r.unresolved };
}

/** Every string inside a JSON value with its placeholders substituted (eval configs: reference URLs, program_html). */
export function substituteSitesDeep<T>(value: T, siteUrls: Record<string, string>): T {
  if (typeof value === "string") return substituteSites(value, siteUrls).text as T;
  if (Array.isArray(value)) return value.map((v) => substituteSitesDeep(v, siteUrls)) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteSitesDeep(v, siteUrls)])) as T;
  }
  return value;
}

/**
 * The placeholders a task's `storage_state` names: `./.auth/reddit_state.json` → __REDDIT__, WebArena's two-site
 * files `./.auth/gitlab.reddit_state.json` → __GITLAB__ and __REDDIT__.
 */
export function loginSitesOfStorageState(storageState: unknown): string[] {
  if (typeof storageState !== "string" || !storageState.trim()) return [];
  const m = /([a-z_.]+)_state\.json$/i.exec(storageState.trim());
  if (!m) return [];
  return m[1]!
    .split(".")
    .filter(Boolean)
    .map((s) => `__${s.toUpperCase()}__`);
}

/** The placeholders a task touches: in its start URL, its eval config and its storage state. */
export function sitesOfTask(task: { startUrl: string | null; evaluatorConfig: unknown; extra: unknown }): string[] {
  const extra = (task.extra ?? {}) as Record<string, unknown>;
  const found = new Set<string>([
    ...placeholdersIn(task.startUrl ?? ""),
    ...placeholdersIn(JSON.stringify(task.evaluatorConfig ?? null)),
    ...loginSitesOfStorageState(extra.storage_state),
  ]);
  return [...found];
}

/**
 * Where the policy gets a task's input image (VWA's `image` field): an http(s) URL (placeholders substituted), or
 * VWA's repository path `…/webarena-homepage/static/<rest>`, which the deployment's homepage serves at
 * `__HOMEPAGE__/static/<rest>`. Anything else is a clear error naming the image.
 */
export function inputImageUrl(image: string, siteUrls: Record<string, string>): { url: string } | { error: string } {
  const text = image.trim();
  if (/^https?:\/\//i.test(text) || /^__[A-Z_]+__/.test(text)) {
    const r = substituteSites(text, siteUrls);
    if (r.unresolved.length) return { error: `input image ${text}: ${r.unresolved.join(", ")} is not a site of the deployment profile` };
    return { url: r.text };
  }
  const m = /(?:^|\/)webarena-homepage\/static\/(.+)$/.exec(text);
  if (m) {
    const home = siteUrls.__HOMEPAGE__;
    if (!home) return { error: `input image ${text}: the deployment profile has no __HOMEPAGE__ site to serve it` };
    return { url: `${home}/static/${m[1]}` };
  }
  return { error: `input image ${text}: not an http(s) URL nor a path under webarena-homepage/static/` };
}

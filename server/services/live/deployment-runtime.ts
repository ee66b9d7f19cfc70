/**
 * What a live run does with a deployment profile before each task: reset the task's sites (their reset hooks), sign
 * in (a login recipe run once per run and reused, or the uploaded storage state), and fetch the task's input images.
 *
 * Every request made here obeys the run's address policy (the same rules as its browser's egress proxy): the
 * destination is checked, then connected to at the address that was checked. Anything that fails here is the
 * deployment's failure, not the agent's: it is thrown as InfraFailure, retried by the caller, and recorded as
 * `infra_error` when the retries run out.
 */
import crypto from "node:crypto";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { Browser } from "playwright";
import { NO_WEBRTC_INIT_SCRIPT } from "../../browser/no-webrtc";
import { mergeStorageStates, type StorageState } from "../../domain/live/deployment";
import { egressRefusal, isIpLiteral, originKey, type EgressRules } from "../../domain/live/safety";
import type { SiteRuntime } from "./deployment-profiles";
import { systemResolveHost, type HostResolver, type ProxySettings } from "./egress-proxy";

export class InfraFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InfraFailure";
  }
}

const REQUEST_TIMEOUT_MS = 30_000;
const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split("\n")[0]!;
}

/** The address to connect to for `url` under `rules`, or the refusal. */
async function checkedAddress(url: URL, rules: EgressRules, resolveHost: HostResolver): Promise<{ address: string } | { refusal: string }> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  let addresses: string[];
  if (isIpLiteral(host)) addresses = [host];
  else {
    try {
      addresses = await resolveHost(host);
    } catch (e) {
      return { refusal: `${host} did not resolve: ${firstLine(e)}` };
    }
    if (!addresses.length) return { refusal: `${host} did not resolve` };
  }
  for (const a of addresses) {
    const reason = egressRefusal(host, port, a, rules);
    if (reason) return { refusal: `${host}:${port} is not allowed (${reason})` };
  }
  return { address: addresses[0]! };
}

export interface PolicyRequestOptions {
  rules: EgressRules;
  resolveHost?: HostResolver;
  method?: string;
  maxBytes?: number;
}

/** An HTTP request under the run's address policy; resolves with the status, type and body. */
export async function requestUnderPolicy(rawUrl: string, o: PolicyRequestOptions): Promise<{ status: number; contentType: string; body: Buffer }> {
  const url = new URL(rawUrl);
  const checked = await checkedAddress(url, o.rules, o.resolveHost ?? systemResolveHost);
  if ("refusal" in checked) throw new InfraFailure(`refused: ${checked.refusal}`);
  const lookup: LookupFunction = (_host, opts, cb) => {
    const family = checked.address.includes(":") ? 6 : 4;
    if ((opts as { all?: boolean }).all)
      (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: checked.address, family }]);
    else cb(null, checked.address, family);
  };
  const lib = url.protocol === "https:" ? https : http;
  const max = o.maxBytes ?? MAX_IMAGE_BYTES;
  return new Promise((resolve, reject) => {
    const req = lib.request(url, { method: o.method ?? "GET", lookup, timeout: REQUEST_TIMEOUT_MS, headers: { "user-agent": "verdict-runner" } }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > max) {
          req.destroy(new Error(`the answer is larger than ${max} bytes`));
          return;
        }
        chunks.push(c);
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on("error", (e) => reject(new InfraFailure(firstLine(e))));
    req.end();
  });
}

/**
 * Calls a site's reset hook; anything but a 2xx answer is the deployment's failure. The hook's URL is the admin's,
 * exactly as the profile states it: the call is allowed to that host and port only (not through the run's rules,
 * which leave hook hosts out, so nothing a task names, such as an input image, can reach the hook's host).
 */
export async function resetSite(site: SiteRuntime, o: { resolveHost?: HostResolver }): Promise<void> {
  if (!site.reset) return;
  const what = `the reset hook of ${site.placeholder} (${site.reset.method} ${site.reset.url})`;
  let res;
  try {
    const rules: EgressRules = { allowedDestinations: [originKey(new URL(site.reset.url))] };
    res = await requestUnderPolicy(site.reset.url, { rules, resolveHost: o.resolveHost, method: site.reset.method, maxBytes: 1024 * 1024 });
  } catch (e) {
    throw new InfraFailure(`${what} failed: ${firstLine(e)}`);
  }
  if (res.status < 200 || res.status >= 300) {
    throw new InfraFailure(`${what} answered HTTP ${res.status}${res.body.length ? `: ${res.body.toString("utf8").slice(0, 200).trim()}` : ""}`);
  }
}

/** Signs in to one site with its recipe in a context of its own (through the run's egress proxy); returns the state. */
export async function loginWithRecipe(browser: Browser, site: SiteRuntime, proxy: ProxySettings): Promise<StorageState> {
  const login = site.login;
  if (login?.kind !== "recipe") throw new Error(`${site.placeholder} has no login recipe`);
  const context = await browser.newContext({ proxy, serviceWorkers: "block" });
  await context.addInitScript(NO_WEBRTC_INIT_SCRIPT);
  const what = `signing in to ${site.placeholder} at ${login.url}`;
  try {
    const page = await context.newPage();
    const res = await page.goto(login.url, { waitUntil: "load", timeout: REQUEST_TIMEOUT_MS }).catch((e: unknown) => {
      throw new InfraFailure(`${what} failed: ${firstLine(e)}`);
    });
    if (!res || res.status() >= 400) throw new InfraFailure(`${what} failed: the login page answered HTTP ${res?.status() ?? "nothing"}`);
    const fill = async (selector: string, value: string, field: string) => {
      const el = page.locator(selector).first();
      if ((await el.count()) === 0) throw new InfraFailure(`${what} failed: the ${field} field ${JSON.stringify(selector)} is not on the login page`);
      await el.fill(value, { timeout: 10_000 });
    };
    await fill(login.usernameSelector, login.username, "user name");
    await fill(login.passwordSelector, login.password, "password");
    const navigated = page.waitForNavigation({ waitUntil: "load", timeout: REQUEST_TIMEOUT_MS }).catch(() => null);
    if (login.submitSelector) await page.locator(login.submitSelector).first().click({ timeout: 10_000 });
    else await page.locator(login.passwordSelector).first().press("Enter");
    const after = await navigated;
    if (after && after.status() >= 400) throw new InfraFailure(`${what} failed: the form answered HTTP ${after.status()}`);
    // Still showing the password field: the site did not take the account.
    if ((await page.locator(login.passwordSelector).count()) > 0 && page.url() === login.url) {
      throw new InfraFailure(`${what} failed: still on the login page after submitting (wrong account or selectors?)`);
    }
    const state = await context.storageState();
    return { cookies: state.cookies as unknown as Record<string, unknown>[], origins: state.origins };
  } finally {
    await context.close().catch(() => {});
  }
}

/**
 * Storage states of a run's logins, made once per run and site in this worker and reused by its later tasks. A
 * signed-in session is the run's own: the key holds the run, the profile and a fingerprint of the site's URL and
 * login (so a profile edited mid-run signs in again with what the admin entered), and the worker drops a run's
 * states when the run has no task left. A failed login is forgotten, so the next try signs in again.
 */
export class LoginCache {
  private readonly states = new Map<string, Promise<StorageState>>();
  /** Logins actually performed (recipes run), for the run's log and the tests. */
  performed = 0;

  /** Signed-in states held (for the tests and the worker's log). */
  get size(): number {
    return this.states.size;
  }

  get(runId: number, profileId: number, site: SiteRuntime, make: () => Promise<StorageState>): Promise<StorageState> {
    const fingerprint = crypto
      .createHash("sha256")
      .update(JSON.stringify([site.url, site.login]))
      .digest("hex")
      .slice(0, 16);
    const key = `${runId}|${profileId}|${site.placeholder}|${fingerprint}`;
    let p = this.states.get(key);
    if (!p) {
      this.performed++;
      p = make();
      this.states.set(key, p);
      p.catch(() => {
        if (this.states.get(key) === p) this.states.delete(key);
      });
    }
    return p;
  }

  /** Forgets a run's states (its last task ended). */
  forgetRun(runId: number): void {
    for (const k of [...this.states.keys()]) if (k.startsWith(`${runId}|`)) this.states.delete(k);
  }

  /** Forgets every state (the worker stops). */
  clear(): void {
    this.states.clear();
  }
}

/** The signed-in state for a task's login sites: recipes through the cache, uploaded states as they are. */
export async function storageStateFor(
  sites: SiteRuntime[],
  o: { runId: number; profileId: number; cache: LoginCache; browser: Browser; proxy: ProxySettings },
): Promise<StorageState | undefined> {
  const states: StorageState[] = [];
  for (const site of sites) {
    if (!site.login) continue;
    if (site.login.kind === "storageState") states.push(site.login.state);
    else states.push(await o.cache.get(o.runId, o.profileId, site, () => loginWithRecipe(o.browser, site, o.proxy)));
  }
  return states.length ? mergeStorageStates(states) : undefined;
}

/**
 * A task's input image, fetched under the run's address policy; `task` names the task in the error (an
 * InfraFailure: the image's host is the deployment's business, not the agent's).
 */
export async function fetchInputImage(url: string, task: string, o: Omit<PolicyRequestOptions, "method">): Promise<{ bytes: Buffer; mime: string }> {
  const what = `task ${task}: the input image ${url}`;
  let res;
  try {
    res = await requestUnderPolicy(url, o);
  } catch (e) {
    throw new InfraFailure(`${what} could not be fetched: ${firstLine(e)}`);
  }
  if (res.status !== 200) throw new InfraFailure(`${what} answered HTTP ${res.status}`);
  const mime = /^image\/[\w.+-]+/.exec(res.contentType)?.[0] ?? sniffImage(res.body);
  if (!mime) throw new InfraFailure(`${what} is not an image (${res.contentType || "no content type"})`);
  return { bytes: res.body, mime };
}

function sniffImage(b: Buffer): string | null {
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (b[0] === 0xff && b[1] === 0xd8) return "image/jpeg";
  if (b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP") return "image/webp";
  if (b.subarray(0, 3).toString("latin1") === "GIF") return "image/gif";
  return null;
}

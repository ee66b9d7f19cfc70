/**
 * Launching the system Chromium through Playwright.
 *
 * Verdict drives the Debian `chromium` package rather than Playwright's downloaded builds (`npx playwright install`
 * needs a CDN this deployment cannot reach), so the binary's path is configuration and a missing binary is reported
 * with the command that installs it.
 *
 * The browser opens untrusted pages, so it keeps Chromium's sandbox. Chromium refuses its sandbox as root: a root
 * process starts it as an unprivileged user (VERDICT_BROWSER_USER, default verdict-browser, made by
 * scripts/browser-user.sh) through chromium-as-user.sh. Without such a user it refuses to launch unless the admin
 * opts out with VERDICT_RUNNER_NO_SANDBOX=1. The browser gets a minimal environment: no API keys or secrets.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright";
import { DEFAULT_BROWSER_USER, runtimeEnvironment, type VerdictConfig } from "../config";

/**
 * What launching reads of the configuration: Chromium's path (CHROMIUM_PATH), the user it runs as under root
 * (VERDICT_BROWSER_USER) and whether its sandbox is off (VERDICT_RUNNER_NO_SANDBOX). Callers hand in their
 * AppContext's config; scripts and tests, loadConfig().
 */
export type BrowserConfig = Pick<VerdictConfig, "chromiumPath" | "browserUser" | "runnerNoSandbox">;

/**
 * Flags for a headless, quiet browser: no GPU, no phoning home; no QUIC, and WebRTC told to keep off non-proxied UDP,
 * so connections go through the runner's egress proxy. The flag does not stop STUN/TURN to a page's own ICE servers:
 * run contexts have no WebRTC at all (no-webrtc.ts), and the browser user's UDP is dropped by the kernel
 * (scripts/browser-user.sh).
 */
export const CHROMIUM_ARGS: readonly string[] = [
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
];

export const NO_SANDBOX_ENV = "VERDICT_RUNNER_NO_SANDBOX";
/** Starts Chromium as the browser user (see chromium-as-user.sh); also for browser servers started as root. */
export const AS_USER_WRAPPER = path.join(path.dirname(fileURLToPath(import.meta.url)), "chromium-as-user.sh");

/** How the browser is isolated from the server it runs on. */
export type BrowserIsolation =
  { kind: "sandbox" } | { kind: "sandbox-as-user"; user: string; uid: number; gid: number } | { kind: "no-sandbox"; warning: string };

export class BrowserSandboxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BrowserSandboxError";
  }
}

/** uid and gid of a system user, or null when there is none. */
export function lookupSystemUser(user: string): { uid: number; gid: number } | null {
  const id = (flag: string) => {
    const r = spawnSync("id", [flag, user], { encoding: "utf8" });
    return r.status === 0 && /^\d+\s*$/.test(r.stdout) ? Number(r.stdout.trim()) : null;
  };
  const uid = id("-u");
  const gid = id("-g");
  return uid === null || gid === null ? null : { uid, gid };
}

/**
 * How this process can start Chromium with its sandbox: as itself when it is not root, as the unprivileged browser
 * user when it is; without the sandbox only when the admin said so.
 */
export function browserIsolation(
  config: Pick<BrowserConfig, "browserUser" | "runnerNoSandbox">,
  uid: number = process.getuid?.() ?? -1,
  lookupUser: (user: string) => { uid: number; gid: number } | null = lookupSystemUser,
): BrowserIsolation {
  if (config.runnerNoSandbox === true) {
    return {
      kind: "no-sandbox",
      warning: `${NO_SANDBOX_ENV}=1: Chromium runs WITHOUT its sandbox${uid === 0 ? " as root" : ""}; a page that exploits the browser gets this server's privileges`,
    };
  }
  if (uid !== 0) return { kind: "sandbox" };
  const user = config.browserUser ?? DEFAULT_BROWSER_USER;
  const found = lookupUser(user);
  if (!found) {
    throw new BrowserSandboxError(
      `Chromium cannot use its sandbox as root, and the unprivileged browser user ${JSON.stringify(user)} (VERDICT_BROWSER_USER) does not exist. ` +
        `Create it with \`scripts/browser-user.sh\` (as root), run Verdict as a non-root user, or set ${NO_SANDBOX_ENV}=1 to run Chromium without its sandbox (not recommended).`,
    );
  }
  if (found.uid === 0) throw new BrowserSandboxError(`VERDICT_BROWSER_USER ${JSON.stringify(user)} is root; the browser user must be unprivileged`);
  return { kind: "sandbox-as-user", user, ...found };
}

/** What the browser process may see of the environment it is started from: enough to run, nothing secret. */
function browserEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const keep = ["PATH", "LANG", "LANGUAGE", "LC_ALL", "TZ", "TMPDIR", "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "FONTCONFIG_PATH", "HOME"];
  const out: Record<string, string> = {};
  for (const k of keep) if (env[k] !== undefined) out[k] = env[k]!;
  return out;
}

let warnedNoSandbox = false;

export const CHROMIUM_INSTALL_COMMAND = "apt-get install -y chromium";

export class ChromiumNotFoundError extends Error {
  constructor(readonly executablePath: string) {
    super(
      `Chromium was not found at ${executablePath}. Install it with \`${CHROMIUM_INSTALL_COMMAND}\` ` +
        `(as root, after \`apt-get update\`), or point CHROMIUM_PATH at an existing Chromium binary.`,
    );
    this.name = "ChromiumNotFoundError";
  }
}

export interface LaunchOptions {
  /** Chromium's path and its sandbox settings (the caller's AppContext config). */
  config: BrowserConfig;
  headless?: boolean;
  /** Appended to CHROMIUM_ARGS. */
  extraArgs?: string[];
  /** Proxy for every connection of the browser (the live runner's egress proxy); loopback is not bypassed. */
  egressProxy?: string;
  /**
   * The environment the browser process is started from (default: this process's, runtimeEnvironment()); only what
   * it needs to run reaches it (PATH, locale, display, HOME), no keys or secrets.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Told when the browser runs without its sandbox (default: console.warn once per process). */
  warn?: (line: string) => void;
}

/** True when the path exists and is an executable file. */
export function chromiumAvailable(executablePath: string): boolean {
  try {
    const st = fs.statSync(executablePath);
    if (!st.isFile()) return false;
    fs.accessSync(executablePath, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * A browser on another machine (VERDICT_BROWSER_WS): a Playwright browser server (`chromium.launchServer`,
 * `npx playwright run-server`, browserless's /playwright endpoint) by default, or any Chromium's DevTools endpoint
 * with protocol "cdp". No flags of ours reach it, so its pages are held to the address policy only by the proxy
 * every run's context is given: the live runner refuses to use a remote browser without one (worker.ts).
 */
export async function connectRemoteBrowser(remote: { wsEndpoint: string; protocol: "playwright" | "cdp" }, timeoutMs = 30_000): Promise<Browser> {
  try {
    return remote.protocol === "cdp"
      ? await chromium.connectOverCDP(remote.wsEndpoint, { timeout: timeoutMs })
      : await chromium.connect(remote.wsEndpoint, { timeout: timeoutMs });
  } catch (e) {
    const where = new URL(remote.wsEndpoint);
    throw new Error(
      `Cannot connect to the browser server at ${where.protocol}//${where.host} (VERDICT_BROWSER_WS, ${remote.protocol} protocol): ${String((e as Error).message).split("\n")[0]}`,
    );
  }
}

export async function launchChromium(options: LaunchOptions): Promise<Browser> {
  const env = options.env ?? runtimeEnvironment();
  const executablePath = options.config.chromiumPath;
  if (!chromiumAvailable(executablePath)) throw new ChromiumNotFoundError(executablePath);
  const isolation = browserIsolation(options.config);
  const args = [...CHROMIUM_ARGS];
  if (options.egressProxy) args.push(`--proxy-server=${options.egressProxy}`, "--proxy-bypass-list=<-loopback>");
  if (isolation.kind === "no-sandbox") {
    args.push("--no-sandbox");
    if (options.warn) options.warn(isolation.warning);
    else if (!warnedNoSandbox) console.warn(`warning: ${isolation.warning}`);
    warnedNoSandbox = true;
  }
  args.push(...(options.extraArgs ?? []));
  if (isolation.kind !== "sandbox-as-user") {
    return chromium
      .launch({ executablePath, headless: options.headless ?? true, chromiumSandbox: isolation.kind === "sandbox", args, env: browserEnv(env) })
      .catch((e: Error) => {
        throw isolation.kind === "sandbox" ? new BrowserSandboxError(sandboxHint(e)) : e;
      });
  }
  // Downloads land where the browser user can write them; the runner (root) copies them out.
  const downloadsPath = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-browser-downloads-"));
  fs.chownSync(downloadsPath, isolation.uid, isolation.gid);
  try {
    const browser = await chromium.launch({
      executablePath: AS_USER_WRAPPER,
      headless: options.headless ?? true,
      // Playwright adds --no-sandbox unless told otherwise.
      chromiumSandbox: true,
      args,
      downloadsPath,
      env: { ...browserEnv(env), VERDICT_BROWSER_USER: isolation.user, VERDICT_BROWSER_CHROMIUM: executablePath },
    });
    browser.on("disconnected", () => fs.rmSync(downloadsPath, { recursive: true, force: true }));
    return browser;
  } catch (e) {
    fs.rmSync(downloadsPath, { recursive: true, force: true });
    throw new BrowserSandboxError(sandboxHint(e as Error));
  }
}

/** A failed sandboxed launch, with what the admin can do about it. */
function sandboxHint(e: Error): string {
  return (
    `Chromium did not start with its sandbox. If the sandbox is the cause: it needs user namespaces ` +
    `(kernel.unprivileged_userns_clone=1) or the setuid chrome-sandbox helper; if this machine can offer neither, ` +
    `${NO_SANDBOX_ENV}=1 runs Chromium without it (not recommended).\n${e.message}`
  );
}

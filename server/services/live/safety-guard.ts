/**
 * A live run's safety guard on its browser context: the host allowlist, the refusal of private and loopback
 * addresses, the element text blocklist and the download policy (rules in server/domain/live/safety.ts).
 *
 * - The network itself is guarded by the run's egress proxy (egress-proxy.ts): every request, redirect hop, tunnel and
 *   WebSocket is checked there, at connect time, against the address actually connected to. What it refuses is
 *   reported here (`noteRefusal`) and becomes the step's error.
 * - In front of it, as a second line: every request of the context passes a route handler. Main-frame navigations to
 *   hosts outside the allowlist are answered "204" (the agent stays where it is); requests to private or loopback
 *   literals and names are aborted unless the origin is one of the exceptions an admin declared (the bundled demo
 *   sites, VERDICT_RUNNER_ALLOWED_DESTINATIONS, the deployment profile's sites), and so are requests to a deployment's
 *   reset hooks, which only the runner calls. WebSockets to such addresses are closed the same way.
 * - Playwright routes see only the first URL of a redirect chain, so after every action the page's address is
 *   checked again, and a page that ended up outside the rules is left (back to the previous page).
 * - Blocked navigations and downloads become the step's error through the recorder's ActionGuard, which is also
 *   where `goto`/`new_tab` URLs and actions on blocklisted elements are refused before they run.
 * - A crashed renderer is reported through `onCrash` so the run ends with that reason.
 */
import fsp from "node:fs/promises";
import path from "node:path";
import type { BrowserContext, Download, Page, Route, Request, WebSocketRoute } from "playwright";
import type { ActionGuard } from "../../browser/recorder";
import { settlePage } from "../../browser/settle";
import { actionNavigationTarget, blockedElementText, hostAllowed, isIpLiteral, isLoopbackName, isPrivateAddress, originKey } from "../../domain/live/safety";

import { systemResolveHost, type HostResolver } from "./egress-proxy";

export type { HostResolver };

export interface SafetyOptions {
  /** Normalised allowlist entries (never empty: the caller fills in the start URL's host). */
  allowedHosts: string[];
  /** host:port origins reachable even though private (the bundled demo sites, what admins declared). */
  privateOriginExceptions: string[];
  /** URLs the page may never request, whatever their host (a deployment's reset hooks); compared without the query. */
  blockedUrls?: string[];
  blockedTexts: string[];
  allowDownloads: boolean;
  /** Where allowed downloads are saved. */
  downloadsDir?: string;
  resolveHost?: HostResolver;
  onCrash?: (reason: string) => void;
}

/** Blocked requests named in one step's error; the rest are counted. */
const MAX_REFUSALS_PER_STEP = 12;
/** How long a link click waits for its navigation to start before the step settles. */
const LINK_NAVIGATION_WAIT_MS = 1_000;

function describeAllowlist(hosts: string[]): string {
  return hosts.length ? hosts.join(", ") : "(empty)";
}

function safeFileName(name: string): string {
  return (
    name
      .replace(/[^\w.-]+/g, "_")
      .replace(/^\.+/, "")
      .slice(0, 120) || "download"
  );
}

export class RunSafety {
  private readonly resolveHost: HostResolver;
  /** Problems seen since the last step's report, reported on the next action's step. */
  private pending: string[] = [];
  private refusalsThisStep = 0;
  private readonly refusalsLeftOut = new Set<string>();
  private abortedNavigationAt = 0;
  private stepStartedAt = 0;
  /** When the page's last main-frame navigation request was seen (allowed or refused). */
  private navigationRequestAt = 0;
  /** Whether this step's action clicks a link, which is expected to start a navigation. */
  private stepClicksLink = false;
  private stepDownloads = 0;
  private downloadsSeen = 0;
  private lastGoodUrl: string | null = null;
  private installed = false;

  constructor(readonly options: SafetyOptions) {
    this.resolveHost = options.resolveHost ?? systemResolveHost;
  }

  /**
   * Why a URL may not be requested at all (private address), or null. With `resolve`, host names are looked up (once,
   * not cached: the proxy looks them up again when it connects) and a name that does not resolve is refused; without
   * it only IP literals and loopback names are judged here and names are left to the egress proxy.
   */
  async privateAddressReason(url: URL, { resolve = true }: { resolve?: boolean } = {}): Promise<string | null> {
    if (!["http:", "https:", "ws:", "wss:"].includes(url.protocol)) return null;
    if (this.isBlockedUrl(url)) return `${url.origin}${url.pathname} is the deployment's reset hook, which only the runner calls`;
    if (this.options.privateOriginExceptions.includes(originKey(url))) return null;
    const host = url.hostname.toLowerCase();
    if (isLoopbackName(host)) return `${host} is a loopback address`;
    if (isIpLiteral(host)) return isPrivateAddress(host) ? `${host} is a private or loopback address` : null;
    if (!resolve) return null;
    let addresses: string[];
    try {
      addresses = await this.resolveHost(host);
    } catch (e) {
      return `${host} did not resolve (${String((e as Error)?.message ?? e).split("\n")[0]})`;
    }
    if (!addresses.length) return `${host} did not resolve`;
    const inside = addresses.find((a) => isPrivateAddress(a));
    return inside ? `${host} resolves to ${inside}, a private or loopback address` : null;
  }

  /** True for one of the URLs no page may request (the reset hooks), whatever its query or fragment. */
  private isBlockedUrl(url: URL): boolean {
    const key = `${url.origin}${url.pathname}`;
    return (this.options.blockedUrls ?? []).some((b) => {
      try {
        const u = new URL(b);
        return `${u.origin}${u.pathname}` === key;
      } catch {
        return false;
      }
    });
  }

  /**
   * A connection the proxy or a route refused; reported with the step it happened in, each once. A page that fires
   * hundreds of them would bury the step's error: past the first few only their number is kept.
   */
  noteRefusal(message: string): void {
    if (this.pending.includes(message)) return;
    if (this.refusalsThisStep >= MAX_REFUSALS_PER_STEP) this.refusalsLeftOut.add(message);
    else {
      this.refusalsThisStep++;
      this.pending.push(message);
    }
  }

  /** Why the agent may not navigate to a URL, or null when it may. */
  async navigationRefusal(url: URL): Promise<string | null> {
    if (url.href === "about:blank") return null;
    if (url.protocol !== "http:" && url.protocol !== "https:") return `${url.protocol} addresses cannot be opened`;
    if (!hostAllowed(url, this.options.allowedHosts)) {
      return `${url.host} is not in this run's host allowlist (${describeAllowlist(this.options.allowedHosts)})`;
    }
    const priv = await this.privateAddressReason(url);
    return priv ? `${priv}; private addresses are refused in this run` : null;
  }

  async install(context: BrowserContext): Promise<void> {
    if (this.installed) return;
    this.installed = true;
    await context.route("**/*", (route, request) => this.onRoute(route, request));
    await context.routeWebSocket(/.*/, (ws) => this.onWebSocket(ws));
    for (const page of context.pages()) this.watchPage(page);
    context.on("page", (page) => this.watchPage(page));
  }

  private async onRoute(route: Route, request: Request): Promise<void> {
    let url: URL;
    try {
      url = new URL(request.url());
    } catch {
      return route.continue();
    }
    let mainFrameNavigation = false;
    try {
      mainFrameNavigation = request.isNavigationRequest() && request.frame() === request.frame().page().mainFrame();
    } catch {
      // Requests of service workers have no frame; they are checked as ordinary requests.
    }
    if (mainFrameNavigation) this.navigationRequestAt = Date.now();
    const refusal = mainFrameNavigation ? await this.navigationRefusal(url) : await this.privateAddressReason(url, { resolve: false });
    if (refusal) {
      if (mainFrameNavigation) {
        this.pending.push(`navigation to ${url.href} was blocked: ${refusal}`);
        // A navigation answered "204 No Content" is dropped by the browser: the agent stays on its page, where an
        // aborted one would show Chromium's error page instead.
        return route.fulfill({ status: 204, body: "" }).catch(() => {});
      }
      this.noteRefusal(`blocked request to ${url.hostname}:${url.port || (url.protocol === "https:" ? 443 : 80)} (${refusal})`);
      return route.abort("blockedbyclient").catch(() => {});
    }
    return route.continue().catch(() => {});
  }

  private async onWebSocket(ws: WebSocketRoute): Promise<void> {
    let refusal: string | null;
    try {
      refusal = await this.privateAddressReason(new URL(ws.url()), { resolve: false });
    } catch {
      refusal = "not a URL";
    }
    if (refusal) {
      this.noteRefusal(`the WebSocket to ${ws.url()} was blocked: ${refusal}`);
      await ws.close({ code: 1008, reason: "blocked by the live runner" }).catch(() => {});
      return;
    }
    // Allowed ones connect for real, from the page, through the egress proxy.
    ws.connectToServer();
  }

  private watchPage(page: Page): void {
    page.on("download", (d) => void this.onDownload(d));
    // A navigation that turns into a download ends as an aborted request; its "download" event can reach us a
    // little later than network quiet, so `after` waits for it when it sees such an abort.
    page.on("requestfailed", (r) => {
      try {
        if (r.isNavigationRequest() && r.frame() === page.mainFrame()) this.abortedNavigationAt = Date.now();
      } catch {
        // Service-worker requests have no frame; they are never the page's own navigation.
      }
    });
    page.on("crash", () => this.options.onCrash?.(`the page crashed (renderer process gone) at ${page.url()}`));
  }

  private async onDownload(d: Download): Promise<void> {
    this.downloadsSeen++;
    const name = d.suggestedFilename();
    if (!this.options.allowDownloads || !this.options.downloadsDir) {
      this.pending.push(`the download of ${name} was blocked: downloads are off for this run`);
      await d.cancel().catch(() => {});
      return;
    }
    await fsp.mkdir(this.options.downloadsDir, { recursive: true });
    await d.saveAs(path.join(this.options.downloadsDir, `${Date.now()}-${safeFileName(name)}`)).catch((e: Error) => {
      this.pending.push(`the download of ${name} failed: ${e.message.split("\n")[0]}`);
    });
  }

  /** Drains the problems reported since the last call. */
  takeEvents(): string[] {
    const out = this.pending;
    if (this.refusalsLeftOut.size) out.push(`and ${this.refusalsLeftOut.size} more blocked request(s)`);
    this.pending = [];
    this.refusalsThisStep = 0;
    this.refusalsLeftOut.clear();
    return out;
  }

  /** The recorder hooks: refusals before an action, blocked navigations and downloads after it. */
  actionGuard(getPage: () => Page): ActionGuard {
    return {
      before: async (action, observation) => {
        this.stepStartedAt = Date.now();
        this.stepDownloads = this.downloadsSeen;
        this.lastGoodUrl = observation.url;
        this.stepClicksLink = action.type === "click" && observation.elements.find((e) => e.label === action.target)?.tag?.toLowerCase() === "a";
        const blocked = blockedElementText(action, observation.elements, this.options.blockedTexts);
        if (blocked) {
          const el = observation.elements.find((e) => e.label === action.target);
          return `refused: element [${action.target}] "${(el?.text ?? "").slice(0, 80)}" matches this run's blocked text "${blocked}"; actions on it are not allowed`;
        }
        const target = actionNavigationTarget(action, observation.url);
        if (target) {
          const refusal = await this.navigationRefusal(target);
          if (refusal) return `refused: cannot open ${target.href}: ${refusal}`;
        }
        return null;
      },
      after: async (action) => {
        const page = getPage();
        const stepStarted = this.stepStartedAt;
        const downloadsBefore = this.stepDownloads;
        // Let what the action started land (a navigation, a download) so its problems are this step's; the next
        // step's settle then finds the page quiet already. Clicks and keys may start a navigation a little later
        // than the default quiet window: give them longer. A problem that still arrives late is reported with the
        // next step.
        const mayNavigate = ["click", "dblclick", "press", "type", "select"].includes(action.type);
        // A link's navigation request can come well after the click on a busy machine, once the network looked quiet:
        // wait a little for it (a link to an anchor on the page starts none, so the wait is bounded).
        for (
          let waited = 0;
          this.stepClicksLink && !page.isClosed() && this.navigationRequestAt < stepStarted && waited < LINK_NAVIGATION_WAIT_MS;
          waited += 25
        ) {
          await new Promise((r) => setTimeout(r, 25));
        }
        if (!page.isClosed()) await settlePage(page, { capMs: 3_000, quietMs: mayNavigate ? 120 : 50 }).catch(() => null);
        if (this.abortedNavigationAt >= stepStarted) {
          for (let waited = 0; waited < 1_500 && this.downloadsSeen === downloadsBefore; waited += 25) {
            await new Promise((r) => setTimeout(r, 25));
          }
        }
        const problems = this.takeEvents();
        if (page.isClosed()) return problems.join("; ") || null;
        // Redirects and script navigations are not all seen by the route: check where the page really is.
        const now = page.url();
        let here: URL | null = null;
        try {
          here = new URL(now);
        } catch {
          here = null;
        }
        const errorPage = now.startsWith("chrome-error:");
        const refusal = here && !errorPage && now !== "about:blank" ? await this.navigationRefusal(here) : null;
        if (refusal) problems.push(`the page went to ${now}, which is not allowed: ${refusal}`);
        if (refusal || (errorPage && problems.length > 0)) await this.leave(page);
        return problems.length ? problems.join("; ") : null;
      },
    };
  }

  /** Back to the last allowed page after a blocked or disallowed navigation. */
  private async leave(page: Page): Promise<void> {
    await page.goBack({ waitUntil: "commit", timeout: 5_000 }).catch(() => null);
    const now = page.url();
    let ok = false;
    try {
      ok = !now.startsWith("chrome-error:") && now !== "about:blank" && (await this.navigationRefusal(new URL(now))) === null;
    } catch {
      ok = false;
    }
    if (!ok && this.lastGoodUrl) await page.goto(this.lastGoodUrl, { waitUntil: "commit", timeout: 10_000 }).catch(() => null);
  }
}

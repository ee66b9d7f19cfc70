/**
 * One agent's browser: an isolated context with its tabs and the tab the agent is looking at.
 *
 * A run owns exactly one session and closes it on every exit path. Links that open a new window (target=_blank,
 * window.open) switch the agent to that tab, as a person clicking the link would see it.
 */
import type { Browser, BrowserContext, Page } from "playwright";
import { NO_WEBRTC_INIT_SCRIPT } from "./no-webrtc";

export interface Viewport {
  width: number;
  height: number;
}

/** WebVoyager's window size; also what the demo data and the benchmark use. */
export const DEFAULT_VIEWPORT: Viewport = { width: 1024, height: 768 };

export interface SessionOptions {
  viewport?: Viewport;
  userAgent?: string;
  locale?: string;
  /** Off unless asked for: an agent should not write files onto the server. */
  acceptDownloads?: boolean;
  /** The proxy every connection of this context goes through (a live run's egress proxy); loopback included. */
  proxyServer?: string;
  /** Credentials of that proxy, when it asks for them (a proxy a remote browser reaches over the network). */
  proxyCredentials?: { username: string; password: string };
  /** Cookies and local storage to start signed in (a deployment's logins). */
  storageState?: { cookies: Record<string, unknown>[]; origins: { origin: string; localStorage: { name: string; value: string }[] }[] };
  /** Write the context's network log here (a HAR file, written when the session closes). Bodies are left out. */
  harPath?: string;
}

export class BrowserSession {
  private active: Page;
  private closed = false;

  private constructor(
    readonly context: BrowserContext,
    first: Page,
    readonly viewport: Viewport,
  ) {
    this.active = first;
    context.on("page", (p) => {
      if (!this.closed) this.active = p;
    });
  }

  static async open(browser: Browser, options: SessionOptions = {}): Promise<BrowserSession> {
    const viewport = options.viewport ?? DEFAULT_VIEWPORT;
    const context = await browser.newContext({
      viewport,
      deviceScaleFactor: 1,
      userAgent: options.userAgent,
      locale: options.locale ?? "en-US",
      acceptDownloads: options.acceptDownloads ?? false,
      reducedMotion: "reduce",
      // A service worker could answer or make requests the context's routes never see.
      serviceWorkers: "block",
      ...(options.proxyServer ? { proxy: { server: options.proxyServer, ...options.proxyCredentials } } : {}),
      ...(options.storageState ? { storageState: options.storageState as never } : {}),
      ...(options.harPath ? { recordHar: { path: options.harPath, content: "omit" as const, mode: "full" as const } } : {}),
    });
    try {
      // No WebRTC: its UDP would go around the run's egress proxy (see no-webrtc.ts).
      await context.addInitScript(NO_WEBRTC_INIT_SCRIPT);
      const page = await context.newPage();
      return new BrowserSession(context, page, viewport);
    } catch (e) {
      await context.close().catch(() => {});
      throw e;
    }
  }

  /** The tab the agent currently sees. */
  get page(): Page {
    if (this.active.isClosed()) {
      const open = this.tabs();
      if (open.length > 0) this.active = open[open.length - 1]!;
    }
    return this.active;
  }

  tabs(): Page[] {
    return this.context.pages().filter((p) => !p.isClosed());
  }

  activeTabIndex(): number {
    return this.tabs().indexOf(this.page);
  }

  async newTab(url?: string): Promise<Page> {
    const page = await this.context.newPage();
    this.active = page;
    if (url) await page.goto(url, { waitUntil: "commit" });
    return page;
  }

  /** Switches to tab `index` (0-based, in opening order); returns an error message when there is no such tab. */
  async focusTab(index: number): Promise<string | null> {
    const open = this.tabs();
    const page = open[index];
    if (!page) return `there is no tab ${index} (open tabs: 0–${open.length - 1})`;
    this.active = page;
    await page.bringToFront();
    return null;
  }

  /** Closes the current tab and shows the most recently opened one left; refuses to close the last tab. */
  async closeTab(): Promise<string | null> {
    const open = this.tabs();
    if (open.length <= 1) return "cannot close the only open tab";
    const current = this.page;
    await current.close();
    const rest = this.tabs();
    this.active = rest[rest.length - 1]!;
    await this.active.bringToFront();
    return null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.context.close().catch(() => {});
  }
}

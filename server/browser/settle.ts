/**
 * Waiting until a page has settled, without fixed sleeps.
 *
 * WebVoyager sleeps 3–10 s after every action; most of that is idle time on fast pages and too short on slow ones.
 * Here a page counts as settled when its document has fired `load` and the network has been quiet (no request in
 * flight, none started or finished) for a short window. No extra wait for painting: the screenshot capture renders
 * a fresh frame of the current DOM anyway. A cap bounds the whole wait: pages that poll or stream forever are
 * observed as they are when it expires.
 */
import type { Page, Request } from "playwright";

export interface SettleOptions {
  /** Upper bound on the whole wait. */
  capMs?: number;
  /** How long the network must stay quiet, counted from the last request event or the last `markActivity`. */
  quietMs?: number;
}

export interface SettleResult {
  settled: boolean;
  ms: number;
  /** Requests still in flight when the cap expired (0 when settled). */
  pending: number;
}

export const DEFAULT_SETTLE: Required<SettleOptions> = { capMs: 5000, quietMs: 50 };

/** Long-lived connections never finish; they must not hold a page "unsettled" until the cap. */
const IGNORED_RESOURCE_TYPES = new Set(["websocket", "eventsource", "manifest", "other"]);

class NetworkActivity {
  private readonly inflight = new Set<Request>();
  private lastChange = performance.now();
  private waiters: (() => void)[] = [];

  constructor(page: Page) {
    const start = (r: Request) => {
      if (IGNORED_RESOURCE_TYPES.has(r.resourceType())) return;
      this.inflight.add(r);
      this.touch();
    };
    const end = (r: Request) => {
      if (this.inflight.delete(r)) this.touch();
    };
    page.on("request", start);
    page.on("requestfinished", end);
    page.on("requestfailed", end);
    page.on("framenavigated", (f) => {
      if (f === page.mainFrame()) this.touch();
    });
  }

  touch(): void {
    this.lastChange = performance.now();
    const w = this.waiters;
    this.waiters = [];
    for (const fn of w) fn();
  }

  get pending(): number {
    return this.inflight.size;
  }

  /** Milliseconds the network has been quiet; 0 while anything is in flight. */
  quietFor(): number {
    return this.inflight.size > 0 ? 0 : performance.now() - this.lastChange;
  }

  /** Resolves at the next network event or after `ms`, whichever comes first. */
  nextChange(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.waiters.push(done);
    });
  }
}

const trackers = new WeakMap<Page, NetworkActivity>();

/**
 * Starts watching a page's network. Call it as soon as the page exists (the session does) so that requests begun
 * before the first settle are seen; settlePage() calls it too.
 */
export function watchNetwork(page: Page): void {
  if (!trackers.has(page)) trackers.set(page, new NetworkActivity(page));
}

/** Restarts the quiet window, e.g. right after an action that may start a navigation a few milliseconds later. */
export function markActivity(page: Page): void {
  watchNetwork(page);
  trackers.get(page)!.touch();
}

export async function settlePage(page: Page, options: SettleOptions = {}): Promise<SettleResult> {
  const { capMs, quietMs } = { ...DEFAULT_SETTLE, ...options };
  watchNetwork(page);
  const net = trackers.get(page)!;
  const started = performance.now();
  const left = () => capMs - (performance.now() - started);
  const result = (settled: boolean): SettleResult => ({
    settled,
    ms: performance.now() - started,
    pending: settled ? 0 : net.pending,
  });

  for (;;) {
    if (left() <= 0) return result(false);
    try {
      await page.waitForLoadState("load", { timeout: Math.max(1, left()) });
    } catch (e) {
      if (page.isClosed()) throw e;
      return result(false);
    }
    const quiet = net.quietFor();
    if (quiet >= quietMs) break;
    await net.nextChange(Math.min(quietMs - quiet, left()));
  }
  return result(true);
}

/**
 * `test` for specs whose tests each open pages of the app with the same account and options, where isolation between
 * tests is not what they check: the tests of such a spec share one browser page instead of a new context each, and
 * the page is reset between them. A page in a fresh context costs Chromium a renderer process that starts and compiles
 * the app's script from nothing (Playwright's contexts are incognito: no code cache): about 2.7 CPU-s to open the
 * player that way against 1.7 CPU-s in the reused page after its reset (docs/testing.md, "CPU per test").
 *
 * Reset between tests: the page leaves the last test's document (so none of its scripts, timers or streams run on),
 * the context's cookies are put back to the test's storage state, the origin's local and session storage, IndexedDB
 * and Cache Storage are emptied, the HTTP cache is cleared, and the window goes back to the test's size. A test gets a
 * new context instead when its account or options differ from the last test's, when the last test did not pass (even
 * as expected), or when the last test changed the page in a way the reset cannot undo: a listener (`page.on`), a
 * route, an init script, an exposed function, extra headers, an emulated medium, permissions or cookies it granted, a
 * fake clock, or a closed page or context. A test needs nothing different: it takes `page` as usual. A describe that
 * should have a new context for every test says `test.use({ reusePage: false })`. reused-page.spec.ts checks each rule.
 */
import { test as base, type BrowserContext, type BrowserContextOptions, type Page } from "@playwright/test";
import fs from "node:fs";

// Everything else as Playwright gives it (a local `test` below takes the place of its own).
export * from "@playwright/test";

interface Kept {
  key: string;
  context: BrowserContext;
  page: Page;
  /** Set when a test changed the page or context in a way the reset does not undo. */
  tainted: boolean;
}

/** Methods that leave something on the page or context that outlives a test. */
const PAGE_TAINTS = [
  "on",
  "once",
  "addListener",
  "prependListener",
  "route",
  "routeFromHAR",
  "routeWebSocket",
  "addInitScript",
  "exposeFunction",
  "exposeBinding",
  "setExtraHTTPHeaders",
  "emulateMedia",
  "addLocatorHandler",
] as const;
const CONTEXT_TAINTS = [...PAGE_TAINTS, "grantPermissions", "clearPermissions", "setGeolocation", "setOffline", "setHTTPCredentials", "addCookies"] as const;
const CLOCK_TAINTS = ["install", "setFixedTime", "setSystemTime", "pauseAt", "runFor", "fastForward", "resume"] as const;

function taintOnCall(target: object, names: readonly string[], kept: Kept) {
  const t = target as Record<string, unknown>;
  for (const name of names) {
    const original = t[name];
    if (typeof original !== "function") continue;
    t[name] = function (this: unknown, ...args: unknown[]) {
      kept.tainted = true;
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
}

type StorageStateFile = Exclude<BrowserContextOptions["storageState"], string | undefined>;

function readStorageState(state: unknown): StorageStateFile {
  if (!state) return { cookies: [], origins: [] };
  if (typeof state === "string") return JSON.parse(fs.readFileSync(state, "utf8")) as StorageStateFile;
  return state as StorageStateFile;
}

export const test = base.extend<{ reusePage: boolean }, { keptPage: { current: Kept | null } }>({
  reusePage: [true, { option: true }],
  keptPage: [
    async ({}, use) => {
      const holder: { current: Kept | null } = { current: null };
      await use(holder);
      await holder.current?.context.close().catch(() => {});
    },
    { scope: "worker" },
  ],
  page: async (
    {
      browser,
      reusePage,
      keptPage,
      storageState,
      viewport,
      permissions,
      baseURL,
      userAgent,
      deviceScaleFactor,
      isMobile,
      hasTouch,
      locale,
      timezoneId,
      colorScheme,
      acceptDownloads,
      contextOptions,
    },
    use,
    testInfo,
  ) => {
    const state = readStorageState(storageState);
    const options = {
      ...contextOptions,
      storageState: state,
      viewport,
      permissions,
      baseURL,
      userAgent,
      deviceScaleFactor,
      isMobile,
      hasTouch,
      locale,
      timezoneId,
      colorScheme,
      acceptDownloads,
    };
    const key = JSON.stringify(options);
    let kept = keptPage.current;
    const reusable = reusePage && kept !== null && kept.key === key && !kept.tainted && !kept.page.isClosed() && state.origins.length === 0;
    if (!reusable) {
      await kept?.context.close().catch(() => {});
      keptPage.current = kept = null;
      const context = await browser.newContext(options);
      const page = await context.newPage();
      const fresh: Kept = { key, context, page, tainted: false };
      context.once("close", () => (fresh.tainted = true));
      taintOnCall(page, PAGE_TAINTS, fresh);
      taintOnCall(context, CONTEXT_TAINTS, fresh);
      taintOnCall(page.clock, CLOCK_TAINTS, fresh);
      kept = fresh;
      if (reusePage) keptPage.current = kept;
    } else {
      const { context, page } = kept!;
      await context.clearCookies();
      if (baseURL) {
        // Leaves the last test's document (its unload handlers run now, before the reset, and none of its scripts,
        // timers or streams go on), for a tiny document of the app's origin where that origin's storage is emptied.
        const origin = new URL(baseURL).origin;
        await page.goto(`${origin}/icon.svg`);
        await page.evaluate(() => {
          localStorage.clear();
          sessionStorage.clear();
        });
        const cdp = await context.newCDPSession(page);
        await cdp.send("Network.clearBrowserCache");
        await cdp.send("Storage.clearDataForOrigin", { origin, storageTypes: "indexeddb,cache_storage,service_workers" });
        await cdp.detach();
      } else {
        await page.goto("about:blank");
      }
      await context.addCookies(state.cookies);
      if (viewport) await page.setViewportSize(viewport);
      await page.mouse.move(0, 0);
      // The reset's own calls are not the test's.
      kept!.tainted = false;
    }
    const page = kept!.page;
    await use(page);
    if (!reusePage || keptPage.current !== kept) {
      await kept!.context.close().catch(() => {});
      return;
    }
    if (testInfo.status !== "passed") {
      // What the page showed when the test failed (a shared page is not one Playwright screenshots by itself).
      if (!page.isClosed()) {
        const shot = await page.screenshot().catch(() => null);
        if (shot) await testInfo.attach("page at failure", { body: shot, contentType: "image/png" });
      }
      keptPage.current = null;
      await kept!.context.close().catch(() => {});
    }
  },
});

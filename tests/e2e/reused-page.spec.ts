/**
 * The page the specs share between tests (reused-page.ts) starts every test as a fresh context would: signed in as
 * the test's storage state says and nothing else, empty storage, an empty HTTP cache, the test's window size; and a
 * test that changed what the reset cannot undo hands the next test a new context. The tests run in order
 * (serial): each later one checks what the one before it left.
 */
import { expect, test, type Page } from "./reused-page";

test.describe.configure({ mode: "serial" });

let previous: Page | null = null;
let firstCookies = "";

test.describe("a page reused between tests", () => {
  test("leaves storage, a cookie, a small window and a cached script behind", async ({ page }) => {
    await page.goto("/trajectories");
    await expect(page.getByRole("heading", { name: "Trajectories" })).toBeVisible();
    firstCookies = JSON.stringify((await page.context().cookies()).map((c) => c.name).sort());
    await page.evaluate(() => {
      localStorage.setItem("left-behind", "1");
      sessionStorage.setItem("left-behind", "1");
    });
    await page.evaluate(() => (document.cookie = "left-behind=1; path=/"));
    await page.setViewportSize({ width: 900, height: 700 });
    previous = page;
  });

  test("gets the same page, reset: the storage state's cookies only, empty storage, the window size, nothing cached", async ({ page, baseURL }) => {
    expect(page, "the page of the test before").toBe(previous);
    expect(page.url()).toBe(`${baseURL}/icon.svg`);
    expect(JSON.stringify((await page.context().cookies()).map((c) => c.name).sort())).toBe(firstCookies);
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([0, 0]);
    expect(page.viewportSize()).toEqual({ width: 1280, height: 800 });
    // Every script of the page comes from the server again, none from a cache.
    const fromCache: string[] = [];
    const fetched: string[] = [];
    page.on("requestfinished", (r) => {
      if (!/\/_next\/static\//.test(r.url())) return;
      fetched.push(r.url());
    });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    cdp.on("Network.requestServedFromCache", (e) => fromCache.push(e.requestId));
    cdp.on("Network.responseReceived", (e) => {
      if (e.response.fromDiskCache || e.response.fromPrefetchCache) fromCache.push(e.response.url);
    });
    await page.goto("/trajectories");
    await expect(page.getByRole("heading", { name: "Trajectories" })).toBeVisible();
    await page.waitForLoadState("networkidle");
    expect(fetched.length, "scripts fetched").toBeGreaterThan(0);
    expect(fromCache).toEqual([]);
    previous = page;
  });

  test("after a test that added a listener, gets a new context", async ({ page }) => {
    // The test before added one (page.on): a listener cannot be told apart from Playwright's own and removed.
    expect(page).not.toBe(previous);
    previous = page;
    await page.clock.install();
  });

  test("after a test that installed a fake clock, gets a new context", async ({ page }) => {
    expect(page).not.toBe(previous);
    previous = page;
  });
});

test.describe("a test that failed", () => {
  test.describe.configure({ retries: 0 });
  test("fails on purpose", async ({ page }) => {
    test.fail(true, "the next test checks that a failed test's page is not handed on");
    previous = page;
    await page.goto("/trajectories");
    expect(1).toBe(2);
  });
  test("gets a new context, not the failed test's page", async ({ page }) => {
    // test.fail makes the failure expected: the reuse rule looks at whether it failed, not whether that was expected.
    expect(page).not.toBe(previous);
  });
});

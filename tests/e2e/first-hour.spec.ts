/**
 * The first hour of each role, in Chromium: signing in from the site root lands on the overview without a
 * redirect loop; the labelling page fits the window at desktop sizes (no page scroll, screenshot, filmstrip and
 * submit button on screen); a half-written label survives a reload and leaving warns first; annotators get a
 * 403 view (and status) on researcher pages and see no navigation they cannot use; no page logs a console error.
 * Screenshots go to test-results/screens/ (and the README's to docs/).
 */
import { expect, request as playwrightRequest, test, type Page } from "@playwright/test";
import { account, storageStateOf } from "./accounts";
import { loadFixtures } from "./fixtures";
import { resizeTo, screenshotAt } from "./layout";

const DESKTOP = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
] as const;

/** Console errors and uncaught exceptions of a page, minus the refusals a test provokes on purpose. */
function watchConsole(page: Page) {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  return {
    expectNone(expectedStatus?: number) {
      const unexpected = errors.filter((e) => !(expectedStatus && e.includes(`status of ${expectedStatus}`)));
      expect(unexpected, "console errors").toEqual([]);
    },
  };
}

async function pageMetrics(page: Page) {
  return page.evaluate(() => ({
    scrollHeight: document.scrollingElement!.scrollHeight,
    scrollWidth: document.scrollingElement!.scrollWidth,
    innerHeight: window.innerHeight,
    innerWidth: window.innerWidth,
  }));
}

async function expectNoHorizontalOverflow(page: Page) {
  const m = await pageMetrics(page);
  expect(m.scrollWidth, "page scrolls sideways").toBeLessThanOrEqual(m.innerWidth);
}

test.describe.serial("the first hour", () => {
  let campaignId: number;
  let ids: number[];

  test.beforeAll(async ({ baseURL }) => {
    ids = Object.values(loadFixtures().trajectories).sort((a, b) => a - b);
    const researcher = await playwrightRequest.newContext({ baseURL, storageState: storageStateOf("researcher") });
    const annotator = await playwrightRequest.newContext({ baseURL, storageState: storageStateOf("annotator2") });
    const me = await annotator.get(`/api/trpc/accounts.me?input=${encodeURIComponent(JSON.stringify({ json: undefined }))}`);
    const annotatorId = (await me.json()).result.data.json.userId as string;
    const res = await researcher.post("/api/trpc/campaigns.create", {
      data: { json: { name: "E2E first hour", trajectoryIds: ids.slice(0, 2), annotatorsPerItem: 1, blind: true, annotatorIds: [annotatorId] } },
    });
    expect(res.status(), await res.text()).toBe(200);
    campaignId = (await res.json()).result.data.json.id;
    await Promise.all([researcher.dispose(), annotator.dispose()]);
  });

  test.describe("signed out", () => {
    test.use({ storageState: { cookies: [], origins: [] } });

    test("signing in from the site root lands on the overview without looping", async ({ page }) => {
      const consoleErrors = watchConsole(page);
      await page.goto("/");
      await expect(page).toHaveURL(/\/sign-in$/);
      // The router's prefetches (a cached redirect replayed after signing in caused the loop) are done once the
      // network has been quiet for half a second.
      await page.waitForLoadState("networkidle");
      const me = account("researcher");
      await page.getByLabel("Email").fill(me.email);
      await page.getByLabel("Password").fill(me.password);
      let navigations = 0;
      page.on("framenavigated", (f) => {
        if (f === page.mainFrame()) navigations++;
      });
      const shellsFetched: string[] = [];
      page.on("request", (r) => {
        const url = new URL(r.url());
        if (url.searchParams.has("_rsc")) shellsFetched.push(url.pathname);
      });
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
      await expect(page).toHaveURL(/\/$/);
      const settled = navigations;
      // Settled: no request for half a second (a navigation loop never gets there).
      await page.waitForLoadState("networkidle");
      // One page load; the old client-side replay of a cached redirect navigated ~60 times a second.
      expect(navigations, "navigations after signing in").toBeLessThanOrEqual(3);
      expect(navigations - settled, "navigations once landed").toBe(0);
      await expect(page.getByTestId("signed-in-user")).toHaveText(me.name);
      consoleErrors.expectNone();

      // The top bar prefetches a section when the pointer comes to its link, not on every page view (Rules: a
      // section the overview itself does not link to).
      const main = page.getByRole("navigation", { name: "Main" });
      expect(shellsFetched.filter((p) => p === "/rules")).toEqual([]);
      await main.getByRole("link", { name: "Rules", exact: true }).hover();
      await expect.poll(() => shellsFetched.filter((p) => p === "/rules").length).toBeGreaterThan(0);
      await main.getByRole("link", { name: "Rules", exact: true }).click();
      await expect(page).toHaveURL(/\/rules$/);

      // Sign out (the button loads the sign-in client on the click): back to sign-in, and the session is gone.
      await page.getByRole("button", { name: "Sign out" }).click();
      await expect(page).toHaveURL(/\/sign-in$/);
      await page.goto("/trajectories");
      await expect(page).toHaveURL(/\/sign-in/);
    });
  });

  test.describe("annotator", () => {
    test.use({ storageState: storageStateOf("annotator2") });

    test("sees only the navigation they can use and a 403 view on researcher pages", async ({ page }) => {
      const consoleErrors = watchConsole(page);
      await page.goto("/");
      await expect(page).toHaveURL(/\/annotate$/);
      const nav = page.getByRole("navigation", { name: "Main" });
      await expect(nav.getByRole("link", { name: "Annotate" })).toBeVisible();
      for (const hidden of ["Analytics", "Live runs", "Campaigns", "Runs", "Task sets", "Users"]) {
        await expect(nav.getByRole("link", { name: hidden, exact: true })).toHaveCount(0);
      }
      for (const url of ["/analytics", "/analytics/judges", "/live", "/live/new", "/campaigns", "/runs", "/users"]) {
        const res = await page.goto(url);
        expect(res?.status(), url).toBe(403);
        await expect(page.getByTestId("forbidden"), url).toContainText("You do not have access to this page");
        await expect(page.getByText("Minified React error")).toHaveCount(0);
        await expect(page.getByText("No live runs yet")).toHaveCount(0);
      }
      await screenshotAt(page, "first-hour-annotator-403", { width: 1280, height: 800 });
      // A trajectory outside their campaigns: the same view and status, never a raw error.
      expect(ids.length).toBeGreaterThan(2);
      const outside = await page.goto(`/trajectories/${ids.at(-1)}`);
      expect(outside?.status()).toBe(403);
      await expect(page.getByTestId("forbidden")).toBeVisible();
      consoleErrors.expectNone(403);
    });

    test("the labelling page fits the window at desktop sizes, and a half-written label survives a reload", async ({ page }) => {
      const consoleErrors = watchConsole(page);
      await page.goto(`/annotate/${campaignId}`);
      const panel = page.getByTestId("label-panel");
      await expect(panel).toBeVisible();
      await expect(page.getByTestId("step-image")).toBeVisible();
      const labelUrl = page.url();
      // The header leads back to the queue, not to the trajectory list.
      await expect(page.getByTestId("player-back")).toHaveAttribute("href", `/annotate/${campaignId}`);

      for (const size of DESKTOP) {
        await resizeTo(page, size);
        const m = await pageMetrics(page);
        expect(m.scrollHeight, `page scrolls vertically at ${size.width}×${size.height}`).toBeLessThanOrEqual(m.innerHeight);
        expect(m.scrollWidth, `page scrolls sideways at ${size.width}×${size.height}`).toBeLessThanOrEqual(m.innerWidth);
        for (const id of ["step-image", "filmstrip", "submit-next"]) {
          const box = (await page.getByTestId(id).boundingBox())!;
          expect(box, id).not.toBeNull();
          expect(box.y, `${id} top at ${size.width}×${size.height}`).toBeGreaterThanOrEqual(0);
          expect(box.y + box.height, `${id} bottom at ${size.width}×${size.height}`).toBeLessThanOrEqual(size.height + 0.5);
        }
        // At 1440×900 this is the README's labelling picture (npm run docs:screenshots copies it).
        await screenshotAt(page, "first-hour-label", size);
      }
      // The final answer is drawn neutrally for a blind annotator: no success green around it.
      const answerColour = await page.getByTestId("final-answer").evaluate((el) => getComputedStyle(el).backgroundColor);
      expect(answerColour).not.toMatch(/rgb\(236, 253, 245\)|oklch\(0\.979 0\.021 166/);

      // Half a label: failure and a note, not submitted.
      await page.keyboard.press("x");
      await page.keyboard.press("n");
      await page.keyboard.type("Stopped before checking the price.");
      await page.keyboard.press("Escape");
      const dialogs: string[] = [];
      page.on("dialog", (d) => {
        dialogs.push(d.type());
        // Leaving through a link: stay. Reloading: go ahead.
        void (d.type() === "confirm" ? d.dismiss() : d.accept());
      });
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Annotate" }).click();
      await expect.poll(() => dialogs).toContain("confirm");
      await expect(page).toHaveURL(labelUrl);
      await page.reload();
      expect(dialogs).toContain("beforeunload");
      await expect(panel.getByRole("button", { name: /Failure/ })).toHaveAttribute("aria-pressed", "true");
      await expect(panel.getByRole("textbox")).toHaveValue("Stopped before checking the price.");
      await expect(page.getByTestId("label-status")).toContainText("Restored your unsaved draft");
      consoleErrors.expectNone();
    });
  });

  test.describe("researcher", () => {
    test.use({ storageState: storageStateOf("researcher") });

    test("main pages have no console errors, the player fits the window, and 768 px does not scroll sideways", async ({ page }) => {
      const consoleErrors = watchConsole(page);
      for (const url of ["/", "/trajectories", "/analytics", "/analytics/judges", "/campaigns", "/live"]) {
        const res = await page.goto(url);
        expect(res?.status(), url).toBe(200);
        await expectNoHorizontalOverflow(page);
      }
      // An unknown trajectory is a 404 page with status 404.
      const missing = await page.goto("/trajectories/999999");
      expect(missing?.status()).toBe(404);
      await expect(page.getByText("Trajectory not found")).toBeVisible();
      // The README's player picture: a real WebVoyager trajectory when ../shared's examples were imported.
      await page.goto(`/trajectories/${loadFixtures().sharedExamples ? ids.at(-1) : ids[0]}?step=2`);
      await expect(page.getByTestId("step-image")).toBeVisible();
      for (const size of DESKTOP) {
        await resizeTo(page, size);
        const m = await pageMetrics(page);
        expect(m.scrollHeight, `player scrolls at ${size.width}×${size.height}`).toBeLessThanOrEqual(m.innerHeight);
        expect(m.scrollWidth, `player scrolls sideways at ${size.width}×${size.height}`).toBeLessThanOrEqual(m.innerWidth);
        // At 1440×900 this is the README's player picture (npm run docs:screenshots copies it).
        await screenshotAt(page, "first-hour-player", size);
      }
      // The help and zoom dialogs take focus and keep Tab inside; closing gives focus back.
      await resizeTo(page, { width: 1280, height: 800 });
      for (const [key, testId] of [
        ["?", "shortcuts-help"],
        ["z", "zoom-view"],
      ] as const) {
        await page.keyboard.press(key);
        await expect(page.getByTestId(testId)).toBeVisible();
        const insideDialog = () => page.evaluate(() => !!document.activeElement?.closest('[role="dialog"]'));
        expect(await insideDialog(), `${testId} has focus`).toBe(true);
        for (let i = 0; i < 4; i++) {
          await page.keyboard.press("Tab");
          expect(await insideDialog(), `${testId} keeps focus after ${i + 1} Tab`).toBe(true);
        }
        await page.keyboard.press("Escape");
        await expect(page.getByTestId(testId)).toHaveCount(0);
      }
      await resizeTo(page, { width: 768, height: 1024 });
      // Every section stays reachable at 768 px, through the menu.
      await page.goto("/trajectories");
      await page.getByTestId("nav-menu-button").click();
      const menu = page.getByRole("navigation", { name: "Main" });
      for (const name of ["Trajectories", "Annotate", "Campaigns", "Analytics", "Live runs"])
        await expect(menu.getByRole("link", { name, exact: true })).toBeVisible();
      await screenshotAt(page, "first-hour-768-menu", { width: 768, height: 1024 });
      // The task column keeps its width (the table scrolls inside its panel) so ids do not print over the site.
      const taskCell = await page.getByTestId("trajectory-table").locator("tbody tr").first().getByTestId("task-cell").boundingBox();
      expect(taskCell!.width).toBeGreaterThan(150);
      for (const url of ["/trajectories", "/analytics", `/trajectories/${ids[0]}`, "/campaigns"]) {
        await page.goto(url);
        await resizeTo(page, { width: 768, height: 1024 });
        await expectNoHorizontalOverflow(page);
        await screenshotAt(page, `first-hour-768${url.replaceAll("/", "-")}`, { width: 768, height: 1024 });
      }
      consoleErrors.expectNone(404);
    });
  });

  test.describe("admin", () => {
    test("reaches every section, including users, without console errors", async ({ page }) => {
      const consoleErrors = watchConsole(page);
      for (const url of ["/users", "/analytics", "/live", "/runs", "/task-sets"]) {
        const res = await page.goto(url);
        expect(res?.status(), url).toBe(200);
        await expect(page.getByTestId("forbidden")).toHaveCount(0);
        await expectNoHorizontalOverflow(page);
      }
      await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" })).toBeVisible();

      // Picking a role in the select does not apply it: Apply does (here: Cancel, and nothing changed).
      await page.goto("/users");
      const who = account("annotator3").email;
      const select = page.getByLabel(`Role of ${who}`);
      await select.selectOption("researcher");
      await expect(page.getByTestId(`apply-role-${who}`)).toBeVisible();
      await page.reload();
      await expect(page.getByLabel(`Role of ${who}`)).toHaveValue("annotator");
      consoleErrors.expectNone();
    });
  });
});

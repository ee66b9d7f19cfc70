import path from "node:path";
import { expect, test } from "@playwright/test";
import Database from "better-sqlite3";
import { expectChildrenApart, expectCleanLayout, screenshotAt, VIEWPORTS } from "./layout";
import { loadFixtures } from "./fixtures";

test.describe("trajectory list", () => {
  test("lists every imported trajectory with its task, run and outcome", async ({ page }) => {
    const imported = Object.keys(loadFixtures().trajectories).length;
    // Specs that run earlier (live runs) may have added trajectories: the list must show all of them.
    const db = new Database(path.join(process.env.VERDICT_E2E_DIR!, "verdict.db"), { readonly: true });
    const total = (db.prepare("select count(*) n from trajectories").get() as { n: number }).n;
    db.close();
    expect(total).toBeGreaterThanOrEqual(imported);
    await page.goto("/trajectories");
    await expect(page.getByRole("heading", { name: "Trajectories" })).toBeVisible();
    await expect(page.getByText(`${total} trajectories`)).toBeVisible();
    await expect(page.getByTestId("trajectory-row")).toHaveCount(Math.min(total, 50));
    const row = page.getByTestId("trajectory-row").filter({ hasText: "ShopSite--0" });
    await expect(row).toContainText("20240301_10_00_00");
    await expect(row).toContainText("answered");
    await expect(row).toContainText("$59.99");
  });

  test("filters live in the URL and are applied when the link is opened", async ({ page }) => {
    await page.goto("/trajectories?answer=no");
    await expect(page.getByTestId("trajectory-row")).toHaveCount(1);
    await expect(page.getByTestId("trajectory-row")).toContainText("Shop Site Deals--1");
    await expect(page.getByLabel("Final answer", { exact: true })).toHaveValue("no");

    await page.goto("/trajectories?site=ShopSite&q=controller");
    const rows = page.getByTestId("trajectory-row");
    await expect(rows).toHaveCount(2);
    await expect(rows.filter({ hasText: "ShopSite--0" })).toHaveCount(1);
    await expect(rows.filter({ hasText: "shop-structured-1" })).toHaveCount(1);
    await expect(page.getByRole("searchbox", { name: "Search intent and final answer" })).toHaveValue("controller");

    await page.goto("/trajectories?minSteps=7&maxSteps=7&site=ShopSite");
    await expect(rows).toHaveCount(2);
    await page.goto("/trajectories?q=no-such-words-anywhere");
    await expect(page.getByText("No trajectories match")).toBeVisible();
    await page.getByRole("link", { name: "Clear filters" }).click();
    await expect(page).toHaveURL(/\/trajectories$/);
  });

  test("changing a filter rewrites the URL so the view can be shared", async ({ page }) => {
    await page.goto("/trajectories");
    await page.getByLabel("Run").selectOption({ label: "native-mini · fixture-model-1" });
    await expect(page).toHaveURL(/[?&]run=\d+/);
    await expect(page.getByTestId("trajectory-row")).toHaveCount(1);
    await expect(page.getByTestId("trajectory-row")).toContainText("shop-structured-1");
    const shared = page.url();

    await page.getByRole("searchbox", { name: "Search intent and final answer" }).fill("price");
    await expect(page).toHaveURL(/[?&]q=price/);
    await expect(page.getByTestId("trajectory-row")).toHaveCount(1);

    await page.goto(shared);
    await expect(page.getByTestId("trajectory-row")).toHaveCount(1);
    await page.getByRole("button", { name: /Clear 1 filter/ }).click();
    await expect(page).toHaveURL(/\/trajectories$/);
  });

  test("sorts by step count through the column header", async ({ page }) => {
    await page.goto("/trajectories");
    await page.getByRole("link", { name: "Steps" }).click();
    await expect(page).toHaveURL(/sort=steps/);
    const steps = await page.getByTestId("trajectory-row").locator("td:nth-child(6)").allInnerTexts();
    const numbers = steps.map(Number);
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
    await page.getByRole("link", { name: /Steps/ }).click();
    await expect(page).toHaveURL(/sort=steps&dir=asc|dir=asc.*sort=steps/);
    const asc = (await page.getByTestId("trajectory-row").locator("td:nth-child(6)").allInnerTexts()).map(Number);
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
  });

  test("opening a row goes to the player", async ({ page }) => {
    await page.goto("/trajectories?q=ShopSite--0");
    await page.getByRole("link", { name: /Open trajectory \d+: ShopSite--0/ }).click();
    await expect(page).toHaveURL(/\/trajectories\/\d+/);
    await expect(page.getByTestId("task-intent")).toContainText("green wireless controller");
  });

  for (const size of VIEWPORTS) {
    test(`reads well at ${size.width}×${size.height}`, async ({ page }) => {
      await page.setViewportSize(size);
      await page.goto("/trajectories");
      await expect(page.getByTestId("trajectory-row").first()).toBeVisible();
      await expectCleanLayout(page, [page.getByRole("search", { name: "Filter trajectories" })]);
      await expectChildrenApart(page.getByRole("search", { name: "Filter trajectories" }));
      await screenshotAt(page, "trajectory-list", size);
      await page.goto("/trajectories?answer=no&site=ShopSite");
      await screenshotAt(page, "trajectory-list-filtered", size);
    });
  }
});

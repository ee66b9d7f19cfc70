import { expect, test } from "./reused-page";
import { expectCleanLayout, resizeTo, screenshotAt, VIEWPORTS } from "./layout";

test.describe("task sets, runs and tasks", () => {
  test("task sets link to their tasks and trajectories", async ({ page }) => {
    await page.goto("/task-sets");
    await expect(page.getByRole("link", { name: "WebVoyager" })).toBeVisible();
    await page.getByRole("link", { name: "Fixture shop" }).click();
    await expect(page.getByRole("heading", { name: "Fixture shop" })).toBeVisible();
    await expect(page.getByRole("link", { name: "shop-structured-1" })).toBeVisible();
    await page.getByRole("link", { name: "shop-structured-1" }).click();
    await expect(page.getByText("Find the price of the green wireless controller.")).toBeVisible();
    await expect(page.getByText("must include")).toBeVisible();
  });

  test("runs show how trajectories ended, per site", async ({ page }) => {
    await page.goto("/runs");
    await page.getByRole("link", { name: "native-mini" }).click();
    await expect(page.getByRole("heading", { name: "native-mini" })).toBeVisible();
    await expect(page.getByText("answered 1")).toBeVisible();
    await page.getByRole("link", { name: "Trajectories →" }).click();
    await expect(page).toHaveURL(/\/trajectories\?run=\d+$/);
    await expect(page.getByTestId("trajectory-row")).toHaveCount(1);
  });

  for (const size of VIEWPORTS) {
    test(`read well at ${size.width}×${size.height}`, async ({ page }) => {
      await resizeTo(page, size);
      for (const [name, url] of [
        ["overview", "/"],
        ["task-sets", "/task-sets"],
        ["runs", "/runs"],
      ] as const) {
        await page.goto(url);
        await expectCleanLayout(page);
        await screenshotAt(page, name, size);
      }
      await page.goto("/task-sets");
      await page.getByRole("link", { name: "WebVoyager" }).click();
      await expectCleanLayout(page);
      await screenshotAt(page, "task-set", size);
      await page.goto("/runs");
      await page.getByRole("link", { name: "20240301_10_00_00" }).click();
      await expectCleanLayout(page);
      await screenshotAt(page, "run", size);
    });
  }
});

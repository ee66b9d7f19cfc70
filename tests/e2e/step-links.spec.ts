/**
 * "Copy link to this step" in the player (issue 31, item 2): the button and the `l` key put a stable link on the
 * clipboard (/t/<content key>?id=…&step=N), and opening it lands on the same trajectory at the same step. Checked at
 * 1280×800, 1440×900 and 1920×1080.
 */
import { expect, test } from "@playwright/test";
import { trajectoryId } from "./fixtures";
import { screenshotsAtDesktopSizes } from "./layout";

test.describe("stable links to a step", () => {
  test.use({ permissions: ["clipboard-read", "clipboard-write"] });

  test("the player copies a link to the step on screen, by button and by key, and the link opens there", async ({ page, baseURL }) => {
    const id = trajectoryId("ShopSite--0");
    await page.goto(`/trajectories/${id}?step=3`);
    const counter = page.getByTestId("step-counter");
    await expect(counter).toHaveText("Step 3 of 7");
    const button = page.getByTestId("copy-step-link");
    await expect(button).toHaveText("Copy link");
    await screenshotsAtDesktopSizes(page, "player-copy-step-link", [button, page.getByTestId("toggle-evaluations")]);

    await button.click();
    await expect(button).toHaveText("Link copied");
    const clip = () => page.evaluate(() => navigator.clipboard.readText());
    const byButton = new URL(await clip());
    expect(byButton.origin).toBe(new URL(baseURL!).origin);
    expect(byButton.pathname).toMatch(/^\/t\/[0-9a-f]{64}$/);
    expect(Object.fromEntries(byButton.searchParams)).toEqual({ id: String(id), step: "3" });

    // The key copies the step on screen after moving on.
    await page.keyboard.press("ArrowRight");
    await expect(counter).toHaveText("Step 4 of 7");
    await page.evaluate(() => navigator.clipboard.writeText(""));
    await page.keyboard.press("l");
    await expect.poll(clip).toContain("step=4");
    const byKey = await clip();

    await page.goto(byKey);
    await expect(page).toHaveURL(new RegExp(`/trajectories/${id}\\?step=4$`));
    await expect(counter).toHaveText("Step 4 of 7");
  });

  test("a link to nothing stored is a 404 page", async ({ page }) => {
    const res = await page.goto(`/t/${"0".repeat(64)}?step=2`);
    expect(res?.status()).toBe(404);
  });
});

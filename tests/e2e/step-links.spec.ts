/**
 * "Copy link to this step" in the player (issue 31, item 2): the button and the `l` key put a stable link on the
 * clipboard (/t/<content key>?id=…&step=N), and opening it lands on the same trajectory at the same step; a link's
 * region (&region=x,y,w,h) is drawn on the step's screenshot, and copying while it is drawn keeps it. Checked at
 * 1280×800, 1440×900 and 1920×1080.
 */
import { expect, test } from "./reused-page";
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

  test("a link's region is drawn on its step, and the player's link keeps it", async ({ page }) => {
    const id = trajectoryId("ShopSite--0");
    await page.goto(`/trajectories/${id}?step=3`);
    const button = page.getByTestId("copy-step-link");
    const plain = new URL((await button.getAttribute("data-link"))!, "http://link.test");
    // A link gives its region as x,y,width,height in the screenshot's pixels.
    plain.searchParams.set("region", "40,30,200,100");
    await page.goto(`${plain.pathname}${plain.search}`);
    await expect(page).toHaveURL(new RegExp(`/trajectories/${id}\\?`));
    await expect(page.getByTestId("step-counter")).toHaveText("Step 3 of 7");
    const region = page.getByTestId("cited-region");
    await expect(region).toBeVisible();
    await expect(region).toHaveAttribute("data-region", "40,30,240,130");
    const box = (await region.boundingBox())!;
    const image = (await page.getByTestId("step-image").boundingBox())!;
    // Drawn at the screenshot's scale: 200 × 100 pixels of it, inside the image.
    expect(Math.abs(box.width / box.height - 2)).toBeLessThan(0.2);
    expect(box.x).toBeGreaterThanOrEqual(image.x);
    expect(box.x + box.width).toBeLessThanOrEqual(image.x + image.width + 1);
    await screenshotsAtDesktopSizes(page, "player-link-region", [button]);
    // Copying the step while the region is drawn links to both.
    const copied = new URL((await button.getAttribute("data-link"))!, "http://link.test");
    expect(Object.fromEntries(copied.searchParams)).toEqual({ id: String(id), step: "3", region: "40,30,200,100" });
    // Moving on leaves the region behind, and the link with it.
    await page.keyboard.press("ArrowRight");
    await expect(page.getByTestId("step-counter")).toHaveText("Step 4 of 7");
    await expect(region).toHaveCount(0);
    expect(await button.getAttribute("data-link")).not.toContain("region");
  });

  test("a link's region that does not parse is dropped, the step still opens", async ({ page }) => {
    const id = trajectoryId("ShopSite--0");
    await page.goto(`/trajectories/${id}?step=2`);
    const link = new URL((await page.getByTestId("copy-step-link").getAttribute("data-link"))!, "http://link.test");
    link.searchParams.set("region", "40,30,0,100");
    await page.goto(`${link.pathname}${link.search}`);
    await expect(page).toHaveURL(new RegExp(`/trajectories/${id}\\?step=2$`));
    await expect(page.getByTestId("step-counter")).toHaveText("Step 2 of 7");
    await expect(page.getByTestId("cited-region")).toHaveCount(0);
  });

  test("a link to nothing stored is a 404 page", async ({ page }) => {
    const res = await page.goto(`/t/${"0".repeat(64)}?step=2`);
    expect(res?.status()).toBe(404);
  });
});

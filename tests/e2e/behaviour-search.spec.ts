/**
 * Behaviour search in Chromium: typed into the list's search box, carried in the URL, each hit shown under its row
 * with the words marked and opening the player at its step with the same words marked there; bad syntax and an
 * annotator asking for verdicts read as messages, not error pages. The WebVoyager fixture's ShopSite--0 thinks
 * "I want to read the reviews to confirm the rating." at step 4.
 */
import { expect, test } from "./reused-page";
import { storageStateOf } from "./accounts";
import { expectCleanLayout, resizeTo, screenshotAt, VIEWPORTS } from "./layout";

test.describe("behaviour search", () => {
  test("finds a thought, marks it in the list and in the player at its step", async ({ page }) => {
    await page.goto("/trajectories");
    const box = page.getByRole("searchbox", { name: "Search behaviour" });
    await box.fill(`thought:"read the reviews"`);
    await box.press("Enter");
    await expect(page).toHaveURL(/[?&]search=thought%3A%22read(\+|%20)the(\+|%20)reviews%22/);
    await expect(page).toHaveURL(/[?&]sort=relevance/);
    const row = page.getByTestId("trajectory-row").filter({ hasText: "ShopSite--0" });
    await expect(row).toHaveCount(1);
    const hit = row.getByTestId("search-hit").first();
    await expect(hit).toContainText("step 4 · thought");
    await expect(hit.getByTestId("search-mark")).toHaveText(["read the reviews"]);
    // Every row the search returned shows where it matched.
    const rows = page.getByTestId("trajectory-row");
    for (let i = 0; i < (await rows.count()); i++) await expect(rows.nth(i).getByTestId("search-mark").first()).toBeVisible();

    await hit.click();
    await expect(page).toHaveURL(/\/trajectories\/\d+\?step=4&hl=read(\+|%20)the(\+|%20)reviews/);
    await expect(page.getByTestId("step-details")).toContainText("Step 4");
    await expect(page.getByTestId("step-thought").getByTestId("search-mark")).toHaveText(["read the reviews"]);
  });

  test("a shared link reopens the search; Escape clears it", async ({ page }) => {
    await page.goto("/trajectories?search=reviews+-controller&sort=relevance");
    await expect(page.getByRole("searchbox", { name: "Search behaviour" })).toHaveValue("reviews -controller");
    // ShopSite--0's intent names a controller: the negation leaves it out.
    await expect(page.getByTestId("trajectory-row").filter({ hasText: "ShopSite--0" })).toHaveCount(0);
    await page.getByRole("searchbox", { name: "Search behaviour" }).press("Escape");
    await expect(page).not.toHaveURL(/search=/);
    await expect(page.getByTestId("search-hits")).toHaveCount(0);
  });

  test("bad syntax is explained where it was typed", async ({ page }) => {
    await page.goto("/trajectories");
    const box = page.getByRole("searchbox", { name: "Search behaviour" });
    await box.fill(`thought:"reviews`);
    await box.press("Enter");
    await expect(page.getByTestId("search-error")).toHaveText(`the quote at position 9 is never closed: add a " after the phrase`);
    await expect(box).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByText("The search could not be run")).toBeVisible();
    await page.getByRole("button", { name: "Syntax" }).click();
    await expect(page.getByTestId("search-help")).toContainText("words starting with check");
  });

  for (const size of VIEWPORTS) {
    test(`reads well at ${size.width}×${size.height}`, async ({ page }) => {
      await resizeTo(page, size);
      await page.goto("/trajectories?search=reviews&sort=relevance");
      await expect(page.getByTestId("search-hit").first()).toBeVisible();
      await page.getByRole("button", { name: "Syntax" }).click();
      await expect(page.getByTestId("search-help")).toBeVisible();
      await expectCleanLayout(page, [page.getByRole("search", { name: "Behaviour search" }), page.getByTestId("search-help")]);
      await screenshotAt(page, "behaviour-search", size);
      await page.getByTestId("search-hit").first().click();
      await expect(page.getByTestId("step-thought").getByTestId("search-mark").first()).toBeVisible();
      await screenshotAt(page, "behaviour-search-player", size);
    });
  }
});

test.describe("behaviour search for an annotator", () => {
  test.use({ storageState: storageStateOf("annotator3") });

  test("asking for judges' verdicts is refused in words, not with an error page", async ({ page }) => {
    await page.goto("/trajectories?search=judge%3Asuccess");
    await expect(page.getByTestId("search-error")).toContainText(
      "judge: search judges' verdicts, rationales or human labels: they are for researchers and admins",
    );
  });
});

/**
 * The duplicates page in Chromium: an admin finds what an earlier Verdict stored twice (duplicates-seed.ts: one
 * results folder imported from two places, annotators labelling either copy), reads what a merge would do (copies
 * to merge, one left because an annotator labelled both copies, labels moved), merges, and the page then shows only
 * the copy left; researchers are refused. Layout checked at 1280×800, 1440×900 and 1920×1080.
 */
import { expect, test } from "./reused-page";
import { storageStateOf } from "./accounts";
import { expectCleanLayout, resizeTo, screenshotAt, VIEWPORTS } from "./layout";
import { runScriptJson } from "./scripts";

function runSeed(...args: string[]): { a: Record<string, number>; b: Record<string, number> } {
  return runScriptJson("tests/e2e/duplicates-seed.ts", args);
}

test.describe("Duplicate trajectories (admin)", () => {
  let seeded: ReturnType<typeof runSeed>;
  test.beforeAll(() => {
    seeded = runSeed("seed");
  });
  test.afterAll(() => {
    runSeed("clean");
  });

  test("shows what a merge would do, merges, and the kept trajectory holds both copies' labels", async ({ page }) => {
    const { a, b } = seeded;
    await page.goto("/import");
    await page.getByRole("link", { name: "Duplicates" }).click();
    await expect(page).toHaveURL(/\/import\/duplicates$/);
    await expect(page.getByRole("heading", { name: "Duplicate trajectories" })).toBeVisible();
    const panel = page.getByTestId("duplicates");
    await expect(panel.getByRole("heading", { name: "What a merge would do" })).toBeVisible();
    const table = page.getByTestId("duplicate-groups");
    // Only the seeded copies are stored twice in the e2e installation: three groups, six rows.
    await expect(table.locator("tbody tr")).toHaveCount(6);
    const row = (id: number) => table.locator("tbody tr", { has: page.getByText(`#${id}`, { exact: true }) });
    await expect(row(a["Dup--1"]!)).toContainText("keep");
    await expect(row(b["Dup--1"]!)).toContainText("merge");
    await expect(row(b["Dup--2"]!)).toContainText("left");
    await expect(row(b["Dup--2"]!)).toContainText("an annotator labelled both copies (import:Ann)");
    // The source as the person knows it, whole.
    await expect(row(a["Dup--3"]!)).toContainText("results/20240101_00_00_00/taskDup--3");
    await expect(panel).toContainText("The merge would move 2 labels");

    for (const size of VIEWPORTS) {
      await resizeTo(page, size);
      await expectCleanLayout(page, [panel.getByRole("button", { name: "Merge 2 copies" }), table]);
      await screenshotAt(page, "import-duplicates", size);
    }
    await resizeTo(page, VIEWPORTS[0]);

    await panel.getByRole("button", { name: "Merge 2 copies" }).click();
    await expect(panel.getByRole("heading", { name: "Merged" })).toBeVisible();
    await expect(row(b["Dup--1"]!)).toContainText("merged");
    await expect(panel).toContainText("The merge moved 2 labels");

    // Again: the copy left is all there is.
    await page.reload();
    await expect(table.locator("tbody tr")).toHaveCount(2);
    await expect(panel.getByRole("button", { name: "Merge 0 copies" })).toBeDisabled();

    // The copy merged is gone; the kept trajectory plays.
    await page.goto(`/trajectories/${a["Dup--1"]}`);
    await expect(page.getByText("Find Dup--1 in the catalogue.").first()).toBeVisible();
  });
});

test.describe("Duplicate trajectories (researcher)", () => {
  test.use({ storageState: storageStateOf("researcher") });
  test("is refused, and the Import page offers no Duplicates link", async ({ page }) => {
    await page.goto("/import/duplicates");
    await expect(page.getByText("Admins only")).toBeVisible();
    await page.goto("/import");
    await expect(page.getByRole("heading", { name: "Import trajectories" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Duplicates" })).toHaveCount(0);
  });
});

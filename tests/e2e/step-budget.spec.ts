/**
 * The step-budget chart (issue 29, item 5) on the e2e trajectories with the seeded campaign (analytics-seed.ts): one
 * line per agent run (or site) of the success rate within k steps, its table matching the API, captured at the three
 * desktop sizes into test-results/screens/.
 */
import { expect, test } from "./reused-page";
import { screenshotsAtDesktopSizes } from "./layout";
import { cleanAnalytics, seedAnalytics } from "./scripts";
import { query } from "./api";

interface Curves {
  curves: {
    group: string;
    n: number;
    successes: number;
    timed: number;
    secondsPerSuccess: number | null;
    versusHuman: { ratio: number; n: number } | null;
    points: { k: number; estimate: number | null }[];
  }[];
}

test.describe("step budgets", () => {
  test.describe.configure({ mode: "serial" });
  test.beforeAll(() => seedAnalytics());
  test.afterAll(() => cleanAnalytics());

  test("draws success within k steps per run and per site, its table matching the API", async ({ page }) => {
    const api = await query<Curves>(page.request, "analytics.stepBudget", { by: "run" });
    expect(api.curves.length).toBeGreaterThan(0);
    await page.goto("/analytics");
    await page.getByRole("link", { name: "Step budgets" }).click();
    await expect(page.getByRole("heading", { name: "Step budgets" })).toBeVisible();
    const figure = page.locator('section[data-figure="step-budget"]');
    await expect(figure.getByRole("application")).toBeVisible();
    await expect(figure.locator(".recharts-line")).toHaveCount(api.curves.length);
    await screenshotsAtDesktopSizes(page, "step-budget-runs");
    await figure.getByRole("button", { name: "Table", exact: true }).click();
    for (const c of api.curves) {
      await expect(figure.locator(`tr[data-row="${c.group}"] td[data-col="n"]`)).toHaveText(String(c.n));
      await expect(figure.locator(`tr[data-row="${c.group}"] td[data-col="rate"]`)).toContainText(`${c.successes}/${c.n}`);
      // Time per success is given only when every counted trajectory was timed; otherwise the row says how many were.
      const seconds = figure.locator(`tr[data-row="${c.group}"] td[data-col="seconds"]`);
      if (c.secondsPerSuccess !== null) await expect(seconds).toContainText(" s");
      else if (c.successes > 0) await expect(seconds).toHaveText(c.timed === 0 ? "not timed" : `${c.timed} of ${c.n} timed`);
      const human = figure.locator(`tr[data-row="${c.group}"] td[data-col="human"]`);
      await expect(human).toHaveText(c.versusHuman ? `×${c.versusHuman.ratio.toFixed(2)} (${c.versusHuman.n})` : "–");
    }
    await screenshotsAtDesktopSizes(page, "step-budget-table");
    await page.getByRole("link", { name: "site", exact: true }).click();
    await expect(page).toHaveURL(/budget=site/);
    const bySite = await query<Curves>(page.request, "analytics.stepBudget", { by: "site" });
    // The figure keeps the view chosen (the table) across the split's change: back to the chart.
    await figure.getByRole("button", { name: "Chart", exact: true }).click();
    await expect(page.locator('section[data-figure="step-budget"] .recharts-line')).toHaveCount(bySite.curves.length);
    await screenshotsAtDesktopSizes(page, "step-budget-sites");
  });
});

/**
 * The step-budget chart (issue 29, item 5) on the e2e trajectories with the seeded campaign (analytics-seed.ts): one
 * line per agent run (or site) of the success rate within k steps, its table matching the API, captured at the three
 * desktop sizes into test-results/screens/.
 */
import { expect, test, type APIRequestContext } from "@playwright/test";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { screenshotsAtDesktopSizes } from "./layout";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

function seed(mode: "seed" | "clean"): void {
  const dir = process.env.VERDICT_E2E_DIR!;
  const r = spawnSync(process.execPath, [path.join(root, "node_modules", "tsx", "dist", "cli.mjs"), "tests/e2e/analytics-seed.ts", mode], {
    cwd: root,
    env: { ...process.env, VERDICT_DB: path.join(dir, "verdict.db"), VERDICT_DATA_DIR: dir },
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`analytics-seed ${mode} failed (exit ${r.status}):\n${r.stderr}`);
}

async function query<T>(request: APIRequestContext, proc: string, input: unknown): Promise<T> {
  const res = await request.get(`/api/trpc/${proc}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`);
  expect(res.ok(), `${proc}: HTTP ${res.status()} ${await res.text()}`).toBe(true);
  return (await res.json()).result.data.json as T;
}

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
  test.beforeAll(() => seed("seed"));
  test.afterAll(() => seed("clean"));

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

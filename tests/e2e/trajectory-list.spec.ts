import path from "node:path";
import { expect, test, type Page } from "./reused-page";
import Database from "better-sqlite3";
import { storageStateOf } from "./accounts";
import { expectChildrenApart, expectCleanLayout, resizeTo, screenshotAt, VIEWPORTS } from "./layout";
import { loadFixtures } from "./fixtures";
import { cleanAnalytics, seedAnalytics } from "./scripts";

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
    // Specs share one database, and others add trajectories without an answer: of this spec's seed, only Shop Site
    // Deals--1 has none, and the ones that answered are left out.
    await page.goto("/trajectories?answer=no");
    const answerless = page.getByTestId("trajectory-row");
    await expect(answerless.filter({ hasText: "Shop Site Deals--1" })).toHaveCount(1);
    await expect(answerless.filter({ hasText: "ShopSite--0" })).toHaveCount(0);
    await expect(answerless.filter({ hasText: "shop-structured-1" })).toHaveCount(0);
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
      await resizeTo(page, size);
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

function e2eDb(readonly = true) {
  return new Database(path.join(process.env.VERDICT_E2E_DIR!, "verdict.db"), { readonly });
}

// The ids of the rows shown, read once every row's link is in the accessibility tree: right after a reload the rows
// can be counted a moment before their links are exposed, and reading then gives an empty list.
const rowIds = async (page: Page) => {
  const rows = page.getByTestId("trajectory-row");
  await expect(rows.first()).toBeVisible();
  const links = rows.getByRole("link", { name: /^Open trajectory/ });
  await expect(links).toHaveCount(await rows.count());
  return (await links.allInnerTexts()).map(Number);
};

test.describe("trajectory list triage", () => {
  const CAMPAIGN = "E2E triage sample";
  let grades: { campaignId: number; judgeKey: string };

  test.beforeAll(() => {
    grades = seedAnalytics();
  });
  test.afterAll(() => {
    cleanAnalytics();
    const db = e2eDb(false);
    db.pragma("foreign_keys = ON");
    db.prepare("delete from annotation_campaigns where name = ?").run(CAMPAIGN);
    db.close();
  });

  test("filters by 'judge says success, humans say failure', with counts, in the URL", async ({ page }) => {
    // It needs a trajectory the judge passes and people fail: only the shared WebVoyager examples bring one.
    test.skip(!loadFixtures().sharedExamples, "../shared/fixtures/webvoyager is not present in this checkout");
    const db = e2eDb();
    const expected = (
      db
        .prepare(
          `select c.trajectory_id id from consolidated_labels c join evaluator_verdicts v on v.trajectory_id = c.trajectory_id
           where c.campaign_id = ? and c.verdict = 'failure' and v.evaluator_key = ? and v.k = '1' and v.verdict = 'success' order by id`,
        )
        .all(grades.campaignId, grades.judgeKey) as { id: number }[]
    ).map((r) => r.id);
    const all = (db.prepare("select count(*) n from trajectories").get() as { n: number }).n;
    db.close();
    expect(expected.length).toBeGreaterThan(0);

    await page.goto("/trajectories");
    await page.getByLabel("Evaluator").selectOption({ label: "E2E judge · k=1 · v1" });
    await expect(page).toHaveURL(/[?&]ev=/);
    await page.getByLabel("Verdict", { exact: true }).selectOption("success");
    await expect(page).toHaveURL(/[?&]verdict=success/);
    await page.getByLabel("Human label").selectOption("failure");
    await expect(page).toHaveURL(/[?&]human=failure/);
    await expect(page.getByTestId("match-count")).toHaveText(`${expected.length} of ${all} match${expected.length === 1 ? "es" : ""}`);
    expect((await rowIds(page)).sort((a, b) => a - b)).toEqual(expected);
    for (const cell of await page.getByTestId("verdict-cell").allInnerTexts()) expect(cell).toBe("success");
    for (const cell of await page.getByTestId("human-cell").allInnerTexts()) expect(cell).toMatch(/^failure/);

    // The link is the view: opened afresh, it shows the same rows.
    const shared = page.url();
    await page.goto("/trajectories");
    await page.goto(shared);
    // The rows stream in after the page shell: wait for the filtered count and rows before reading them.
    await expect(page.getByTestId("match-count")).toHaveText(`${expected.length} of ${all} match${expected.length === 1 ? "es" : ""}`);
    await expect(page.getByTestId("trajectory-row")).toHaveCount(expected.length);
    expect((await rowIds(page)).sort((a, b) => a - b)).toEqual(expected);
    await expect(page.getByLabel("Human label")).toHaveValue("failure");
  });

  test("selects rows with the keyboard and Shift+click, samples 5 with a seed, and makes a campaign of them", async ({ page }) => {
    // It selects among ten rows and more: the shared WebVoyager examples bring them.
    test.skip(!loadFixtures().sharedExamples, "../shared/fixtures/webvoyager is not present in this checkout");
    await page.goto("/trajectories?size=25");
    const rows = page.getByTestId("trajectory-row");
    await expect(rows.first()).toBeVisible();
    const shown = await rowIds(page);
    expect(shown.length).toBeGreaterThanOrEqual(10);

    // j focuses the first row, x selects it; two rows down, x again.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press("j");
    await expect(rows.nth(0)).toHaveAttribute("data-focused", "true");
    await page.keyboard.press("x");
    await page.keyboard.press("j");
    await page.keyboard.press("j");
    await page.keyboard.press("x");
    await expect(page.getByTestId("selection-status")).toContainText("2 selected");
    // A click on row 5's box, then Shift+click on row 9's: rows 5–9 join the selection.
    await page.getByLabel(`Select trajectory ${shown[4]}`).click();
    await page.getByLabel(`Select trajectory ${shown[8]}`).click({ modifiers: ["Shift"] });
    await expect(page.getByTestId("selection-status")).toContainText("7 selected");
    const selected = [0, 2, 4, 5, 6, 7, 8].map((i) => shown[i]!);
    for (const [i, id] of shown.entries()) await expect(rows.nth(i), `row ${id}`).toHaveAttribute("aria-selected", String(selected.includes(id)));

    // ? shows the keys; Esc closes them.
    await page.keyboard.press("?");
    await expect(page.getByTestId("list-shortcuts-help")).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("list-shortcuts-help")).toHaveCount(0);

    await page.getByLabel("Sample size").fill("5");
    await page.getByLabel("Seed", { exact: true }).fill("4242");
    await page.getByRole("button", { name: /Sample 5 of selection/ }).click();
    await expect(page).toHaveURL(/sample=5/);
    await expect(page).toHaveURL(/seed=4242/);
    await expect(page.getByTestId("sample-banner")).toContainText("4242");
    await expect(rows).toHaveCount(5);
    const sample = (await rowIds(page)).sort((a, b) => a - b);
    expect(sample.every((id) => selected.includes(id))).toBe(true);
    // Same seed, same selection: the same five after a reload.
    await page.reload();
    await expect(rows).toHaveCount(5);
    expect((await rowIds(page)).sort((a, b) => a - b)).toEqual(sample);

    await page.getByTestId("campaign-from-selection").click();
    await expect(page).toHaveURL(/\/campaigns\/new\?.*sample=5/);
    await expect(page.getByTestId("selection-count")).toHaveText("5");
    await page.getByRole("textbox", { name: "Name" }).fill(CAMPAIGN);
    await page.getByRole("button", { name: /Create campaign over 5 trajectories/ }).click();
    await expect(page).toHaveURL(/\/campaigns\/\d+$/);
    const campaignId = Number(new URL(page.url()).pathname.split("/").pop());
    await expect(page.getByRole("heading", { name: CAMPAIGN })).toBeVisible();
    const db = e2eDb();
    const items = (db.prepare("select trajectory_id id from campaign_items where campaign_id = ? order by id").all(campaignId) as { id: number }[]).map(
      (r) => r.id,
    );
    db.close();
    expect(items).toEqual(sample);
  });

  test("selects all matching across pages by the filter", async ({ page }) => {
    await page.goto("/trajectories?size=25&human=success");
    const total = Number((await page.getByTestId("match-count").innerText()).match(/^(\d+)/)![1]);
    await page.getByLabel("Select every row on this page").click();
    await page.getByRole("button", { name: `Select all ${total} matching` }).click();
    await expect(page.getByTestId("selection-status")).toContainText(`All ${total} matching selected`);
    // By the filter, not by ids: the campaign link carries the filter alone.
    await page.getByTestId("campaign-from-selection").click();
    await expect(page).toHaveURL(/\/campaigns\/new\?human=success$/);
    await expect(page.getByTestId("selection-count")).toHaveText(String(total));
  });

  test("shows an empty state with a way out", async ({ page }) => {
    await page.goto("/trajectories?human=unsure&rule=success");
    await expect(page.getByText("No trajectories match")).toBeVisible();
    await page.getByRole("link", { name: "Clear filters" }).click();
    await expect(page).toHaveURL(/\/trajectories$/);
    await expect(page.getByTestId("trajectory-row").first()).toBeVisible();
  });

  for (const size of [
    { width: 1280, height: 800 },
    { width: 1440, height: 900 },
    { width: 1920, height: 1080 },
  ]) {
    test(`triage columns fit at ${size.width}×${size.height}`, async ({ page }) => {
      await resizeTo(page, size);
      const ev = encodeURIComponent(`${grades.judgeKey}|1|v1`);
      await page.goto(`/trajectories?ev=${ev}`);
      await expect(page.getByTestId("verdict-cell").first()).toBeVisible();
      await page
        .getByLabel(/^Select trajectory/)
        .nth(1)
        .click();
      await expectCleanLayout(page, [page.getByRole("search", { name: "Filter trajectories" }), page.getByTestId("triage-bar")]);
      await expectChildrenApart(page.getByRole("search", { name: "Filter trajectories" }));
      // The table fits its panel: no sideways scrolling inside it either at desktop sizes.
      const panel = await page.getByTestId("trajectory-table").evaluate((t) => ({ table: t.scrollWidth, panel: t.parentElement!.clientWidth }));
      expect(panel.table).toBeLessThanOrEqual(panel.panel + 1);
      await screenshotAt(page, "trajectory-list-triage", size);
      await page.goto(`/trajectories?ev=${ev}&verdict=success&human=failure&sample=3&seed=7`);
      await screenshotAt(page, "trajectory-list-triage-sample", size);
    });
  }

  test.describe("annotator", () => {
    test.use({ storageState: storageStateOf("annotator1") });
    test("gets a 403 for triage filters and sees no grade columns", async ({ page }) => {
      const res = await page.goto("/trajectories?human=failure");
      expect(res?.status()).toBe(403);
      await expect(page.getByTestId("forbidden")).toBeVisible();
      await page.goto("/trajectories");
      await expect(page.getByTestId("triage-bar")).toHaveCount(0);
      await expect(page.getByLabel("Human label")).toHaveCount(0);
    });
  });
});

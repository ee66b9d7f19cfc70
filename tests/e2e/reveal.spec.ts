/**
 * Blind → reveal → revise in Chromium: a researcher creates a campaign that reveals an imported judge (seeded by
 * reveal-seed.ts) after each blind label; an annotator labels two trajectories blind from the keyboard, sees the
 * judge's verdict, rationale and screenshots only after each submit, revises one label and keeps the other, with
 * reasons; the researcher sees the flip rates and κ before and after on the judge-agreement view. The reveal panel
 * and the measures are captured at 1280×800, 1440×900 and 1920×1080 into test-results/screens/.
 *
 * Worked by hand: both blind labels are "failure"; the judge says success on one (revised to success: a flip
 * toward, 1 of 1) and failure on the other (kept: 0 of 1 flipped away). κ before: pairs (F,S), (F,F) → P_o = 1/2,
 * P_e = 1/2, κ = 0; after: (S,S), (F,F) → κ = 1.
 */
import { expect, test, type Browser, type Page } from "@playwright/test";
import { storageStateOf } from "./accounts";
import { loadFixtures } from "./fixtures";
import { expectCleanLayout, resizeTo, screenshotAt } from "./layout";
import { runScriptJson } from "./scripts";

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
] as const;
const SUCCESS_RATIONALE = "The last screenshot shows the requested result";
const FAILURE_RATIONALE = "The agent stopped before the task was done";

function seed(args: string[]): { evaluatorId?: string; storageState?: string } {
  return runScriptJson("tests/e2e/reveal-seed.ts", args);
}

async function shoot(page: Page, name: string) {
  for (const size of SIZES) {
    await resizeTo(page, size);
    await expectCleanLayout(page);
    await screenshotAt(page, name, size);
  }
  await resizeTo(page, SIZES[0]);
}

// The annotator of this spec, created when it starts (see reveal-seed.ts "account"): the shared annotators are in
// earlier specs' campaigns, which leave them other trajectories of the same tasks to label blind, and the reveal then
// rightly waits until those are labelled.
let reviserState = "";

async function pageAs(browser: Browser, who: "researcher" | "reviser"): Promise<Page> {
  const context = await browser.newContext({ storageState: who === "reviser" ? reviserState : storageStateOf(who), viewport: SIZES[0] });
  return context.newPage();
}

test.describe("blind → reveal → revise", () => {
  let ids: [number, number];
  let evaluatorId: string;
  let campaignId: number;

  test.beforeAll(() => {
    // The e2e server answers on 127.0.0.1, as for the shared accounts (global-setup.ts).
    reviserState = seed(["account", "127.0.0.1"]).storageState!;
    // Two trajectories of different tasks that no other spec hands to annotator 3 (the side-by-side pair shares a task).
    const entries = Object.entries(loadFixtures().trajectories)
      .filter(([task]) => !task.startsWith("cmp-"))
      .sort((a, b) => a[1] - b[1]);
    ids = [entries[entries.length - 1]![1], entries[entries.length - 2]![1]];
    evaluatorId = seed(["seed", String(ids[0]), String(ids[1])]).evaluatorId!;
  });
  test.afterAll(() => {
    seed(["clean"]);
  });

  test("a researcher creates a campaign that reveals the judge after the blind label", async ({ browser }) => {
    const page = await pageAs(browser, "researcher");
    await page.goto(`/campaigns/new?ids=${ids.join(",")}`);
    await expect(page.getByTestId("selection-count")).toHaveText("2");
    await page.locator('input[name="name"]').fill("E2E reveal and revise");
    await page.locator('input[name="k"]').fill("1");
    // The spec's own annotator alone labels here.
    const annotators = page.getByRole("checkbox", { name: / \(annotator\)$/ });
    for (const box of await annotators.all()) {
      const name = await box.evaluate((el) => el.closest("label")?.textContent ?? "");
      if (name.includes("Rex Reviser")) await box.check();
      else await box.uncheck();
    }
    await expect(page.getByRole("checkbox", { name: "Rex Reviser (annotator)", exact: true })).toBeChecked();
    await page.getByTestId("reveal-evaluator").selectOption(evaluatorId);
    await page.getByRole("button", { name: /create/i }).click();
    await expect(page).toHaveURL(/\/campaigns\/\d+$/);
    campaignId = Number(/\/campaigns\/(\d+)$/.exec(page.url())![1]);
    await page.context().close();
  });

  test("the annotator labels blind, then sees the judge, revises one label and keeps the other", async ({ browser }) => {
    const page = await pageAs(browser, "reviser");
    const decided: string[] = [];
    for (const itemNo of [1, 2]) {
      await page.goto(`/annotate/${campaignId}/${itemNo}`);
      await expect(page.getByTestId("label-panel")).toBeVisible();
      // Before the blind submit nothing of the judge is on the page.
      await expect(page.getByTestId("reveal-panel")).toHaveCount(0);
      const before = await page.locator("body").innerText();
      expect(before).not.toContain(SUCCESS_RATIONALE);
      expect(before).not.toContain(FAILURE_RATIONALE);
      expect(before).not.toContain("E2E reveal judge");

      // Failure with the campaign's first error category (the WebVoyager protocol asks for one).
      await page.keyboard.press("x");
      await page.keyboard.press("1");
      await page.keyboard.press("Control+Enter");
      const panel = page.getByTestId("reveal-panel");
      await expect(panel.getByTestId("reveal-evaluator")).toBeVisible();
      await expect(panel.getByTestId("reveal-blind")).toContainText("failure");
      await expect(panel.getByTestId("reveal-evaluator")).toContainText("E2E reveal judge");
      await expect(panel.locator("img").first()).toBeVisible();
      const judgeSaysSuccess = (await panel.getByTestId("reveal-evaluator").innerText()).includes(SUCCESS_RATIONALE);
      if (itemNo === 1) await shoot(page, "reveal-panel");

      if (judgeSaysSuccess) {
        await page.keyboard.press("v");
        await page.getByTestId("reveal-reason").press("Escape");
        await page.keyboard.press("s");
        await page.getByTestId("reveal-reason").fill("The result is on the last screenshot; I missed it.");
      } else {
        await page.keyboard.press("c");
        await page.getByTestId("reveal-reason").fill("The judge agrees: the task was not finished.");
      }
      await page.keyboard.press("Control+Enter");
      await expect(panel.getByTestId("reveal-decided")).toContainText(judgeSaysSuccess ? "You revised your label to success" : "You kept your label");
      decided.push(judgeSaysSuccess ? "revise" : "keep");
      if (itemNo === 1) await shoot(page, "reveal-panel-decided");
    }
    expect(decided.sort()).toEqual(["keep", "revise"]);
    // A reload shows the recorded stages, and the blind label can no longer be submitted again.
    await page.reload();
    await expect(page.getByTestId("reveal-decided")).toBeVisible();
    await expect(page.getByTestId("label-panel")).toHaveCount(0);
    await page.context().close();
  });

  test("the researcher sees flip rates and κ before and after on the judge-agreement view", async ({ browser }) => {
    const page = await pageAs(browser, "researcher");
    await page.goto(`/analytics/judges?campaign=${campaignId}`);
    const section = page.getByTestId("reveal-measures");
    await expect(section.getByTestId("reveal-chart")).toContainText("E2E reveal judge");
    await expect(section.getByTestId("reveal-chart")).toContainText("100.0% (1/1)");
    await expect(section.getByTestId("reveal-chart")).toContainText("0.0% (0/1)");
    await expect(section).toContainText("2 of 2 decided by 1 annotator");
    // κ before 0 (the humans said failure on both, the judge split), κ after 1, change +1.
    const table = section.locator('section[data-figure="reveal-table"]');
    await expect(table).toContainText("0.000");
    await expect(table).toContainText("1.000");
    await expect(table).toContainText("+1.000");
    await expect(section.locator('section[data-figure="reveal-flips"]')).toContainText("failure · ");
    await section.scrollIntoViewIfNeeded();
    await shoot(page, "reveal-measures");
    // The stages download: two blind rows and two informed rows.
    const res = await page.request.get(`/api/campaigns/${campaignId}/reveal-stages?format=csv`);
    expect(res.ok()).toBe(true);
    const lines = (await res.text()).trim().split("\r\n");
    expect(lines).toHaveLength(5);
    expect(lines.filter((l) => l.includes(",blind,"))).toHaveLength(2);
    expect(lines.filter((l) => l.includes(",informed,"))).toHaveLength(2);
    await page.context().close();
  });
});

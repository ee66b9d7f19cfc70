/**
 * The evaluations panel beside the player, in Chromium: a researcher sees the judge verdicts (k = 1 and 3 from
 * analytics-seed.ts), the rule result with its string_match rule (evaluations-seed.ts runs the real rule
 * evaluator), the annotators' labels and the consolidated label; the filmstrip marks the steps each judge saw;
 * `e` toggles the panel; nothing scrolls sideways at 1280×800, 1440×900 and 1920×1080. A blind annotator gets
 * only the message that evaluations are hidden. Screenshots go to test-results/screens/.
 */
import { expect, test, type Page } from "./reused-page";
import { storageStateOf } from "./accounts";
import { trajectoryId } from "./fixtures";
import { expectChildrenApart, expectCleanLayout, resizeTo, screenshotAt } from "./layout";
import { runScriptJson } from "./scripts";

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
];

function runSeed(script: string, ...args: string[]): unknown {
  return runScriptJson(`tests/e2e/${script}`, args);
}

let id: number;
let blindItem: { campaignId: number; itemNo: number };
test.beforeAll(() => {
  id = trajectoryId("ShopSite--0");
  runSeed("analytics-seed.ts", "seed");
  const seeded = runSeed("evaluations-seed.ts", "seed", String(id)) as { rules: Record<string, number>; campaignId: number; itemNo: number };
  blindItem = { campaignId: seeded.campaignId, itemNo: seeded.itemNo };
  // The recorded answer "$59.99 (Green Wireless Controller, 4.7 stars)" includes the reference.
  expect(seeded.rules.success).toBe(1);
});
test.afterAll(() => {
  runSeed("evaluations-seed.ts", "clean", String(id));
  runSeed("analytics-seed.ts", "clean");
});

const panel = (page: Page) => page.getByTestId("evaluations-panel");

/** The player's three columns side by side, none overflowing, and the toolbar (with its Evaluations toggle) intact. */
async function expectPlayerLayout(page: Page) {
  await expectCleanLayout(page, [
    page.getByRole("complementary", { name: "Task" }),
    page.getByRole("region", { name: "Step viewer" }),
    page.getByRole("complementary", { name: "Step details" }),
  ]);
  await expectCleanLayout(page, [page.getByRole("toolbar", { name: "Player controls" }), panel(page)]);
  await expectChildrenApart(page.getByRole("toolbar", { name: "Player controls" }));
}
const seenOf = (page: Page, position: number) => page.getByTestId("filmstrip-step").nth(position).getAttribute("data-judge-seen");

test.describe("evaluations beside the trajectory", () => {
  test.use({ storageState: storageStateOf("researcher") });

  test("shows every verdict, the rule, the labels and the consolidated label, and marks the steps each judge saw", async ({ page }) => {
    await page.goto(`/trajectories/${id}?panel=evaluations`);
    const verdicts = panel(page).getByTestId("evaluation-verdict");
    await expect(verdicts).toHaveCount(3);
    await expect(verdicts.filter({ hasText: "last 1 screenshot (k = 1)" })).toContainText("E2E judge");
    await expect(verdicts.filter({ hasText: "last 3 screenshots (k = 3)" })).toContainText("Saw steps 5, 6, 7");
    const rule = verdicts.filter({ hasText: "VisualWebArena rules" });
    await expect(rule.getByTestId("verdict-pill")).toHaveText("success");
    await rule.getByText("Rule checked").click();
    await expect(rule).toContainText('"must_include"');
    await expect(rule).toContainText("$59.99");
    const seededLabels = panel(page).getByTestId("evaluation-label").filter({ hasText: "E2E analytics campaign" });
    await expect(seededLabels).toHaveCount(3);
    await expect(seededLabels.first()).toContainText("Ana");
    await expect(panel(page).getByTestId("evaluation-consolidated").filter({ hasText: "E2E analytics campaign" })).toContainText("Adjudicated");

    // k = 3 saw steps 5–7 and k = 1 step 7: the filmstrip counts the evaluators per step.
    const seen = [];
    for (let i = 0; i < 7; i++) seen.push(await seenOf(page, i));
    expect(seen).toEqual([null, null, null, null, "1", "1", "2"]);
    await expect(page.getByTestId("judge-seen-mark")).toHaveCount(3);
    // The first judge with a window (k = 1) is the one outlined; choosing k = 3 outlines its three steps.
    await expect(page.getByTestId("judge-chosen-mark")).toHaveCount(1);
    await verdicts.filter({ hasText: "k = 3" }).getByRole("button", { name: "mark on filmstrip" }).click();
    await expect(page.getByTestId("judge-chosen-mark")).toHaveCount(3);

    // A step link in the panel moves the player; stepping keeps the panel open.
    await verdicts.filter({ hasText: "k = 3" }).getByTitle("Go to step 5").click();
    await expect(page.getByTestId("step-counter")).toHaveText("Step 5 of 7");
    await page.keyboard.press("ArrowRight");
    await expect(page.getByTestId("step-counter")).toHaveText("Step 6 of 7");
    await expect(panel(page)).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`/trajectories/${id}\\?panel=evaluations&step=6$`));

    for (const size of SIZES) {
      await resizeTo(page, size);
      await expectPlayerLayout(page);
      await screenshotAt(page, "evaluations-panel", size);
    }
    await resizeTo(page, SIZES[0]!);

    // `e` hides the panel (step details come back, marks go) and shows it again.
    await page.keyboard.press("e");
    await expect(panel(page)).toHaveCount(0);
    await expect(page.getByTestId("step-details")).toBeVisible();
    await expect(page.getByTestId("judge-seen-mark")).toHaveCount(0);
    await expect(page).toHaveURL(new RegExp(`/trajectories/${id}\\?step=6$`));
    await page.keyboard.press("e");
    await expect(panel(page).getByTestId("evaluation-verdict")).toHaveCount(3);
    // The header's toggle does the same with the mouse.
    await page.getByTestId("toggle-evaluations").click();
    await expect(panel(page)).toHaveCount(0);
    await page.getByTestId("toggle-evaluations").click();
    await expect(panel(page)).toBeVisible();
    await page.keyboard.press("?");
    await expect(page.getByTestId("shortcuts-help")).toContainText("Show / hide the evaluations");
  });
});

test.describe("evaluations and the blind", () => {
  test.use({ storageState: storageStateOf("annotator1") });

  test("an annotator who has not labelled the trajectory sees only that evaluations are hidden", async ({ page }) => {
    const answers: string[] = [];
    page.on("response", async (r) => {
      if (r.url().includes("judge.verdicts.panel")) answers.push(await r.text());
    });
    // By its trajectory id the annotator cannot open it at all while they label it blind.
    const byId = await page.goto(`/trajectories/${id}?panel=evaluations`);
    expect(byId?.status()).toBe(403);
    // On the labelling page the panel opens with the hidden message, and nothing is asked of the server.
    await page.goto(`/annotate/${blindItem.campaignId}/${blindItem.itemNo}`);
    await expect(page.getByTestId("toggle-evaluations")).toBeVisible();
    await page.getByTestId("toggle-evaluations").click();
    await expect(page.getByTestId("evaluations-hidden")).toHaveText("Evaluations are hidden until you submit your label");
    await expect(page.getByTestId("evaluation-verdict")).toHaveCount(0);
    await expect(page.getByTestId("judge-seen-mark")).toHaveCount(0);
    expect(answers).toEqual([]);
    await expect(page.locator("body")).not.toContainText(/E2E judge|VisualWebArena rules|must_include/);
    await expectPlayerLayout(page);
    await screenshotAt(page, "evaluations-panel-blind", SIZES[0]!);
  });
});

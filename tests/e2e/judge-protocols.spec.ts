/**
 * Key-point and rubric verdicts in the player's evaluations panel, in Chromium: the key points and criteria with
 * their grades, the rubric's process and failure cause, the relevance scores, and the judge's citations. A citation
 * link opens the cited step with the cited region drawn on its screenshot (in place, and as an address of its own);
 * a citation of a step the trajectory does not have is flagged and counted. At 1280×800, 1440×900 and 1920×1080;
 * screenshots go to test-results/screens/. judge-protocols-seed.ts judges the trajectory through the real service
 * against the tests' prompt-reading endpoint.
 */
import { expect, test, type Page } from "./reused-page";
import { storageStateOf } from "./accounts";
import { trajectoryId } from "./fixtures";
import { expectCleanLayout, resizeTo, screenshotAt } from "./layout";
import { runScriptJson } from "./scripts";

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
];

function runSeed(...args: string[]): unknown {
  return runScriptJson("tests/e2e/judge-protocols-seed.ts", args);
}

let id: number;
let seeded: { keyPoints: string; rubric: string; box: number[]; steps: number };
test.beforeAll(() => {
  id = trajectoryId("Amazon--0");
  seeded = runSeed("seed", String(id)) as typeof seeded;
});
test.afterAll(() => {
  runSeed("clean", String(id));
});

const panel = (page: Page) => page.getByTestId("evaluations-panel");

test.describe("key-point and rubric verdicts with citations", () => {
  test.use({ storageState: storageStateOf("researcher") });

  test("show their graded criteria, and a citation opens its step with the region drawn", async ({ page }) => {
    await page.goto(`/trajectories/${id}?panel=evaluations`);
    const keyPoints = panel(page).getByTestId("evaluation-verdict").filter({ hasText: "E2E key points" });
    const rubric = panel(page).getByTestId("evaluation-verdict").filter({ hasText: "E2E rubric" });
    await expect(keyPoints.getByTestId("verdict-pill")).toHaveText(seeded.keyPoints);
    // The endpoint lists one key point per clause of the task; each is graded.
    const points = keyPoints.getByTestId("verdict-criterion");
    expect(await points.count()).toBeGreaterThan(0);
    for (const p of await points.all()) expect(["met", "not_met"]).toContain(await p.getAttribute("data-result"));
    // Rubric: the task's clauses as outcome criteria and one process criterion, and the process graded as a whole.
    await expect(rubric.locator("[data-testid=verdict-criterion][data-kind=process]")).toHaveCount(1);
    expect(await rubric.locator("[data-testid=verdict-criterion][data-kind=outcome]").count()).toBeGreaterThan(0);
    await expect(rubric.getByTestId("verdict-process")).toContainText("Process");

    // Two citations: step 2 with a box, step 99 that does not exist (flagged, counted, not a link).
    const cited = keyPoints.getByTestId("citation");
    await expect(cited).toHaveCount(2);
    await expect(keyPoints.getByTestId("unverifiable-count")).toHaveText(`· 1 of 2 unverifiable`);
    await expect(cited.nth(1).getByTestId("citation-problem")).toHaveText(`unverifiable: step 99 does not exist (the trajectory has ${seeded.steps} steps)`);
    await expect(cited.nth(1).getByTestId("citation-link")).toHaveCount(0);
    const link = cited.nth(0).getByTestId("citation-link");
    await expect(link).toHaveAttribute("href", `?step=2&panel=evaluations&region=${seeded.box.join(",")}`);

    await expect(page.getByTestId("step-counter")).toHaveText(`Step 1 of ${seeded.steps}`);
    await expect(page.getByTestId("cited-region")).toHaveCount(0);
    await link.click();
    await expect(page.getByTestId("step-counter")).toHaveText(`Step 2 of ${seeded.steps}`);
    const region = page.getByTestId("cited-region");
    await expect(region).toHaveAttribute("data-region", seeded.box.join(","));
    await expect(page).toHaveURL(new RegExp(`step=2&region=${seeded.box.join("%2C")}$`));
    // The box covers the second quarter of the screenshot each way: drawn at a quarter of the shown image's size.
    const stage = (await page.getByTestId("step-stage").boundingBox())!;
    const drawn = (await region.boundingBox())!;
    expect(Math.abs(drawn.x - stage.x - stage.width / 4)).toBeLessThan(3);
    expect(Math.abs(drawn.width - stage.width / 4)).toBeLessThan(3);

    for (const size of SIZES) {
      await resizeTo(page, size);
      await expectCleanLayout(page, [page.getByRole("region", { name: "Step viewer" }), page.getByRole("complementary", { name: "Step details" })]);
      await expect(region).toBeVisible();
      await screenshotAt(page, "judge-protocols-citation", size);
    }

    // Stepping away hides the region; the citation's address opens the step with it drawn.
    await page.keyboard.press("ArrowRight");
    await expect(page.getByTestId("cited-region")).toHaveCount(0);
    await page.goto(`/trajectories/${id}?step=2&panel=evaluations&region=${seeded.box.join(",")}`);
    await expect(page.getByTestId("step-counter")).toHaveText(`Step 2 of ${seeded.steps}`);
    await expect(page.getByTestId("cited-region")).toHaveAttribute("data-region", seeded.box.join(","));
  });
});

/**
 * Protocols end to end: a researcher creates an Online-Mind2Web campaign from its template in the New campaign
 * form; an annotator opens the guidelines with `g`, labels one trajectory "not executable" and another a failure
 * with its failure point, type and reasoning; two more annotators label the second trajectory (through the API the
 * pages use); the researcher does its QA review, and the campaign page reports the protocol's compliance.
 */
import { expect, test } from "./reused-page";
import { storageStateOf } from "./accounts";
import { apiAs, trpc } from "./api";
import { DESKTOP_SIZES, resizeTo, screenshotsAtDesktopSizes } from "./layout";

test.describe.serial("protocols", () => {
  let campaignId: number;
  let failedItem: number;

  test.describe("researcher", () => {
    test.use({ storageState: storageStateOf("researcher") });
    test("creates an Online-Mind2Web campaign from its template", async ({ page }) => {
      // Over trajectories of two steps or more: the annotator marks step 2 as a failure point, whatever else the
      // database holds (an answer-only Online-Mind2Web submission has no steps, and which specs ran before varies).
      await page.goto("/campaigns/new?minSteps=2");
      await page.getByRole("radio", { name: /Online-Mind2Web/ }).check();
      await expect(page.locator('textarea[name="instructions"]')).toHaveValue(/Not executable \(2\)/);
      await expect(page.locator('input[name="allowNotExecutable"]')).toBeChecked();
      await expect(page.locator('input[name="qaReview"]')).toBeChecked();
      await page.locator('input[name="name"]').fill(`Online-Mind2Web e2e ${Date.now()}`);
      await screenshotsAtDesktopSizes(page, "protocols-new-campaign");
      await page.getByRole("button", { name: /Create campaign over/ }).click();
      await page.waitForURL(/\/campaigns\/\d+$/);
      campaignId = Number(new URL(page.url()).pathname.split("/").pop());
      await expect(page.getByTestId("protocol-compliance")).toContainText("Online-Mind2Web");
      await expect(page.getByTestId("protocol-badge")).toContainText("Not yet");
      await expect(page.getByTestId("campaign-guidelines")).toContainText("Guidelines · version 1");
    });
  });

  test.describe("annotator", () => {
    test.use({ storageState: storageStateOf("annotator1") });
    test("opens the guidelines with g and labels not executable, then a failure with point, type and reasoning", async ({ page }) => {
      await page.goto(`/annotate/${campaignId}`);
      const panel = page.getByTestId("label-panel");
      await expect(panel).toBeVisible();
      const current = () => Number(new URL(page.url()).pathname.split("/").pop());

      await page.keyboard.press("g");
      await expect(page.getByTestId("guidelines")).toContainText("Not executable (2)");
      await screenshotsAtDesktopSizes(page, "protocols-guidelines");
      await page.keyboard.press("g");
      await expect(page.getByTestId("guidelines")).toHaveCount(0);

      // 1: not executable, from the keyboard.
      const first = current();
      await page.keyboard.press("b");
      await expect(panel.getByRole("button", { name: /Not executable/ })).toHaveAttribute("aria-pressed", "true");
      await page.keyboard.press("Control+Enter");
      await expect.poll(current).not.toBe(first);

      // 2: a failure needs its failure point and reasoning before it can be submitted.
      failedItem = current();
      await page.keyboard.press("x");
      await page.keyboard.press("3");
      await page.keyboard.press("Control+Enter");
      await expect(page.getByTestId("label-status")).toContainText("failure point");
      await page.keyboard.press("ArrowRight");
      await page.keyboard.press("f");
      await expect(page.getByTestId("first-failing-step")).toHaveText("step 2");
      await page.keyboard.press("n");
      await page.keyboard.type("Typed the city into search instead of using the location filter.");
      await screenshotsAtDesktopSizes(page, "protocols-label-failure");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await expect(page.getByTestId("label-status")).toContainText("Saved");
    });
  });

  test.describe("QA", () => {
    test.use({ storageState: storageStateOf("researcher") });
    test("two more labels complete the item; the researcher corrects it in QA and the campaign page counts it", async ({ page, baseURL }) => {
      for (const who of ["annotator2", "annotator3"] as const) {
        const api = await apiAs(who, baseURL!);
        const r = await trpc(api, "mutation", "labelling.submit", {
          campaignId,
          itemNo: failedItem,
          verdict: "failure",
          category: "wrong navigation",
          firstFailingStep: 0,
          note: `${who}: went to the wrong page first`,
          idempotencyKey: `protocols-e2e-${who}-${Date.now()}`,
        });
        expect(r.status).toBe(200);
      }
      await page.goto(`/campaigns/${campaignId}/adjudicate?state=qa`);
      await expect(page.getByTestId("adjudication-queue")).toContainText("failure");
      await page.getByRole("link", { name: "QA review →" }).first().click();
      await expect(page.getByTestId("review-label")).toHaveCount(3);
      await expect(page.getByTestId("decision-panel")).toContainText("QA review");
      await page.getByTestId("review-label").filter({ hasText: "location filter" }).getByRole("button", { name: "Take this label" }).click();
      await page.getByTestId("decision-confidence").selectOption("high");
      await page.getByTestId("decision-source").selectOption("annotator_error");
      await page.getByLabel("Reason (required)").fill("Search is not a filter: the failure type is the filter, at step 2.");
      // Three labels, seven failure types and the step buttons still leave the decision's button on screen and the
      // screenshot large, down to 1280×800 (review 2, #7).
      for (const size of DESKTOP_SIZES) {
        await resizeTo(page, size);
        await expect(page.getByTestId("qa-correct")).toBeInViewport();
        // Large means 400 px or the image's own width when it is smaller: the campaign is over whatever trajectories of
        // two steps the database holds, and another spec's import may bring small test images.
        // Some imported trajectories recorded no screenshot on their first step; the stage then says so, and there is
        // no image whose size could be checked.
        const image = page.getByTestId("step-image");
        const noScreenshot = page.getByText("No screenshot was recorded for this step.");
        await expect(image.or(noScreenshot)).toBeVisible();
        if (await noScreenshot.isVisible()) {
          await expect(noScreenshot).toBeInViewport();
          continue;
        }
        await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
        const natural = await image.evaluate((img: HTMLImageElement) => img.naturalWidth);
        expect((await image.boundingBox())!.width, `screenshot width at ${size.width}×${size.height}`).toBeGreaterThanOrEqual(Math.min(400, natural));
      }
      await screenshotsAtDesktopSizes(page, "protocols-qa-review");
      await page.getByTestId("qa-correct").click();
      await expect(page).toHaveURL(new RegExp(`/campaigns/${campaignId}/adjudicate\\?state=qa$`));

      await page.goto(`/campaigns/${campaignId}`);
      await expect(page.getByTestId("protocol-compliance")).toContainText("1 done");
      await screenshotsAtDesktopSizes(page, "protocols-campaign-compliance");
    });
  });
});

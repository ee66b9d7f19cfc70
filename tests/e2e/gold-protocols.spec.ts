/**
 * Gold in every protocol, in Chromium (review 2, #2 and #14): in an Online-Mind2Web campaign with a required
 * question of its own, the campaign page's gold form asks for the failure point, the reasoning and the question,
 * and says beside each field what is missing; a gold failure is then kept with its failure point. The player marks
 * gold too (the failure point starting on the step on screen), and the trajectory list opens it for one picked row.
 */
import { expect, test, type Page } from "./reused-page";
import { storageStateOf } from "./accounts";
import { apiAs, trpc } from "./api";
import { loadFixtures } from "./fixtures";
import { DESKTOP_SIZES, expectCleanLayout, resizeTo, screenshotAt } from "./layout";

const BLOCKER = {
  id: "blocker",
  type: "single_choice",
  prompt: "What blocked the agent?",
  options: ["captcha", "login", "none"],
  required: true,
  when: "failure",
};

test.describe.serial("gold in every protocol", () => {
  test.use({ storageState: storageStateOf("researcher") });
  let campaignId: number;
  let ids: number[];

  test.beforeAll(async ({ baseURL }) => {
    ids = Object.values(loadFixtures().trajectories)
      .sort((a, b) => a - b)
      .slice(0, 3);
    const researcher = await apiAs("researcher", baseURL!);
    const created = await trpc<{ id: number }>(researcher, "mutation", "campaigns.create", {
      name: `Gold OM2W e2e ${Date.now()}`,
      template: "online-mind2web",
      trajectoryIds: ids,
      annotatorsPerItem: 3,
      labelSchema: { questions: [BLOCKER] },
    });
    expect(created.status).toBe(200);
    campaignId = created.data.id;
    await researcher.dispose();
  });

  const errorBeside = (page: Page, field: string) => page.getByTestId("gold-form").locator(`[data-field="${field}"] [data-field-error]`);

  test("the campaign page's gold form asks what the protocol asks and says what is missing beside the field", async ({ page }) => {
    await page.goto(`/campaigns/${campaignId}`);
    const form = page.getByTestId("gold-form");
    await form.getByLabel("Trajectory id").fill(String(ids[0]));
    await form.getByLabel("Known answer").selectOption("failure");
    await expect(form.getByText("Failure point (step)")).toBeVisible();
    await expect(form.getByText("Reasoning (why it failed)")).toBeVisible();
    await expect(form.getByText("What blocked the agent?")).toBeVisible();
    await form.getByRole("button", { name: "Mark gold" }).click();
    await expect(errorBeside(page, "firstFailingStep")).toContainText("a failure needs its failure point");

    await form.getByLabel("Failure point (step)").fill("2");
    await form.getByRole("button", { name: "Mark gold" }).click();
    await expect(errorBeside(page, "note")).toContainText("a failure needs its reasoning");
    await expect(errorBeside(page, "firstFailingStep")).toHaveCount(0);

    await form.getByLabel("Reasoning (why it failed)").fill("It searched the wrong city at step 2.");
    await form.getByRole("button", { name: "Mark gold" }).click();
    await expect(form.locator("#gold-error-answers\\.blocker")).toContainText("an answer is required");
    for (const size of DESKTOP_SIZES) {
      await resizeTo(page, size);
      await expectCleanLayout(page, [
        form.locator('[data-field="firstFailingStep"]'),
        form.locator('[data-field="note"]'),
        form.getByRole("button", { name: "Mark gold" }),
      ]);
      await screenshotAt(page, "gold-form-refused", size);
    }

    await form.getByRole("radio", { name: "captcha" }).check();
    await form.getByRole("button", { name: "Mark gold" }).click();
    await expect(form.getByRole("status")).toContainText(`Trajectory ${ids[0]} is gold: failure`);
    await expect(page.getByTestId("gold-items")).toContainText("failure · from step 2 · 1 answer");
    for (const size of DESKTOP_SIZES) {
      await resizeTo(page, size);
      await expectCleanLayout(page, [page.getByTestId("gold-items"), form]);
      await screenshotAt(page, "gold-form-marked", size);
    }
  });

  test("the player marks gold, its failure point starting on the step on screen", async ({ page }) => {
    await page.goto(`/trajectories/${ids[1]}?step=2`);
    await page.getByTestId("mark-gold").click();
    const dialog = page.getByTestId("gold-dialog");
    await expect(dialog.getByLabel("Campaign")).toContainText("Gold OM2W e2e");
    await dialog.getByLabel("Known answer").selectOption("failure");
    await expect(dialog.getByLabel("Failure point (step)")).toHaveValue("2");
    await dialog.getByLabel("Reasoning (why it failed)").fill("Gave up on the login page.");
    // Keys typed in the dialog stay there: the player does not step underneath.
    await dialog.getByLabel("Reasoning (why it failed)").press("ArrowRight");
    await expect(page).toHaveURL(/step=2/);
    await dialog.getByRole("radio", { name: "login" }).check();
    for (const size of DESKTOP_SIZES) {
      await resizeTo(page, size);
      await expectCleanLayout(page, [dialog]);
      await screenshotAt(page, "gold-player-dialog", size);
    }
    await dialog.getByRole("button", { name: "Mark gold" }).click();
    await expect(dialog.getByRole("status")).toContainText(`Trajectory ${ids[1]} is gold: failure`);
    await expect(dialog.getByLabel("Campaign")).toContainText("gold: failure");
  });

  test("the trajectory list opens the gold form for one picked row", async ({ page }) => {
    await page.goto(`/trajectories?ids=${ids[2]}`);
    await page.getByLabel(`Select trajectory ${ids[2]}`).click();
    await page.getByTestId("gold-from-selection").click();
    await expect(page).toHaveURL(new RegExp(`/trajectories/${ids[2]}\\?gold=1`));
    const dialog = page.getByTestId("gold-dialog");
    await expect(dialog).toBeVisible();
    await dialog.getByRole("button", { name: "Mark gold" }).click();
    await expect(dialog.getByRole("status")).toContainText(`Trajectory ${ids[2]} is gold: success`);
    await dialog.getByRole("button", { name: "Close ✕" }).click();
    await expect(dialog).toHaveCount(0);
  });
});

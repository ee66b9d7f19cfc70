/**
 * The qualification phase in the browser (issue 30 item 6): a researcher chooses two gold items and a threshold on
 * the campaign page (errors beside the fields first); one annotator answers both by keyboard, sees each known answer
 * with its explanation, reloads mid-way and finds the feedback still there, passes and gets a real trajectory; another
 * answers both wrong, is stopped and told whom to ask, and cannot label a real trajectory; the campaign page shows
 * both results. Layout checked and captured at 1280×800, 1440×900 and 1920×1080.
 */
import { expect, test, type Page } from "./reused-page";
import { storageStateOf } from "./accounts";
import { apiAs, trpc } from "./api";
import { loadFixtures } from "./fixtures";
import { DESKTOP_SIZES, expectCleanLayout, resizeTo, screenshotAt } from "./layout";

const WHY_FAILURE = "The agent stopped on the search results and never opened the product page.";
const WHY_SUCCESS = "The confirmation page names the booking the task asked for.";

test.describe.serial("qualification phase", () => {
  let campaignId: number;
  /** Known answer by item number, for the two training items. */
  const known = new Map<number, "success" | "failure">();

  test.beforeAll(async ({ baseURL }) => {
    const ids = Object.values(loadFixtures().trajectories).sort((a, b) => a - b);
    const researcher = await apiAs("researcher", baseURL!);
    const a1 = await apiAs("annotator1", baseURL!);
    const a2 = await apiAs("annotator2", baseURL!);
    const idOf = async (api: typeof a1) => (await trpc<{ userId: string }>(api, "query", "accounts.me", undefined)).data.userId;
    const created = await trpc<{ id: number }>(researcher, "mutation", "campaigns.create", {
      name: `Qualification e2e ${Date.now()}`,
      trajectoryIds: ids.slice(0, 4),
      annotatorsPerItem: 2,
      annotatorIds: [await idOf(a1), await idOf(a2)],
    });
    expect(created.status).toBe(200);
    campaignId = created.data.id;
    for (const [trajectoryId, verdict, note] of [
      [ids[0], "failure", WHY_FAILURE],
      [ids[1], "success", WHY_SUCCESS],
    ] as const) {
      expect((await trpc(researcher, "mutation", "quality.markGold", { campaignId, trajectoryId, verdict, note })).status).toBe(200);
    }
    await Promise.all([researcher.dispose(), a1.dispose(), a2.dispose()]);
  });

  test.describe("the researcher", () => {
    test.use({ storageState: storageStateOf("researcher") });
    test("chooses the training items and the threshold, with errors beside the fields", async ({ page, baseURL }) => {
      await page.goto(`/campaigns/${campaignId}`);
      const panel = page.getByTestId("qualification-panel");
      await expect(panel.getByTestId("qualification-state")).toHaveText("Off");
      const pass = panel.getByLabel("Pass at % right");
      await pass.fill("0");
      await panel.getByRole("button", { name: "Turn qualification on" }).click();
      await expect(panel.locator("#qualification-items-error")).toHaveText("Choose at least one gold item");
      await expect(panel.locator("#qualification-pass-error")).toHaveText("A share of right answers above 0 and at most 100 %");
      await expect(pass).toHaveAttribute("aria-invalid", "true");

      const boxes = panel.getByRole("checkbox");
      await expect(boxes).toHaveCount(2);
      await boxes.nth(0).check();
      await boxes.nth(1).check();
      await pass.fill("100");
      await panel.getByRole("button", { name: "Turn qualification on" }).click();
      await expect(panel.getByTestId("qualification-state")).toHaveText("On: 2 items, pass at 100 %");
      await expect(panel.getByText("Qualification saved.")).toBeVisible();
      await expect(panel.locator("#qualification-items-error")).toHaveCount(0);
      await expect(panel.getByTestId("qualification-results")).toContainText("Nobody has answered a qualification item yet.");

      // What the server stored, read back: the two items, and which answer is known on each (for the annotators).
      const api = await apiAs("researcher", baseURL!);
      const q = await trpc<{ passAt: number; items: { itemNo: number; verdict: "success" | "failure" }[] }>(api, "query", "quality.qualification", {
        campaignId,
      });
      await api.dispose();
      expect(q.data.passAt).toBe(1);
      expect(q.data.items).toHaveLength(2);
      for (const i of q.data.items) known.set(i.itemNo, i.verdict);

      await page.reload();
      await expect(panel.getByRole("checkbox", { checked: true })).toHaveCount(2);
      for (const size of DESKTOP_SIZES) {
        await resizeTo(page, size);
        await panel.scrollIntoViewIfNeeded();
        await expectCleanLayout(page, [panel]);
        await expect(panel.getByRole("button", { name: "Save qualification" })).toBeInViewport();
        await screenshotAt(page, "qualification-setup", size);
      }
    });
  });

  /** Answers the training item on screen by keyboard: right or wrong against its known answer. */
  async function answer(page: Page, right: boolean) {
    const itemNo = Number(new URL(page.url()).pathname.split("/").pop());
    const expected = known.get(itemNo);
    expect(expected, `item ${itemNo} is a training item`).toBeDefined();
    const verdict = right ? expected : expected === "failure" ? "success" : "failure";
    await page.keyboard.press(verdict === "success" ? "s" : "x");
    if (verdict === "failure") await page.keyboard.press("1");
    await page.keyboard.press("Control+Enter");
    await expect(page.getByTestId("qualification-feedback")).toBeVisible();
    await expect(page.getByTestId("qualification-known")).toHaveText(expected!);
    await expect(page.getByTestId("qualification-explanation")).toHaveText(expected === "failure" ? WHY_FAILURE : WHY_SUCCESS);
    await expect(page.getByTestId("qualification-match")).toHaveText(right ? /matches the known answer/ : /differs from the known answer/);
    return itemNo;
  }

  test.describe("an annotator who passes", () => {
    test.use({ storageState: storageStateOf("annotator1") });
    test("answers by keyboard, keeps the feedback over a reload, passes and gets a real trajectory", async ({ page }) => {
      await page.goto(`/annotate/${campaignId}`);
      await expect(page.getByTestId("qualification-banner")).toContainText("Training: 1 of 2");
      // Nothing on the page gives the known answer away before the answer.
      expect(await page.locator("body").innerText()).not.toContain(WHY_FAILURE);
      expect(await page.locator("body").innerText()).not.toContain(WHY_SUCCESS);
      // Skip puts a training item back and hands out the other one (it used to hand out the same item again).
      const skipped = Number(new URL(page.url()).pathname.split("/").pop());
      await page.getByRole("button", { name: "Skip" }).click();
      await expect(page).not.toHaveURL(new RegExp(`/annotate/${campaignId}/${skipped}(\\?|$)`));
      await expect(page.getByTestId("label-panel")).toBeVisible();
      expect(known.has(Number(new URL(page.url()).pathname.split("/").pop())), "skipping hands out the other training item").toBe(true);
      await expect(page.getByTestId("qualification-banner")).toContainText("Training: 1 of 2");
      const first = await answer(page, true);
      await expect(page).toHaveURL(new RegExp(`/annotate/${campaignId}/${first}(\\?|$)`));

      await page.reload();
      await expect(page.getByTestId("qualification-feedback")).toBeVisible();
      await expect(page.getByTestId("qualification-match")).toHaveText(/matches the known answer/);
      await expect(page.getByTestId("qualification-banner")).toContainText("Training: 1 of 2");
      await expect(page.getByTestId("label-panel")).toHaveCount(0);

      await page.keyboard.press("Control+Enter");
      await expect(page.getByTestId("qualification-banner")).toContainText("Training: 2 of 2");
      await expect(page.getByTestId("label-panel")).toBeVisible();
      // A training answer cannot be undone: Undo is off (it used to be on and the server refused it).
      await expect(page.getByRole("button", { name: /^Undo/ })).toBeDisabled();
      // The last training item left cannot be put back: Skip says so and the item stays.
      const last = page.url();
      await page.getByRole("button", { name: "Skip" }).click();
      await expect(page.getByTestId("label-status")).toContainText("last training item");
      expect(page.url()).toBe(last);
      const second = await answer(page, true);
      expect(second).not.toBe(first);
      await expect(page.getByTestId("qualification-passed")).toContainText("Training passed");
      for (const size of DESKTOP_SIZES) {
        await resizeTo(page, size);
        const feedback = page.getByTestId("qualification-feedback");
        await expectCleanLayout(page, [page.getByTestId("qualification-banner"), feedback]);
        await expect(page.getByTestId("qualification-next")).toBeInViewport();
        await screenshotAt(page, "qualification-passed", size);
      }

      await page.keyboard.press("Control+Enter");
      await expect(page.getByTestId("label-panel")).toBeVisible();
      const real = Number(new URL(page.url()).pathname.split("/").pop());
      expect(known.has(real), `item ${real} is a real trajectory`).toBe(false);
      await expect(page.getByTestId("qualification-banner")).toHaveCount(0);
      // Nothing to undo after the last training answer either.
      await expect(page.getByRole("button", { name: /^Undo/ })).toBeDisabled();

      // Back on an earlier training item, the banner counts the training done (it used to read as this item's place).
      await page.goto(`/annotate/${campaignId}/${first}`);
      await expect(page.getByTestId("qualification-feedback")).toBeVisible();
      await expect(page.getByTestId("qualification-banner")).toContainText("Training: 2 of 2 done");
    });
  });

  test.describe("an annotator who fails", () => {
    test.use({ storageState: storageStateOf("annotator2") });
    test("is stopped, told whom to ask, and cannot label a real trajectory", async ({ page }) => {
      await page.goto(`/annotate/${campaignId}`);
      await expect(page.getByTestId("qualification-banner")).toContainText("Training: 1 of 2");
      await answer(page, false);
      await page.keyboard.press("Control+Enter");
      await expect(page.getByTestId("qualification-banner")).toContainText("Training: 2 of 2");
      await answer(page, false);
      const stop = page.getByTestId("qualification-failed");
      await expect(stop).toContainText("Training not passed");
      await expect(stop).toContainText("0 of 2 right, 2 needed");
      await expect(stop).toContainText("Ask Rae Researcher");
      await expect(page.getByTestId("qualification-next")).toHaveCount(0);
      for (const size of DESKTOP_SIZES) {
        await resizeTo(page, size);
        await expectCleanLayout(page, [page.getByTestId("qualification-banner"), page.getByTestId("qualification-feedback")]);
        await expect(stop).toBeInViewport();
        await screenshotAt(page, "qualification-failed", size);
      }

      // The queue says the same, and a real trajectory opened by its address refuses the label.
      await page.goto(`/annotate/${campaignId}`);
      await expect(page.getByText("Training not passed")).toBeVisible();
      await expect(page.getByText(/Ask Rae Researcher to go through your answers/)).toBeVisible();
      const real = [1, 2, 3, 4].find((n) => !known.has(n))!;
      await page.goto(`/annotate/${campaignId}/${real}`);
      await expect(page.getByTestId("label-panel")).toBeVisible();
      await page.keyboard.press("s");
      await page.keyboard.press("Control+Enter");
      await expect(page.getByTestId("label-status")).toContainText("You did not reach the share of right answers");
      await expect(page).toHaveURL(new RegExp(`/annotate/${campaignId}/${real}(\\?|$)`));
    });
  });

  test.describe("the researcher afterwards", () => {
    test.use({ storageState: storageStateOf("researcher") });
    test("sees both results on the campaign page", async ({ page }) => {
      await page.goto(`/campaigns/${campaignId}`);
      const results = page.getByTestId("qualification-results");
      await expect(results.getByRole("row", { name: /Ann One/ })).toContainText("passed");
      await expect(results.getByRole("row", { name: /Ann One/ })).toContainText("2 of 2 (100 %)");
      await expect(results.getByRole("row", { name: /Bo Two/ })).toContainText("failed: gets no trajectories");
      await expect(results.getByRole("row", { name: /Bo Two/ })).toContainText("0 of 2 (0 %)");
      for (const size of DESKTOP_SIZES) {
        await resizeTo(page, size);
        await results.scrollIntoViewIfNeeded();
        await expectCleanLayout(page, [page.getByTestId("qualification-panel")]);
        await expect(results).toBeInViewport();
        await screenshotAt(page, "qualification-results", size);
      }
    });
  });
});

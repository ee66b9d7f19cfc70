/**
 * Defects of UI review 2 in Chromium at the three desktop sizes: a blind annotator reads that the reference answer
 * is withheld, not that none was recorded (#5); the labelling page opens on `?step=` (#15); Human agreement opens
 * on the newest campaign that has labels, not on a newer empty one, and names its label counts (#6).
 */
import { expect, test, type APIRequestContext } from "./reused-page";
import { storageStateOf } from "./accounts";
import { apiAs, trpc } from "./api";
import { loadFixtures } from "./fixtures";
import { DESKTOP_SIZES, expectCleanLayout, resizeTo, screenshotAt } from "./layout";

test.describe.serial("review 2 fixes", () => {
  let labelled: { id: number; name: string };
  let empty: { id: number; name: string };
  let itemNo: number;

  test.beforeAll(async ({ baseURL }) => {
    const ids = Object.values(loadFixtures().trajectories).sort((a, b) => a - b);
    const researcher = await apiAs("researcher", baseURL!);
    const annotator = await apiAs("annotator3", baseURL!);
    const idOf = async (api: APIRequestContext) => (await trpc<{ userId: string }>(api, "query", "accounts.me", undefined)).data.userId;
    const create = async (name: string, trajectoryIds: number[]) => {
      const r = await trpc<{ id: number }>(researcher, "mutation", "campaigns.create", {
        name,
        trajectoryIds,
        annotatorsPerItem: 1,
        annotatorIds: [await idOf(annotator)],
        blind: true,
      });
      expect(r.status).toBe(200);
      return { id: r.data.id, name };
    };
    const stamp = Date.now();
    labelled = await create(`Labelled review-2 ${stamp}`, ids.slice(0, 2));
    // One label in the first campaign; its second item stays to be labelled blind.
    const first = await trpc<{ itemNo: number }>(annotator, "mutation", "labelling.next", { campaignId: labelled.id });
    expect(first.status).toBe(200);
    const submitted = await trpc(annotator, "mutation", "labelling.submit", {
      campaignId: labelled.id,
      itemNo: first.data.itemNo,
      verdict: "success",
      category: null,
      timeSpentMs: 30_000,
      stepsViewed: [0],
      idempotencyKey: `review2-${stamp}`,
    });
    expect(submitted.status).toBe(200);
    const second = await trpc<{ itemNo: number }>(annotator, "mutation", "labelling.next", { campaignId: labelled.id });
    expect(second.status).toBe(200);
    itemNo = second.data.itemNo;
    // A newer campaign with no labels at all.
    empty = await create(`Empty review-2 ${stamp}`, ids.slice(2, 3));
    await Promise.all([researcher.dispose(), annotator.dispose()]);
  });

  test.describe("as a blind annotator", () => {
    test.use({ storageState: storageStateOf("annotator3") });
    test("the reference answer reads withheld, and the page opens on ?step=", async ({ page }) => {
      await page.goto(`/annotate/${labelled.id}/${itemNo}?step=2`);
      await expect(page.getByTestId("step-counter")).toContainText("Step 2 of");
      const panel = page.getByTestId("task-panel");
      await expect(panel.getByTestId("reference-withheld")).toHaveText("Withheld while you label blind.");
      await expect(panel).not.toContainText("None recorded");
      await page.reload();
      await expect(page.getByTestId("step-counter")).toContainText("Step 2 of");
      for (const size of DESKTOP_SIZES) {
        await resizeTo(page, size);
        await expectCleanLayout(page, [panel.getByTestId("reference-withheld"), page.getByTestId("step-counter")]);
        await screenshotAt(page, "review2-blind-reference", size);
      }
    });
  });

  test.describe("as a researcher", () => {
    test.use({ storageState: storageStateOf("researcher") });
    test("Human agreement opens on a campaign with labels, not the newer empty one", async ({ page }) => {
      await page.goto("/analytics/humans");
      const current = page.getByRole("navigation", { name: "Campaign" }).locator('[aria-current="page"]');
      await expect(current).not.toContainText(empty.name);
      await expect(current).not.toContainText(/\b0 labels/);
      await expect(page.getByText("No labels in this campaign yet")).toHaveCount(0);
      await page.goto(`/analytics/humans?campaign=${empty.id}`);
      await expect(page.getByText("Other campaigns have labels: pick one above.")).toBeVisible();
      await page.goto(`/analytics/humans?campaign=${labelled.id}`);
      await expect(current).toContainText(`${labelled.name} 1 label`);
      for (const size of DESKTOP_SIZES) {
        await resizeTo(page, size);
        await expectCleanLayout(page, [current]);
        await screenshotAt(page, "review2-humans-default", size);
      }
    });
  });
});

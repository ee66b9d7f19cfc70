/**
 * Gold items and annotator quality end to end: a researcher marks a gold item in a 2-annotator campaign and mixes
 * gold into every queue; both annotators are handed it first, one answers right and one wrong, neither page says
 * it is gold; the annotator quality page and the campaign page show each one's accuracy on gold.
 */
import { expect, test, type APIRequestContext } from "./reused-page";
import { storageStateOf } from "./accounts";
import { loadFixtures } from "./fixtures";
import { apiAs, trpc } from "./api";
import { expectCleanLayout, resizeTo, screenshotAt } from "./layout";

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
];

test.describe.serial("gold items and annotator quality", () => {
  let campaignId: number;
  let goldItemNo: number;

  test.beforeAll(async ({ baseURL }) => {
    const ids = Object.values(loadFixtures().trajectories).sort((a, b) => a - b);
    const researcher = await apiAs("researcher", baseURL!);
    const a1 = await apiAs("annotator1", baseURL!);
    const a2 = await apiAs("annotator2", baseURL!);
    const idOf = async (api: APIRequestContext) => (await trpc<{ userId: string }>(api, "query", "accounts.me", undefined)).data.userId;
    const created = await trpc<{ id: number }>(researcher, "mutation", "campaigns.create", {
      name: `Quality e2e ${Date.now()}`,
      trajectoryIds: ids.slice(0, 3),
      annotatorsPerItem: 2,
      annotatorIds: [await idOf(a1), await idOf(a2)],
    });
    expect(created.status).toBe(200);
    campaignId = created.data.id;
    expect((await trpc(researcher, "mutation", "quality.markGold", { campaignId, trajectoryId: ids[0], verdict: "success" })).status).toBe(200);
    expect(
      (await trpc(researcher, "mutation", "quality.updateSettings", { campaignId, goldRate: 1, goldWarnBelow: 0.8, goldBlockBelow: 0.5, goldMinAnswered: 1 }))
        .status,
    ).toBe(200);
    // Both annotators are handed the gold item first (rate 1); one answers right, the other wrong.
    for (const [api, verdict] of [
      [a1, "success"],
      [a2, "failure"],
    ] as const) {
      const next = await trpc<{ itemNo: number }>(api, "mutation", "labelling.next", { campaignId });
      expect(next.status).toBe(200);
      goldItemNo = next.data.itemNo;
      const submitted = await trpc(api, "mutation", "labelling.submit", {
        campaignId,
        itemNo: goldItemNo,
        verdict,
        category: verdict === "failure" ? "other" : null,
        timeSpentMs: 42_000,
        stepsViewed: [0, 1],
        idempotencyKey: `gold-e2e-${verdict}-${Date.now()}`,
      });
      expect(submitted.status).toBe(200);
    }
    await Promise.all([researcher.dispose(), a1.dispose(), a2.dispose()]);
  });

  test.describe("as an annotator", () => {
    test.use({ storageState: storageStateOf("annotator1") });
    test("the gold item looks like any other item", async ({ page }) => {
      await page.goto(`/annotate/${campaignId}/${goldItemNo}`);
      await expect(page.getByTestId("label-panel")).toBeVisible();
      const text = (await page.locator("body").innerText()).toLowerCase();
      expect(text).not.toContain("gold");
      expect(text).not.toContain("known answer");
      expect(text).not.toContain("adjudicated");
    });
  });

  test.describe("as the blocked annotator", () => {
    test.use({ storageState: storageStateOf("annotator2") });
    test("is told why no more trajectories come", async ({ page }) => {
      await page.goto(`/annotate/${campaignId}`);
      await expect(page.getByText("No more trajectories for you in this campaign")).toBeVisible();
      await expect(page.getByText(/did not pass its quality checks often enough/)).toBeVisible();
    });
  });

  test.describe("as a researcher", () => {
    test.use({ storageState: storageStateOf("researcher") });
    test("the annotator quality page shows each annotator's accuracy on gold", async ({ page }) => {
      await page.goto(`/analytics/humans/annotators?campaign=${campaignId}`);
      const table = page.locator('[data-figure="annotator-quality"], section:has-text("Gold accuracy")').first();
      await expect(table).toBeVisible();
      const row1 = page.getByRole("row", { name: /Ann One/ });
      const row2 = page.getByRole("row", { name: /Bo Two/ });
      await expect(row1).toContainText("100.0%");
      await expect(row1).toContainText("1/1");
      await expect(row2).toContainText("0.0%");
      await expect(row2).toContainText("blocked");
      await expect(page.locator('[data-annotator="Ann One"]')).toBeVisible();
      for (const size of SIZES) {
        await resizeTo(page, size);
        await expectCleanLayout(page, [page.locator('[data-annotator="Ann One"]')]);
        await screenshotAt(page, "annotator-quality", size);
      }
      await page.goto(`/campaigns/${campaignId}`);
      await expect(page.getByTestId("gold-items")).toContainText("success");
      await expect(page.getByTestId("gold-accuracy")).toContainText("blocked: gets no more trajectories");
      for (const size of SIZES) {
        await resizeTo(page, size);
        await expectCleanLayout(page, [page.getByTestId("gold-items"), page.getByTestId("gold-accuracy")]);
        await screenshotAt(page, "campaign-gold", size);
      }
    });
  });
});

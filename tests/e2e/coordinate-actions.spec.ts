/**
 * Coordinate actions drawn in the player (tests/fixtures/online-mind2web-mini, an Online-Mind2Web run): a click at a
 * point, a scroll by a pixel delta, a drag's path, and a click far down a full-page screenshot, which fits the
 * stage's width and scrolls to the action instead of shrinking to a sliver; at 1280×800, 1440×900 and 1920×1080.
 * WebJudge's key points show in the evaluations panel.
 */
import { expect, test, type Page } from "./reused-page";
import { loadFixtures } from "./fixtures";
import { DESKTOP_SIZES, expectCleanLayout, screenshotAt } from "./layout";

const PIXEL_TASK = "4f1c2b7e9a0d3c5b6e8f1a2b3c4d5e6f";
const ANSWER_ONLY_TASK = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b";
/** The synthetic screens are 1024×768; the full-page one 1024×2400. */
const SCREEN_W = 1024;

function trajectory(task: string): number {
  const id = loadFixtures().onlineMind2Web[task];
  if (id === undefined) throw new Error(`the e2e setup imported no Online-Mind2Web trajectory for ${task}`);
  return id;
}

async function openStep(page: Page, step: number) {
  await page.goto(`/trajectories/${trajectory(PIXEL_TASK)}?step=${step}`);
  await expect(page.getByTestId("step-counter")).toHaveText(`Step ${step} of 8`);
  await expect.poll(() => page.getByTestId("step-image").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  const box = (await page.getByTestId("step-image").boundingBox())!;
  return { box, scale: box.width / SCREEN_W };
}

/** The centre of a mark drawn as a 1×1 anchored SVG (crosshair, scroll arrow), in page coordinates. */
async function anchorOf(page: Page, testId: string) {
  const b = (await page.getByTestId(testId).first().boundingBox())!;
  return { x: b.x, y: b.y };
}

for (const size of DESKTOP_SIZES) {
  test.describe(`coordinate actions at ${size.width}×${size.height}`, () => {
    test.use({ viewport: size });

    test("a click at a point is drawn at that point of the screenshot", async ({ page }) => {
      const { box, scale } = await openStep(page, 2);
      await expect(page.getByTestId("parsed-action")).toHaveText("Click (410, 35)");
      const p = await anchorOf(page, "action-crosshair");
      expect(Math.abs(p.x - (box.x + 410 * scale))).toBeLessThanOrEqual(2);
      expect(Math.abs(p.y - (box.y + 35 * scale))).toBeLessThanOrEqual(2);
      await expectCleanLayout(page, [page.getByTestId("step-stage")]);
      await screenshotAt(page, "coordinate-click", size);
    });

    test("a scroll by a delta is an arrow as long as the page moved, labelled with the pixels", async ({ page }) => {
      const { scale } = await openStep(page, 5);
      const arrow = page.getByTestId("action-scroll");
      await expect(arrow).toHaveAttribute("data-direction", "down");
      const distance = Number(await arrow.getAttribute("data-distance"));
      expect(Math.abs(distance - 400 * scale)).toBeLessThanOrEqual(1);
      await expect(arrow).toContainText("400 px");
      await screenshotAt(page, "coordinate-scroll", size);
    });

    test("a drag is drawn as its path from where it started to where it ended", async ({ page }) => {
      const { scale } = await openStep(page, 6);
      const drag = page.getByTestId("action-drag");
      const [fx, fy] = (await drag.getAttribute("data-from"))!.split(",").map(Number);
      const [tx, ty] = (await drag.getAttribute("data-to"))!.split(",").map(Number);
      expect(Math.abs(fx! - 900 * scale)).toBeLessThanOrEqual(1);
      expect(Math.abs(fy! - 300 * scale)).toBeLessThanOrEqual(1);
      expect(Math.abs(tx! - 500 * scale)).toBeLessThanOrEqual(1);
      expect(Math.abs(ty! - 300 * scale)).toBeLessThanOrEqual(1);
      await screenshotAt(page, "coordinate-drag", size);
    });

    test("a full-page screenshot keeps a readable scale, one for both axes, and scrolls to its click", async ({ page }) => {
      const { box, scale } = await openStep(page, 7);
      const area = page.getByTestId("step-stage-area");
      await expect(area).toHaveAttribute("data-full-page", "true");
      await expect(page.getByTestId("full-page-notice")).toBeVisible();
      const areaBox = (await area.boundingBox())!;
      // Across the stage's width (less a scrollbar), never wider than the screenshot itself.
      expect(box.width).toBeGreaterThanOrEqual(Math.min(SCREEN_W, areaBox.width - 16) - 1);
      expect(Math.abs(box.height / 2400 - scale)).toBeLessThan(0.002);
      // The click near the bottom of the page is where it was recorded, and in sight.
      const p = await anchorOf(page, "action-crosshair");
      expect(Math.abs(p.x - (box.x + 512 * scale))).toBeLessThanOrEqual(2);
      expect(Math.abs(p.y - (box.y + 1900 * scale))).toBeLessThanOrEqual(2);
      expect(p.y).toBeGreaterThan(areaBox.y);
      expect(p.y).toBeLessThan(areaBox.y + areaBox.height);
      await expectCleanLayout(page, [page.getByTestId("step-stage")]);
      await screenshotAt(page, "coordinate-full-page", size);
    });

    test("WebJudge's verdict shows its key points and the steps of its key screenshots", async ({ page }) => {
      await openStep(page, 8);
      await page.keyboard.press("e");
      const card = page.getByTestId("evaluation-verdict").filter({ hasText: "WebJudge (o4-mini, threshold 3)" });
      await expect(card).toBeVisible();
      await expect(card.getByTestId("judge-key-points")).toContainText("Search for a green wireless controller");
      await expect(card.getByTestId("verdict-saw-steps")).toContainText("Saw steps 3, 4, 5, 8");
      await screenshotAt(page, "webjudge-panel", size);
    });
  });
}

test("an answer-only submission plays as its answer with its judge", async ({ page }) => {
  await page.goto(`/trajectories/${trajectory(ANSWER_ONLY_TASK)}`);
  await expect(page.getByTestId("final-answer")).toContainText("restocking fee");
  const verdict = page.getByTestId("evaluation-verdict").filter({ hasText: "Judge in result.json" });
  // Right after the load the key can arrive before the player's key handler is attached (the page is
  // server-rendered): press again only while the panel is still closed, so a handled press is never undone.
  await expect(async () => {
    if (!(await verdict.isVisible())) await page.keyboard.press("e");
    await expect(verdict).toBeVisible({ timeout: 3_000 });
  }).toPass({ timeout: 15_000 });
  await expect(verdict).toContainText("restocking fee");
  await screenshotAt(page, "answer-only", DESKTOP_SIZES[0]);
});

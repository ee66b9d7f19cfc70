/**
 * Region marks in Chromium (issue 30 item 4): an annotator turns the mark mode on with `m`, drags a box and clicks a
 * point on a step's screenshot with a chosen mark label, deletes a stray point, submits; the marks come back after a
 * reload, in the same screenshot pixels. The adjudicator sees both annotators' marks over the screenshot, one colour
 * each, as does the QA review; the Human agreement page shows the campaign's region agreement, and says so when a
 * campaign's labels have no marks. Each page is checked and captured at
 * 1280×800, 1440×900 and 1920×1080.
 *
 * The other annotator's label (region-marks-seed.ts) has one box, "the answer was here", over the middle quarter of
 * the screenshot (37.5 %–62.5 % of each side). The annotator here draws a box from 40 % to 60 % of each side and a
 * point at the centre with the same mark label. Expected by hand: one box comparison; the drawn box lies inside the
 * other, so its IoU is its own area over the other's, (0.2 W · 0.2 H) / (0.25 W · 0.25 H) = 0.64 (a pixel of
 * rounding either way moves that by under 0.02; the figure asserted is worked from the stored pixels), at or above
 * 0.5, so 100 % of the boxes match; the point lies inside the other box: 1 of 1 points agrees (100 %); one pair.
 */
import { expect, test, type Browser, type Page } from "@playwright/test";
import { storageStateOf } from "./accounts";
import { loadFixtures } from "./fixtures";
import { DESKTOP_SIZES, expectCleanLayout, resizeTo, screenshotAt } from "./layout";
import { runScriptJson } from "./scripts";

interface Seeded {
  storageState: string;
  campaignId: number;
  unmarkedCampaignId: number;
  trajectoryId: number;
  size: { width: number; height: number };
  pimBox: { x: number; y: number; width: number; height: number };
}

type Box = { x: number; y: number; width: number; height: number };

/** Intersection over union, worked the textbook way: overlap area over the two areas less the overlap. */
function iouByHand(a: Box, b: Box): number {
  const overlapW = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x));
  const overlapH = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
  const overlap = overlapW * overlapH;
  return overlap / (a.width * a.height + b.width * b.height - overlap);
}

let seeded: Seeded;
let maraBox: Box;

async function pageAs(browser: Browser, state: string): Promise<Page> {
  const context = await browser.newContext({ storageState: state, viewport: DESKTOP_SIZES[0] });
  return context.newPage();
}

async function atEverySize(page: Page, name: string, regions: Parameters<typeof expectCleanLayout>[1]) {
  for (const size of DESKTOP_SIZES) {
    await resizeTo(page, size);
    await expectCleanLayout(page, regions);
    await screenshotAt(page, name, size);
  }
  await resizeTo(page, DESKTOP_SIZES[0]);
}

/** A place on the shown screenshot, as fractions of its width and height, in page coordinates. */
async function at(page: Page, fx: number, fy: number) {
  const box = (await page.getByTestId("step-image").boundingBox())!;
  return { x: box.x + box.width * fx, y: box.y + box.height * fy };
}

test.describe.serial("region marks", () => {
  test.beforeAll(() => {
    const ids = Object.values(loadFixtures().trajectories).sort((a, b) => a - b);
    seeded = runScriptJson("tests/e2e/region-marks-seed.ts", ["setup", "127.0.0.1", ...ids.map(String)]) as Seeded;
  });

  test("an annotator draws a box and a point, deletes a stray one, submits, and finds them after a reload", async ({ browser }) => {
    const page = await pageAs(browser, seeded.storageState);
    await page.goto(`/annotate/${seeded.campaignId}/1`);
    await expect(page.getByTestId("step-image")).toBeVisible();
    await expect(page.getByTestId("step-image")).toHaveJSProperty("complete", true);

    // `?` lists the mark key beside the player's.
    await page.keyboard.press("?");
    await expect(page.getByTestId("shortcuts-help")).toContainText("Region marks: draw on the screenshot");
    // A chord reads as one key, not as two alternatives.
    await expect(page.getByTestId("shortcuts-help").getByRole("row").filter({ hasText: "Submit and go to the next" })).toContainText("Ctrl/⌘+Enter");
    // With the label keys after the player's the list is long: it stays inside the window, scrolling within itself.
    const dialog = (await page.getByTestId("shortcuts-help").getByRole("dialog").boundingBox())!;
    expect(dialog.y).toBeGreaterThanOrEqual(0);
    expect(dialog.y + dialog.height).toBeLessThanOrEqual(DESKTOP_SIZES[0].height);
    await screenshotAt(page, "region-marks-help", DESKTOP_SIZES[0]);
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("shortcuts-help")).toHaveCount(0);

    await page.keyboard.press("m");
    await expect(page.getByTestId("mark-mode")).toHaveAttribute("aria-pressed", "true");
    await expect(page.getByTestId("marking-layer")).toHaveAttribute("data-drawing", "true");
    await page.getByTestId("mark-label").selectOption("the answer was here");

    // A box: press, drag, release.
    const from = await at(page, 0.4, 0.4);
    const to = await at(page, 0.6, 0.6);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 4 });
    await expect(page.getByTestId("mark-preview")).toBeVisible();
    await page.mouse.move(to.x, to.y, { steps: 4 });
    await page.mouse.up();
    // A point at the centre, and a stray one near the corner that is then deleted.
    const centre = await at(page, 0.5, 0.5);
    await page.mouse.click(centre.x, centre.y);
    const stray = await at(page, 0.1, 0.1);
    await page.mouse.click(stray.x, stray.y);
    const list = page.getByTestId("step-mark");
    await expect(list).toHaveCount(3);
    await expect(list.nth(0)).toContainText("Box · the answer was here");
    await expect(list.nth(1)).toContainText("Point · the answer was here");
    // In mark mode a click draws; the zoom stays shut.
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await page.getByRole("button", { name: "Delete mark 3 (the answer was here)" }).click();
    await expect(list).toHaveCount(2);

    const marks = page.getByTestId("marking-layer").getByTestId("region-mark");
    await expect(marks).toHaveCount(2);
    const [x, y, width, height] = (await marks.nth(0).getAttribute("data-mark"))!.split(",").map(Number) as [number, number, number, number];
    maraBox = { x, y, width, height };
    // In the screenshot's own pixels, whatever the scale it is shown at (a pixel either way for rounding).
    const { width: W, height: H } = seeded.size;
    expect(Math.abs(x - 0.4 * W)).toBeLessThanOrEqual(2);
    expect(Math.abs(y - 0.4 * H)).toBeLessThanOrEqual(2);
    expect(Math.abs(width - 0.2 * W)).toBeLessThanOrEqual(2);
    expect(Math.abs(height - 0.2 * H)).toBeLessThanOrEqual(2);
    const [px, py] = (await marks.nth(1).getAttribute("data-mark"))!.split(",").map(Number) as [number, number];
    expect(Math.abs(px - 0.5 * W)).toBeLessThanOrEqual(2);
    expect(Math.abs(py - 0.5 * H)).toBeLessThanOrEqual(2);
    await atEverySize(page, "region-marks-drawing", [page.getByTestId("step-stage"), page.getByTestId("marks-section")]);

    // `m` again leaves the mark mode: a click on the screenshot is the player's again.
    await page.keyboard.press("m");
    await expect(page.getByTestId("mark-mode")).toHaveAttribute("aria-pressed", "false");
    await page.keyboard.press("x");
    await page.keyboard.press("1");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect(page.getByTestId("label-status")).toHaveText("Saved (revision 1)");

    await page.reload();
    await expect(page.getByTestId("marking-layer").getByTestId("region-mark")).toHaveCount(2);
    await expect(page.getByTestId("marking-layer").getByTestId("region-mark").nth(0)).toHaveAttribute("data-mark", `${x},${y},${width},${height}`);
    await expect(page.getByTestId("step-mark")).toHaveCount(2);
    await atEverySize(page, "region-marks-saved", [page.getByTestId("step-stage"), page.getByTestId("marks-section")]);
    await page.context().close();
  });

  test("the adjudicator sees each annotator's marks over the screenshot, one colour each", async ({ browser }) => {
    const page = await pageAs(browser, storageStateOf("researcher"));
    await page.goto(`/campaigns/${seeded.campaignId}/review/${seeded.trajectoryId}`);
    await expect(page.getByTestId("review-label")).toHaveCount(2);
    const layer = page.getByTestId("annotator-marks");
    await expect(layer.locator('[data-annotator="Mara Marker"]')).toHaveCount(2);
    await expect(layer.locator('[data-annotator="Pim Pointer"]')).toHaveCount(1);
    const pim = seeded.pimBox;
    await expect(layer.locator('[data-annotator="Pim Pointer"]')).toHaveAttribute("data-mark", `${pim.x},${pim.y},${pim.width},${pim.height}`);
    const colours = await layer.locator('[data-kind="box"]').evaluateAll((els) => els.map((e) => getComputedStyle(e).borderTopColor));
    expect(new Set(colours).size).toBe(2);
    await expect(page.getByTestId("review-label").filter({ hasText: "Mara Marker" }).getByTestId("marks-summary")).toHaveText("2 marks on step 1");
    await expect(page.getByTestId("review-label").filter({ hasText: "Pim Pointer" }).getByTestId("marks-summary")).toHaveText("1 mark on step 1");
    await atEverySize(page, "region-marks-adjudication", [page.getByTestId("labels-side-by-side"), page.getByTestId("step-stage")]);
    await page.context().close();
  });

  test("the QA review shows them the same way", async ({ browser }) => {
    const page = await pageAs(browser, storageStateOf("researcher"));
    await page.goto(`/qa/${seeded.campaignId}/1`);
    await expect(page.getByTestId("qa-label")).toHaveCount(2);
    const layer = page.getByTestId("annotator-marks");
    await expect(layer.locator('[data-annotator="Mara Marker"]')).toHaveCount(2);
    await expect(layer.locator('[data-annotator="Pim Pointer"]')).toHaveCount(1);
    await expect(page.getByTestId("qa-label").filter({ hasText: "Mara Marker" }).getByTestId("marks-summary")).toHaveText("2 marks on step 1");
    await atEverySize(page, "region-marks-qa", [page.getByTestId("qa-labels"), page.getByTestId("step-stage")]);
    await page.context().close();
  });

  test("Human agreement says when a campaign's labels have no marks", async ({ browser }) => {
    const page = await pageAs(browser, storageStateOf("researcher"));
    await page.goto(`/analytics/humans?campaign=${seeded.unmarkedCampaignId}`);
    const empty = page.getByTestId("region-agreement-empty");
    await expect(empty).toContainText("No label of this campaign has region marks yet");
    await expect(page.getByTestId("region-agreement").locator("[data-stat]")).toHaveCount(0);
    await empty.scrollIntoViewIfNeeded();
    await atEverySize(page, "region-marks-agreement-empty", [empty]);
    await page.context().close();
  });

  test("Human agreement shows the campaign's agreement on regions", async ({ browser }) => {
    const page = await pageAs(browser, storageStateOf("researcher"));
    await page.goto(`/analytics/humans?campaign=${seeded.campaignId}`);
    const section = page.getByTestId("region-agreement");
    await section.scrollIntoViewIfNeeded();
    const iou = iouByHand(maraBox, seeded.pimBox);
    expect(Math.abs(iou - 0.64)).toBeLessThan(0.02);
    await expect(section.locator('[data-stat="region-iou"] [data-value]')).toHaveText(iou.toFixed(2));
    await expect(section.locator('[data-stat="region-matched"] [data-value]')).toHaveText("100%");
    await expect(section.locator('[data-stat="region-points"] [data-value]')).toHaveText("100%");
    await expect(section.locator('[data-stat="region-pairs"] [data-value]')).toHaveText("1");
    for (const size of DESKTOP_SIZES) {
      await resizeTo(page, size);
      await section.scrollIntoViewIfNeeded();
      await expectCleanLayout(page, [section]);
      await screenshotAt(page, "region-marks-agreement", size);
    }
    await page.context().close();
  });
});

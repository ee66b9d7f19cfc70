/**
 * Layout checks and screenshots for the e2e specs: each page is captured at 1280×800, 1440×900 and 1920×1080 into
 * test-results/screens/ (to be looked at; never into the repository: `npm run docs:screenshots` refreshes the
 * README's pictures from there), and asserted to lay out cleanly there: no horizontal overflow, no table header or
 * button label cut off, and the regions a spec names visible, inside the window and apart from each other.
 * Resizing waits for the page to settle into the new size (`resizeTo`) rather than for a fixed time.
 */
import { expect, type Locator, type Page } from "@playwright/test";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const SCREEN_DIR = path.join(root, "test-results", "screens");

/** The desktop sizes every page is checked and looked at in. */
export const DESKTOP_SIZES = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
] as const;

/** The sizes the layout loops of the specs go through: all three desktop sizes. */
export const VIEWPORTS = DESKTOP_SIZES;

/**
 * Resizes the window and waits until the page has laid itself out at the new size: the window reports it, and the
 * document's size is the same two animation-frame pairs in a row (effects that measure the window have run).
 */
export async function resizeTo(page: Page, size: { width: number; height: number }) {
  await page.setViewportSize(size);
  let previous = "";
  await expect
    .poll(
      async () => {
        const now = await page.evaluate(
          () =>
            new Promise<string>((resolve) =>
              requestAnimationFrame(() =>
                requestAnimationFrame(() =>
                  resolve(`${window.innerWidth}x${window.innerHeight} ${document.documentElement.scrollWidth}x${document.documentElement.scrollHeight}`),
                ),
              ),
            ),
        );
        const settled = now === previous && now.startsWith(`${size.width}x${size.height} `);
        previous = now;
        return settled;
      },
      { message: `the page settles at ${size.width}×${size.height}`, intervals: [50, 100, 250] },
    )
    .toBe(true);
}

/** The page never scrolls sideways, and the named boxes neither overflow their own width nor each other. */
export async function expectCleanLayout(page: Page, regions: Locator[] = [], opts: { fitsViewportHeight?: boolean } = {}) {
  const doc = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    scrollHeight: document.documentElement.scrollHeight,
    innerWidth: window.innerWidth,
    innerHeight: window.innerHeight,
  }));
  expect(doc.scrollWidth, "page scrolls horizontally").toBeLessThanOrEqual(doc.innerWidth);
  if (opts.fitsViewportHeight) expect(doc.scrollHeight, "page scrolls vertically").toBeLessThanOrEqual(doc.innerHeight);

  // Column headers are the first thing to clip in fixed-layout tables.
  const clippedHeaders = await page
    .locator("th")
    .evaluateAll((ths) => ths.filter((th) => th.scrollWidth > th.clientWidth + 1).map((th) => th.textContent?.trim()));
  expect(clippedHeaders, "table headers cut off").toEqual([]);
  // A button whose label does not fit shows half a word (or spills over its neighbour).
  const clippedButtons = await page
    .locator("button:visible")
    .evaluateAll((buttons) =>
      buttons.filter((b) => b.clientWidth > 0 && b.scrollWidth > b.clientWidth + 1).map((b) => b.textContent?.trim() || b.getAttribute("aria-label")),
    );
  expect(clippedButtons, "button labels cut off").toEqual([]);

  const boxes = [];
  for (const r of regions) {
    const box = await r.boundingBox();
    expect(box, `region ${r} is not visible`).not.toBeNull();
    const overflow = await r.evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow, `region ${r} overflows its width`).toBeLessThanOrEqual(1);
    expect(box!.x, `region ${r} starts left of the viewport`).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width, `region ${r} ends right of the viewport`).toBeLessThanOrEqual(doc.innerWidth + 0.5);
    boxes.push({ name: String(r), ...box! });
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i]!;
      const b = boxes[j]!;
      const overlapX = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
      const overlapY = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
      expect(overlapX > 1 && overlapY > 1, `${a.name} overlaps ${b.name}`).toBe(false);
    }
  }
}

/** Children of a container must not overlap each other (toolbar buttons, filter controls…). */
export async function expectChildrenApart(container: Locator) {
  const rects = await container.evaluate((el) =>
    [...el.children]
      .map((c) => c.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.height > 0)
      .map((r) => ({ x: r.x, y: r.y, w: r.width, h: r.height })),
  );
  for (let i = 0; i < rects.length; i++) {
    for (let j = i + 1; j < rects.length; j++) {
      const a = rects[i]!;
      const b = rects[j]!;
      const ox = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
      const oy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
      expect(ox > 1 && oy > 1, `children ${i} and ${j} of ${container} overlap`).toBe(false);
    }
  }
}

export async function screenshotAt(page: Page, name: string, size: { width: number; height: number }) {
  await page.screenshot({ path: path.join(SCREEN_DIR, `${name}-${size.width}x${size.height}.png`) });
}

/**
 * At each desktop size: settles into it, checks the layout is clean (with the regions the spec names: its key
 * controls, in view and apart) and captures it into test-results/screens; then returns to the first size.
 */
export async function screenshotsAtDesktopSizes(page: Page, name: string, regions: Locator[] = []) {
  for (const size of DESKTOP_SIZES) {
    await resizeTo(page, size);
    await expectCleanLayout(page, regions);
    await screenshotAt(page, name, size);
  }
  await resizeTo(page, DESKTOP_SIZES[0]);
}

import { expect, test, type Page } from "./reused-page";
import { expectChildrenApart, expectCleanLayout, resizeTo, screenshotAt, VIEWPORTS } from "./layout";
import { loadFixtures, trajectoryId } from "./fixtures";
import { runScriptJson } from "./scripts";

const counter = (page: Page) => page.getByTestId("step-counter");
const stepImage = (page: Page) => page.getByTestId("step-image");

async function imageLoaded(page: Page) {
  await expect.poll(() => stepImage(page).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
}

test.describe("trajectory player: WebVoyager import", () => {
  test("shows the task, the reference answer with its kind and the final answer", async ({ page }) => {
    await page.goto(`/trajectories/${trajectoryId("ShopSite--0")}`);
    await expect(page.getByTestId("task-intent")).toHaveText("Find a green wireless controller rated at least 4.5 stars and report its price.");
    await expect(page.getByTestId("reference-answers")).toContainText("golden");
    await expect(page.getByTestId("reference-answers")).toContainText("$59.99 (Green Wireless Controller)");
    await expect(page.getByTestId("final-answer")).toContainText("$59.99 (Green Wireless Controller, 4.7 stars)");
    await expect(page.getByText("https://shop.example.test/").first()).toBeVisible();
  });

  test("steps with the keyboard and keeps the step in the URL", async ({ page }) => {
    const id = trajectoryId("ShopSite--0");
    await page.goto(`/trajectories/${id}`);
    await expect(counter(page)).toHaveText("Step 1 of 7");
    await imageLoaded(page);
    await expect(page.getByTestId("parsed-action")).toHaveText('Type [2] "green wireless controller" ⏎');

    await page.keyboard.press("ArrowRight");
    await expect(counter(page)).toHaveText("Step 2 of 7");
    await expect(page).toHaveURL(new RegExp(`/trajectories/${id}\\?step=2$`));
    await expect(page.getByTestId("parsed-action")).toHaveText("Click [4]");
    await page.keyboard.press("j");
    await expect(counter(page)).toHaveText("Step 3 of 7");
    await page.keyboard.press("k");
    await expect(counter(page)).toHaveText("Step 2 of 7");
    await page.keyboard.press("ArrowLeft");
    await expect(counter(page)).toHaveText("Step 1 of 7");
    await page.keyboard.press("ArrowLeft");
    await expect(counter(page)).toHaveText("Step 1 of 7");
    await page.keyboard.press("End");
    await expect(counter(page)).toHaveText("Step 7 of 7");
    await expect(page.getByTestId("action-answer")).toContainText("$59.99");
    await page.keyboard.press("Home");
    await expect(counter(page)).toHaveText("Step 1 of 7");

    // The screenshot follows the step and comes as a resized WebP variant, not the PNG.
    const first = await stepImage(page).getAttribute("data-hash");
    await page.keyboard.press("ArrowRight");
    await expect(stepImage(page)).not.toHaveAttribute("data-hash", first!);
    await expect(stepImage(page)).toHaveAttribute("src", /\/api\/screenshots\/[0-9a-f]{64}\?w=\d+&f=webp$/);
    await imageLoaded(page);
  });

  test("a step link reopens that step", async ({ page }) => {
    await page.goto(`/trajectories/${trajectoryId("ShopSite--0")}?step=6`);
    await imageLoaded(page);
    await expect(counter(page)).toHaveText("Step 6 of 7");
    await expect(page.getByTestId("parsed-action")).toHaveText("Click [12]");
    // Label 12 is not among the step's elements: the grounding red flag.
    await expect(page.getByTestId("grounding-flag")).toBeVisible();
    await expect(page.getByText("Target [12] is not among the 4 elements recorded for this step")).toBeVisible();
  });

  test("says the marks are burned in and switches to the raw screenshot with r", async ({ page }) => {
    await page.goto(`/trajectories/${trajectoryId("ShopSite--0")}?step=3`);
    await imageLoaded(page);
    await expect(page.getByTestId("burned-in-notice")).toContainText("Marks burned into image");
    const marked = await stepImage(page).getAttribute("data-hash");
    await expect(page.getByTestId("toggle-raw")).toBeEnabled();
    await page.keyboard.press("r");
    await expect(stepImage(page)).not.toHaveAttribute("data-hash", marked!);
    await expect(page.getByTestId("burned-in-notice")).toContainText("Raw screenshot");
    await imageLoaded(page);
    await page.keyboard.press("r");
    await expect(stepImage(page)).toHaveAttribute("data-hash", marked!);
    // A step without a raw screenshot cannot switch.
    await page.keyboard.press("ArrowRight");
    await expect(page.getByTestId("toggle-raw")).toBeDisabled();
  });

  test("marks repeated actions on the filmstrip", async ({ page }) => {
    await page.goto(`/trajectories/${trajectoryId("ShopSite--0")}`);
    await imageLoaded(page);
    const cells = page.getByTestId("filmstrip-step");
    await expect(cells).toHaveCount(7);
    // Step 5 repeats step 4's "Click [5]".
    await expect(cells.nth(4)).toHaveAttribute("data-loop", "true");
    await expect(cells.nth(0)).not.toHaveAttribute("data-loop", "true");
    await expect(cells.nth(5)).toHaveAttribute("data-grounding", "true");
    await cells.nth(4).click();
    await expect(counter(page)).toHaveText("Step 5 of 7");
    await expect(page.getByText("Same action as the previous step (2 in a row)")).toBeVisible();
  });
});

test.describe("trajectory player: structured Set-of-Marks", () => {
  test("draws the boxes scaled to the image, highlights the target and toggles with o", async ({ page }) => {
    await page.goto(`/trajectories/${trajectoryId("shop-structured-1")}?step=2`);
    await imageLoaded(page);
    const boxes = page.getByTestId("som-box");
    await expect(boxes).toHaveCount(7);
    const target = page.locator('[data-testid="som-box"][data-targeted]');
    await expect(target).toHaveCount(1);
    await expect(target).toHaveAttribute("data-label", "4");

    // The box sits where the element is drawn: stored [40, 150, w, 24] scaled by displayed/natural width.
    const img = await stepImage(page).boundingBox();
    const box = await target.boundingBox();
    const scale = img!.width / 1024;
    expect(Math.abs(box!.x - (img!.x + 40 * scale))).toBeLessThan(1.5);
    expect(Math.abs(box!.y - (img!.y + 150 * scale))).toBeLessThan(1.5);
    expect(Math.abs(box!.height - 24 * scale)).toBeLessThan(1.5);
    await expect(page.getByTestId("action-crosshair")).toBeVisible();

    await page.keyboard.press("o");
    await expect(boxes).toHaveCount(0);
    await expect(page.getByTestId("toggle-som")).toHaveAttribute("aria-pressed", "false");
    // With the boxes hidden the action still shows its target.
    await expect(page.getByTestId("action-target-box")).toBeVisible();
    await page.keyboard.press("o");
    await expect(boxes).toHaveCount(7);
    await page.keyboard.press("a");
    await expect(page.getByTestId("action-crosshair")).toHaveCount(0);
  });

  test("hovering a box shows its label, tag and text", async ({ page }) => {
    await page.goto(`/trajectories/${trajectoryId("shop-structured-1")}?step=2`);
    await imageLoaded(page);
    await page.locator('[data-testid="som-box"][data-label="8"]').hover();
    const tip = page.getByTestId("som-tooltip");
    await expect(tip).toContainText("[8]");
    await expect(tip).toContainText("<button>");
    await expect(tip).toContainText("Add to cart");
  });

  test("draws typed text, scroll, navigation and the answer", async ({ page }) => {
    await page.goto(`/trajectories/${trajectoryId("shop-structured-1")}`);
    await imageLoaded(page);
    await expect(page.getByTestId("action-typed-text")).toContainText("green wireless controller");
    await page.keyboard.press("End");
    await expect(page.getByTestId("action-answer")).toContainText("$59.99");
    await page.goto(`/trajectories/${trajectoryId("shop-structured-1")}?step=4`);
    await imageLoaded(page);
    await expect(page.getByTestId("action-scroll")).toHaveAttribute("data-direction", "down");
    await page.keyboard.press("ArrowRight");
    await expect(page.getByTestId("action-nav-badge")).toHaveText("← Back");
    // Back on the results URL first seen at step 2.
    await expect(page.getByText("revisited URL")).toBeVisible();
    await page.keyboard.press("ArrowRight");
    await expect(page.getByTestId("grounding-flag")).toContainText("Target not in elements");
    await page.goto(`/trajectories/${trajectoryId("shop-structured-1")}?step=3`);
    await expect(page.getByTestId("grounding-flag")).toContainText("Point outside target");
  });

  test("zooms to the full-resolution original and pans by dragging", async ({ page }) => {
    await page.goto(`/trajectories/${trajectoryId("shop-structured-1")}?step=2`);
    await imageLoaded(page);
    await page.keyboard.press("z");
    const zoom = page.getByTestId("zoom-view");
    await expect(zoom).toBeVisible();
    const original = page.getByTestId("zoom-image");
    await expect(original).toHaveAttribute("src", /\/api\/screenshots\/[0-9a-f]{64}$/);
    await expect.poll(() => original.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1024);
    await zoom.getByRole("button", { name: "200%" }).click();
    const scroller = page.getByTestId("zoom-scroll");
    const before = await scroller.evaluate((el) => ({ left: el.scrollLeft, top: el.scrollTop }));
    const area = await scroller.boundingBox();
    await page.mouse.move(area!.x + area!.width / 2, area!.y + area!.height / 2);
    await page.mouse.down();
    await page.mouse.move(area!.x + area!.width / 2 - 200, area!.y + area!.height / 2 - 120, { steps: 5 });
    await page.mouse.up();
    const after = await scroller.evaluate((el) => ({ left: el.scrollLeft, top: el.scrollTop }));
    expect(after.left - before.left).toBeGreaterThan(150);
    expect(after.top - before.top).toBeGreaterThan(80);
    await screenshotAt(page, "player-zoom", { width: 1280, height: 800 });
    await page.keyboard.press("Escape");
    await expect(zoom).toHaveCount(0);
    await page.keyboard.press("z");
    await expect(zoom).toBeVisible();
    await page.keyboard.press("z");
    await expect(zoom).toHaveCount(0);
  });

  test("plays and pauses with space, faster with +", async ({ page }) => {
    // The page's clock is the test's: time passes as usual until the test runs it forward by hand.
    await page.clock.install();
    await page.goto(`/trajectories/${trajectoryId("shop-structured-1")}`);
    await expect(counter(page)).toHaveText("Step 1 of 7");
    await imageLoaded(page); // hydrated: the key handler is attached
    await page.keyboard.press("+");
    await page.keyboard.press("+");
    await expect(page.getByTestId("speed")).toHaveText("4×");
    await page.keyboard.press(" ");
    await expect(page.getByTestId("play")).toHaveAttribute("aria-pressed", "true");
    await expect(counter(page)).toHaveText(/Step [3-7] of 7/, { timeout: 5000 });
    await page.keyboard.press(" ");
    await expect(page.getByTestId("play")).toHaveAttribute("aria-pressed", "false");
    const stopped = await counter(page).innerText();
    // Two seconds of the page's time (eight steps at 4×) pass with every timer due in them: still where it stopped.
    await page.clock.runFor(2_000);
    await expect(counter(page)).toHaveText(stopped);
  });

  test("? lists the shortcuts", async ({ page }) => {
    await page.goto(`/trajectories/${trajectoryId("shop-structured-1")}`);
    await imageLoaded(page);
    await page.keyboard.press("?");
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await expect(help).toBeVisible();
    await expect(help).toContainText("Previous step");
    // Keys do not step underneath the open help.
    await page.keyboard.press("ArrowRight");
    await expect(counter(page)).toHaveText("Step 1 of 7");
    await page.keyboard.press("Escape");
    await expect(help).toHaveCount(0);
  });

  test("an unknown trajectory id is a not-found page", async ({ page }) => {
    await page.goto("/trajectories/987654");
    await expect(page.getByRole("heading", { name: "Trajectory not found" })).toBeVisible();
  });
});

test.describe("trajectory player: layout", () => {
  for (const size of VIEWPORTS) {
    test(`reads well at ${size.width}×${size.height}`, async ({ page }) => {
      await resizeTo(page, size);
      for (const [name, task, step] of [
        ["player-webvoyager", "ShopSite--0", 6],
        ["player-structured", "shop-structured-1", 2],
        ["player-answer", "shop-structured-1", 7],
      ] as const) {
        await page.goto(`/trajectories/${trajectoryId(task)}?step=${step}`);
        await imageLoaded(page);
        await expectCleanLayout(
          page,
          [
            page.getByRole("complementary", { name: "Task" }),
            page.getByRole("region", { name: "Step viewer" }),
            page.getByRole("complementary", { name: "Step details" }),
          ],
          { fitsViewportHeight: true },
        );
        await expectCleanLayout(page, [page.getByRole("toolbar", { name: "Player controls" })]);
        await expectChildrenApart(page.getByRole("toolbar", { name: "Player controls" }));
        // The screenshot is fully inside the stage.
        const stage = await page.getByTestId("step-stage").boundingBox();
        const viewer = await page.getByRole("region", { name: "Step viewer" }).boundingBox();
        expect(stage!.x).toBeGreaterThanOrEqual(viewer!.x);
        expect(stage!.x + stage!.width).toBeLessThanOrEqual(viewer!.x + viewer!.width + 0.5);
        await screenshotAt(page, name, size);
      }
    });
  }

  test("the shared WebVoyager examples play too", async ({ page }) => {
    test.skip(!loadFixtures().sharedExamples, "../shared/fixtures/webvoyager is not present in this checkout");
    await page.goto(`/trajectories/${trajectoryId("Amazon--0")}`);
    await expect(counter(page)).toHaveText("Step 1 of 3");
    await imageLoaded(page);
    await page.keyboard.press("End");
    await expect(page.getByTestId("action-answer")).toContainText("Xbox");
    for (const size of VIEWPORTS) {
      await resizeTo(page, size);
      await imageLoaded(page);
      await screenshotAt(page, "player-shared-amazon", size);
    }
  });
});

/** Runs tests/e2e/long-trajectory-seed.ts against the e2e database; returns its JSON output. */
function longSeed(...args: string[]): { id: number; lastHash: string } {
  return runScriptJson<{ id: number; lastHash: string }>("tests/e2e/long-trajectory-seed.ts", args);
}

test.describe("trajectory player: a long trajectory, paged", () => {
  const STEPS = 300;
  let long: { id: number; lastHash: string };
  test.beforeAll(() => {
    long = longSeed("seed", String(STEPS), String(trajectoryId("ShopSite--0")));
  });
  test.afterAll(() => {
    longSeed("clean");
  });

  test("End jumps to the last step, past the first window, with its screenshot, action and thought", async ({ page }) => {
    const windows: string[] = [];
    page.on("request", (r) => {
      if (/trajectories\.steps/.test(r.url())) windows.push(decodeURIComponent(r.url()));
    });
    await page.goto(`/trajectories/${long.id}`);
    await expect(counter(page)).toHaveText(`Step 1 of ${STEPS}`);
    await imageLoaded(page);
    await expect(page.getByTestId("step-thought")).toContainText("Step 0: ");
    // Only the cells around the playhead are in the page, not all 300.
    expect(await page.getByTestId("filmstrip-step").count()).toBeLessThan(STEPS);

    await page.keyboard.press("End");
    await expect(counter(page)).toHaveText(`Step ${STEPS} of ${STEPS}`);
    await expect(page).toHaveURL(new RegExp(`\\?step=${STEPS}$`));
    await expect(stepImage(page)).toHaveAttribute("data-hash", long.lastHash);
    await imageLoaded(page);
    await expect(page.getByTestId("parsed-action")).toHaveText(`Answer "final answer after ${STEPS} steps"`);
    await expect(page.getByTestId("action-answer")).toContainText(`final answer after ${STEPS} steps`);
    await expect(page.getByTestId("step-thought")).toContainText(`Step ${STEPS - 1}: `);
    const lastCell = page.locator(`[data-testid="filmstrip-step"][data-position="${STEPS - 1}"]`);
    await expect(lastCell).toHaveAttribute("aria-current", "step");
    await expect(lastCell).toBeInViewport();
    // The last step's details came as a window of its own (positions 250–299), not with the first payload.
    expect(windows.some((u) => u.includes('"from":250'))).toBe(true);
    await screenshotAt(page, "player-long-trajectory-end", { width: 1280, height: 800 });

    // Stepping back and jumping home keep working across windows.
    await page.keyboard.press("ArrowLeft");
    await expect(counter(page)).toHaveText(`Step ${STEPS - 1} of ${STEPS}`);
    await expect(page.getByTestId("step-thought")).toContainText(`Step ${STEPS - 2}: `);
    await page.keyboard.press("Home");
    await expect(counter(page)).toHaveText(`Step 1 of ${STEPS}`);
    await expect(page.getByTestId("step-thought")).toContainText("Step 0: ");
    await page.goto(`/trajectories/${long.id}?step=151`);
    await expect(counter(page)).toHaveText(`Step 151 of ${STEPS}`);
    await expect(page.getByTestId("step-thought")).toContainText("Step 150: ");
  });
});

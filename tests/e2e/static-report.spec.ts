/**
 * A shareable report of the demo data, built by the command line, opens from the file system (file://, no server) in
 * Chromium: the index lists every trajectory, a player shows a step's screenshot with its overlay, and the arrow
 * keys step through it. A link to a step (and a region) of a report's player opens there, follows the step on screen,
 * and "Copy link to this step" (or l) copies it. Checked and captured at the three desktop sizes.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { expect, test, type Page } from "@playwright/test";
import { DESKTOP_SIZES, expectCleanLayout, resizeTo, screenshotAt } from "./layout";
import { runScriptJson } from "./scripts";

function buildReport(out: string): { trajectories: number; steps: number; screenshots: number } {
  return runScriptJson<{ trajectories: number; steps: number; screenshots: number }>("scripts/cli.ts", ["report", "--out", out, "--json"]);
}

/** Presses `key` until the player shows `expected` (the first press can come before the script has run). */
async function pressToStep(page: Page, key: string, expected: string) {
  await expect(async () => {
    if ((await page.locator("#step-position").innerText()) !== expected) await page.keyboard.press(key);
    await expect(page.locator("#step-position")).toHaveText(expected, { timeout: 3_000 });
  }).toPass({ timeout: 15_000 });
}

async function imageLoaded(page: Page) {
  await page.waitForFunction(() => {
    const img = document.querySelector<HTMLImageElement>(".stage img");
    return !!img && img.complete && img.naturalWidth > 0;
  });
}

test("a report of the demo data opens from the file system and plays a trajectory with the arrow keys", async ({ page }) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-report-"));
  const built = buildReport(out);
  expect(built.trajectories).toBeGreaterThan(1);
  const failed: string[] = [];
  page.on("requestfailed", (r) => failed.push(r.url()));
  page.on("pageerror", (e) => failed.push(e.message));

  await page.goto(pathToFileURL(path.join(out, "index.html")).href);
  await expect(page.locator("table.trajectories tbody tr")).toHaveCount(built.trajectories);
  for (const size of DESKTOP_SIZES) {
    await resizeTo(page, size);
    await expectCleanLayout(page);
    await screenshotAt(page, "static-report-index", size);
  }

  // The trajectory with the most steps, as the manifest counts them, opened from the index.
  const manifest = JSON.parse(fs.readFileSync(path.join(out, "manifest.json"), "utf8")) as { trajectories: { n: number; steps: number }[] };
  const { n } = manifest.trajectories.reduce((a, b) => (b.steps > a.steps ? b : a));
  await page.locator(`table.trajectories a[href="t/${n}.html"]`).first().click();
  await expect(page).toHaveURL(new RegExp(`/t/${n}\\.html$`));
  const position = page.locator("#step-position");
  await expect(position).toHaveText(/^Step 1 of \d+$/);
  const count = Number((await position.innerText()).match(/of (\d+)/)![1]);
  expect(count).toBeGreaterThan(1);
  const thought1 = await page.locator("pre.thought").innerText();

  // Forward with the arrow key to the first step with a screenshot: it loads from the file system, overlay drawn over it.
  let at = 1;
  while ((await page.locator(".stage img").count()) === 0) {
    expect(at).toBeLessThan(count);
    await pressToStep(page, "ArrowRight", `Step ${++at} of ${count}`);
  }
  await imageLoaded(page);
  await expect(page.locator(".stage svg")).toBeVisible();
  await expect(page.locator("#prev-step")).toBeEnabled({ enabled: at > 1 });
  for (const size of DESKTOP_SIZES) {
    await resizeTo(page, size);
    await expectCleanLayout(page);
    await screenshotAt(page, "static-report-player", size);
  }
  if (at < count) await pressToStep(page, "ArrowRight", `Step ${++at} of ${count}`);
  while (at > 1) await pressToStep(page, "ArrowLeft", `Step ${--at} of ${count}`);
  await pressToStep(page, "ArrowLeft", `Step 1 of ${count}`);
  await expect(page.locator("pre.thought")).toHaveText(thought1);
  await page.keyboard.press("ArrowLeft");
  await expect(position).toHaveText(`Step 1 of ${count}`);
  expect(failed).toEqual([]);
});

test.describe("links to a step of a report", () => {
  test.use({ permissions: ["clipboard-read", "clipboard-write"] });

  test("open the player at the linked step with its region drawn, follow the step, and copy a link that opens there", async ({ page, context }) => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-report-links-"));
    buildReport(out);
    const failed: string[] = [];
    page.on("requestfailed", (r) => failed.push(r.url()));
    page.on("pageerror", (e) => failed.push(e.message));
    const manifest = JSON.parse(fs.readFileSync(path.join(out, "manifest.json"), "utf8")) as { trajectories: { n: number; steps: number }[] };
    const { n, steps } = manifest.trajectories.reduce((a, b) => (b.steps > a.steps ? b : a));
    const player = pathToFileURL(path.join(out, "t", `${n}.html`)).href;
    await page.goto(player);
    await expect(page.locator("#step-position")).toHaveText(`Step 1 of ${steps}`);
    // The first step with a screenshot that has a next step: the region is drawn on it, and the link moves on from it.
    const shot = await page.evaluate(() => {
      const t = (window as unknown as { VERDICT_TRAJECTORY: { steps: { image: string | null }[] } }).VERDICT_TRAJECTORY;
      return t.steps.findIndex((s, i) => !!s.image && i < t.steps.length - 1) + 1;
    });
    expect(shot, "the longest demo trajectory has a screenshot before its last step").toBeGreaterThan(0);

    // Opened fresh from a link with a step and a region.
    await page.goto("about:blank");
    await page.goto(`${player}#step=${shot}&region=40,30,200,120`);
    await expect(page.locator("#step-position")).toHaveText(`Step ${shot} of ${steps}`);
    await imageLoaded(page);
    const region = page.locator(".stage svg rect.region");
    await expect(region).toHaveCount(1);
    expect(await region.evaluate((r) => ["x", "y", "width", "height"].map((a) => r.getAttribute(a)))).toEqual(["40", "30", "200", "120"]);
    for (const size of DESKTOP_SIZES) {
      await resizeTo(page, size);
      await expectCleanLayout(page);
      await screenshotAt(page, "static-report-step-link", size);
    }

    // The button copies the page's address at this step, region kept.
    const clip = () => page.evaluate(() => navigator.clipboard.readText());
    const button = page.locator("#copy-step-link");
    await expect(button).toHaveText("Copy link to this step");
    await button.click();
    await expect(page.locator("#copy-step-link")).toHaveText("Link copied");
    expect(await clip()).toBe(`${player}#step=${shot}&region=40,30,200,120`);

    // A step forward: the address follows and the region (of the linked step) is gone; l copies the new step.
    await pressToStep(page, "ArrowRight", `Step ${shot + 1} of ${steps}`);
    await expect(page.locator(".stage svg rect.region")).toHaveCount(0);
    await expect(page.locator("#copy-step-link")).toHaveText("Copy link to this step");
    expect(page.url()).toBe(`${player}#step=${shot + 1}`);
    await page.evaluate(() => navigator.clipboard.writeText(""));
    await page.keyboard.press("l");
    await expect.poll(clip).toBe(`${player}#step=${shot + 1}`);

    // The copied link, opened in another tab, lands on that step.
    const other = await context.newPage();
    await other.goto(await clip());
    await expect(other.locator("#step-position")).toHaveText(`Step ${shot + 1} of ${steps}`);
    await other.close();

    // A link that does not parse opens the first step; one past the end, the last; neither draws a region.
    await page.goto("about:blank");
    await page.goto(`${player}#step=two&region=1,2`);
    await expect(page.locator("#step-position")).toHaveText(`Step 1 of ${steps}`);
    await expect(page.locator(".stage svg rect.region")).toHaveCount(0);
    await page.goto("about:blank");
    await page.goto(`${player}#step=999999`);
    await expect(page.locator("#step-position")).toHaveText(`Step ${steps} of ${steps}`);
    expect(page.url()).toBe(`${player}#step=${steps}`);
    expect(failed).toEqual([]);
    fs.rmSync(out, { recursive: true, force: true });
  });
});

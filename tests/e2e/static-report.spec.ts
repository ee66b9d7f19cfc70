/**
 * A shareable report of the demo data, built by the command line, opens from the file system (file://, no server) in
 * Chromium: the index lists every trajectory, a player shows a step's screenshot with its overlay, and the arrow
 * keys step through it. Checked and captured at the three desktop sizes.
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

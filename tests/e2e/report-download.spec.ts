/**
 * A shareable report from the dashboard: a researcher (the e2e admin) picks trajectories in the list, opens "Download
 * report" from the keyboard, chooses what to publish, follows the worker's job to the download link, downloads the
 * zip, unpacks it, and opens its index.html from the file system (file://, no server) in Chromium, where a
 * trajectory plays: a step forward shows its screenshot. A campaign's page builds the report of its trajectories,
 * which then shows in "Your reports" on the account page with its size and expiry, downloads from there and is
 * removed (asked twice). Checked and captured at the three desktop sizes.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { expect, test, type Page } from "./reused-page";
import yauzl from "yauzl";
import { apiAs, mutation, query } from "./api";
import { loadFixtures, trajectoryId } from "./fixtures";
import { DESKTOP_SIZES, expectCleanLayout, resizeTo, screenshotAt } from "./layout";

/** Unpacks every file of the zip under `dir`; resolves to their names. */
/**
 * Opens the report dialog from the keyboard, as a user reaching the button with Tab would: focus "Download report"
 * and press Enter, again until the dialog shows (the first press can land before the page has hydrated).
 */
async function openReportDialog(page: Page) {
  const dialog = page.getByTestId("report-dialog");
  await expect(async () => {
    await page.getByTestId("download-report").focus();
    await page.keyboard.press("Enter");
    await expect(dialog).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  return dialog;
}

function unzipTo(file: string, dir: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const names: string[] = [];
      zip.on("entry", (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith("/")) return zip.readEntry();
        const target = path.join(dir, entry.fileName);
        if (!target.startsWith(dir + path.sep)) return reject(new Error(`entry outside the folder: ${entry.fileName}`));
        names.push(entry.fileName);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          stream.pipe(fs.createWriteStream(target)).on("finish", () => zip.readEntry());
        });
      });
      zip.on("end", () => resolve(names));
      zip.on("error", reject);
      zip.readEntry();
    });
  });
}

/** Presses `key` until the player shows `expected` (the first press can come before its script has run). */
async function pressToStep(page: Page, key: string, expected: string) {
  await expect(async () => {
    if ((await page.locator("#step-position").innerText()) !== expected) await page.keyboard.press(key);
    await expect(page.locator("#step-position")).toHaveText(expected, { timeout: 3_000 });
  }).toPass({ timeout: 15_000 });
}

async function capture(page: Page, name: string) {
  for (const size of DESKTOP_SIZES) {
    await resizeTo(page, size);
    await expectCleanLayout(page);
    await screenshotAt(page, name, size);
  }
}

test("a researcher builds a report from the list, downloads it, and plays a trajectory of it from the file system", async ({ page }) => {
  test.setTimeout(180_000);
  const shop = trajectoryId("ShopSite--0");
  const other = Object.entries(loadFixtures().trajectories).find(([, id]) => id !== shop)![1];
  const ids = [shop, other].sort((a, b) => a - b);
  await page.goto(`/trajectories?ids=${ids.join(",")}`);
  await expect(page.getByTestId("trajectory-row")).toHaveCount(2);

  const dialog = await openReportDialog(page);
  await expect(dialog).toContainText("the 2 trajectories these filters select");
  await page.getByTestId("report-title").fill("Two trajectories for the reviewers");
  await page.getByLabel("Consolidated and every annotator's label").check();
  await capture(page, "report-dialog-choices");

  await page.getByTestId("report-start").click();
  const link = page.getByTestId("report-download");
  await expect(link).toBeVisible({ timeout: 90_000 });
  await expect(dialog).toContainText(/2 trajectories, \d+ steps/);
  await expect(page.getByTestId("report-error")).toHaveCount(0);
  await capture(page, "report-dialog-ready");

  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  expect(download.suggestedFilename()).toMatch(/^verdict-report-\d+\.zip$/);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-dashboard-report-"));
  const names = await unzipTo(await download.path(), out);
  expect(names).toEqual(expect.arrayContaining(["index.html", "manifest.json", "t/1.html", "t/2.html"]));
  const manifest = JSON.parse(fs.readFileSync(path.join(out, "manifest.json"), "utf8")) as {
    title: string;
    counts: { trajectories: number };
    published: { labels: string; annotatorNames: boolean };
    trajectories: { n: number; steps: number }[];
  };
  expect(manifest).toMatchObject({
    title: "Two trajectories for the reviewers",
    counts: { trajectories: 2 },
    published: { labels: "all", annotatorNames: false },
  });

  // From the file system, as the reviewer who receives the zip opens it.
  const failed: string[] = [];
  page.on("requestfailed", (r) => failed.push(r.url()));
  page.on("pageerror", (e) => failed.push(e.message));
  await page.goto(pathToFileURL(path.join(out, "index.html")).href);
  await expect(page.locator("table.trajectories tbody tr")).toHaveCount(2);
  await expect(page.locator("h1")).toContainText("Two trajectories for the reviewers");
  const { n } = manifest.trajectories.reduce((a, b) => (b.steps > a.steps ? b : a));
  await page.locator(`table.trajectories a[href="t/${n}.html"]`).first().click();
  const position = page.locator("#step-position");
  await expect(position).toHaveText(/^Step 1 of \d+$/);
  const count = Number((await position.innerText()).match(/of (\d+)/)![1]);
  expect(count).toBeGreaterThan(1);
  // Forward to the first step with a screenshot (at least one step forward), loaded from the unpacked folder.
  let at = 1;
  do {
    expect(at).toBeLessThan(count);
    await pressToStep(page, "ArrowRight", `Step ${++at} of ${count}`);
  } while ((await page.locator(".stage img").count()) === 0);
  await page.waitForFunction(() => {
    const img = document.querySelector<HTMLImageElement>(".stage img");
    return !!img && img.complete && img.naturalWidth > 0;
  });
  await capture(page, "report-dialog-played");
  expect(failed).toEqual([]);
  fs.rmSync(out, { recursive: true, force: true });
});

test("a campaign page builds the campaign's report, which Your reports lists, downloads and removes", async ({ page, baseURL }, info) => {
  test.setTimeout(180_000);
  const name = `Reported campaign ${info.retry}${Date.now().toString(36)}`;
  const api = await apiAs("admin", baseURL!);
  const ids = Object.values(loadFixtures().trajectories).sort((a, b) => a - b);
  const campaign = await mutation<{ id: number }>(api, "campaigns.create", { name, trajectoryIds: ids.slice(0, 2), blind: false });
  await api.dispose();

  await page.goto(`/campaigns/${campaign.id}`);
  const dialog = await openReportDialog(page);
  await expect(dialog).toContainText("the 2 trajectories of this campaign");
  await expect(page.getByTestId("report-title")).toHaveValue(name);
  await page.getByTestId("report-start").click();
  await expect(page.getByTestId("report-download")).toBeVisible({ timeout: 90_000 });
  await expect(dialog).toContainText(/2 trajectories, \d+ steps/);
  await capture(page, "report-campaign-ready");

  await dialog.getByRole("link", { name: "Your reports" }).click();
  await expect(page).toHaveURL(/\/account#reports$/);
  const row = page.getByTestId("my-report").filter({ hasText: name });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("ready");
  await expect(row).toContainText(/\d+\.\d MB/);
  await capture(page, "report-my-reports");
  const [download] = await Promise.all([page.waitForEvent("download"), row.getByTestId("my-report-download").click()]);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-campaign-report-"));
  const names = await unzipTo(await download.path(), out);
  expect(names).toEqual(expect.arrayContaining(["index.html", "t/1.html", "t/2.html"]));
  expect(names).not.toContain("t/3.html");
  fs.rmSync(out, { recursive: true, force: true });

  await row.getByTestId("remove-report").click();
  await page.getByTestId("confirm-remove-report").click();
  await expect(row).toHaveCount(0);
});

test("a run page builds the run's report: every trajectory of the run and no other, named in the manifest", async ({ page, baseURL }) => {
  test.setTimeout(180_000);
  const api = await apiAs("admin", baseURL!);
  const runs = await query<{ id: number; name: string; trajectoryCount: number }[]>(api, "runs.list");
  await api.dispose();
  // A small run of more than one trajectory (the setup imports several), so the report is quick and the count means something.
  const small = runs.filter((r) => r.trajectoryCount > 1 && r.trajectoryCount <= 20).sort((a, b) => a.trajectoryCount - b.trajectoryCount);
  expect(small.length, "the e2e setup imported a run of 2 to 20 trajectories").toBeGreaterThan(0);
  const run = small[0]!;
  const others = runs.filter((r) => r.id !== run.id).reduce((n, r) => n + r.trajectoryCount, 0);
  expect(others, "other runs' trajectories exist, so a report of the whole catalogue would be told apart").toBeGreaterThan(0);

  await page.goto(`/runs/${run.id}`);
  await expect(page.getByRole("heading", { name: run.name, exact: true })).toBeVisible();
  const dialog = await openReportDialog(page);
  await expect(dialog).toContainText(`the ${run.trajectoryCount} trajectories of run “${run.name}”`);
  await expect(page.getByTestId("report-title")).toHaveValue(run.name);
  await capture(page, "report-run-choices");
  await page.getByTestId("report-start").click();
  const link = page.getByTestId("report-download");
  await expect(link).toBeVisible({ timeout: 90_000 });
  await expect(dialog.getByRole("status")).toContainText(new RegExp(`^Download the zip${run.trajectoryCount} trajectories, \\d+ steps`));
  await capture(page, "report-run-ready");

  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-run-report-"));
  const names = await unzipTo(await download.path(), out);
  const players = names.filter((n) => /^t\/\d+\.html$/.test(n));
  expect(players).toHaveLength(run.trajectoryCount);
  const manifest = JSON.parse(fs.readFileSync(path.join(out, "manifest.json"), "utf8")) as {
    title: string;
    selection: { filter: string; trajectories: number };
    counts: { trajectories: number };
    published: { annotatorNames: boolean };
    trajectories: { run: string }[];
  };
  expect(manifest.title).toBe(run.name);
  expect(manifest.selection).toEqual({ filter: `?run=${run.id}`, trajectories: run.trajectoryCount });
  expect(manifest.counts.trajectories).toBe(run.trajectoryCount);
  expect(manifest.published.annotatorNames).toBe(false);
  expect(new Set(manifest.trajectories.map((t) => t.run))).toEqual(new Set([run.name]));

  // Opened from the file system, the index lists the run's trajectories.
  await page.goto(pathToFileURL(path.join(out, "index.html")).href);
  await expect(page.locator("table.trajectories tbody tr")).toHaveCount(run.trajectoryCount);
  await capture(page, "report-run-index");
  fs.rmSync(out, { recursive: true, force: true });
});

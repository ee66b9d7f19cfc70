/**
 * The Import page in Chromium: a researcher uploads a .zip of WebVoyager results where one trajectory is broken,
 * follows the progress, and reads the report (two created, one skipped with the file and the reason) with links
 * to the new trajectories; an upload past the size limit is refused with 413; annotators are refused.
 *
 * The e2e server runs with VERDICT_IMPORT_MAX_UPLOAD_MB=4 (tests/playwright.config.ts) so the limit is cheap to
 * reach.
 */
import { expect, test } from "./reused-page";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import yazl from "yazl";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";
import { storageStateOf } from "./accounts";
import { expectCleanLayout, resizeTo, screenshotAt, VIEWPORTS } from "./layout";

const dir = () => process.env.VERDICT_E2E_DIR!;

async function zipFolder(folder: string, file: string, prefix: string, extra: Record<string, Buffer> = {}) {
  const zip = new yazl.ZipFile();
  for (const rel of fs.readdirSync(folder, { recursive: true }) as string[]) {
    const abs = path.join(folder, rel);
    if (fs.statSync(abs).isFile()) zip.addFile(abs, `${prefix}/${rel.split(path.sep).join("/")}`);
  }
  for (const [name, data] of Object.entries(extra)) zip.addBuffer(data, name, { compress: false });
  zip.end();
  await new Promise<void>((resolve) => zip.outputStream.pipe(fs.createWriteStream(file)).on("close", () => resolve()));
  return file;
}

test.describe("Import page (researcher)", () => {
  test.use({ storageState: storageStateOf("researcher") });

  test("uploads a zip, shows progress, then the per-trajectory report with links", async ({ page }) => {
    const src = path.join(dir(), "import-e2e", "results");
    await writeWebVoyagerFixture(
      src,
      [
        { id: "Upload--1", intent: "Find the upload page.", url: "https://upload.test/", actions: ["Click [0]", "ANSWER; found"] },
        { id: "Upload--2", intent: "This one is broken.", url: "https://upload.test/", actions: ["Click [0]", "ANSWER; no"] },
        { id: "Upload--3", intent: "Read the report.", url: "https://upload.test/", actions: ["Click [1]", "Click [0]", "ANSWER; read"] },
      ],
      4100,
    );
    fs.writeFileSync(path.join(src, "taskUpload--2", "screenshot2.png"), "this is not a png");
    const zipFile = await zipFolder(src, path.join(dir(), "import-e2e", "webvoyager-results.zip"), "results");

    await page.goto("/import");
    await expect(page.getByRole("heading", { name: "Import trajectories" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Import", exact: true })).toBeVisible();
    await page.getByLabel("Archive").setInputFiles(zipFile);
    await page.getByRole("button", { name: "Upload and import" }).click();

    const report = page.getByTestId("import-report");
    await expect(report).toBeVisible({ timeout: 30_000 });
    await expect(page).toHaveURL(/\/import\?job=\d+$/);
    await expect(report.getByText("Imported with some trajectories skipped")).toBeVisible();
    await expect(report.getByText("webvoyager", { exact: true })).toBeVisible();
    const stat = (label: string) =>
      report
        .locator("div.rounded-lg", { has: page.getByText(label, { exact: true }) })
        .locator("div")
        .nth(1);
    await expect(stat("Created")).toHaveText("2");
    await expect(stat("Skipped")).toHaveText("1");
    const skipped = report.getByTestId("import-skipped");
    await expect(skipped).toContainText("taskUpload--2/screenshot2.png");
    await expect(skipped).toContainText("is not a PNG, JPEG, WebP or GIF image");
    const rows = report.locator("tbody tr");
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0)).toContainText("Upload--1");
    await expect(rows.nth(1)).toContainText("Upload--3");

    // The report names its runs (review 2, #9), and the archive is no longer chosen: a second click cannot upload it
    // again by accident (#24).
    await expect(report.getByTestId("report-run").first()).not.toHaveText(/^run \d+$/);
    await expect(page.getByRole("button", { name: "Upload and import" })).toBeDisabled();
    await expect(page.getByLabel("Archive")).toHaveValue("");
    // The recent imports list catches up with the finished import.
    await expect(page.getByText("2 created, 1 skipped")).toBeVisible();
    for (const size of VIEWPORTS) {
      await resizeTo(page, size);
      await expectCleanLayout(page, [page.getByTestId("import-job")]);
      await screenshotAt(page, "import-report", size);
    }
    await resizeTo(page, VIEWPORTS[0]);

    // The report's link opens the new trajectory in the player.
    await rows
      .nth(1)
      .getByRole("link", { name: /^#\d+$/ })
      .click();
    // The player then records the step it shows in the URL (?step=1); either form is the right page.
    await expect(page).toHaveURL(/\/trajectories\/\d+(\?step=\d+)?$/);
    await expect(page.getByText("Read the report.").first()).toBeVisible();

    // A reload of the import's URL shows the same report, and it is listed among the recent imports.
    await page.goBack();
    await expect(page.getByTestId("import-report")).toBeVisible();
    await expect(page.getByRole("button", { name: "webvoyager-results.zip" }).first()).toBeVisible();
  });

  test("refuses uploads past the size limit, in the page and on the server (413)", async ({ page }) => {
    const big = path.join(dir(), "import-e2e", "too-big.zip");
    fs.mkdirSync(path.dirname(big), { recursive: true });
    await zipFolder(fs.mkdtempSync(path.join(dir(), "empty-")), big, "x", { "noise.bin": crypto.randomBytes(5 * 1024 * 1024) });

    await page.goto("/import");
    await page.getByLabel("Archive").setInputFiles(big);
    await page.getByRole("button", { name: "Upload and import" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "too-big.zip" })).toContainText("too-big.zip is 5 MB; uploads are limited to 4 MB");

    const res = await page.request.post("/api/imports?name=too-big.zip", { data: fs.readFileSync(big), headers: { "Content-Type": "application/zip" } });
    expect(res.status()).toBe(413);
    expect((await res.json()).error).toMatch(/^The file is 5 MB; uploads are limited to 4 MB \(VERDICT_IMPORT_MAX_UPLOAD_MB\)/);

    const notZip = await page.request.post("/api/imports?name=notes.zip", { data: "hello", headers: { "Content-Type": "application/zip" } });
    expect(notZip.status()).toBe(400);
    expect((await notZip.json()).error).toBe("notes.zip: is not a .zip archive");
  });
});

test.describe("Import page (annotator)", () => {
  test.use({ storageState: storageStateOf("annotator1") });

  test("is refused with the standard 403 page, and on the upload route", async ({ page }) => {
    // The standard 403 page, as for every other page an annotator may not open (review 2, #21).
    const response = await page.goto("/import");
    expect(response?.status()).toBe(403);
    await expect(page.getByTestId("forbidden")).toContainText("This page is for researchers and admins");
    await expect(page.getByRole("link", { name: "Go to your labelling queues" })).toBeVisible();
    await expect(page.getByTestId("forbidden").locator(".font-mono")).toHaveCount(0);
    await expect(page.getByRole("link", { name: "Import", exact: true })).toHaveCount(0);
    const res = await page.request.post("/api/imports?name=a.zip", { data: "PK\x03\x04", headers: { "Content-Type": "application/zip" } });
    expect(res.status()).toBe(403);
  });
});

/**
 * The Import page's folder upload in Chromium: a researcher picks a real WebVoyager results folder (setInputFiles
 * with a directory fills the webkitdirectory picker), every file reaches the server and the import's report is the
 * zip's; picking the same content again, renamed, asks before importing it twice.
 */
import { expect, test } from "./reused-page";
import fs from "node:fs";
import path from "node:path";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";
import { storageStateOf } from "./accounts";
import { screenshotsAtDesktopSizes } from "./layout";

const dir = () => process.env.VERDICT_E2E_DIR!;

test.describe("Import page, folder upload (researcher)", () => {
  test.use({ storageState: storageStateOf("researcher") });

  test("a picked folder is sent file by file and imported with the zip's report; the same content again asks first", async ({ page }) => {
    const src = path.join(dir(), "import-folder-e2e", "folder-results");
    await writeWebVoyagerFixture(
      src,
      [
        { id: "Folder--1", intent: "Pick a folder.", url: "https://folder.test/", actions: ["Click [0]", "ANSWER; picked"] },
        { id: "Folder--2", intent: "Broken screenshot.", url: "https://folder.test/", actions: ["Click [0]", "ANSWER; no"] },
      ],
      5200,
    );
    fs.writeFileSync(path.join(src, "taskFolder--2", "screenshot1.png"), "this is not a png");

    await page.goto("/import");
    const section = page.getByRole("region", { name: "Upload a folder" });
    await expect(section).toBeVisible();
    await screenshotsAtDesktopSizes(page, "import-folder-empty", [section]);
    await page.getByLabel("Choose a folder to import").setInputFiles(src);

    const report = page.getByTestId("import-report");
    await expect(report).toBeVisible({ timeout: 30_000 });
    await expect(page).toHaveURL(/\/import\?job=\d+$/);
    await expect(report.getByText("webvoyager", { exact: true })).toBeVisible();
    await expect(report.getByTestId("import-skipped")).toContainText("folder-results/taskFolder--2/screenshot1.png");
    await screenshotsAtDesktopSizes(page, "import-folder-report", [report]);

    // The same files under another folder name: the page asks before importing them a second time.
    const copy = path.join(dir(), "import-folder-e2e", "renamed-copy");
    fs.cpSync(src, copy, { recursive: true });
    await page.getByLabel("Choose a folder to import").setInputFiles(copy);
    const prompt = section.getByRole("alert");
    await expect(prompt).toContainText("You imported a folder with the same files as “folder-results”");
    await expect(section.getByText(/of \d+ files on the server/)).toBeVisible();
    await screenshotsAtDesktopSizes(page, "import-folder-again", [prompt]);
    await section.getByRole("button", { name: "Cancel" }).click();
    await expect(prompt).toHaveCount(0);
  });
});

/**
 * The player's ATIF download: a researcher or admin downloads the trajectory as a zip holding the ATIF JSON and the
 * screenshots it references; annotators get no link and the route refuses them.
 */
import fs from "node:fs";
import { expect, test } from "./reused-page";
import yauzl from "yauzl";
import { storageStateOf } from "./accounts";
import { trajectoryId } from "./fixtures";
import { expectChildrenApart, expectCleanLayout, screenshotsAtDesktopSizes } from "./layout";

/** Entry names and the text of the JSON entries of a zip file. */
function readZip(file: string): Promise<{ names: string[]; json: Map<string, unknown> }> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const names: string[] = [];
      const json = new Map<string, unknown>();
      zip.on("entry", (entry: yauzl.Entry) => {
        names.push(entry.fileName);
        if (!entry.fileName.endsWith(".json")) return zip.readEntry();
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on("data", (c: Buffer) => chunks.push(c));
          stream.on("end", () => {
            json.set(entry.fileName, JSON.parse(Buffer.concat(chunks).toString("utf8")));
            zip.readEntry();
          });
        });
      });
      zip.on("end", () => resolve({ names, json }));
      zip.on("error", reject);
      zip.readEntry();
    });
  });
}

test.describe("ATIF download from the player", () => {
  test("an admin downloads the trajectory as ATIF with its screenshots", async ({ page }) => {
    const id = trajectoryId("ShopSite--0");
    await page.goto(`/trajectories/${id}`);
    const link = page.getByTestId("download-atif");
    await expect(link).toBeVisible();
    await expectCleanLayout(page, [link, page.getByTestId("toggle-evaluations")]);
    await expectChildrenApart(link.locator(".."));
    await screenshotsAtDesktopSizes(page, "player-atif-download");

    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toBe(`trajectory-${id}.atif.zip`);
    const file = await download.path();
    const { names, json } = await readZip(file);
    const doc = json.get(`trajectory-${id}.atif.json`) as {
      schema_version: string;
      steps: { source: string; message: unknown; observation?: { results: { content: unknown }[] } }[];
    };
    expect(doc.schema_version).toBe("ATIF-v1.6");
    expect(doc.steps.filter((s) => s.source === "agent")).toHaveLength(7);
    const images = doc.steps
      .flatMap((s) => [
        ...(Array.isArray(s.message) ? s.message : []),
        ...(s.observation?.results ?? []).flatMap((r) => (Array.isArray(r.content) ? r.content : [])),
      ])
      .filter((p: { type: string }) => p.type === "image") as { source: { path: string } }[];
    expect(images.length).toBeGreaterThan(0);
    for (const img of images) expect(names).toContain(img.source.path);
    fs.rmSync(file, { force: true });
  });
});

test.describe("ATIF download for annotators", () => {
  test.use({ storageState: storageStateOf("annotator3") });
  test("the route refuses a trajectory they may not browse", async ({ page }) => {
    const res = await page.request.get(`/api/trajectories/${trajectoryId("ShopSite--0")}/atif`);
    expect(res.status()).toBe(403);
    expect(res.headers()["content-type"]).toContain("text/plain");
  });
});

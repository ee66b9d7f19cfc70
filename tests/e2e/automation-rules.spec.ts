/**
 * The Rules page in Chromium, as a researcher: opens the form from the keyboard, is told beside the field that a
 * filter key the list does not know is refused (before saving), writes a rule that adds every new trajectory of one
 * site to a campaign, imports a zip of that site on the Import page, and sees the rule's run (arrived, matched, acted
 * on) appear in its log and the campaign grow by the trajectories that arrived. Then pauses and deletes the rule, so
 * no later import of the suite meets it. Annotators get the 403 view. Checked and captured at the three desktop sizes.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, request, test, type Page } from "./reused-page";
import yazl from "yazl";
import { startFakeOpenAI } from "../helpers/fake-openai";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";
import { storageStateOf } from "./accounts";
import { apiAs, mutation, query } from "./api";
import { loadFixtures } from "./fixtures";
import { screenshotsAtDesktopSizes } from "./layout";

const dir = () => process.env.VERDICT_E2E_DIR!;

async function zipFolder(folder: string, file: string) {
  const zip = new yazl.ZipFile();
  for (const rel of fs.readdirSync(folder, { recursive: true }) as string[]) {
    const abs = path.join(folder, rel);
    if (fs.statSync(abs).isFile()) zip.addFile(abs, `results/${rel.split(path.sep).join("/")}`);
  }
  zip.end();
  await new Promise<void>((resolve) => zip.outputStream.pipe(fs.createWriteStream(file)).on("close", () => resolve()));
  return file;
}

/** Focuses `target` and presses Enter until `shown` appears (the first press can come before React hydrates). */
async function pressUntil(page: Page, target: ReturnType<Page["getByTestId"]>, shown: ReturnType<Page["getByTestId"]>) {
  await expect(async () => {
    await target.focus();
    await page.keyboard.press("Enter");
    await expect(shown).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
}

test.describe("Rules page (researcher)", () => {
  test.use({ storageState: storageStateOf("researcher") });

  test("a rule written on the page adds an imported zip's new trajectories to a campaign, and its run is logged", async ({ page, baseURL }, info) => {
    test.setTimeout(180_000);
    // Names of their own per attempt: a retry does not meet the first attempt's rule, campaign or trajectories.
    const tag = `${info.retry}${Date.now().toString(36)}`;
    const site = `Ruled${tag}`;
    const api = await apiAs("researcher", baseURL!);
    const [seed] = Object.values(loadFixtures().trajectories);
    const campaign = await mutation<{ id: number }>(api, "campaigns.create", { name: `Rule arrivals ${tag}`, trajectoryIds: [seed], blind: false });
    const items = async () => (await query<{ counts: { items: number } }>(api, "campaigns.overview", { id: campaign.id })).counts.items;
    expect(await items()).toBe(1);

    await page.goto("/rules");
    await expect(page.getByRole("heading", { name: "Automation rules", exact: true })).toBeVisible();
    await expect(page.getByRole("link", { name: "Rules", exact: true })).toHaveAttribute("aria-current", "page");
    const form = page.getByTestId("rule-form");
    await pressUntil(page, page.getByTestId("new-rule"), form);
    await expect(page.getByTestId("rule-name")).toBeFocused();
    await page.keyboard.type(`New ${site} runs`);
    // A key the list does not know is named beside the field as it is typed, and nothing is saved.
    await page.getByTestId("rule-filter").fill("colour=red");
    const filterError = page.getByTestId("rule-error-filter");
    await expect(filterError).toContainText("“colour” is not a filter of the trajectory list");
    await expect(page.getByTestId("rule-filter")).toHaveAttribute("aria-invalid", "true");
    await page.getByTestId("rule-campaign").selectOption({ label: `Rule arrivals ${tag}` });
    await screenshotsAtDesktopSizes(page, "rules-form-error", [form]);
    await page.getByTestId("save-rule").click();
    await expect(page.getByTestId("rule-row").filter({ hasText: `New ${site} runs` })).toHaveCount(0);

    // The server's own refusal lands beside its field too: a share over 100 %.
    await page.getByTestId("rule-filter").fill(`site=${site}`);
    await expect(filterError).toHaveCount(0);
    await page.getByTestId("rule-share").fill("150");
    await page.getByTestId("save-rule").click();
    await expect(page.getByTestId("rule-error-share")).toContainText("more than 0 and at most 100");
    await page.getByTestId("rule-share").fill("100");
    await page.getByTestId("save-rule").click();
    await expect(form).toHaveCount(0);
    const row = page.getByTestId("rule-row").filter({ hasText: `New ${site} runs` });
    await expect(row).toContainText(`site=${site}`);
    await expect(row).toContainText(`add to campaign “Rule arrivals ${tag}”`);
    await expect(row.getByTestId("rule-last-run")).toHaveText("not run yet");
    await expect(page.getByTestId("rule-runs-empty")).toBeVisible();

    // Two trajectories of the rule's site arrive through the Import page.
    const src = path.join(dir(), `rules-e2e-${tag}`, "results");
    await writeWebVoyagerFixture(
      src,
      [
        // One step each: campaigns other specs create over trajectories of two steps or more (protocols) must not
        // meet these small test images, whichever spec runs first.
        { id: `${site}--1`, intent: "Arrive and be picked.", url: "https://ruled.test/", actions: ["ANSWER; yes"] },
        { id: `${site}--2`, intent: "Arrive as well.", url: "https://ruled.test/", actions: ["ANSWER; no"] },
      ],
      7300,
    );
    const zipFile = await zipFolder(src, path.join(dir(), `rules-e2e-${tag}`, "ruled.zip"));
    await page.goto("/import");
    await page.getByLabel("Archive").setInputFiles(zipFile);
    await page.getByRole("button", { name: "Upload and import" }).click();
    await expect(page.getByTestId("import-report")).toBeVisible({ timeout: 60_000 });

    // The rule's run appears in its log (the worker runs the rules after the import) and the campaign has grown.
    await page.goto("/rules");
    await expect(row).toBeVisible();
    await pressUntil(page, row.getByTestId("show-runs"), page.getByTestId("rule-runs"));
    const run = page.getByTestId("rule-run").first();
    await expect(run).toBeVisible({ timeout: 90_000 });
    await expect(run).toHaveAttribute("data-outcome", "acted");
    await expect(run.locator("td").nth(2)).toHaveText("2");
    await expect(run.locator("td").nth(3)).toHaveText("2");
    await expect(run.getByTestId("rule-run-acted")).toHaveText("2");
    await expect(run).toContainText("(Import page)");
    await expect(row.getByTestId("rule-last-run")).toContainText("acted on 2", { timeout: 30_000 });
    await screenshotsAtDesktopSizes(page, "rules-run-log", [page.getByTestId("rule-list"), page.getByTestId("rule-runs")]);
    expect(await items()).toBe(3);
    await run.getByTestId("rule-run-campaign").click();
    await expect(page.getByRole("heading", { name: `Rule arrivals ${tag}` })).toBeVisible();
    const stat = page.locator("div.rounded-lg", { has: page.locator(".section-title", { hasText: /^Trajectories$/ }) });
    await expect(stat.locator("div").nth(1)).toHaveText("3");

    // Paused, then deleted (asked twice): no later import meets it.
    await page.goto("/rules");
    await row.getByTestId("toggle-rule").click();
    await expect(row).toContainText("paused");
    await expect(row.getByTestId("toggle-rule")).toHaveText("Resume");
    await row.getByTestId("delete-rule").click();
    await page.getByTestId("confirm-delete-rule").click();
    await expect(row).toHaveCount(0);
    await api.dispose();
  });
  test("a rule is edited on the page into one that starts a judge batch, which judges what a script pushes", async ({ page, baseURL }, info) => {
    test.setTimeout(180_000);
    const tag = `${info.retry}${Date.now().toString(36)}`;
    const site = `Judged${tag}`;
    const fake = await startFakeOpenAI();
    const api = await apiAs("researcher", baseURL!);
    try {
      const [seed] = Object.values(loadFixtures().trajectories);
      const campaign = await mutation<{ id: number }>(api, "campaigns.create", { name: `Rule to edit ${tag}`, trajectoryIds: [seed], blind: false });
      const config = await mutation<{ id: number }>(api, "judge.configs.create", { name: `Rule judge ${tag}`, model: "fake-vlm", baseUrl: fake.baseUrl });
      // The rule as someone wrote it earlier: half of another site's Import-page arrivals into a campaign.
      const draftRule = await mutation<{ id: number }>(api, "automation.create", {
        name: `Draft ${tag}`,
        filterText: `site=Elsewhere${tag}`,
        triggers: ["import"],
        sharePercent: 50,
        seed: 7,
        action: { kind: "campaign", campaignId: campaign.id },
        enabled: true,
      });

      await page.goto("/rules");
      const draft = page.getByTestId("rule-row").filter({ hasText: `Draft ${tag}` });
      await expect(draft).toContainText("50%");
      await expect(draft).toContainText(`add to campaign “Rule to edit ${tag}”`);
      const form = page.getByTestId("rule-form");
      await pressUntil(page, draft.getByRole("button", { name: `Edit Draft ${tag}` }), form);
      // The form opens on the rule as saved.
      await expect(form.getByRole("heading")).toHaveText(`Edit “Draft ${tag}”`);
      await expect(page.getByTestId("rule-name")).toHaveValue(`Draft ${tag}`);
      await expect(page.getByTestId("rule-filter")).toHaveValue(`site=Elsewhere${tag}`);
      await expect(page.getByTestId("rule-share")).toHaveValue("50");
      await expect(form.getByLabel("Seed of the share")).toHaveValue("7");
      await expect(form.getByLabel("Import page")).toBeChecked();
      await expect(form.getByLabel("Push API")).not.toBeChecked();
      await expect(page.getByTestId("rule-campaign")).toHaveValue(String(campaign.id));

      // Changed into a judge rule on the push API's arrivals of one site.
      await page.getByTestId("rule-name").fill(`Judge ${site}`);
      await page.getByTestId("rule-filter").fill(`site=${site}`);
      await page.getByTestId("rule-share").fill("100");
      await form.getByLabel("Push API").check();
      await form.getByLabel("Import page").uncheck();
      await form.getByLabel("Start a judge batch").check();
      await form.getByLabel("Judge configuration").selectOption({ label: `Rule judge ${tag}` });
      // A k the judge cannot use is refused by the server, beside its field, and nothing changes.
      await form.getByLabel("Screenshots shown (k, or full)").fill("none");
      await page.getByTestId("save-rule").click();
      await expect(page.getByTestId("rule-error-k")).toContainText('a positive whole number of screenshots or "full"');
      await expect(draft).toContainText(`add to campaign “Rule to edit ${tag}”`);
      await screenshotsAtDesktopSizes(page, "rules-edit-error", [form]);
      await form.getByLabel("Screenshots shown (k, or full)").fill("1");
      await expect(page.getByTestId("save-rule")).toHaveText("Save changes");
      await page.getByTestId("save-rule").click();
      await expect(form).toHaveCount(0);

      // The same rule (one row, its new name), now judging; its (empty) log is shown.
      await expect(page.getByTestId("rule-row").filter({ hasText: `Draft ${tag}` })).toHaveCount(0);
      const row = page.getByTestId("rule-row").filter({ hasText: `Judge ${site}` });
      await expect(row).toHaveCount(1);
      await expect(row).toContainText(`site=${site}`);
      await expect(row).toContainText("100%");
      await expect(row).toContainText("Push API");
      await expect(row).not.toContainText("Import page");
      await expect(row).toContainText(`judge with “Rule judge ${tag}” at k=1`);
      await expect(page.getByTestId("rule-runs-empty")).toContainText("push api");
      // Stored as one rule, changed in place: the new action and triggers, the seed kept.
      const rules = await query<{ id: number; name: string; triggers: string[]; seed: number; action: unknown }[]>(api, "automation.list");
      const saved = rules.filter((r) => r.name === `Draft ${tag}` || r.name === `Judge ${site}`);
      expect(saved).toHaveLength(1);
      expect(saved[0]).toMatchObject({ id: draftRule.id, triggers: ["push"], seed: 7, action: { kind: "judge", judgeConfigId: config.id, k: "1" } });

      // A script pushes a zip of two trajectories of the site with a read-write token.
      const { token } = await mutation<{ token: string }>(api, "accounts.apiTokens.create", { name: `rules e2e ${tag}`, scope: "read-write", days: 1 });
      const src = path.join(dir(), `rules-judge-e2e-${tag}`, "results");
      await writeWebVoyagerFixture(
        src,
        [
          { id: `${site}--1`, intent: "Be judged.", url: "https://judged.test/", actions: ["ANSWER; yes"] },
          { id: `${site}--2`, intent: "Be judged too.", url: "https://judged.test/", actions: ["ANSWER; no"] },
        ],
        7400,
      );
      const zipFile = await zipFolder(src, path.join(dir(), `rules-judge-e2e-${tag}`, "judged.zip"));
      const script = await request.newContext({ baseURL, storageState: { cookies: [], origins: [] }, extraHTTPHeaders: { Authorization: `Bearer ${token}` } });
      const pushed = await script.post(`/api/v1/imports?name=judged-${tag}.zip`, {
        headers: { "Content-Type": "application/zip" },
        data: fs.readFileSync(zipFile),
      });
      expect(pushed.status(), await pushed.text()).toBe(202);
      const { jobId } = (await pushed.json()) as { jobId: number };
      await expect
        .poll(async () => ((await (await script.get(`/api/v1/imports/${jobId}`)).json()) as { status: string }).status, { timeout: 90_000 })
        .toBe("succeeded");
      await script.dispose();

      // The rule's run started a judge batch on both; the batch page shows it judged them on the fake endpoint.
      // Its log stays open from the save (the list and the log are read again every few seconds).
      await expect(row).toHaveAttribute("aria-selected", "true");
      const run = page.getByTestId("rule-run").first();
      await expect(run).toBeVisible({ timeout: 90_000 });
      await expect(run).toHaveAttribute("data-outcome", "acted");
      await expect(run).toContainText("(Push API)");
      await expect(run.getByTestId("rule-run-acted")).toHaveText("2");
      await expect(row.getByTestId("rule-last-run")).toContainText("acted on 2", { timeout: 30_000 });
      await screenshotsAtDesktopSizes(page, "rules-judge-run-log", [page.getByTestId("rule-list"), page.getByTestId("rule-runs")]);
      await run.getByRole("link", { name: "the judge batch" }).click();
      await expect(page).toHaveURL(/\/judges\/batches\/\d+$/);
      await expect(page.getByTestId("batch-progress")).toHaveAttribute("aria-valuenow", "100", { timeout: 60_000 });
      await expect(page.getByTestId("verdict-success")).toHaveText("2");
      expect(fake.requests.length).toBe(2);
      expect(new Set(fake.requests.map((r) => r.body.model))).toEqual(new Set(["fake-vlm"]));

      await page.goto("/rules");
      await row.getByTestId("delete-rule").click();
      await page.getByTestId("confirm-delete-rule").click();
      await expect(row).toHaveCount(0);
    } finally {
      await api.dispose();
      await fake.close();
    }
  });
});

test.describe("Rules page (annotator)", () => {
  test.use({ storageState: storageStateOf("annotator1") });

  test("is refused with the 403 view and no link to it", async ({ page }) => {
    const res = await page.goto("/rules");
    expect(res?.status()).toBe(403);
    await expect(page.getByRole("link", { name: "Rules", exact: true })).toHaveCount(0);
  });
});

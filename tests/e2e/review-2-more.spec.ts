/**
 * More defects of UI review 2, in Chromium at 1280×800, 1440×900 and 1920×1080: the labelling page's Evaluations
 * button opens a panel the annotator can see (#8) and `l` copies a link to the item at its step; the New campaign form
 * keeps the typed name and guidelines across a template switch (#12); a campaign made from a filter names its task set
 * (#13); runs sharing a long path prefix are told apart in the list (#9); 33 runs neither collide in the run chart nor
 * stretch the site × run table (#10); empty analytics lead to pages, not commands (#19); the Users page labels its
 * fields, changes passwords in the row and asks before deactivating (#20); the home page offers next steps (#22); the
 * evaluations panel says an item is disputed and links to its adjudication (#25).
 */
import { expect, test, type Locator, type Page } from "./reused-page";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { storageStateOf } from "./accounts";
import { apiAs, trpc } from "./api";
import { loadFixtures } from "./fixtures";
import { DESKTOP_SIZES, expectChildrenApart, expectCleanLayout, resizeTo, screenshotAt } from "./layout";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

type Seeded = { taskSetId: number; runs: { id: number; name: string }[] };

function runSeed(mode: "seed" | "clean"): unknown {
  const dir = process.env.VERDICT_E2E_DIR!;
  const r = spawnSync(process.execPath, [path.join(root, "node_modules", "tsx", "dist", "cli.mjs"), "tests/e2e/review-2-seed.ts", mode], {
    cwd: root,
    env: { ...process.env, VERDICT_DB: path.join(dir, "verdict.db"), VERDICT_DATA_DIR: dir },
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`review-2-seed.ts ${mode} failed (exit ${r.status}):\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** At each desktop size: settled, clean, the regions in view and apart, captured. */
async function atEverySize(page: Page, name: string, regions: Locator[], check?: () => Promise<void>) {
  for (const size of DESKTOP_SIZES) {
    await resizeTo(page, size);
    await expectCleanLayout(page, regions);
    for (const r of regions) await expect(r).toBeInViewport();
    await check?.();
    await screenshotAt(page, name, size);
  }
  await resizeTo(page, DESKTOP_SIZES[0]);
}

/** Boxes of a list of elements that overlap each other by more than a pixel, as pairs of their texts. */
async function overlapping(elements: Locator): Promise<string[]> {
  return elements.evaluateAll((els) => {
    const boxes = els.map((e) => ({ text: e.textContent ?? "", r: e.getBoundingClientRect() }));
    const out: string[] = [];
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i]!.r;
        const b = boxes[j]!.r;
        if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1)
          out.push(`${boxes[i]!.text} / ${boxes[j]!.text}`);
      }
    return out;
  });
}

test.describe.serial("review 2, more fixes", () => {
  let seeded: Seeded;
  let labelCampaign: number;
  let itemNo: number;
  let disputed: { campaignId: number; name: string; trajectoryId: number };

  test.beforeAll(async ({ baseURL }) => {
    seeded = runSeed("seed") as Seeded;
    const ids = Object.values(loadFixtures().trajectories).sort((a, b) => a - b);
    const researcher = await apiAs("researcher", baseURL!);
    const a2 = await apiAs("annotator2", baseURL!);
    const a3 = await apiAs("annotator3", baseURL!);
    const idOf = async (api: typeof a2) => (await trpc<{ userId: string }>(api, "query", "accounts.me", undefined)).data.userId;
    const stamp = Date.now();
    const create = async (name: string, trajectoryIds: number[], k: number, who: string[]) => {
      const r = await trpc<{ id: number }>(researcher, "mutation", "campaigns.create", {
        name,
        trajectoryIds,
        annotatorsPerItem: k,
        annotatorIds: who,
        blind: true,
      });
      expect(r.status).toBe(200);
      return r.data.id;
    };
    // An item for annotator2 to open on the labelling page.
    labelCampaign = await create(`Review-2 labelling ${stamp}`, ids.slice(0, 1), 1, [await idOf(a2)]);
    const next = await trpc<{ itemNo: number }>(a2, "mutation", "labelling.next", { campaignId: labelCampaign });
    expect(next.status).toBe(200);
    itemNo = next.data.itemNo;
    // Two annotators who disagree on one trajectory: the item is disputed.
    const name = `Review-2 dispute ${stamp}`;
    const campaignId = await create(name, ids.slice(1, 2), 2, [await idOf(a2), await idOf(a3)]);
    for (const [api, verdict] of [
      [a2, "success"],
      [a3, "failure"],
    ] as const) {
      const n = await trpc<{ itemNo: number }>(api, "mutation", "labelling.next", { campaignId });
      expect(n.status).toBe(200);
      const r = await trpc(api, "mutation", "labelling.submit", {
        campaignId,
        itemNo: n.data.itemNo,
        verdict,
        category: verdict === "failure" ? "hallucination" : null,
        timeSpentMs: 20_000,
        stepsViewed: [0],
        idempotencyKey: `review2-more-${verdict}-${stamp}`,
      });
      expect(r.status).toBe(200);
    }
    disputed = { campaignId, name, trajectoryId: ids[1]! };
    await Promise.all([researcher.dispose(), a2.dispose(), a3.dispose()]);
  });

  test.afterAll(() => {
    runSeed("clean");
  });

  test.describe("as an annotator", () => {
    test.use({ storageState: storageStateOf("annotator2"), permissions: ["clipboard-read", "clipboard-write"] });

    test("Evaluations opens where the annotator sees it, and l copies a link to the item at its step", async ({ page, baseURL }) => {
      await page.goto(`/annotate/${labelCampaign}/${itemNo}?step=2`);
      const counter = page.getByTestId("step-counter");
      await expect(counter).toContainText("Step 2 of");
      await expect(page.getByTestId("label-panel")).toBeVisible();

      // `l` (pressed until the page has hydrated) puts the labelling item's address at the step on the clipboard.
      const clip = () => page.evaluate(() => navigator.clipboard.readText());
      await page.evaluate(() => navigator.clipboard.writeText(""));
      await expect(async () => {
        await page.keyboard.press("l");
        expect(await clip()).not.toBe("");
      }).toPass({ timeout: 15_000 });
      expect(new URL(await clip()).toString()).toBe(new URL(`/annotate/${labelCampaign}/${itemNo}?step=2`, baseURL).toString());
      await page.keyboard.press("?");
      await expect(page.getByTestId("shortcuts-help")).toContainText("Copy a link to this step");
      await page.keyboard.press("Escape");

      for (const size of DESKTOP_SIZES) {
        await resizeTo(page, size);
        const toggle = page.getByTestId("toggle-evaluations");
        await toggle.click();
        // The panel comes into the right-hand column's view instead of opening below the label form, off screen.
        await expect(page.getByTestId("evaluations-panel")).toBeInViewport();
        await expect(page.getByTestId("evaluations-hidden")).toBeInViewport();
        await expectCleanLayout(page, [page.getByTestId("evaluations-panel"), page.getByTestId("copy-step-link")]);
        await screenshotAt(page, "review2-label-evaluations", size);
        await toggle.click();
        await expect(page.getByTestId("evaluations-panel")).toHaveCount(0);
      }
    });
  });

  test.describe("as a researcher", () => {
    test.use({ storageState: storageStateOf("researcher") });

    test("the home page offers the next steps", async ({ page }) => {
      await page.goto("/");
      const steps = page.getByTestId("next-steps");
      await expect(steps.getByRole("link")).toHaveText([/Import runs/, /Start a campaign/, /Run a judge/, /Label/, /See the figures/]);
      await atEverySize(page, "review2-home-next-steps", [steps], () => expectChildrenApart(steps));
    });

    test("switching the template keeps the typed name and guidelines", async ({ page }) => {
      await page.goto("/campaigns/new");
      const name = page.locator('input[name="name"]');
      const guidelines = page.locator('textarea[name="instructions"]');
      await expect(guidelines).toHaveValue(/\S/);
      await name.fill("Typed before the template");
      await guidelines.fill("My own rules: read every step.");
      await page.getByRole("radio", { name: /Online-Mind2Web/ }).check();
      await expect(page.locator('input[name="allowNotExecutable"]')).toBeChecked();
      await expect(name).toHaveValue("Typed before the template");
      await expect(guidelines).toHaveValue("My own rules: read every step.");
      const useTemplate = page.getByTestId("template-guidelines");
      // The way back to the template's guidelines is whole on screen, not cut by the fold at 1280×800.
      await atEverySize(page, "review2-template-switch", [name, useTemplate], () => expect(useTemplate).toBeInViewport({ ratio: 1 }));
      await useTemplate.click();
      await expect(guidelines).toHaveValue(/Not executable \(2\)/);
      await expect(useTemplate).toHaveCount(0);
    });

    test("a campaign made from a filter names its task set, not its id", async ({ page, baseURL }) => {
      const api = await apiAs("researcher", baseURL!);
      const sets = await trpc<{ id: number; name: string }[]>(api, "query", "taskSets.list", undefined);
      const set = sets.data.find((s) => s.id !== seeded.taskSetId)!;
      const created = await trpc<{ id: number }>(api, "mutation", "campaigns.create", {
        name: `Review-2 by filter ${Date.now()}`,
        filter: { taskSetId: set.id, sample: 1, seed: 5 },
        annotatorsPerItem: 1,
      });
      expect(created.status).toBe(200);
      await api.dispose();
      await page.goto(`/campaigns/${created.data.id}`);
      const header = page.getByRole("main");
      await expect(header).toContainText(`random sample of 1 (seed 5) of task set “${set.name}”`);
      await expect(header).not.toContainText("taskSetId");
      await page.goto("/campaigns");
      await expect(page.getByRole("main")).toContainText(`task set “${set.name}”`);
    });

    test("runs that share a long path prefix are told apart in the list", async ({ page }) => {
      await page.goto(`/trajectories?set=${seeded.taskSetId}`);
      const names = page.getByTestId("run-name");
      await expect(names).toHaveCount(seeded.runs.length);
      const texts = await names.allInnerTexts();
      expect(new Set(texts).size).toBe(seeded.runs.length);
      for (const t of texts) expect(t).toMatch(/^…\/20250513_04\d{4}$/);
      // Each full name stays in the tooltip.
      expect(new Set(await names.evaluateAll((els) => els.map((e) => e.getAttribute("title"))))).toEqual(new Set(seeded.runs.map((r) => r.name)));
      await atEverySize(page, "review2-run-names", [names.first()], async () => {
        // Nothing of a label is cut off: the part that differs is on screen.
        expect(await names.evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent))).toEqual([]);
      });
    });

    test("33 runs: the run chart's labels stay apart and inside it, the site × run table stays narrow", async ({ page }) => {
      await page.goto(`/analytics?set=${seeded.taskSetId}`);
      const byRun = page.locator('section[data-figure="by-run"]');
      await expect(byRun.locator(".recharts-surface").first()).toBeVisible();
      const ticks = byRun.locator(".recharts-yAxis-tick-labels text.recharts-cartesian-axis-tick-value");
      await expect(ticks).toHaveCount(seeded.runs.length);
      const siteRun = page.locator('section[data-figure="site-run"]');
      const table = siteRun.locator("table");
      await expect(table.locator("tbody tr")).toHaveCount(seeded.runs.length);
      await atEverySize(page, "review2-many-runs", [], async () => {
        expect(await overlapping(ticks)).toEqual([]);
        const box = (await byRun.boundingBox())!;
        for (const t of await ticks.all()) expect((await t.boundingBox())!.x).toBeGreaterThanOrEqual(box.x);
        // A row per run, a column per site: the table fits its panel without a sideways scroll.
        const fit = await table.evaluate((t) => ({ table: t.scrollWidth, panel: t.parentElement!.clientWidth }));
        expect(fit.table).toBeLessThanOrEqual(fit.panel + 1);
        await byRun.scrollIntoViewIfNeeded();
      });
    });

    test("judge agreement without human labels leads to the pages that make them", async ({ page }) => {
      await page.goto(`/analytics/judges?set=${seeded.taskSetId}`);
      const steps = page.getByTestId("empty-next-steps");
      await expect(steps.getByRole("link", { name: "Create a campaign" })).toHaveAttribute("href", "/campaigns/new");
      await expect(steps.getByRole("link", { name: "Label trajectories" })).toBeVisible();
      await expect(page.getByText(/npm run cli -- labels import/)).toBeHidden();
      await atEverySize(page, "review2-judges-empty", [steps]);
    });

    test("the evaluations panel says the item is disputed and links to its adjudication", async ({ page }) => {
      await page.goto(`/trajectories/${disputed.trajectoryId}?panel=evaluations`);
      const state = page.getByTestId("evaluation-item-state").filter({ hasText: disputed.name });
      await expect(state).toContainText("disputed");
      const link = state.getByRole("link", { name: "Adjudicate →" });
      await expect(link).toHaveAttribute("href", `/campaigns/${disputed.campaignId}/review/${disputed.trajectoryId}`);
      await atEverySize(page, "review2-evaluations-disputed", [state]);
      await link.click();
      await expect(page).toHaveURL(new RegExp(`/campaigns/${disputed.campaignId}/review/${disputed.trajectoryId}`));
      await expect(page.getByTestId("review-label")).toHaveCount(2);
      // The decision's button stays on screen above the fold at every size (#7).
      await atEverySize(page, "review2-adjudicate-fit", [page.getByTestId("adjudicate"), page.getByTestId("labels-side-by-side")]);
    });
  });

  test.describe("as an admin", () => {
    test("Users: labelled fields, a password set in the row, deactivation asked first and reported", async ({ page }) => {
      await page.goto("/users");
      const form = page.getByTestId("create-user");
      const email = `review2-${Date.now()}@e2e.test`;
      await form.getByLabel("Name").fill("Review Two");
      await form.getByLabel("Email").fill(email);
      await form.getByLabel("Role").selectOption("annotator");
      await form.getByLabel("Password (blank: generate one)").fill("first-password-1");
      await form.getByRole("button", { name: "Create" }).click();
      await expect(page.getByRole("status")).toContainText(`Created ${email}.`);
      const row = page.getByRole("row").filter({ hasText: email });

      await row.getByRole("button", { name: "Set password" }).click();
      await row.getByLabel(`New password for ${email} (at least 8 characters)`).fill("second-password-2");
      await row.getByRole("button", { name: "Save" }).click();
      await expect(page.getByRole("status")).toContainText(`Password of ${email} changed.`);

      await row.getByRole("button", { name: "Deactivate", exact: true }).click();
      const confirm = row.getByRole("button", { name: `Deactivate ${email}?` });
      await expect(row).toContainText("active");
      await atEverySize(page, "review2-users-deactivate", [confirm]);
      await confirm.click();
      await expect(page.getByRole("status")).toContainText("is deactivated: they can no longer sign in");
      await expect(row).toContainText("deactivated");
    });
  });
});

/**
 * Side by side in Chromium: four attempts at one task (imported here through the CLI as a Verdict bundle, with
 * screenshots, Set-of-Marks and URLs chosen so the attempts part at known steps) compared by step and aligned by
 * URL from the keyboard; wrong links get a message naming the problem; the list, the task page and a judge
 * disagreement lead to the page; a blind annotator reaches neither agent names nor verdicts through it; four
 * columns stay readable at 1280×800, 1440×900 and 1920×1080. Screenshots go to test-results/screens/.
 */
import { expect, request as playwrightRequest, test, type APIRequestContext, type Page } from "./reused-page";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { renderPage, shopHome, shopProduct, shopResults, somElements, type PageSpec } from "../fixtures/synthetic-pages";
import { storageStateOf } from "./accounts";
import { expectChildrenApart, expectCleanLayout, resizeTo, screenshotAt } from "./layout";
import { cleanAnalytics, runScript, seedAnalytics } from "./scripts";

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
];
const TASK = "compare-e2e--dock";
const OTHER_TASK = "compare-e2e--other";

interface Step {
  page: PageSpec;
  url: string;
  thought: string;
  action: { type: string; target?: string; value?: string; direction?: string };
}

const home = (): Step => ({
  page: shopHome(),
  url: "https://shop.example.test/",
  thought: "Search for the dock.",
  action: { type: "type", target: "2", value: "usb-c dock" },
});
const results = (q: string, page = 1): Step => ({
  page: shopResults(q, page > 1 ? 200 : 0),
  url: `https://shop.example.test/s?k=${encodeURIComponent(q)}${page > 1 ? `&page=${page}` : ""}`,
  thought: page > 1 ? "Not on the first page; try the second." : `Open the first result for ${q}.`,
  action: page > 1 ? { type: "scroll", direction: "down" } : { type: "click", target: "4" },
});
const product = (i: number, answer: string): Step => ({
  page: shopProduct(i),
  url: `https://shop.example.test/p/${i + 1}`,
  thought: "The price is on this page.",
  action: { type: "answer", value: answer },
});

/**
 * Alpha and Delta take the same three steps; Beta detours through a second page of results before the same
 * product; Gamma searches for something else from step 2 on.
 */
const ATTEMPTS: { run: string; model: string; steps: Step[] }[] = [
  { run: "cmp-alpha", model: "model-alpha", steps: [home(), results("usb-c dock"), product(0, "$59.99")] },
  { run: "cmp-beta", model: "model-beta", steps: [home(), results("usb-c dock"), results("usb-c dock", 2), product(0, "$59.99")] },
  { run: "cmp-gamma", model: "model-gamma", steps: [home(), results("hdmi cable"), product(3, "$12.00")] },
  { run: "cmp-delta", model: "model-delta", steps: [home(), results("usb-c dock"), product(0, "$59.99")] },
];

async function writeBundle(dir: string): Promise<void> {
  fs.mkdirSync(path.join(dir, "images"), { recursive: true });
  const shot = async (spec: PageSpec, tag: string) => {
    // A visible tag keeps every screenshot distinct (so each step's image is its own).
    const png = await renderPage({ ...spec, text: [...(spec.text ?? []), [860, 740, tag, 14]] });
    const sha256 = crypto.createHash("sha256").update(png).digest("hex");
    fs.writeFileSync(path.join(dir, "images", `${sha256}.png`), png);
    return { file: `images/${sha256}.png`, sha256, width: 1024, height: 768 };
  };
  const trajectory = async (task: string, a: (typeof ATTEMPTS)[number]) => ({
    task: {
      taskSet: { name: "Compare e2e", benchmark: "demo" },
      externalId: task,
      site: "Compare shop",
      intent: `Find the price of the USB-C dock (${task}).`,
      startUrl: "https://shop.example.test/",
    },
    run: { runKey: `e2e:${a.run}`, name: a.run, agentName: `${a.run}-agent`, model: a.model, sourceSystem: "e2e" },
    attempt: 0,
    outcome: "answered",
    finalAnswer: a.steps[a.steps.length - 1]!.action.value ?? null,
    steps: await Promise.all(
      a.steps.map(async (s, i) => ({
        index: i,
        screenshot: await shot(s.page, `${task} ${a.run} ${i + 1}`),
        marksBurnedIn: false,
        url: s.url,
        thought: `${a.run}: ${s.thought}`,
        actionRaw: JSON.stringify(s.action),
        action: s.action,
        elements: somElements(s.page),
      })),
    ),
  });
  const trajectories = [...(await Promise.all(ATTEMPTS.map((a) => trajectory(TASK, a)))), await trajectory(OTHER_TASK, ATTEMPTS[0]!)];
  fs.writeFileSync(path.join(dir, "manifest.json"), JSON.stringify({ format: "verdict.trajectory-bundle", version: 1, trajectories }));
}

/** tRPC over HTTP as the pages do it (superjson wire format, non-batched). */
async function trpc<T = unknown>(api: APIRequestContext, kind: "query" | "mutation", procedure: string, input: unknown): Promise<T> {
  const res =
    kind === "query"
      ? await api.get(`/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`)
      : await api.post(`/api/trpc/${procedure}`, { data: { json: input } });
  expect(res.status(), `${procedure}: ${await res.text()}`).toBe(200);
  return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
}

/** Trajectory ids by run name for the compared task, and the other task's one trajectory. */
let ids: Record<string, number>;
let otherTaskId: number;
let taskId: number;

test.beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-compare-e2e-"));
  try {
    await writeBundle(dir);
    const out = runScript("scripts/cli.ts", ["import", dir, "--json"]);
    const report = JSON.parse(out) as { trajectories: { externalTaskId: string; id: number }[] };
    const mine = report.trajectories.filter((t) => t.externalTaskId === TASK);
    expect(mine).toHaveLength(ATTEMPTS.length);
    // The bundle lists the attempts in ATTEMPTS order.
    ids = Object.fromEntries(ATTEMPTS.map((a, i) => [a.run, mine[i]!.id]));
    otherTaskId = report.trajectories.find((t) => t.externalTaskId === OTHER_TASK)!.id;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const columns = (page: Page) => page.getByTestId("compare-column");
const column = (page: Page, run: string) => page.locator(`[data-testid="compare-column"][data-trajectory="${ids[run]}"]`);
const stepOf = (page: Page, run: string) => column(page, run).getByTestId("compare-step");

/**
 * The first key after a page load can arrive before React has attached the page's key handler (the columns are
 * server-rendered, so nothing on screen says when that happens). Press again only while the step has not moved:
 * a handled press moves it at once, so this never steps twice.
 */
async function pressToStep(page: Page, key: string, run: string, expected: string) {
  await expect(async () => {
    if ((await stepOf(page, run).innerText()) !== expected) await page.keyboard.press(key);
    await expect(stepOf(page, run)).toHaveText(expected, { timeout: 3_000 });
  }).toPass({ timeout: 15_000 });
}

/** Every column's screenshot (or gap) is on screen and its image has loaded. */
async function settled(page: Page) {
  await expect(page.getByTestId("divergence")).not.toHaveText(/Checking/);
  await page.waitForFunction(() =>
    [...document.querySelectorAll<HTMLImageElement>('[data-testid="compare-column"] [data-testid="step-image"]')].every(
      (img) => img.complete && img.naturalWidth > 0,
    ),
  );
}

test.describe("side by side", () => {
  test.use({ storageState: storageStateOf("researcher") });

  test("steps every column together, aligns by URL, and marks where the attempts part", async ({ page }) => {
    await page.goto(`/compare?ids=${ids["cmp-alpha"]},${ids["cmp-beta"]}`);
    await expect(columns(page)).toHaveCount(2);
    await settled(page);
    // Headers: run, model and outcome of each attempt.
    await expect(column(page, "cmp-alpha").getByTestId("compare-run")).toContainText("cmp-alpha");
    await expect(column(page, "cmp-alpha").getByTestId("compare-run")).toContainText("model-alpha");
    await expect(column(page, "cmp-beta").getByTestId("compare-header")).toContainText("answered");
    await expect(column(page, "cmp-alpha").getByTestId("compare-verdicts")).toContainText("No evaluations yet");
    // Step 1 of each, with the overlay's marks, action and thought.
    await expect(stepOf(page, "cmp-alpha")).toHaveText("Step 1 of 3");
    await expect(stepOf(page, "cmp-beta")).toHaveText("Step 1 of 4");
    await expect(column(page, "cmp-alpha").getByTestId("compare-thought")).toHaveText("cmp-alpha: Search for the dock.");
    await expect(column(page, "cmp-beta").getByTestId("compare-action")).toContainText("usb-c dock");
    await expect(column(page, "cmp-alpha").getByTestId("som-box").first()).toBeVisible();

    // By step: they part at step 3 (Alpha on the product, Beta on a second page of results).
    await expect(page.getByTestId("divergence")).toHaveText("First difference: step 3");
    await pressToStep(page, "ArrowRight", "cmp-alpha", "Step 2 of 3");
    await expect(stepOf(page, "cmp-beta")).toHaveText("Step 2 of 4");
    await page.keyboard.press("j");
    await expect(page.getByTestId("compare-counter")).toHaveText("Step 3 of 4");
    await expect(column(page, "cmp-alpha").getByTestId("divergence-badge")).toBeVisible();
    await expect(column(page, "cmp-alpha").getByTestId("step-url")).toHaveText("https://shop.example.test/p/1");
    await expect(column(page, "cmp-beta").getByTestId("step-url")).toContainText("page=2");
    await page.keyboard.press("End");
    await expect(column(page, "cmp-alpha").getByTestId("compare-gap")).toContainText("Ended after 3 steps");
    await expect(stepOf(page, "cmp-beta")).toHaveText("Step 4 of 4");
    await page.keyboard.press("k");
    await page.keyboard.press("Home");
    await expect(stepOf(page, "cmp-alpha")).toHaveText("Step 1 of 3");

    // By URL: Beta's detour faces a gap in Alpha's column, and both reach the product on the last row.
    await page.keyboard.press("u");
    await expect(page.getByTestId("compare")).toHaveAttribute("data-mode", "url");
    await expect(page).toHaveURL(/[?&]mode=url/);
    await expect(page.getByTestId("divergence")).toHaveText("First difference: row 3");
    await page.keyboard.press("d");
    await expect(page.getByTestId("compare-counter")).toHaveText("Row 3 of 4");
    await expect(column(page, "cmp-alpha").getByTestId("compare-gap")).toContainText("No step on this page");
    await expect(stepOf(page, "cmp-beta")).toHaveText("Step 3 of 4");
    await expect(page.getByTestId("compare-lanes").locator("[data-gap]")).toHaveCount(1);
    await page.keyboard.press("ArrowRight");
    await expect(stepOf(page, "cmp-alpha")).toHaveText("Step 3 of 3");
    await expect(stepOf(page, "cmp-beta")).toHaveText("Step 4 of 4");
    await expect(column(page, "cmp-alpha").getByTestId("step-url")).toHaveText("https://shop.example.test/p/1");
    await expect(column(page, "cmp-beta").getByTestId("step-url")).toHaveText("https://shop.example.test/p/1");
    await expect(page).toHaveURL(/[?&]row=4/);
    await screenshotAt(page, "compare-by-url", SIZES[0]!);

    // Back by step keeps Alpha's step on screen; the link reopens the same view.
    await page.keyboard.press("s");
    await expect(page.getByTestId("compare")).toHaveAttribute("data-mode", "step");
    await expect(stepOf(page, "cmp-alpha")).toHaveText("Step 3 of 3");
    await page.keyboard.press("u");
    await page.reload();
    // Screenshots are drawn once the page is interactive (their size is measured in the browser): keys work then.
    await settled(page);
    await expect(page.getByTestId("compare")).toHaveAttribute("data-mode", "url");
    await expect(page.getByTestId("compare-counter")).toHaveText("Row 4 of 4");

    // Help lists the keys, in the shared dialog; Esc closes it.
    await page.keyboard.press("?");
    await expect(page.getByTestId("shortcuts-help")).toContainText("Align by URL");
    await page.keyboard.press("ArrowLeft");
    await expect(page.getByTestId("compare-counter")).toHaveText("Row 4 of 4");
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("shortcuts-help")).toHaveCount(0);
  });

  test.describe("links", () => {
    test.use({ permissions: ["clipboard-read", "clipboard-write"] });

    test("each column copies a stable link to its step on screen, and the link opens the player there", async ({ page }) => {
      await page.goto(`/compare?ids=${ids["cmp-alpha"]},${ids["cmp-beta"]}`);
      await settled(page);
      await pressToStep(page, "ArrowRight", "cmp-beta", "Step 2 of 4");
      await expect(page.getByTestId("copy-step-link")).toHaveCount(2);
      const button = column(page, "cmp-beta").getByTestId("copy-step-link");
      await button.click();
      await expect(button).toHaveText("Link copied");
      const link = new URL(await page.evaluate(() => navigator.clipboard.readText()));
      expect(link.pathname).toMatch(/^\/t\/[0-9a-f]{64}$/);
      expect(Object.fromEntries(link.searchParams)).toEqual({ id: String(ids["cmp-beta"]), step: "2" });
      // The columns' buttons do not take the player's l key: one press would copy every column in turn.
      await page.evaluate(() => navigator.clipboard.writeText(""));
      await page.keyboard.press("l");
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("");
      await page.goto(link.toString());
      await expect(page).toHaveURL(new RegExp(`/trajectories/${ids["cmp-beta"]}\\?step=2$`));
      await expect(page.getByTestId("step-counter")).toHaveText("Step 2 of 4");
    });
  });

  test("identical attempts show no difference", async ({ page }) => {
    await page.goto(`/compare?ids=${ids["cmp-alpha"]},${ids["cmp-delta"]}`);
    await settled(page);
    await expect(page.getByTestId("divergence")).toHaveText("No difference");
    await expect(page.getByTestId("divergence")).toBeDisabled();
  });

  test("wrong links say what is wrong", async ({ page }) => {
    const problem = page.getByTestId("compare-problem");
    await page.goto(`/compare?ids=${ids["cmp-alpha"]}`);
    await expect(problem).toContainText(`Only one trajectory given (#${ids["cmp-alpha"]})`);
    await page.goto(`/compare?ids=1,2,3,4,5`);
    await expect(problem).toContainText("5 trajectories given");
    await expect(problem).toContainText("at most 4");
    await page.goto(`/compare?ids=${ids["cmp-alpha"]},999999`);
    await expect(problem).toContainText("No trajectory has id 999999.");
    await page.goto(`/compare?ids=${ids["cmp-alpha"]},abc`);
    await expect(problem).toContainText('"abc" is not a trajectory id');
    await page.goto(`/compare?ids=${ids["cmp-alpha"]},${ids["cmp-beta"]},${otherTaskId}`);
    await expect(problem).toContainText(`#${ids["cmp-alpha"]}, #${ids["cmp-beta"]} are task ${TASK}; #${otherTaskId} is task ${OTHER_TASK}`);
    await screenshotAt(page, "compare-problem", SIZES[0]!);
    await page.goto(`/compare?of=${otherTaskId}`);
    await expect(problem).toContainText(`Task ${OTHER_TASK} has only one trajectory you can open`);
  });

  test("the list, the task page and a judge disagreement lead to it", async ({ page }) => {
    // The list: 2–4 selected rows of one task.
    await page.goto(`/trajectories?q=compare-e2e`);
    await expect(page.getByTestId("trajectory-row")).toHaveCount(ATTEMPTS.length + 1);
    await expect(page.getByTestId("compare-selected")).toHaveCount(0);
    await page.getByLabel(`Select trajectory ${ids["cmp-alpha"]}`, { exact: true }).check();
    await page.getByLabel(`Select trajectory ${otherTaskId}`, { exact: true }).check();
    await expect(page.getByTestId("compare-selected")).toBeDisabled();
    await expect(page.getByTestId("compare-selected")).toHaveAttribute("title", /different tasks/);
    await page.getByLabel(`Select trajectory ${otherTaskId}`, { exact: true }).uncheck();
    await page.getByLabel(`Select trajectory ${ids["cmp-gamma"]}`, { exact: true }).check();
    await page.getByTestId("compare-selected").click();
    await expect(page).toHaveURL(new RegExp(`/compare\\?ids=(${ids["cmp-alpha"]},${ids["cmp-gamma"]}|${ids["cmp-gamma"]},${ids["cmp-alpha"]})`));
    await expect(columns(page)).toHaveCount(2);
    await settled(page);
    await expect(page.getByTestId("divergence")).toHaveText("First difference: step 2");

    // The task page: its attempts.
    await page.getByTestId("compare-back").click();
    await expect(page).toHaveURL(/\/tasks\/\d+$/);
    taskId = Number(new URL(page.url()).pathname.split("/").pop());
    await page.getByTestId("compare-attempts").click();
    await expect(page).toHaveURL(/\/compare\?ids=/);
    await expect(columns(page)).toHaveCount(4);

    // A judge disagreement: its trajectory beside the other attempts at its task.
    seedAnalytics();
    try {
      await page.goto("/analytics/judges");
      await page
        .locator('section[data-figure="judges-table"]')
        .getByRole("link", { name: /E2E judge · k ?= ?1$/ })
        .first()
        .click();
      const row = page.locator('section[data-figure="disagreements"] tbody tr').filter({ hasText: "compare-e2e" }).first();
      const rows = page.locator('section[data-figure="disagreements"] tbody tr');
      const target = (await row.count()) ? row : rows.first();
      const id = (await target.locator('td[data-col="id"]').innerText()).replace("#", "");
      await target.getByRole("link", { name: "Compare attempts" }).click();
      await expect(page).toHaveURL(/\/compare\?/);
      // Either the task has other attempts (the page, this trajectory first) or the page says it has none.
      await expect(page.getByTestId("compare").or(page.getByTestId("compare-problem"))).toBeVisible();
      if (await page.getByTestId("compare").count()) {
        await expect(page).toHaveURL(new RegExp(`/compare\\?ids=${id},`));
        await expect(columns(page).first()).toHaveAttribute("data-trajectory", id);
        // Each column's header carries its evaluations: the seeded judge's verdicts and the consolidated label.
        await expect(columns(page).first().getByTestId("compare-verdict").filter({ hasText: "E2E judge" }).first()).toBeVisible();
        await expect(columns(page).first().getByTestId("compare-verdict").filter({ hasText: "Humans" })).toHaveCount(1);
        await screenshotAt(page, "compare-from-disagreement", SIZES[0]!);
      } else await expect(page.getByTestId("compare-problem")).toContainText("has only one trajectory you can open");
    } finally {
      cleanAnalytics();
    }
  });

  for (const size of SIZES) {
    test(`four attempts stay readable at ${size.width}×${size.height}`, async ({ page }) => {
      await resizeTo(page, size);
      await page.goto(`/compare?ids=${ATTEMPTS.map((a) => ids[a.run]).join(",")}`);
      await expect(columns(page)).toHaveCount(4);
      await settled(page);
      await pressToStep(page, "ArrowRight", "cmp-gamma", "Step 2 of 3");
      await settled(page);
      const boxes = await columns(page).evaluateAll((els) =>
        els.map((el) => el.getBoundingClientRect()).map((r) => ({ x: r.x, y: r.y, width: r.width, height: r.height })),
      );
      const rowsOfColumns = new Set(boxes.map((b) => Math.round(b.y))).size;
      // Below 1600 px four columns go two by two; each stays wide enough to read a screenshot and a thought.
      expect(rowsOfColumns).toBe(size.width < 1600 ? 2 : 1);
      for (const b of boxes) expect(b.width).toBeGreaterThanOrEqual(size.width < 1600 ? 600 : 450);
      for (const b of boxes) expect(b.height).toBeGreaterThanOrEqual(480);
      const images = await page
        .locator('[data-testid="compare-column"] [data-testid="step-image"]')
        .evaluateAll((els) => els.map((el) => el.getBoundingClientRect().width));
      for (const w of images) expect(w).toBeGreaterThanOrEqual(size.width < 1600 ? 300 : 280);
      await expectCleanLayout(page, await columns(page).all());
      await expectChildrenApart(page.getByRole("toolbar", { name: "Side-by-side controls" }));
      await screenshotAt(page, "compare-four", size);
      await resizeTo(page, size);
      await page.goto(`/compare?ids=${ids["cmp-alpha"]},${ids["cmp-beta"]},${ids["cmp-gamma"]}`);
      await settled(page);
      await expectCleanLayout(page, await columns(page).all());
      await screenshotAt(page, "compare-three", size);
    });
  }
});

test.describe("side by side for a blind annotator", () => {
  test.use({ storageState: storageStateOf("annotator3") });
  let campaignId: number;
  let researcher: APIRequestContext;
  let annotatorId: string;

  test.beforeAll(async ({ baseURL }) => {
    researcher = await playwrightRequest.newContext({ baseURL, storageState: storageStateOf("researcher") });
    const annotator = await playwrightRequest.newContext({ baseURL, storageState: storageStateOf("annotator3") });
    annotatorId = (await trpc<{ userId: string }>(annotator, "query", "accounts.me", undefined)).userId;
    await annotator.dispose();
    campaignId = (
      await trpc<{ id: number }>(researcher, "mutation", "campaigns.create", {
        name: "E2E side by side blind",
        trajectoryIds: [ids["cmp-alpha"], ids["cmp-beta"]],
        annotatorsPerItem: 1,
        blind: true,
        annotatorIds: [annotatorId],
      })
    ).id;
  });
  test.afterAll(async () => {
    // Leave no blind assignment behind for the specs that run later.
    await trpc(researcher, "mutation", "campaigns.setAnnotators", { id: campaignId, remove: [annotatorId] });
    await trpc(researcher, "mutation", "campaigns.update", { id: campaignId, status: "closed", blind: false });
    await researcher.dispose();
  });

  test("gets the blind rule's refusal, never agent names or verdicts", async ({ page }) => {
    const pairs = [`/compare?ids=${ids["cmp-alpha"]},${ids["cmp-beta"]}`, `/compare?of=${ids["cmp-alpha"]}`, `/compare?task=${taskId ?? 0}`];
    for (const href of pairs) {
      const res = await page.goto(href);
      expect(res?.status()).toBeLessThan(500);
      await expect(page.getByTestId("compare-problem").or(page.getByTestId("forbidden"))).toBeVisible();
      const html = await page.content();
      for (const a of ATTEMPTS) {
        expect(html, `${href} shows ${a.run}`).not.toContain(a.run);
        expect(html, `${href} shows ${a.model}`).not.toContain(a.model);
      }
      await expect(page.getByTestId("compare-column")).toHaveCount(0);
    }
    await page.goto(`/compare?ids=${ids["cmp-alpha"]},${ids["cmp-beta"]}`);
    await expect(page.getByTestId("compare-problem")).toContainText(`Trajectory ${ids["cmp-alpha"]}: This trajectory is not available to you`);
    await expect(page.getByTestId("compare-problem")).toContainText(`Trajectory ${ids["cmp-beta"]}: This trajectory is not available to you`);
    // The tRPC procedures the page is built from refuse the same way.
    const res = await page.request.get(
      `/api/trpc/judge.verdicts.panel?input=${encodeURIComponent(JSON.stringify({ json: { trajectoryId: ids["cmp-alpha"] } }))}`,
    );
    const body = await res.text();
    expect(body).not.toContain("cmp-alpha");
    await screenshotAt(page, "compare-blind-annotator", SIZES[0]!);
  });
});

/**
 * Pairwise campaigns in Chromium: a researcher creates one from the New campaign page over three runs' attempts at
 * two tasks (imported here through the CLI as a Verdict bundle); the spec's own annotator answers every pair from
 * the keyboard, judging by the attempts' final answers, and never sees a run, agent or model name nor an A/B; the
 * researcher sees the refusal before any answer, then the Bradley–Terry ranking, and downloads the preference pairs.
 * The pages are checked and captured at 1280×800, 1440×900 and 1920×1080 into test-results/screens/.
 *
 * Worked by hand. The dock's price is $59.99, the cable's $12.00. Alpha answers both right; Beta the dock only;
 * Gamma neither. The annotator answers the right side when only one attempt is right, tie when both are, both fail
 * when neither is. All pairs of the three runs on both tasks: 6 pairs. Dock: alpha–beta tie, alpha > gamma,
 * beta > gamma; cable: alpha > beta, alpha > gamma, beta–gamma both fail. So 5 answers in the fit (one tie), 1 both
 * fail, and the order alpha, beta, gamma (Gamma never wins or ties: the stated prior is added).
 */
import { expect, test, type Browser, type Page } from "@playwright/test";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { renderPage, shopHome, shopProduct, shopResults, somElements, type PageSpec } from "../fixtures/synthetic-pages";
import { storageStateOf } from "./accounts";
import { expectCleanLayout, resizeTo, screenshotAt, DESKTOP_SIZES } from "./layout";
import { runScript, runScriptJson } from "./scripts";

const TASKS = {
  "pairwise-e2e--dock": { intent: "Find the price of the USB-C dock.", price: "$59.99", product: 0, query: "usb-c dock" },
  "pairwise-e2e--cable": { intent: "Find the price of the HDMI cable.", price: "$12.00", product: 3, query: "hdmi cable" },
} as const;
type TaskKey = keyof typeof TASKS;

/** What each run answered per task (right or wrong), and how many result pages it went through. */
const RUNS = [
  { run: "pw-alpha", model: "pw-model-one", answers: { "pairwise-e2e--dock": "$59.99", "pairwise-e2e--cable": "$12.00" }, detour: false },
  { run: "pw-beta", model: "pw-model-two", answers: { "pairwise-e2e--dock": "$59.99", "pairwise-e2e--cable": "$99.00" }, detour: true },
  { run: "pw-gamma", model: "pw-model-three", answers: { "pairwise-e2e--dock": "$5.00", "pairwise-e2e--cable": "$1.50" }, detour: false },
] as const;
/** Everything that names an attempt's maker, none of which the annotator may see. */
const NAMES = RUNS.flatMap((r) => [r.run, r.model, `${r.run}-agent`]);
const CAMPAIGN = `E2E pairwise dock and cable ${crypto.randomBytes(3).toString("hex")}`;

async function writeBundle(dir: string): Promise<void> {
  fs.mkdirSync(path.join(dir, "images"), { recursive: true });
  const shot = async (spec: PageSpec, tag: string) => {
    // A neutral visible tag keeps every screenshot distinct without naming the run on the image.
    const png = await renderPage({ ...spec, text: [...(spec.text ?? []), [860, 740, tag, 14]] });
    const sha256 = crypto.createHash("sha256").update(png).digest("hex");
    fs.writeFileSync(path.join(dir, "images", `${sha256}.png`), png);
    return { file: `images/${sha256}.png`, sha256, width: 1024, height: 768 };
  };
  const trajectories = [];
  for (const [task, t] of Object.entries(TASKS) as [TaskKey, (typeof TASKS)[TaskKey]][]) {
    for (const [n, r] of RUNS.entries()) {
      const answer = r.answers[task];
      const steps = [
        { page: shopHome(), url: "https://shop.example.test/", thought: "Search the shop.", action: { type: "type", target: "2", value: t.query } },
        { page: shopResults(t.query), url: "https://shop.example.test/s", thought: "Open the first result.", action: { type: "click", target: "4" } },
        ...(r.detour
          ? [
              {
                page: shopResults(t.query, 200),
                url: "https://shop.example.test/s?page=2",
                thought: "Look further down.",
                action: { type: "scroll", direction: "down" },
              },
            ]
          : []),
        { page: shopProduct(t.product), url: "https://shop.example.test/p", thought: "The price is on this page.", action: { type: "answer", value: answer } },
      ];
      trajectories.push({
        task: {
          taskSet: { name: "Pairwise e2e", benchmark: "demo" },
          externalId: task,
          site: "Pairwise shop",
          intent: t.intent,
          startUrl: "https://shop.example.test/",
        },
        run: { runKey: `e2e:${r.run}`, name: r.run, agentName: `${r.run}-agent`, model: r.model, sourceSystem: "e2e" },
        attempt: 0,
        outcome: "answered",
        finalAnswer: answer,
        steps: await Promise.all(
          steps.map(async (s, i) => ({
            index: i,
            screenshot: await shot(s.page, `${task.slice(-5)} ${n + 1}.${i + 1}`),
            marksBurnedIn: false,
            url: s.url,
            thought: s.thought,
            actionRaw: JSON.stringify(s.action),
            action: s.action,
            elements: somElements(s.page),
          })),
        ),
      });
    }
  }
  fs.writeFileSync(path.join(dir, "manifest.json"), JSON.stringify({ format: "verdict.trajectory-bundle", version: 1, trajectories }));
}

/** The answer the annotator gives, from the two final answers on screen and the task's right price. */
function keyFor(price: string, left: string, right: string): "1" | "2" | "3" | "4" {
  const l = left === price;
  const r = right === price;
  return l && r ? "3" : !l && !r ? "4" : l ? "1" : "2";
}

/** The winner the export must record for a pair of runs on a task ("a", "b", "tie" or "both_fail"). */
function expectedWinner(task: TaskKey, a: string, b: string): string {
  const right = (run: string) => RUNS.find((r) => r.run === run)!.answers[task] === TASKS[task].price;
  return right(a) && right(b) ? "tie" : !right(a) && !right(b) ? "both_fail" : right(a) ? "a" : "b";
}

let ids: number[] = [];
let comparerState = "";
let campaignId = 0;

async function pageAs(browser: Browser, who: "researcher" | "comparer"): Promise<Page> {
  const context = await browser.newContext({ storageState: who === "comparer" ? comparerState : storageStateOf("researcher"), viewport: DESKTOP_SIZES[0] });
  return context.newPage();
}

async function atEverySize(page: Page, name: string, check: () => Promise<void>) {
  for (const size of DESKTOP_SIZES) {
    await resizeTo(page, size);
    await check();
    await screenshotAt(page, name, size);
  }
  await resizeTo(page, DESKTOP_SIZES[0]);
}

test.describe.serial("pairwise campaigns", () => {
  test.beforeAll(async () => {
    // The spec's own annotator, made after earlier specs' campaigns (which take every annotator by default).
    comparerState = runScriptJson<{ storageState: string }>("tests/e2e/pairwise-seed.ts", ["account", "127.0.0.1"]).storageState;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-pairwise-e2e-"));
    try {
      await writeBundle(dir);
      const report = JSON.parse(runScript("scripts/cli.ts", ["import", dir, "--json"])) as { trajectories: { externalTaskId: string; id: number }[] };
      ids = report.trajectories.filter((t) => t.externalTaskId in TASKS).map((t) => t.id);
      expect(ids).toHaveLength(6);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a researcher creates a pairwise campaign from the New campaign page", async ({ browser }) => {
    const page = await pageAs(browser, "researcher");
    await page.goto(`/campaigns/new?ids=${ids.join(",")}`);
    await expect(page.getByTestId("selection-count")).toHaveText("6");
    await page.getByRole("radio", { name: /Pairwise: which attempt is better/ }).check();
    await expect(page.getByTestId("pairwise-settings")).toBeVisible();
    // A label campaign's protocol and schema are not asked for a pairwise one.
    await expect(page.getByRole("radiogroup", { name: "Protocol template" })).toHaveCount(0);
    await page.locator('input[name="name"]').fill(CAMPAIGN);
    await page.locator('input[name="k"]').fill("1");
    for (const box of await page.getByRole("checkbox", { name: / \(annotator\)$/ }).all()) {
      const name = await box.evaluate((el) => el.closest("label")?.textContent ?? "");
      if (name.includes("Cora Comparer")) await box.check();
      else await box.uncheck();
    }
    await atEverySize(page, "pairwise-new", () => expectCleanLayout(page));
    await page.getByRole("button", { name: /Create pairwise campaign over 6 trajectories/ }).click();
    await expect(page).toHaveURL(/\/campaigns\/\d+$/);
    campaignId = Number(new URL(page.url()).pathname.split("/").pop());

    // Its page: 6 pairs, nothing answered, and the ranking's refusal in words.
    const stats = page.getByTestId("pairwise-stats");
    await expect(stats).toContainText("Pairs6");
    await expect(stats).toContainText("Answers0 / 6");
    await expect(page.getByTestId("ranking-refused")).toContainText("A ranking needs answers comparing at least two agents");
    await expect(page.getByTestId("ranking-partial")).toContainText("6 pairs still to answer");

    // The campaign list counts its pairs (never "0 items").
    await page.goto("/campaigns");
    const row = page.getByRole("row").filter({ hasText: CAMPAIGN });
    await expect(row).toContainText("pairwise");
    await expect(row).toContainText("6 pairs");
    await expect(row).toContainText("0 of 6");
    await page.context().close();
  });

  test("the annotator answers every pair from the keyboard, blind to who made each attempt", async ({ browser }) => {
    test.setTimeout(180_000);
    const page = await pageAs(browser, "comparer");
    await page.goto("/annotate");
    const card = page.getByTestId(`campaign-card-${campaignId}`);
    await expect(card).toContainText("6 pairs");
    await expect(card).toContainText("6 left for you");
    await card.getByRole("link", { name: "Start comparing →" }).click();
    await expect(page).toHaveURL(new RegExp(`/annotate/${campaignId}/\\d+$`));

    const workspace = page.getByTestId("pairwise-workspace");
    const seen = new Set<string>();
    for (let n = 1; n <= 6; n++) {
      await expect(workspace).toBeVisible();
      const item = new URL(page.url()).pathname;
      expect(seen.has(item), `pair ${item} handed out twice`).toBe(false);
      seen.add(item);
      await expect(page.getByTestId("pairwise-progress")).toContainText(`${n - 1} of 6 answered`);
      // The blind: no run, agent or model name anywhere in the page (its HTML and data included), no A or B.
      const html = await page.content();
      for (const name of NAMES) expect(html, `the pair page names ${name}`).not.toContain(name);
      expect(await workspace.innerText()).not.toMatch(/\b[AB]\b/);

      // The first key may come before the page's handler is attached: press End until both sides are at their end.
      await expect(async () => {
        if (!(await page.getByTestId("pairwise-left-answer").isVisible())) await page.keyboard.press("End");
        await expect(page.getByTestId("pairwise-left-answer")).toBeVisible({ timeout: 2_000 });
      }).toPass({ timeout: 15_000 });
      await expect(page.getByTestId("pairwise-right-answer")).toBeVisible();
      const intent = await page.getByTestId("pairwise-task").innerText();
      const task = (Object.keys(TASKS) as TaskKey[]).find((k) => intent.includes(TASKS[k].intent))!;
      const answerOf = async (side: "left" | "right") => (await page.getByTestId(`pairwise-${side}-answer`).innerText()).replace("Final answer:", "").trim();
      const key = keyFor(TASKS[task].price, await answerOf("left"), await answerOf("right"));

      if (n === 1) {
        // Step keys move both sides; ? lists the keys; a submit without an answer says what to do.
        await page.keyboard.press("Home");
        await expect(page.getByTestId("pairwise-left-step")).toContainText("Step 1 of");
        await page.keyboard.press("ArrowRight");
        await expect(page.getByTestId("pairwise-left-step")).toContainText("Step 2 of");
        await expect(page.getByTestId("pairwise-right-step")).toContainText("Step 2 of");
        await page.keyboard.press("?");
        await expect(page.getByTestId("shortcuts-help")).toContainText("Left is better");
        await page.keyboard.press("Escape");
        await expect(page.getByTestId("shortcuts-help")).toHaveCount(0);
        await page.keyboard.press("Control+Enter");
        await expect(page.getByTestId("pairwise-answer").getByRole("alert")).toContainText("Choose an answer first");
        await page.keyboard.press(key);
        await atEverySize(page, "pairwise-labelling", () =>
          expectCleanLayout(page, [page.getByTestId("pairwise-left"), page.getByTestId("pairwise-right"), page.getByTestId("pairwise-answer")], {
            fitsViewportHeight: true,
          }),
        );
        await page.keyboard.press("End");
      } else {
        await page.keyboard.press(key);
      }
      const label = { "1": "Left is better", "2": "Right is better", "3": "Tie: equally good", "4": "Both fail the task" }[key];
      await expect(page.getByRole("radio", { name: label })).toHaveAttribute("aria-checked", "true");
      await page.keyboard.press("Control+Enter");
      await expect(page).not.toHaveURL(new RegExp(`${item}$`));
    }
    // Every pair answered: the queue says so.
    await expect(page).toHaveURL(new RegExp(`/annotate/${campaignId}$`));
    await expect(page.getByTestId("pairwise-done")).toContainText("You answered 6 of 6 pairs");
    await atEverySize(page, "pairwise-done", () => expectCleanLayout(page));
    await page.context().close();
  });

  test("the researcher reads the ranking and downloads the preference pairs", async ({ browser }) => {
    const page = await pageAs(browser, "researcher");
    await page.goto(`/campaigns/${campaignId}`);
    await expect(page.getByTestId("pairwise-stats")).toContainText("Answers6 / 6");
    await expect(page.getByTestId("ranking-comparisons")).toHaveText("5");
    await expect(page.getByTestId("ranking-both-fail")).toHaveText("1");
    const rows = page.getByTestId("ranking-table").locator("tbody tr");
    await expect(rows).toHaveCount(3);
    for (const [i, run] of ["pw-alpha", "pw-beta", "pw-gamma"].entries()) {
      await expect(rows.nth(i).locator("td").nth(0)).toHaveText(String(i + 1));
      await expect(rows.nth(i).locator("td").nth(1)).toHaveText(run);
    }
    // alpha: 3 wins and a tie; beta: 1 win, 1 loss, 1 tie, 1 both fail; gamma: 3 losses, 1 both fail.
    await expect(rows.nth(0)).toContainText(/3\s*0\s*1\s*0$/);
    await expect(rows.nth(2)).toContainText(/0\s*3\s*0\s*1$/);
    await expect(page.getByTestId("ranking-chart").locator(".recharts-bar-rectangle")).toHaveCount(3);
    await atEverySize(page, "pairwise-ranking", async () => {
      await expectCleanLayout(page, [page.getByTestId("ranking-chart"), page.getByTestId("export-preference-pairs")]);
      // Each run's name on the chart's axis is drawn whole and inside the chart (it was cut on the left at 1280×800).
      const chart = (await page.getByTestId("ranking-chart").boundingBox())!;
      const names = page.getByTestId("ranking-axis-name");
      await expect(names).toHaveCount(3);
      for (const [i, run] of ["pw-alpha", "pw-beta", "pw-gamma"].entries()) {
        await expect(names.nth(i).locator("title")).toHaveText(run);
        expect(
          await names.nth(i).evaluate((el) =>
            [...el.childNodes]
              .filter((n) => n.nodeType === Node.TEXT_NODE)
              .map((n) => n.textContent)
              .join(""),
          ),
        ).toBe(run);
        const box = (await names.nth(i).boundingBox())!;
        expect(box.x, `${run}'s axis name starts inside the chart`).toBeGreaterThanOrEqual(chart.x);
      }
    });

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-preference-pairs").click()]);
    expect(download.suggestedFilename()).toMatch(/-preference-pairs\.jsonl$/);
    const text = fs.readFileSync((await download.path())!, "utf8");
    const lines = text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { task: TaskKey; a: string; b: string; winner: string; annotator: string });
    expect(lines).toHaveLength(6);
    for (const l of lines) {
      expect(l.annotator).toBe("Cora Comparer");
      expect(l.winner, `${l.task}: ${l.a} vs ${l.b}`).toBe(expectedWinner(l.task, l.a, l.b));
    }
    expect(new Set(lines.map((l) => `${l.task}:${[l.a, l.b].sort().join("-")}`)).size).toBe(6);
    await expect(page.getByRole("status").filter({ hasText: "6 lines exported" })).toBeVisible();
    await page.context().close();
  });
});

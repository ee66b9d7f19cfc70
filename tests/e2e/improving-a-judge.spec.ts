/**
 * Improving a judge from the browser (docs/guide/improving-a-judge.md), in Chromium, against the tests' judge
 * endpoint that decides from the prompt it receives (tests/helpers/fake-judge-model.ts), on ten labelled
 * trajectories (improvement-data.ts lists them and what the judge makes of each):
 *
 * Stress test, k = full, seed 1: a dry run (4 ways of asking × 10 items = 40 calls; "action history removed" not run,
 * the configuration does not show the history), then the run to 100 %, then the report. Unperturbed the judge
 * says success for A, B, E (6) and failure for C, D (4): against people (success B, D, E; failure A, C) ss 4, sf 2,
 * fs 2, ff 2 → p_o 0.6, p_e (6·6 + 4·4)/100 = 0.52, κ = 0.08/0.48 = 1/6. Shuffled and subset: the answer decides,
 * nothing flips. Answer removed: every item fails → the six successes flip (A ×2 now right, B ×2 and E ×2 now
 * wrong): flip rate 6 of 10, κ after 0 (p_o = p_e = 0.4), change −1/6.
 *
 * Alignment, k = 1, seed 3: each pair gives one twin to each part. Version 1 on every item (10 calls); the
 * calibration disagreements are A's and D's twins. An example set holding E's calibration twin is refused: its task
 * is a near-duplicate of E's held-out task, named in the refusal. Version 2 takes the judge model's proposed rubric
 * (it proposes the "approximately" rule) and D's calibration twin as an example, and runs on the held-out part only
 * (5 calls). Held out, v1: ss B E, sf D, fs A, ff C → κ = 1/6; v2: A → failure and D → success, both now right → κ 1.
 */
import { expect, test, type Page } from "./reused-page";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { promptReadingResponder } from "../helpers/fake-judge-model";
import { storageStateOf } from "./accounts";
import { trpc } from "./api";
import { IMPROVEMENT_TWINS } from "./improvement-data";
import { screenshotsAtDesktopSizes } from "./layout";
import { runScriptJson } from "./scripts";

const stamp = Date.now().toString(36);

function seed(): { campaignId: number; campaignName: string; ids: number[] } {
  return runScriptJson("tests/e2e/improvement-seed.ts", [stamp]);
}

/** The judge model: verdicts from the prompt; asked for criteria, it proposes a rule for the guesses it is shown. */
function judgeModel(fake: FakeOpenAI) {
  const verdicts = promptReadingResponder();
  fake.setResponder((req) => {
    const text = JSON.stringify(req.body.messages);
    if (!text.includes("Revised criteria:")) return verdicts(req);
    const rule = text.includes("approximately") ? '\n- Answers that say "approximately" are a FAILURE: the task asks for the exact value.' : "";
    return { reply: `Reading the disagreements.\nRevised criteria:\n- Every part of the task counts.${rule}` };
  });
}

async function scrollTo(page: Page, testId: string) {
  await page.getByTestId(testId).scrollIntoViewIfNeeded();
}

test.describe.serial("improving a judge in the dashboard", () => {
  test.use({ storageState: storageStateOf("researcher") });
  let fake: FakeOpenAI;
  let seeded: { campaignId: number; campaignName: string; ids: number[] };
  const configName = `e2e aligned judge ${stamp}`;

  test.beforeAll(async () => {
    fake = await startFakeOpenAI();
    judgeModel(fake);
    seeded = seed();
  });
  test.afterAll(async () => {
    await fake?.close();
  });

  test("stress test: dry run, run with progress, report with flips and κ per perturbation", async ({ page }) => {
    test.setTimeout(180_000);
    const created = await trpc(page.request, "mutation", "judge.configs.create", { name: configName, model: "fake-judge", baseUrl: fake.baseUrl });
    expect(created.status).toBe(200);

    await page.goto("/judges");
    await page.getByTestId("stress-tests-link").click();
    await expect(page).toHaveURL(/\/judges\/stress$/);
    await page.getByTestId("new-stress-test").click();
    await page.getByTestId("stress-config").selectOption({ label: configName });
    await page.getByTestId("stress-campaign").selectOption({ label: `${seeded.campaignName} (10 items)` });
    await page.getByTestId("stress-k").selectOption("full");
    await expect(page.getByTestId("stress-start")).toBeDisabled();
    const before = fake.requests.length;
    await page.getByTestId("stress-dry-run").click();
    const estimate = page.getByTestId("stress-estimate");
    await expect(estimate.getByTestId("est-items")).toHaveText("10");
    await expect(estimate.getByTestId("est-calls")).toHaveText("40");
    await expect(estimate.getByTestId("est-ways")).toContainText("final answer removed");
    await expect(page.getByTestId("stress-skipped")).toContainText("no-history, the configuration does not show the action history");
    expect(fake.requests.length, "a dry run calls nobody").toBe(before);
    await screenshotsAtDesktopSizes(page, "improving-stress-dry-run");

    await page.getByTestId("stress-start").click();
    await expect(page).toHaveURL(/\/judges\/stress\/\d+$/);
    await expect(page.getByTestId("run-progress")).toHaveAttribute("aria-valuenow", "100", { timeout: 90_000 });
    expect(fake.requests.length - before).toBe(40);
    await expect(page.getByTestId("base-kappa")).toContainText("0.167");
    const noAnswer = page.getByTestId("stress-row-no-answer");
    await expect(noAnswer.getByTestId("flip-rate")).toContainText("60.0%");
    await expect(noAnswer.getByTestId("flip-rate")).toContainText("6 of 10");
    await expect(noAnswer.getByTestId("flip-directions")).toHaveText("2 / 4");
    await expect(noAnswer.getByTestId("kappa-before-after")).toContainText(/0\.167.*→ 0\.000/);
    await expect(noAnswer.getByTestId("kappa-change")).toContainText("−0.167");
    for (const quiet of ["shuffle-s1", "subset2-s1"]) {
      await expect(page.getByTestId(`stress-row-${quiet}`).getByTestId("flip-rate")).toContainText("0 of 10");
      await expect(page.getByTestId(`flipped-${quiet}`)).toContainText("No verdict changed.");
    }
    // The flipped items open the player.
    const flipped = page.getByTestId("flipped-no-answer").getByTestId("flipped-item");
    await expect(flipped).toHaveCount(6);
    await expect(flipped.filter({ hasText: "now right" })).toHaveCount(2);
    await screenshotsAtDesktopSizes(page, "improving-stress-report");
    await scrollTo(page, "flipped-no-answer");
    await screenshotsAtDesktopSizes(page, "improving-stress-flipped");
    const first = flipped.first().getByRole("link");
    const href = await first.getAttribute("href");
    expect(seeded.ids.map((id) => `/trajectories/${id}`)).toContain(href);
    await first.click();
    // The player writes the step it shows into the address once it has loaded (?step=1).
    await expect(page).toHaveURL(new RegExp(`${href}(\\?step=\\d+)?$`));
  });

  test("alignment: split, version from disagreements, leakage refused by name, held-out run, versions with κ and flips", async ({ page }) => {
    test.setTimeout(180_000);
    await page.goto("/judges");
    await page.getByTestId("alignment-link").click();
    await page.getByTestId("study-name").fill(`e2e study ${stamp}`);
    await page.getByTestId("study-config").selectOption({ label: configName });
    await page.getByTestId("study-campaign").selectOption({ label: `${seeded.campaignName} (10 items)` });
    await page.getByTestId("study-k").selectOption("1");
    await page.getByTestId("study-seed").fill("3");
    await page.getByTestId("create-study").click();
    await expect(page).toHaveURL(/\/judges\/alignment\/\d+$/);
    const studyId = Number(new URL(page.url()).pathname.split("/").pop());

    // The split: one twin of each pair in each part, shown item by item.
    await expect(page.getByTestId("split-summary")).toContainText("5 calibration · 5 held out · seed 3");
    await expect(page.getByTestId("split-strata").locator("tbody tr")).toHaveCount(5);
    await expect(page.getByTestId("split-items").locator('tbody tr[data-part="held-out"]')).toHaveCount(5);
    const download = page.waitForEvent("download");
    await page.getByTestId("export-split").click();
    const csv = await (await download).createReadStream().then(async (s) => {
      let text = "";
      for await (const chunk of s) text += chunk;
      return text;
    });
    expect(csv.split("\r\n")[0]).toBe("trajectory_id,part,human_label,site,task,intent");
    expect(csv.match(/,held-out,/g)).toHaveLength(5);
    const split = (await trpc<{ items: { trajectoryId: number; part: string }[] }>(page.request, "query", "judge.alignment.splitItems", { id: studyId })).data;
    const twin = (pair: string, part: "calibration" | "held-out") => {
      const at = IMPROVEMENT_TWINS.findIndex((t) => t.pair === pair) * 2;
      return seeded.ids.slice(at, at + 2).find((id) => split.items.find((i) => i.trajectoryId === id)!.part === part)!;
    };
    const intentOf = (id: number) => IMPROVEMENT_TWINS.flatMap((t) => t.items.map((i) => i.intent))[seeded.ids.indexOf(id)]!;
    await screenshotsAtDesktopSizes(page, "improving-align-split");

    // Version 1 on every item: dry run, then the run with its progress.
    await page.getByTestId("run-dry-run").click();
    await expect(page.getByTestId("run-est-calls")).toHaveText("10");
    await page.getByTestId("run-start").click();
    await expect(page.getByTestId("run-progress")).toHaveAttribute("aria-valuenow", "100", { timeout: 60_000 });
    await expect(page.getByTestId("disagreement-summary")).toContainText("2 disagreements among 5 judged calibration items");
    const disagreements = page.getByTestId("calibration-items").getByTestId("disagreement");
    await expect(disagreements).toHaveCount(2);
    await expect(disagreements.filter({ hasText: intentOf(twin("D", "calibration")) })).toContainText("the confirmation page shows the subscription");
    await expect(disagreements.filter({ hasText: intentOf(twin("A", "calibration")) })).toContainText("success");

    // Leakage: E's calibration twin has a near-duplicate task in the held-out part; the refusal names it.
    await page.getByLabel(`Use trajectory ${twin("D", "calibration")} as an example`).check();
    await page.getByLabel(`Use trajectory ${twin("E", "calibration")} as an example`).check();
    await page.getByTestId("create-version").click();
    const refusal = page.getByTestId("version-error");
    await expect(refusal).toContainText(`leakage: example trajectory ${twin("E", "calibration")}`);
    await expect(refusal).toContainText(`(trajectory ${twin("E", "held-out")}): "${intentOf(twin("E", "held-out"))}"`);
    await expect(refusal).not.toContainText(`example trajectory ${twin("D", "calibration")}`);
    await scrollTo(page, "version-error");
    await screenshotsAtDesktopSizes(page, "improving-align-leakage");

    // Version 2: without E's twin, with the judge model's proposed rubric.
    await page.getByLabel(`Use trajectory ${twin("E", "calibration")} as an example`).uncheck();
    await page.getByTestId("suggest-rubric").click();
    await expect(page.getByTestId("suggestion")).toContainText("from 2 disagreements");
    await expect(page.getByTestId("rubric")).toHaveValue(/"approximately" are a FAILURE/);
    await page.getByLabel("Note").fill("the model's rule and the library example");
    await page.getByTestId("create-version").click();
    await expect(page.getByTestId("version-2")).toContainText("rubric by the judge model · 1 example");
    await expect(page.getByTestId("version-2")).toContainText("5 not run yet");

    // Run version 2 on the held-out part only.
    await page.getByTestId("run-version").selectOption("2");
    await page.getByTestId("run-dry-run").click();
    await expect(page.getByTestId("run-est-items")).toHaveText("5");
    await expect(page.getByTestId("run-est-calls")).toHaveText("5");
    await page.getByTestId("run-start").click();
    await expect(page.getByTestId("run-counts")).toContainText("of 5 calls made");
    await expect(page.getByTestId("run-progress")).toHaveAttribute("aria-valuenow", "100", { timeout: 60_000 });
    expect(fake.requests.filter((r) => JSON.stringify(r.body.messages).includes("<example>")).length, "version 2 asked about the held-out part only").toBe(5);

    // The versions view: κ per version on the same held-out items, the change, the flips and the diff.
    await expect(page.getByTestId("version-1").getByTestId("version-kappa")).toContainText("0.167");
    await expect(page.getByTestId("version-2").getByTestId("version-kappa")).toContainText("1.000");
    await expect(page.getByTestId("version-2").getByTestId("version-change")).toContainText("v1: κ +0.833");
    await expect(page.getByTestId("version-2").getByTestId("version-change")).toContainText("2 flipped (2 now right, 0 now wrong)");
    const compare = page.getByTestId("version-compare");
    await expect(compare.getByTestId("compare-summary")).toContainText("2 of 5 held-out items flipped");
    const flips = compare.getByTestId("flipped-item");
    await expect(flips).toHaveCount(2);
    const flipOf = (id: number) => flips.filter({ has: page.getByRole("link", { name: `#${id}`, exact: true }) });
    await expect(flipOf(twin("A", "held-out"))).toContainText("success → failure");
    await expect(flipOf(twin("D", "held-out"))).toContainText("failure → success");
    await expect(compare.getByTestId("prompt-diff").locator('[data-op="added"]').filter({ hasText: '"approximately" are a FAILURE' })).toHaveCount(1);
    await expect(
      compare
        .getByTestId("prompt-diff")
        .locator('[data-op="added"]')
        .filter({ hasText: `Task: ${intentOf(twin("D", "calibration"))}` }),
    ).toHaveCount(1);
    await scrollTo(page, "versions-table");
    await screenshotsAtDesktopSizes(page, "improving-align-versions");
    await scrollTo(page, "version-compare");
    await screenshotsAtDesktopSizes(page, "improving-align-compare");

    // "Stress this version": the stress form opens on the study's judge, campaign and k, asking with version 2. At k = 1
    // only "answer removed" changes anything (one screenshot: nothing to shuffle or subset; no history shown): 2 ways ×
    // 10 items, of which version 2's 5 held-out verdicts are kept: 15 calls.
    await page.getByTestId("version-2").getByTestId("stress-version").click();
    await expect(page).toHaveURL(new RegExp(`/judges/stress/new\\?study=${studyId}&version=2$`));
    await expect(page.getByTestId("stress-config").locator("option:checked")).toHaveText(configName);
    await expect(page.getByTestId("stress-campaign").locator("option:checked")).toHaveText(`${seeded.campaignName} (10 items)`);
    await expect(page.getByTestId("stress-k")).toHaveValue("1");
    await expect(page.getByTestId("stress-prompt")).toHaveText(`Asks with v2 of the alignment study e2e study ${stamp}.`);
    await page.getByTestId("stress-dry-run").click();
    await expect(page.getByTestId("est-calls")).toHaveText("15");
    await expect(page.getByTestId("est-existing")).toHaveText("5");
    await screenshotsAtDesktopSizes(page, "improving-stress-this-version");
    // Only what a list filter selects: people's successes (pairs B, D, E: 6 items, 3 of them held out with version 2's
    // verdicts kept): 6 + 6 ways, 3 kept, 9 calls.
    await page.getByTestId("stress-filter").fill(`/trajectories?human=success`);
    await page.getByTestId("stress-dry-run").click();
    await expect(page.getByTestId("est-items")).toHaveText("6");
    await expect(page.getByTestId("est-calls")).toHaveText("9");
    await expect(page.getByTestId("est-existing")).toHaveText("3");
    await expect(page.getByTestId("stress-estimate")).toContainText("selected by the list filter (4 outside it)");
    await screenshotsAtDesktopSizes(page, "improving-stress-list-filter");
  });

  test("a rubric judge's criteria against people on the judge's analytics page", async ({ page }) => {
    test.setTimeout(120_000);
    const created = await trpc<{ id: number }>(page.request, "mutation", "judge.configs.create", {
      name: `e2e rubric ${stamp}`,
      model: "fake-judge",
      baseUrl: fake.baseUrl,
      promptVersion: "rubric",
    });
    expect(created.status).toBe(200);
    const started = await trpc<{ batchId: number }>(page.request, "mutation", "judge.batches.start", {
      config: created.data.id,
      selection: { trajectoryIds: seeded.ids },
      kValues: [1],
    });
    expect(started.status).toBe(200);
    await expect
      .poll(
        async () =>
          (await trpc<{ jobs: { remaining: number; done: number } }>(page.request, "query", "judge.batches.progress", { id: started.data.batchId })).data.jobs,
        {
          timeout: 60_000,
        },
      )
      .toMatchObject({ remaining: 0, done: 10 });
    await page.goto(`/analytics/judges/${encodeURIComponent(`judge:${created.data.id}`)}?k=1&campaign=${seeded.campaignId}`);
    // The seeded answers hold none of their tasks' words and the steps show none: every outcome criterion is not met, so
    // the rubric says failure on all ten; no action repeats, so the process passes on all ten. People: 6 success, 4
    // failure. Verdict: FNR 6/6, FPR 0/4, κ 0 (a constant judge). The process as a whole: FPR 4/4, FNR 0/6.
    const measures = page.locator('[data-figure="criteria-measures"]');
    await expect(measures).toContainText(`Against the consolidated labels of ${seeded.campaignName} (10 labelled items)`);
    const row = (name: string) => measures.locator("tbody tr").filter({ hasText: name });
    await expect(row("The verdict")).toContainText("100.0% [");
    await expect(row("The verdict")).toContainText("(6/6)");
    await expect(row("The verdict")).toContainText("(0/4)");
    await expect(row("Every process criterion met")).toContainText("10 met, 0 not met (10 on 10 items)");
    await expect(row("The process as a whole passed")).toContainText("(4/4)");
    const perCriterion = page.locator('[data-figure="criteria-per-criterion"] tbody tr');
    // One process criterion per task (10 tasks) and the outcome criteria; those people disagree with come first.
    await expect(perCriterion.filter({ hasText: "The agent does not repeat an action without progress" })).toHaveCount(10);
    await expect(perCriterion.first()).toContainText("0.0% [");
    const disagreements = page.locator('[data-figure="criteria-disagreements"]');
    await expect(disagreements).toContainText("Disagreements and the criteria not met (6)");
    await expect(disagreements.locator("tbody tr")).toHaveCount(6);
    await page.locator('[data-figure="criteria-measures"]').scrollIntoViewIfNeeded();
    await screenshotsAtDesktopSizes(page, "improving-criteria-measures");
    await disagreements.scrollIntoViewIfNeeded();
    await screenshotsAtDesktopSizes(page, "improving-criteria-disagreements");
    const link = disagreements.locator("tbody tr").first().getByRole("link");
    const href = await link.getAttribute("href");
    await link.click();
    // The player opens the link's trajectory on its evaluations panel; once it has loaded it writes the step it
    // shows into the address (&step=1), so the address may end with that.
    await expect(page).toHaveURL(new RegExp(`${href!.replace("?", "\\?")}(&step=\\d+)?$`));
  });
});

test.describe("improving a judge, as an annotator", () => {
  test.use({ storageState: storageStateOf("annotator1") });
  test("gets the 403 view on the stress-test and alignment pages", async ({ page }) => {
    for (const url of ["/judges/stress", "/judges/stress/new", "/judges/alignment"]) {
      const res = await page.goto(url);
      expect(res?.status(), url).toBe(403);
      await expect(page.getByTestId("forbidden")).toBeVisible();
    }
  });
});

/**
 * Issue 25's journey, on a study of our own making (tests/helpers/study-fixture.ts, figures worked by hand there):
 * a researcher uploads a WebVoyager fork as published (task file with its own fields, a run folder, the judge's
 * auto-evaluation log) on the Import page, loads the human evaluation of three evaluators per item from the command
 * line (and finds the same labels in the study's own workbook through the campaign page), then reads judge vs majority κ on all 12 items and Fleiss κ among the three evaluators in the dashboard
 * (and both split by the fork's `lang`), the same figures from `agreement judges`, and the same Fleiss κ from the
 * campaign's own label export fed to `agreement csv`. Pages are captured at 1280×800, 1440×900 and 1920×1080.
 */
import { expect, test } from "./reused-page";
import fs from "node:fs";
import path from "node:path";
import yazl from "yazl";
import { STUDY_FIGURES, STUDY_LABEL_MAPPING, STUDY_WIDE_MAPPING, studyLabelsCsv, studyWorkbook, writeStudyFork } from "../helpers/study-fixture";
import { storageStateOf } from "./accounts";
import { expectCleanLayout, screenshotsAtDesktopSizes } from "./layout";
import { spawnScript } from "./scripts";
import { query } from "./api";

const dir = () => path.join(process.env.VERDICT_E2E_DIR!, "study-journey");

/** `npm run cli -- …` against the e2e database, from the study's folder (paths as the user typed them). */
function cli(args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnScript("scripts/cli.ts", args, { cwd: dir() });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

async function zipFolder(folder: string, file: string): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const rel of fs.readdirSync(folder, { recursive: true }) as string[]) {
    const abs = path.join(folder, rel);
    if (fs.statSync(abs).isFile()) zip.addFile(abs, rel.split(path.sep).join("/"));
  }
  zip.end();
  await new Promise<void>((resolve) => zip.outputStream.pipe(fs.createWriteStream(file)).on("close", () => resolve()));
  return file;
}

/** κ and α as the pages write them: three decimals. */
const coef = (v: number) => v.toFixed(3);

test.describe.serial("issue 25: a study from a fork's folder and a human evaluation to κ", () => {
  test.use({ storageState: storageStateOf("researcher") });
  let campaignId: number;
  let judgeLabel: string;

  test("the fork's folder, uploaded as published, lands with its judge's verdicts and task fields", async ({ page }) => {
    fs.rmSync(dir(), { recursive: true, force: true });
    const fork = path.join(dir(), "webvoyager-fork");
    // The judge's log names the run folder as it was before the fork renamed it (STUDY_LOGGED_RUN_FOLDER).
    await writeStudyFork(fork);
    const zipFile = await zipFolder(fork, path.join(dir(), "webvoyager-fork.zip"));

    await page.goto("/import");
    await page.getByLabel("Archive").setInputFiles(zipFile);
    await page.getByRole("button", { name: "Upload and import" }).click();
    const report = page.getByTestId("import-report");
    await expect(report).toBeVisible({ timeout: 60_000 });
    const stat = (label: string) =>
      report
        .locator("div.rounded-lg", { has: page.getByText(label, { exact: true }) })
        .locator("div")
        .nth(1);
    await expect(stat("Created")).toHaveText("12");
    await expect(report.locator("tbody tr")).toHaveCount(12);
    await expect(page.getByTestId("import-evaluator-logs")).toContainText("12 of 12 blocks matched");
    await screenshotsAtDesktopSizes(page, "study-journey-import");
  });

  test("the human evaluation loads from the command line into a new campaign", async () => {
    fs.writeFileSync(path.join(dir(), "human_evaluation.csv"), studyLabelsCsv());
    fs.writeFileSync(path.join(dir(), "mapping.json"), JSON.stringify(STUDY_LABEL_MAPPING));
    const r = cli([
      "labels",
      "import",
      "human_evaluation.csv",
      "--mapping",
      "mapping.json",
      "--new-campaign",
      "Fork study",
      "--annotators-per-item",
      "3",
      "--json",
    ]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ rows: 36, created: 36, unmatchedCount: 0 });
    campaignId = out.campaignId;
  });

  test("the study's workbook through the campaign page: a chosen sheet, a wide mapping, every label already there", async ({ page }) => {
    const book = path.join(dir(), "human_evaluation.xlsx");
    fs.writeFileSync(book, await studyWorkbook());
    await page.goto(`/campaigns/${campaignId}`);
    const form = page.locator("section", { has: page.getByRole("heading", { name: "Import labels from a CSV or a workbook" }) });
    await form.getByLabel("File", { exact: true }).setInputFiles(book);
    await form.getByLabel("Sheet", { exact: true }).fill("Human evaluation");
    await form.getByLabel("Columns").selectOption({ label: "Another layout: a column mapping (JSON)" });
    // A mapping that is not JSON is named beside the field, and nothing is sent.
    await form.getByLabel("Mapping (JSON)", { exact: true }).fill("{ taskId: task_id }");
    await form.getByRole("button", { name: "Import" }).click();
    await expect(form.getByTestId("label-mapping-help")).toContainText("the mapping is not valid JSON");
    await expect(form.getByLabel("Mapping (JSON)", { exact: true })).toHaveAttribute("aria-invalid", "true");
    await form.getByLabel("Mapping (JSON)", { exact: true }).fill(JSON.stringify(STUDY_WIDE_MAPPING, null, 2));
    await form.getByRole("button", { name: "Import" }).click();
    // The command line loaded the same 36 labels from the long CSV: the workbook's are all there already.
    await expect(form.getByTestId("label-import-report")).toHaveText(
      `Dry run, nothing written. Sheet “Human evaluation”: ${STUDY_FIGURES.items} rows: 0 created, 0 updated, ${STUDY_FIGURES.items * 3} unchanged, 0 skipped, 0 unmatched.`,
      { timeout: 60_000 },
    );
    // The mapping is readable where it is typed: several lines, not one.
    const box = await form.getByLabel("Mapping (JSON)", { exact: true }).boundingBox();
    expect(box!.height).toBeGreaterThanOrEqual(120);
    await expectCleanLayout(page, [form]);
    await screenshotsAtDesktopSizes(page, "study-journey-workbook-from-page");
  });

  test("the judge page reads judge vs majority κ on all 12 items, split by the fork's lang", async ({ page }) => {
    const list = await query<{ judges: { info: { label: string }; stats: { n: number; kappa: { kappa: number } } }[] }>(page.request, "analytics.judges", {
      scope: {},
      campaignId,
      unparseable: "exclude",
      reference: { kind: "majority" },
    });
    const judge = list.judges.find((j) => j.stats.n === STUDY_FIGURES.items);
    expect(judge, "the fork's judge, compared on all 12 items").toBeTruthy();
    judgeLabel = judge!.info.label;

    await page.goto(`/analytics/judges?campaign=${campaignId}`);
    // Against the consolidated label the judge is compared on the 7 unanimous items only.
    const row = () => page.locator('[data-table^="judge agreement with"] tbody tr').filter({ hasText: judgeLabel });
    await expect(row().locator('td[data-col="n"]')).toHaveText(String(STUDY_FIGURES.consolidatedN));
    await expect(row().locator('td[data-col="kappa"]')).toContainText(coef(STUDY_FIGURES.consolidatedKappa));

    await page.getByLabel("Against", { exact: true }).selectOption("majority");
    await expect(page).toHaveURL(/ref=majority/);
    await expect(row().locator('td[data-col="n"]')).toHaveText(String(STUDY_FIGURES.items));
    await expect(row().locator('td[data-col="kappa"]')).toContainText(coef(STUDY_FIGURES.majorityKappa));
    await expect(row().locator('td[data-col="agreement"]')).toHaveText(`${(STUDY_FIGURES.majorityAgreement * 100).toFixed(1)}%`);

    await page.getByLabel("Split by").selectOption("attr:lang");
    await expect(page).toHaveURL(/by=attr%3Alang/);
    const split = page.locator('[data-table="judge agreement by lang"]');
    // The fork's two langs, and the e2e database's other trajectories (no lang) as "(not given)", where the fork's
    // judge has no verdict.
    await expect(split.locator("tbody tr")).toHaveCount(3);
    const judgeColumn = (await split.locator("thead th").allTextContents()).findIndex((t) => t.includes(judgeLabel));
    expect(judgeColumn, "the fork's judge has a column").toBeGreaterThan(0);
    await expect(split.locator('tr[data-row="attr:lang="] td').nth(judgeColumn)).toHaveText("–");
    // Each lang has 6 items and κ = 1/3 (worked in study-fixture.ts).
    for (const lang of ["en", "zh"]) await expect(split.locator(`tr[data-row="attr:lang=${lang}"] td`).nth(judgeColumn)).toContainText(`${coef(1 / 3)}`);
    await expectCleanLayout(page, [page.getByRole("search", { name: "Analytics filters" })]);
    await screenshotsAtDesktopSizes(page, "study-journey-judges");
  });

  test("the human agreement page reads Fleiss κ among the three evaluators", async ({ page }) => {
    await page.goto(`/analytics/humans?campaign=${campaignId}&level=verdict`);
    await expect(page.locator('[data-stat="fleiss"] [data-value]')).toHaveText(coef(STUDY_FIGURES.fleissKappa));
    await expect(page.locator('[data-stat="alpha"] [data-value]')).toHaveText(coef(STUDY_FIGURES.krippendorffAlpha));
    await expect(page.locator('[data-stat="fleiss"]')).toContainText("95% CI [");
    await expect(page.getByTestId("interval-note")).toBeVisible();
    await page.getByRole("navigation", { name: "Split by" }).getByRole("link", { name: /lang/ }).click();
    await expect(page.locator('[data-table^="human agreement by lang"] tbody tr')).toHaveCount(2);
    await expectCleanLayout(page);
    await screenshotsAtDesktopSizes(page, "study-journey-humans");
  });

  test("the command line gives the same figures, and Verdict's own export gives the same Fleiss κ", async () => {
    const judges = cli(["agreement", "judges", "--campaign", String(campaignId), "--reference", "majority", "--json"]);
    expect(judges.stderr).toBe("");
    const out = JSON.parse(judges.stdout);
    const judge = out.evaluators.find((e: { name: string }) => e.name === judgeLabel);
    expect(judge.n).toBe(STUDY_FIGURES.items);
    expect(judge.kappa).toBeCloseTo(STUDY_FIGURES.majorityKappa, 12);
    expect(judge.agreement).toBeCloseTo(STUDY_FIGURES.majorityAgreement, 12);

    const exported = cli(["labels", "export", String(campaignId), "--out", "fork-study-labels.csv", "--json"]);
    expect(exported.status).toBe(0);
    const csv = cli(["agreement", "csv", "fork-study-labels.csv", "--json"]);
    expect(csv.stderr).toBe("");
    const agreement = JSON.parse(csv.stdout);
    expect(agreement).toMatchObject({ layout: "verdict-export", items: 12, raters: 3, ratings: 36 });
    expect(agreement.fleiss_kappa).toBeCloseTo(STUDY_FIGURES.fleissKappa, 12);
    expect(agreement.krippendorff_alpha).toBeCloseTo(STUDY_FIGURES.krippendorffAlpha, 12);
  });
});

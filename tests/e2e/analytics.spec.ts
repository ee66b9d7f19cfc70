/**
 * Analytics views in the browser, on the e2e trajectories with a seeded campaign and judge (analytics-seed.ts):
 * every view opens, shows the numbers the API returns for the same filters, links figures to the trajectories
 * behind them, exports CSV, and is captured at two viewport sizes into test-results/screens/ for a look.
 */
import { expect, test, type Page } from "./reused-page";
import fs from "node:fs";
import { expectCleanLayout, resizeTo, screenshotAt, VIEWPORTS } from "./layout";
import { cleanAnalytics, seedAnalytics } from "./scripts";
import { mutation, query } from "./api";

// The pages' number formats, written out independently of app/analytics/_lib/format.ts.
const pct = (v: number | null) => (v === null ? "–" : `${(v * 100).toFixed(1)}%`);
const interval = (lo: number | null, hi: number | null) => (lo === null || hi === null ? "" : `[${(lo * 100).toFixed(1)}, ${(hi * 100).toFixed(1)}]`);
const coef = (v: number | null) => (v === null ? "–" : v.toFixed(3));

interface RateCellLike {
  n: number;
  successes: number;
  rate: number | null;
  low: number | null;
  high: number | null;
}

async function showTable(page: Page, figure: string) {
  const section = page.locator(`section[data-figure="${figure}"]`);
  const tableButton = section.getByRole("button", { name: "Table", exact: true });
  if (await tableButton.count()) {
    // The page arrives with its data, so the button is on screen before React has attached its handler: a click
    // that early does nothing (a fresh-clone CI run at load 20 read no table row). Click until the figure shows it.
    await expect(async () => {
      await tableButton.click();
      await expect(tableButton).toHaveAttribute("aria-pressed", "true", { timeout: 1_000 });
    }).toPass();
  }
  return section;
}

async function shoot(page: Page, name: string) {
  for (const size of VIEWPORTS) {
    await resizeTo(page, size);
    await expectCleanLayout(page);
    await screenshotAt(page, name, size);
  }
  await resizeTo(page, VIEWPORTS[0]);
}

let seeded: { campaignId: number; judgeKey: string; trajectories: number };

test.describe("analytics", () => {
  test.describe.configure({ mode: "serial" });
  test.beforeAll(() => {
    seeded = seedAnalytics();
  });
  test.afterAll(() => {
    cleanAnalytics();
  });

  test("overview shows the API's success rates and links each figure to its trajectories", async ({ page }) => {
    const api = await query<{
      trajectories: number;
      columns: { id: string; label: string; total: RateCellLike }[];
      bySite: { key: string; label: string; cells: Record<string, RateCellLike> }[];
    }>(page.request, "analytics.overview", {});
    expect(api.trajectories).toBeGreaterThanOrEqual(seeded.trajectories);
    await page.goto("/analytics");
    await expect(page.getByRole("heading", { name: "Success rates" })).toBeVisible();
    for (const c of api.columns) {
      await expect(page.locator(`[data-total="${c.id}"] [data-value]`)).toHaveText(c.total.n ? pct(c.total.rate) : "–");
    }
    await expect(page.locator('section[data-figure="by-site"] .recharts-surface').first()).toBeVisible();
    await shoot(page, "analytics-overview");

    const section = await showTable(page, "by-site");
    for (const row of api.bySite) {
      const human = row.cells.human;
      if (!human || human.n === 0) continue;
      await expect(section.locator(`tr[data-row="${row.key}"] td[data-col="human"]`)).toHaveText(
        `${pct(human.rate)} ${interval(human.low, human.high)} · ${human.successes}/${human.n}`,
      );
    }

    // The CSV export carries the same numbers.
    const download = page.waitForEvent("download");
    await section.getByRole("button", { name: "CSV" }).click();
    const csv = fs.readFileSync((await (await download).path())!, "utf8");
    expect(csv.split("\r\n")[0]).toContain("Human (consolidated) rate");
    expect(csv.split("\r\n").length - 2).toBe(api.bySite.length);

    // A rate's link lists exactly its n trajectories, and hands them to the trajectory list.
    const target = api.bySite.find((r) => (r.cells.human?.n ?? 0) > 0)!;
    await section.locator(`tr[data-row="${target.key}"] td[data-col="human"] a`).click();
    await expect(page).toHaveURL(/\/analytics\/trajectories\?sel=/);
    const n = target.cells.human!.n;
    await expect(page.getByRole("heading", { name: `${n} trajector${n === 1 ? "y" : "ies"}` })).toBeVisible();
    await expect(page.locator('table[data-table="drill"] tbody tr')).toHaveCount(n);
    await expect(page.getByTestId("drill-description")).toContainText(`site ${target.label}`);
    await shoot(page, "analytics-drill");
    await page.getByRole("link", { name: "Open in the trajectory list →" }).click();
    await expect(page).toHaveURL(/\/trajectories\?ids=/);
    await expect(page.getByTestId("trajectory-row")).toHaveCount(n);
  });

  test("judge agreement lists κ per setting and details one judge", async ({ page }) => {
    const list = await query<{
      judges: { info: { id: string; label: string; identity: { key: string; k: string } }; stats: { n: number; kappa: { kappa: number | null } } }[];
    }>(page.request, "analytics.judges", {});
    await page.goto("/analytics/judges");
    await expect(page.getByRole("heading", { name: "Judge agreement" })).toBeVisible();
    await expect(page.locator('section[data-figure="kappa"] .recharts-surface')).toBeVisible();
    await shoot(page, "analytics-judges");
    const section = page.locator('section[data-figure="judges-table"]');
    for (const [i, j] of list.judges.entries()) {
      await expect(section.locator(`tr[data-row="${i}"] td[data-col="evaluator"]`)).toHaveText(j.info.label);
      await expect(section.locator(`tr[data-row="${i}"] td[data-col="n"]`)).toHaveText(String(j.stats.n));
      await expect(section.locator(`tr[data-row="${i}"] td[data-col="kappa"]`)).toContainText(coef(j.stats.kappa.kappa));
    }

    const mine = list.judges.find((j) => j.info.identity.key === seeded.judgeKey && j.info.identity.k === "1")!;
    await section.getByRole("link", { name: mine.info.label }).click();
    await expect(page).toHaveURL(new RegExp(`/analytics/judges/${encodeURIComponent(seeded.judgeKey)}`));
    const detail = await query<{
      overall: {
        n: number;
        kappa: { kappa: number | null };
        agreement: number | null;
        confusion: { count: number }[][];
        falseSuccess: number;
        falseFailure: number;
        unparseable: number;
      };
      settings: unknown[];
    }>(page.request, "analytics.judge", { evaluatorKey: seeded.judgeKey, k: "1", promptVersion: "v1" });
    await expect(page.locator('[data-stat="kappa"] [data-value]')).toHaveText(coef(detail.overall.kappa.kappa));
    await expect(page.locator('[data-stat="agreement"] [data-value]')).toHaveText(pct(detail.overall.agreement));
    await expect(page.locator('[data-stat="unparseable"] [data-value]')).toHaveText(String(detail.overall.unparseable));
    const confusion = page.locator('section[data-figure="confusion"]');
    for (const [r, human] of ["success", "failure"].entries()) {
      for (const [c, judge] of ["success", "failure"].entries()) {
        await expect(confusion.locator(`tr[data-row="${human}"] td[data-col="${judge}"]`)).toHaveText(String(detail.overall.confusion[r]![c]!.count));
      }
    }
    await expect(page.locator('section[data-figure="k-table"] tbody tr')).toHaveCount(detail.settings.length);
    await expect(page.locator('section[data-figure="disagreements"] h2')).toContainText(`(${detail.overall.falseSuccess + detail.overall.falseFailure})`);
    // At 1440×900 this is the README's picture of judge agreement (npm run docs:screenshots copies it).
    await shoot(page, "analytics-judge-detail");

    // A disagreement opens in the player with the evaluations beside it.
    const firstRow = page.locator('section[data-figure="disagreements"] tbody tr').first();
    const id = (await firstRow.locator('td[data-col="id"]').innerText()).replace("#", "");
    await firstRow.locator('td[data-col="id"] a').click();
    // The player then records the step it shows in the URL (&step=1); either form is the right page.
    await expect(page).toHaveURL(new RegExp(`/trajectories/${id}\\?panel=evaluations(&step=\\d+)?$`));
    await expect(page.getByTestId("evaluations-panel").getByTestId("evaluation-verdict").first()).toBeVisible();
  });

  test("judge agreement shows error rates with task-clustered intervals, the agent ranking and calibration", async ({ page }) => {
    type Rate = { estimate: number | null; low: number | null; high: number | null; errors: number; of: number };
    const m = await query<{
      evaluators: {
        info: { id: string; label: string; identity: { key: string; k: string } };
        errors: { n: number; tasks: number; falsePositive: Rate; falseNegative: Rate };
        calibration: { n: number; ece: number | null } | null;
      }[];
      ranking: { runs: { name: string; human: { rank: number | null } }[]; tau: { id: string; tau: { tau: number | null } }[] };
    }>(page.request, "analytics.judgeMeasures", {});
    await page.goto("/analytics/judges");
    await expect(page.getByTestId("trust-help")).toContainText("When to trust a judge");
    const errors = await showTable(page, "error-rates");
    for (const [i, e] of m.evaluators.entries()) {
      const row = errors.locator(`tr[data-row="${i}"]`);
      await expect(row.locator('td[data-col="evaluator"]')).toHaveText(e.info.label);
      await expect(row.locator('td[data-col="n"]')).toHaveText(String(e.errors.n));
      await expect(row.locator('td[data-col="tasks"]')).toHaveText(String(e.errors.tasks));
      const fp = e.errors.falsePositive;
      await expect(row.locator('td[data-col="fpr"]')).toHaveText(
        fp.estimate === null ? "–" : `${pct(fp.estimate)} ${interval(fp.low, fp.high)} · ${fp.errors}/${fp.of}`.replace(/\s+/g, " "),
      );
    }
    await errors.getByRole("button", { name: "Chart", exact: true }).click();
    await expect(errors.locator(".recharts-surface").first()).toBeVisible();

    // The seeded k = 3 judge was sampled three times per item: it has a reliability diagram and an ECE.
    const k3 = m.evaluators.find((e) => e.info.identity.key === seeded.judgeKey && e.info.identity.k === "3")!;
    expect(k3.calibration?.n).toBeGreaterThan(0);
    const reliability = page.locator('section[data-figure="reliability"]');
    await expect(reliability.locator(".recharts-surface").first()).toBeVisible();
    await expect(reliability).toContainText(`ECE ${coef(k3.calibration!.ece)}`);

    const ranking = page.locator('section[data-figure="ranking"]');
    await expect(ranking.locator("tbody tr")).toHaveCount(m.ranking.runs.length + 1);
    const tau = m.ranking.tau.find((t) => t.id === k3.info.id)!.tau;
    await expect(ranking.locator(`tr[data-row="tau"] td[data-col="${k3.info.id}"]`)).toContainText(tau.tau === null ? "–" : `τ ${coef(tau.tau)}`);
    // First failing step: annotator pairs and the k = 3 judge against the consolidated step, as the API counts them.
    const steps = await query<{
      humans: { pairs: number; exact: number };
      evaluators: { info: { id: string }; agreement: { pairs: number; exact: number } }[];
      items: { trajectoryId: number }[];
    }>(page.request, "analytics.failureSteps", {});
    const stepTable = page.locator('section[data-figure="failure-steps"]');
    await expect(stepTable.locator('tr[data-row="humans"] td[data-col="pairs"]')).toHaveText(String(steps.humans.pairs));
    const k3Steps = steps.evaluators.find((e) => e.info.id === k3.info.id)!;
    expect(k3Steps.agreement.pairs).toBeGreaterThan(0);
    await expect(stepTable.locator(`tr[data-row="${k3.info.id}"] td[data-col="pairs"]`)).toHaveText(String(k3Steps.agreement.pairs));
    await expect(page.getByTestId("step-timeline")).toHaveCount(steps.items.length);
    await expect(page.getByTestId("step-timeline").first().locator("[data-mark]")).toHaveCount(2);
    await page.getByTestId("step-timeline").first().scrollIntoViewIfNeeded();
    await expectCleanLayout(page, [stepTable]);
    await screenshotAt(page, "analytics-judge-failure-steps", VIEWPORTS[0]);

    await page.locator('section[data-figure="error-rates"]').scrollIntoViewIfNeeded();
    await shoot(page, "analytics-judge-measures");
    await resizeTo(page, { width: 1440, height: 900 });
    await screenshotAt(page, "analytics-judge-measures", { width: 1440, height: 900 });
    await reliability.scrollIntoViewIfNeeded();
    await expectCleanLayout(page, [reliability]);
    await screenshotAt(page, "analytics-judge-reliability", { width: 1440, height: 900 });
    await resizeTo(page, VIEWPORTS[0]);
  });

  test("human agreement shows α, Fleiss κ and the annotator matrix of the campaign", async ({ page }) => {
    type Level = { alpha: { alpha: number | null }; fleiss: { kappa: number | null }; percent: { value: number | null } };
    const h = await query<{
      verdict: Level;
      combined: Level;
      disputedTotal: number;
      pairwise: { combined: { a: string; b: string; kappa: number | null }[] };
      annotators: { key: string }[];
    }>(page.request, "analytics.humans", { campaignId: seeded.campaignId });
    await page.goto(`/analytics/humans?campaign=${seeded.campaignId}`);
    await expect(page.getByRole("heading", { name: "Human agreement" })).toBeVisible();
    await expect(page.locator('[data-stat="alpha"] [data-value]')).toHaveText(coef(h.combined.alpha.alpha));
    await expect(page.locator('[data-stat="fleiss"] [data-value]')).toHaveText(coef(h.combined.fleiss.kappa));
    await expect(page.locator('[data-stat="percent"] [data-value]')).toHaveText(pct(h.combined.percent.value));
    const p = h.pairwise.combined[0]!;
    await expect(page.locator(`[data-matrix="pairwise"] td[data-cell="${p.a}|${p.b}"]`)).toContainText(coef(p.kappa));
    await expect(page.locator(`[data-matrix="pairwise"] td[data-cell="${p.b}|${p.a}"]`)).toContainText(coef(p.kappa));
    await expect(page.locator('section[data-figure="disputed"] h2')).toContainText(`(${h.disputedTotal} with differing labels)`);
    await shoot(page, "analytics-humans");
    // Consensus models: the counts and the reliability table are the API's.
    const c = await query<{
      dawidSkene: { differFromMajority: number };
      mace: { differFromMajority: number };
      annotators: { key: string }[];
      departuresTotal: number;
    }>(page.request, "analytics.humanConsensus", { campaignId: seeded.campaignId, level: "label" });
    await expect(page.locator('[data-stat="dawid-skene"] [data-value]')).toHaveText(String(c.dawidSkene.differFromMajority));
    await expect(page.locator('[data-stat="mace"] [data-value]')).toHaveText(String(c.mace.differFromMajority));
    await expect(page.locator('section[data-figure="consensus-departures"] h2')).toContainText(`(${c.departuresTotal})`);
    await page.getByRole("link", { name: "verdict only" }).click();
    await expect(page.locator('[data-stat="alpha"] [data-value]')).toHaveText(coef(h.verdict.alpha.alpha));
  });

  test("annotator quality draws each annotator's drift, time and categories from the API's figures", async ({ page }) => {
    type Quality = {
      annotators: {
        name: string;
        drift: { n: number; rate: number }[];
        time: { histogram: { label: string; count: number }[] };
        categories: { rows: { category: string; own: number; pooled: number }[] };
      }[];
    };
    const q = await query<Quality>(page.request, "quality.annotators", { campaignId: seeded.campaignId, model: "majority", tooFastMs: 10_000, window: 20 });
    expect(q.annotators.length).toBeGreaterThan(1);
    await page.goto(`/analytics/humans/annotators?campaign=${seeded.campaignId}`);
    const whole = (v: number) => `${Math.round(v * 100)}%`;
    for (const a of q.annotators) {
      const panel = page.locator(`section[data-annotator="${a.name}"]`);
      expect(a.drift.length, `${a.name} has labels on items with a consensus`).toBeGreaterThan(0);
      const last = a.drift[a.drift.length - 1]!;
      await expect(panel.locator('[data-chart="drift"] polyline')).toHaveCount(1);
      await expect(panel.locator('[data-chart="drift"] title').last()).toHaveText(`label ${last.n}: ${whole(last.rate)} agreement`);
      await expect(panel.locator('[data-chart="drift"] title')).toHaveCount(a.drift.length);
      for (const bin of a.time.histogram) await expect(panel.locator(`[data-chart="time"] [title^="${bin.label}: "]`)).toContainText(String(bin.count));
      for (const c of a.categories.rows)
        await expect(panel.locator(`[data-chart="categories"] [title^="${c.category}: "]`)).toHaveAttribute(
          "title",
          `${c.category}: ${a.name} ${whole(c.own)}, everyone ${whole(c.pooled)}`,
        );
    }
    const first = page.locator(`section[data-annotator="${q.annotators[0]!.name}"]`);
    await first.scrollIntoViewIfNeeded();
    for (const size of VIEWPORTS) {
      await resizeTo(page, size);
      await first.scrollIntoViewIfNeeded();
      await expectCleanLayout(page, [first]);
      await screenshotAt(page, "analytics-annotators", size);
    }
    await resizeTo(page, VIEWPORTS[0]);
  });

  test("error analysis shows the category distribution and first failing steps", async ({ page }) => {
    const e = await query<{ failures: number; overall: { category: string | null; count: number }[] }>(page.request, "analytics.errors", {
      campaignId: seeded.campaignId,
    });
    await page.goto(`/analytics/errors?campaign=${seeded.campaignId}`);
    await expect(page.getByRole("heading", { name: "Error analysis" })).toBeVisible();
    await expect(page.locator('section[data-figure="distribution"] .recharts-surface')).toBeVisible();
    await shoot(page, "analytics-errors");
    const section = await showTable(page, "distribution");
    for (const c of e.overall) {
      await expect(section.locator(`tr[data-row="${c.category ?? "(no category)"}"] td[data-col="count"]`)).toHaveText(String(c.count));
    }
    expect(e.overall.reduce((a, c) => a + c.count, 0)).toBe(e.failures);
  });

  test("each chart page brings its data with the document: no tRPC request after it, and its charts drawn", async ({ page }) => {
    // Data fetched in the browser after the document is a second round trip before the charts can draw (the pages
    // bench, issue 30 item 7). Any tRPC request from the navigation until the page is quiet fails this, the top
    // bar's included.
    const pages = [
      "/analytics",
      "/analytics/judges",
      `/analytics/judges/${encodeURIComponent(seeded.judgeKey)}`,
      `/analytics/humans?campaign=${seeded.campaignId}`,
      `/analytics/humans/annotators?campaign=${seeded.campaignId}`,
      `/analytics/errors?campaign=${seeded.campaignId}`,
      "/analytics/step-budget",
    ];
    const calls: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/api/trpc/")) calls.push(`${new URL(page.url()).pathname}: ${r.url().split("/api/trpc/")[1]!.split("?")[0]}`);
    });
    for (const address of pages) {
      await page.goto(address);
      await expect(page.locator("main h1").first()).toBeVisible();
      // recharts' charts, or the annotator panels' charts drawn on the server (data-chart).
      await expect(page.locator("main :is(.recharts-surface, [data-chart])").first()).toBeVisible();
      await page.waitForLoadState("networkidle");
    }
    expect(calls).toEqual([]);
    // The listener does see a request the page sends itself.
    await page.evaluate(() => fetch("/api/trpc/analytics.options").then((r) => r.status));
    expect(calls).toEqual(["/analytics/step-budget: analytics.options"]);
  });

  test("CSV agreement computes what the API computes for an uploaded file", async ({ page }) => {
    test.setTimeout(300_000);
    const lines = ["item,annotator,verdict"];
    for (let i = 0; i < 14; i++)
      for (const [a, who] of ["x", "y", "z"].entries()) lines.push(`t${i},${who},${(i + a) % 5 === 0 ? "fail" : i % 3 === 0 ? "fail" : "pass"}`);
    const text = lines.join("\n") + "\n";
    // The analysis runs on the worker the quick start serves beside the web server: the page and this call wait for it.
    type Analysis = { report: { krippendorff: { alpha: number | null }; fleiss: { kappa: number | null }; items: number; pairwise: unknown[] } };
    const { jobId } = await mutation<{ jobId: number }>(page.request, "analytics.csvAgreement", {
      fileName: "ratings.csv",
      text,
      itemColumns: ["item"],
      raterColumn: "annotator",
      labelColumn: "verdict",
    });
    const done: { result?: Analysis | null } = {};
    await expect
      .poll(
        async () => {
          const job = await query<{ status: string; result: Analysis | null }>(page.request, "analytics.csvAgreementJob", { id: jobId });
          done.result = job.result;
          return job.status;
        },
        { timeout: 120_000, message: "the CSV agreement job on the worker" },
      )
      .toBe("succeeded");
    const api = done.result!;
    await page.goto("/analytics/csv");
    await page.getByTestId("csv-file").setInputFiles({ name: "ratings.csv", mimeType: "text/csv", buffer: Buffer.from(text) });
    await expect(page.getByText("ratings.csv", { exact: true })).toBeVisible();
    await expect(page.getByLabel("Rater column")).toHaveValue("annotator");
    await expect(page.getByLabel("Label column")).toHaveValue("verdict");
    await page.getByRole("button", { name: "Compute agreement" }).click();
    const report = page.getByTestId("csv-report");
    // The page's own analysis is a second job on the worker: waited for as long as the first.
    await expect(report.locator('[data-stat="alpha"] [data-value]')).toHaveText(coef(api.report.krippendorff.alpha), { timeout: 120_000 });
    await expect(report.locator('[data-stat="fleiss"] [data-value]')).toHaveText(coef(api.report.fleiss.kappa));
    await expect(report.locator('[data-stat="items"] [data-value]')).toHaveText(String(api.report.items));
    await expect(report.locator('section[data-figure="csv-pairwise"] tbody tr')).toHaveCount(api.report.pairwise.length);
    await shoot(page, "analytics-csv");
  });
});

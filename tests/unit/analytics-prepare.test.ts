/**
 * The analytics pages' prepare layer (app/analytics/_lib): pure functions from API results to table, chart and
 * card models. Inputs are built by hand here; tests/integration/analytics.test.ts runs the same functions on real
 * API results.
 */
import { describe, expect, it } from "vitest";
import { analyzeRatings } from "../../server/domain/agreement";
import { decodeSelection } from "../../server/domain/analytics/selection";
import type { AgreementStats, CsvAgreementResult, HumanAgreementResult, OverviewResult, RateCell } from "../../server/services/analytics";
import { errorDistances } from "../../app/analytics/_lib/charts";
import { cliCommand, guessColumns, prepareCsvReport, previewCsv } from "../../app/analytics/_lib/csv";
import { csvNumber, fmtCoef, fmtCoefInterval, fmtInterval, intervalTitle, fmtP, fmtPercent, fmtPercentInterval } from "../../app/analytics/_lib/format";
import { prepareHumans } from "../../app/analytics/_lib/humans";
import { agreementCells, judgePageHref, kappaChart, prepareJudgeList } from "../../app/analytics/_lib/judges";
import { prepareOverview } from "../../app/analytics/_lib/overview";
import { analyticsSearch, NO_SITE, parseAnalyticsParams, trajectoryListHref } from "../../app/analytics/_lib/params";
import { rateCellView, rateChart } from "../../app/analytics/_lib/rates";
import { csvFileName, tableToCsv, trajectoryCell, trajectoryCells, TRAJECTORY_COLUMNS, type TableModel } from "../../app/analytics/_lib/table";

function cell(successes: number, n: number, extra: Partial<RateCell> = {}): RateCell {
  return {
    n,
    successes,
    rate: n ? successes / n : null,
    low: n ? 0.1 : null,
    high: n ? 0.9 : null,
    unparseable: 0,
    notEvaluable: 0,
    unsure: 0,
    sel: { site: "A" },
    successSel: { site: "A" },
    ...extra,
  };
}

describe("formatting", () => {
  it("writes undefined values as a dash, never as 0", () => {
    expect(fmtCoef(null)).toBe("–");
    expect(fmtCoef(0)).toBe("0.000");
    expect(fmtPercent(null)).toBe("–");
    expect(fmtPercent(0)).toBe("0.0%");
    expect(csvNumber(null)).toBe("");
    expect(csvNumber(0)).toBe("0");
  });
  it("writes intervals and p-values", () => {
    expect(fmtPercentInterval(0.16818, 0.68732)).toBe("[16.8, 68.7]");
    expect(fmtPercentInterval(null, 0.5)).toBe("");
    expect(fmtCoefInterval(-0.1234, 0.5)).toBe("[-0.123, 0.500]");
    // A coefficient's interval shows its bounds, or says why it has none (never a made-up point).
    const none = { method: null, low: null, high: null, level: 0.95, n: 3, replicates: null, seed: null, undefinedReplicates: null };
    expect(fmtInterval({ ...none, method: "bootstrap", low: 0.376, high: 1, n: 12, replicates: 2000, seed: 1, undefinedReplicates: 0, note: null })).toBe(
      "[0.376, 1.000]",
    );
    expect(fmtInterval({ ...none, note: "no interval (n = 3)" })).toBe("no interval (n = 3)");
    expect(fmtInterval({ ...none, n: 40, note: "no interval: the labels agree on every one of the 40 items, so every resample gives κ = 1" })).toBe(
      "no interval",
    );
    expect(intervalTitle({ ...none, n: 40, note: "no interval: the labels agree on every one of the 40 items, so every resample gives κ = 1" })).toMatch(
      /agree on every one of the 40 items/,
    );
    expect(fmtInterval(undefined)).toBe("");
    expect([fmtP(0.0004), fmtP(0.0234), fmtP(null)]).toEqual(["< 0.001", "0.023", "–"]);
  });
});

describe("tables and CSV export", () => {
  const table: TableModel = {
    name: "Judge agreement · k = 3",
    columns: [
      { key: "name", label: "Evaluator" },
      { key: "rate", label: "Rate", csv: ["rate", "low", "high"] },
      { key: "n", label: "n" },
    ],
    rows: [
      { key: "a", cells: { name: { text: 'GPT "4o", judge' }, rate: { text: "40.0% [10, 90]", csv: ["0.4", "0.1", "0.9"] }, n: { text: "10" } } },
      { key: "b", cells: { name: { text: "rules" }, rate: { text: "–" } } },
    ],
  };
  it("expands multi-value cells under their headers, quotes and fills gaps", () => {
    expect(tableToCsv(table)).toBe('Evaluator,rate,low,high,n\r\n"GPT ""4o"", judge",0.4,0.1,0.9,10\r\nrules,–,,,\r\n');
  });
  it("makes safe file names", () => {
    expect(csvFileName("Judge agreement · k = 3")).toBe("judge-agreement-k-3.csv");
    expect(csvFileName("///")).toBe("table.csv");
  });
  it("names a trajectory the same way in every table: its id to the player, its task with the intent, its site and run", () => {
    const named: TableModel = {
      name: "named",
      columns: [...TRAJECTORY_COLUMNS],
      rows: [
        { key: "7", cells: trajectoryCells({ trajectoryId: 7, externalTaskId: "shop--3", intent: "Buy a lamp", site: null, runName: "agent-a" }) },
        { key: "9", cells: { id: trajectoryCell(9, "Open in the player", "/trajectories/9") } },
      ],
    };
    const seven = named.rows[0]!.cells;
    expect(seven.id).toMatchObject({ text: "#7", href: "/trajectories/7?panel=evaluations", mono: true });
    expect(seven.task).toMatchObject({ text: "shop--3", title: "Buy a lamp" });
    expect(seven.site!.text).toBe("–");
    expect(named.rows[1]!.cells.id!.href).toBe("/trajectories/9");
    expect(tableToCsv(named)).toBe("Trajectory,Task,Site,Run\r\n7,shop--3,–,agent-a\r\n9,,,\r\n");
  });
});

describe("URL params", () => {
  it("parses forgivingly and writes only non-defaults", () => {
    const p = parseAnalyticsParams(new URLSearchParams("set=2&run=x&site=(none)&campaign=0&unparseable=failure&dim=visual"));
    expect(p).toEqual({ taskSetId: 2, runId: undefined, site: null, campaignId: undefined, unparseable: "failure", difficulty: "visual" });
    expect(analyticsSearch(p)).toBe(`?set=2&${new URLSearchParams({ site: NO_SITE })}&unparseable=failure&dim=visual`);
    expect(analyticsSearch(parseAnalyticsParams({}))).toBe("");
    expect(analyticsSearch({ unparseable: "exclude", difficulty: "overall" }, { k: "3", page: undefined })).toBe("?k=3");
  });
  it("links list-only selections straight to the trajectory list", () => {
    expect(trajectoryListHref({ site: "Amazon", runId: 3 })).toBe("/trajectories?run=3&site=Amazon");
    expect(trajectoryListHref({ site: null })).toBeNull();
    expect(trajectoryListHref({ reference: { verdicts: ["failure"] } })).toBeNull();
  });
});

describe("rate cells and charts", () => {
  it("shows rate, interval and counts, exports raw numbers and links to the n trajectories", () => {
    const v = rateCellView(cell(4, 10, { unparseable: 2 }));
    expect(v.text).toBe("40.0% [10.0, 90.0] · 4/10");
    expect(v.csv).toEqual(["0.4", "0.1", "0.9", "4", "10"]);
    expect(decodeSelection(v.href!.split("sel=")[1]!)).toEqual({ site: "A" });
    expect(v.title).toContain("2 unparseable");
  });
  it("shows an empty cell as a dash with zero counts in CSV", () => {
    const v = rateCellView(cell(0, 0, { notEvaluable: 3 }));
    expect([v.text, v.csv, v.href]).toEqual(["–", ["", "", "", "0", "0"], undefined]);
    expect(v.title).toContain("3 left out");
  });
  it("draws one series per column with interval distances and the human in grey", () => {
    const chart = rateChart(
      "bars",
      "Site",
      [{ key: "a", label: "A", cells: { human: cell(4, 10), "judge%3A1|1|v": cell(5, 10) } }],
      [
        { id: "human", label: "Human" },
        { id: "judge%3A1|1|v", label: "Judge" },
      ],
    )!;
    expect(chart.series.map((s) => [s.key, s.label])).toEqual([
      ["s0", "Human"],
      ["s1", "Judge"],
    ]);
    expect(chart.series[0]!.color).toBe("#27272a");
    expect(chart.data[0]).toMatchObject({ label: "A", s0: 0.4, s1: 0.5, s0_n: 10 });
    expect((chart.data[0]!.s0_err as number[]).map((x) => +x.toFixed(10))).toEqual([0.3, 0.5]);
    expect(rateChart("bars", "Site", [], [{ id: "human", label: "Human" }])).toBeNull();
    expect(errorDistances(null, 0.1, 0.2)).toEqual([0, 0]);
  });
});

function overview(): OverviewResult {
  const h = (s: number, n: number, site: string, runId?: number) => cell(s, n, { sel: { site, runId } });
  return {
    scope: {},
    flagged: { tasks: 0, trajectories: 0, included: false },
    campaignId: null,
    unparseable: "exclude",
    difficulty: "overall",
    trajectories: 12,
    notCounted: { infraErrors: 0, blocked: 0 },
    columns: [{ id: "human", kind: "human", label: "Human (consolidated)", info: null, total: cell(4, 10) }],
    runs: [
      { id: 1, name: "alpha", agentName: "a", model: null },
      { id: 2, name: "beta", agentName: "b", model: null },
    ],
    bySite: [
      { key: "site:A", label: "A", trajectories: 6, sel: { site: "A" }, site: "A", cells: { human: h(2, 5, "A") } },
      { key: "site:B", label: "B", trajectories: 6, sel: { site: "B" }, site: "B", cells: { human: h(2, 5, "B") } },
    ],
    byRun: [],
    bySiteRun: [
      { key: "a1", label: "A · alpha", trajectories: 3, sel: {}, site: "A", runId: 1, cells: { human: h(1, 3, "A", 1) } },
      { key: "a2", label: "A · beta", trajectories: 3, sel: {}, site: "A", runId: 2, cells: { human: h(1, 2, "A", 2) } },
      { key: "b1", label: "B · alpha", trajectories: 3, sel: {}, site: "B", runId: 1, cells: { human: h(2, 3, "B", 1) } },
    ],
    byDifficulty: [],
    byLength: [],
    lengthBucketWidth: 5,
    split: null,
  };
}

describe("overview", () => {
  it("lays site × run out as WebVoyager's Table 1 (sites down, runs across) per evaluator", () => {
    const v = prepareOverview(overview());
    const t = v.siteRun.evaluators[0]!.figure.table;
    expect(t.columns.map((c) => c.label)).toEqual(["Site", "alpha", "beta"]);
    expect(t.rows.map((r) => [r.cells.site!.text, r.cells["run:1"]!.text, r.cells["run:2"]!.text])).toEqual([
      ["A", "33.3% · 1/3", "50.0% · 1/2"],
      ["B", "66.7% · 2/3", "–"],
    ]);
    // Compact cells (review 2, #10): the interval stays in the tooltip and the CSV.
    expect(t.rows[0]!.cells["run:1"]!.title).toContain("33.3% [10.0, 90.0] · 1/3");
    expect(t.rows[0]!.cells["run:1"]!.csv).toHaveLength(5);
    expect(v.totals).toEqual([expect.objectContaining({ label: "Human (consolidated)", value: "40.0%", detail: "4/10 [10.0, 90.0]" })]);
    expect(v.empty).toBeNull();
  });
  it("turns site × run around when there are more runs than sites, so many runs make it longer, not wider (review 2, #10)", () => {
    const o = overview();
    const oneSite = { ...o, bySite: o.bySite.slice(0, 1), bySiteRun: o.bySiteRun.filter((r) => r.site === o.bySite[0]!.site) };
    const t = prepareOverview(oneSite).siteRun.evaluators[0]!.figure.table;
    expect(t.columns.map((c) => c.label)).toEqual(["Agent run", o.bySite[0]!.label]);
    expect(t.rows.map((r) => r.cells.run!.text)).toEqual(["alpha", "beta"]);
  });
  it("says why there is nothing to show", () => {
    expect(prepareOverview({ ...overview(), columns: [] }).empty).toBe("no-evaluations");
    expect(prepareOverview({ ...overview(), trajectories: 0 }).empty).toBe("no-trajectories");
  });
});

function stats(kappa: number | null, skewed = false): AgreementStats {
  const sel = { site: "A" };
  return {
    n: 10,
    agreement: 0.8,
    kappa: {
      kappa,
      reason: kappa === null ? "every label is the same" : null,
      n: 10,
      observedAgreement: 0.8,
      expectedAgreement: 0.5,
      stdKappa: 0.1,
      waldLow: kappa === null ? null : kappa - 0.2,
      waldHigh: kappa === null ? null : kappa + 0.2,
      interval:
        kappa === null
          ? {
              method: null,
              low: null,
              high: null,
              level: 0.95,
              n: 10,
              replicates: null,
              seed: null,
              undefinedReplicates: null,
              note: "no interval: every label is the same",
            }
          : {
              method: "bootstrap",
              low: kappa - 0.25,
              high: Math.min(1, kappa + 0.15),
              level: 0.95,
              n: 10,
              replicates: 2000,
              seed: 1,
              undefinedReplicates: 0,
              note: "with 10 items (under 30) the large-sample interval is not reliable",
            },
      stdKappa0: 0.1,
      z: 3,
      pTwoSided: 0.002,
    },
    prevalence: {
      n: 10,
      positive: "success",
      prevalenceIndex: 0.7,
      biasIndex: 0,
      pabak: 0.6,
      dominantCategory: "success",
      dominantShare: skewed ? 0.95 : 0.6,
      skewed,
      warning: skewed ? "skewed!" : null,
    },
    confusion: [],
    metrics: { positive: "success", truePositive: 4, falsePositive: 1, falseNegative: 1, trueNegative: 4, precision: 0.8, recall: 0.8, f1: 0.8, accuracy: 0.8 },
    judgeSuccess: { successes: 5, n: 10, estimate: 0.5, low: 0.2, high: 0.8, z: 1.96 },
    humanSuccess: { successes: 5, n: 10, estimate: 0.5, low: 0.2, high: 0.8, z: 1.96 },
    unparseable: 2,
    notEvaluable: 0,
    unsureReference: 1,
    noReference: 3,
    tieReference: 0,
    falseSuccess: 1,
    falseFailure: 1,
    sel,
    disagreementSel: [sel, sel],
    unparseableSel: { ...sel, evaluator: { key: "j", k: "1", pv: "", verdicts: ["unparseable"] } },
  };
}

describe("judge agreement", () => {
  it("shows an undefined κ as a dash with its short reason, and flags skewed prevalence", () => {
    const c = agreementCells(stats(null, true));
    expect(c.kappa!.text).toBe("– (every label is the same)");
    expect(c.kappa!.title).toBe("every label is the same");
    expect(c.kappa!.csv).toEqual(["", "", ""]);
    expect(c.pi!.tone).toBe("warn");
    expect(c.unparseable!.href).toContain("/analytics/trajectories?sel=");
    expect(c.noReference!.text).toBe("3 + 1 unsure");
  });
  it("charts κ only where it is defined", () => {
    const chart = kappaChart("Evaluator", [
      { label: "a", stats: stats(0.5), href: "/x" },
      { label: "b", stats: stats(null), href: "/y" },
    ])!;
    expect(chart.data.map((d) => d.label)).toEqual(["a"]);
    expect(chart.scale).toBe("coefficient");
    expect(kappaChart("Evaluator", [{ label: "b", stats: stats(null), href: "/y" }])).toBeNull();
  });
  it("lays a split out as groups down and evaluators across, and says which reference and how many ties", () => {
    const judge = (label: string, groups: { key: string; label: string; kappa: number | null }[]) => ({
      info: { id: label, identity: { key: `import:${label}`, k: "", pv: "" }, kind: "import" as const, name: label, label, verdicts: 10 },
      stats: stats(0.5),
      groups: groups.map((g) => ({ key: g.key, label: g.label, stats: stats(g.kappa) })),
    });
    const list = {
      scope: {},
      campaignId: 3,
      unparseable: "exclude" as const,
      referenceLabels: 40,
      reference: { spec: { kind: "majority" as const }, description: "the majority of the annotators", labels: 40, ties: 2, unsure: 0 },
      split: { by: "attr:lang", title: "lang" },
      flagged: { tasks: 0, trajectories: 0, included: false },
      judges: [
        judge("j1", [{ key: "attr:lang=en", label: "en", kappa: 0.5 }]),
        judge("j2", [
          { key: "attr:lang=en", label: "en", kappa: null },
          { key: "attr:lang=zh", label: "zh", kappa: 0.25 },
        ]),
      ],
    };
    const v = prepareJudgeList(list, "?campaign=3&ref=majority");
    expect(v.subtitle).toBe(
      "2 evaluator settings · against the majority of the annotators: 40 trajectories with success or failure · 2 tied majorities counted apart",
    );
    expect(v.chart.table.name).toBe("judge agreement with the majority of the annotators");
    const t = v.split!;
    expect(t.columns.map((c) => c.label)).toEqual(["lang", "j1", "j2"]);
    expect(t.rows.map((r) => r.key)).toEqual(["attr:lang=en", "attr:lang=zh"]);
    expect(t.rows[0]!.cells.j0!.text).toBe("0.500 [0.250, 0.650] · n 10");
    expect(t.rows[0]!.cells.j1!.text).toBe("– · n 10");
    expect(t.rows[1]!.cells.j0).toMatchObject({ text: "–", tone: "muted" });
    expect(t.rows[1]!.cells.j1!.csv).toEqual(["0.25", "0", "0.4", "10", "0.8"]);
  });
  it("builds the per-evaluator page link with the setting and filters", () => {
    expect(judgePageHref("import:arb:gpt 4o", { k: "", pv: "v1" }, "?run=2")).toBe("/analytics/judges/import%3Aarb%3Agpt%204o?run=2&pv=v1");
    expect(judgePageHref("judge:3", { k: "full", pv: "" }, "")).toBe("/analytics/judges/judge%3A3?k=full");
  });
});

describe("human agreement", () => {
  const pair = (a: string, b: string, kappa: number | null, shared: number) => ({
    a,
    b,
    shared,
    agreement: 0.9,
    fewShared: shared < 10,
    kappa,
    reason: null,
    n: shared,
    observedAgreement: 0.9,
    expectedAgreement: 0.5,
    stdKappa: 0.1,
    waldLow: 0.1,
    waldHigh: 0.9,
    interval: { method: "large-sample", low: 0.1, high: 0.9, level: 0.95, n: shared, replicates: null, seed: null, undefinedReplicates: null, note: null },
    stdKappa0: 0.1,
    z: 2,
    pTwoSided: 0.05,
    sel: { campaign: { campaignId: 1, annotators: [a, b] } },
    disagreeSel: { campaign: { campaignId: 1, annotators: [a, b], disagree: true } },
  });
  const h = {
    campaign: { id: 1, name: "C", status: "active", annotatorsPerItem: 2, items: 20, categories: [] },
    labelledItems: 20,
    pairableItems: 20,
    labels: 40,
    unsureLabels: 0,
    annotators: [
      { key: "import:a", name: "Ann", labels: 20, unsure: 0, successShare: 0.5 },
      { key: "import:b", name: "Bob", labels: 12, unsure: 0, successShare: 0.5 },
      { key: "import:c", name: "Cy", labels: 8, unsure: 0, successShare: null },
    ],
    verdict: {
      categories: ["success", "failure"],
      alpha: {
        alpha: 0.5,
        reason: null,
        pairableUnits: 20,
        pairableValues: 40,
        categories: [],
        observedDisagreement: 0.1,
        expectedDisagreement: 0.2,
        interval: { method: "bootstrap", low: 0.21, high: 0.74, level: 0.95, n: 20, replicates: 2000, seed: 1, undefinedReplicates: 0, note: null },
      },
      fleiss: {
        kappa: null,
        reason: "items have different numbers of ratings",
        items: 20,
        ratingsPerItem: null,
        categories: [],
        observedAgreement: null,
        expectedAgreement: null,
        se0: null,
        z: null,
        pTwoSided: null,
        interval: {
          method: null,
          low: null,
          high: null,
          level: 0.95,
          n: 20,
          replicates: null,
          seed: null,
          undefinedReplicates: null,
          note: "no interval: items have different numbers of ratings",
        },
      },
      percent: { value: 0.9, items: 20 },
    },
    failureCategory: {
      alpha: null,
      reason: "no unit has two or more values",
      pairableUnits: 0,
      pairableValues: 0,
      categories: [],
      observedDisagreement: null,
      expectedDisagreement: null,
    },
    pairwise: { verdict: [pair("import:a", "import:b", 0.7, 12), pair("import:a", "import:c", 0.9, 8)], combined: [] },
    perCategory: [],
    disputedTotal: 0,
    disputed: [],
    sel: { campaign: { campaignId: 1 } },
    disputedSel: { campaign: { campaignId: 1, disagree: true } },
  } as unknown as HumanAgreementResult;

  it("fills a symmetric κ matrix with an empty diagonal, muting pairs with few shared trajectories", () => {
    const v = prepareHumans(h, "verdict");
    const m = v.matrix;
    expect(m.rows.map((r) => r.label)).toEqual(["Ann", "Bob", "Cy"]);
    expect(m.cells[0]![0]).toBeNull();
    expect(m.cells[0]![1]!.text).toBe("0.700");
    expect(m.cells[1]![0]!.text).toBe("0.700");
    expect(m.cells[0]![2]!.shade).toBe(0);
    expect(m.cells[1]![2]!.text).toBe("·");
    expect(v.cards.find((c) => c.key === "fleiss")).toMatchObject({ value: "–", detail: "items have different numbers of ratings" });
    expect(v.cards.find((c) => c.key === "alpha")).toMatchObject({ value: "0.500", detail: "95% CI [0.210, 0.740] · 20 pairable trajectories" });
    expect(v.cards.find((c) => c.key === "alpha")!.title).toMatch(/percentile bootstrap over 20 items \(2000 resamples, seed 1\)/);
    expect(v.pairs.rows[1]!.cells.shared!.tone).toBe("warn");
  });
});

describe("CSV agreement page", () => {
  it("previews a file and reports the parse error with its line", () => {
    expect(previewCsv("item,rater,label\n1,a,x\n2,a,y\n", ",", "f.csv", 1)).toEqual({
      header: ["item", "rater", "label"],
      rows: [["1", "a", "x"]],
      rowCount: 2,
      error: null,
    });
    expect(previewCsv('item,rater\n1,"a\n', ",", "f.csv").error).toMatch(/f\.csv: line 2/);
  });
  it("guesses the columns from their names", () => {
    expect(guessColumns(["trajectory_id", "annotator", "verdict", "note"])).toEqual({ item: ["trajectory_id"], rater: "annotator", label: "verdict" });
    expect(guessColumns(["x", "y", "z"])).toEqual({ item: ["x"], rater: "y", label: "z" });
  });
  it("prints the equivalent CLI call", () => {
    expect(cliCommand("my labels.csv", ["task", "run"], "who", "label", ";", 5)).toBe(
      "npm run cli -- agreement csv 'my labels.csv' --item task,run --rater who --label label --delimiter ';' --min-shared 5",
    );
  });
  it("shows the analysis the CLI prints", () => {
    const records = [];
    for (let i = 0; i < 12; i++) for (const r of ["a", "b"]) records.push({ item: String(i), rater: r, label: i % 3 === 0 && r === "b" ? "no" : "yes" });
    const report = analyzeRatings(records);
    const v = prepareCsvReport({
      fileName: "x.csv",
      rows: records.length,
      leftOut: [{ reason: "consolidated labels", rows: 12 }],
      report,
    } as CsvAgreementResult);
    expect(v.notes).toEqual(["Left out: 12 consolidated labels."]);
    expect(v.cards.find((c) => c.key === "items")!.value).toBe("12");
    expect(v.cards.find((c) => c.key === "fleiss")!.value).toBe(fmtCoef(report.fleiss.kappa));
    expect(v.pairwise.rows).toHaveLength(1);
    expect(v.pairwise.rows[0]!.cells.kappa!.csv![0]).toBe(String(report.pairwise[0]!.kappa));
    expect(v.matrix!.cells[0]![1]!.text).toBe(fmtCoef(report.pairwise[0]!.kappa));
  });
});

/**
 * Analytics views on a small dataset whose figures were worked out by hand (tests/helpers/analytics-fixture.ts):
 * success rates, judge agreement, human agreement, error analysis and drill-down, through the tRPC router with a
 * real SQLite file. Every figure that carries a selection is also resolved, and its list must have the figure's n.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { rawAll, rawGet, rawRun } from "../../db/database";
import { createBackendContext, describeEachBackend, type TestBackend } from "../helpers/backends";
import { type createCaller } from "../../server/api/root";
import { callerWithRole } from "../helpers/trpc";
import { upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { ensureTaskSet, upsertRun, upsertTask } from "../../db/repositories/catalog";
import { saveTrajectory } from "../../db/repositories/trajectories";
import {
  analyticsOptions,
  analyticsOverview,
  drillDown,
  errorAnalysis,
  failureStepAgreement,
  judgeAgreementDetail,
  judgeAgreementList,
  judgeDisagreements,
  judgeMeasures,
  selectionRows,
} from "../../server/services/analytics";
import { listEvaluatorSummaries, verdictTotals } from "../../db/repositories/evaluation/verdicts";
import { postgresSkipReason, testBackends } from "../helpers/postgres";
import type { Selection } from "../../server/domain/analytics/selection";
import { evaluatorId } from "../../server/domain/analytics/measures";
import { formatIdList, parseIdList } from "../../server/domain/trajectory-list-query";
import { decodeSelection } from "../../server/domain/analytics/selection";
import { prepareOverview } from "../../app/analytics/_lib/overview";
import { prepareJudgeDetail, prepareJudgeList } from "../../app/analytics/_lib/judges";
import { prepareHumans } from "../../app/analytics/_lib/humans";
import { prepareErrors } from "../../app/analytics/_lib/errors";
import { tableToCsv, type TableModel } from "../../app/analytics/_lib/table";
import type { TestContext } from "../helpers/context";
import { loadCampaignLabelColumns, loadConsolidatedColumns, loadVerdictColumns, NULL_INT, type PackedColumns } from "../../db/repositories/analytics";
import { HAL, NAV, OTHER, seedAnalyticsFixture, seedAnalyticsRows, VIS, type AnalyticsFixture } from "../helpers/analytics-fixture";

describeEachBackend("analytics", (backend: TestBackend) => {
  let ctx: TestContext;
  let fx: AnalyticsFixture;
  let api: ReturnType<typeof createCaller>;

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-analytics-");
    fx = await seedAnalyticsFixture(ctx.db);
    api = await callerWithRole(ctx, "researcher");
  });
  afterAll(async () => {
    await ctx.cleanup();
  });

  const close = (actual: number | null | undefined, expected: number, digits = 10) => {
    expect(actual).not.toBeNull();
    expect(actual).toBeCloseTo(expected, digits);
  };

  /** Every {sel, n|count|shared|…} pair in a result, for the drill-down consistency check. */
  function figures(value: unknown, path = "$", out: { path: string; sel: Selection; n: number }[] = []) {
    if (Array.isArray(value)) value.forEach((v, i) => figures(v, `${path}[${i}]`, out));
    else if (value && typeof value === "object") {
      const o = value as Record<string, unknown>;
      const n = o.n ?? o.count ?? o.shared ?? o.items ?? o.trajectories;
      if (o.sel && typeof n === "number") out.push({ path, sel: o.sel as Selection, n });
      if (o.successSel && typeof o.successes === "number") out.push({ path: `${path}.successes`, sel: o.successSel as Selection, n: o.successes });
      if (o.caughtSel && typeof o.caught === "number") out.push({ path: `${path}.caught`, sel: o.caughtSel as Selection, n: o.caught });
      if (o.missedSel && typeof o.missed === "number") out.push({ path: `${path}.missed`, sel: o.missedSel as Selection, n: o.missed });
      if (o.failureSel && typeof o.failures === "number") out.push({ path: `${path}.failures`, sel: o.failureSel as Selection, n: o.failures });
      for (const [k, v] of Object.entries(o)) if (k !== "sel" && !k.endsWith("Sel")) figures(v, `${path}.${k}`, out);
    }
    return out;
  }

  async function expectDrillsMatch(result: unknown) {
    const found = figures(result);
    expect(found.length).toBeGreaterThan(0);
    const wrong: string[] = [];
    for (const f of found) {
      const listed = (await selectionRows(ctx.db, f.sel)).length;
      if (listed !== f.n) wrong.push(`${f.path}: n = ${f.n}, list = ${listed}`);
    }
    expect(wrong).toEqual([]);
  }

  describe("overview", () => {
    it("success rates of the human label and each evaluator setting, with Wilson intervals", async () => {
      const o = await api.analytics.overview({});
      expect(o.trajectories).toBe(12);
      expect(o.columns.map((c) => c.label)).toEqual(["Human (consolidated)", "Fixture judge · k = 1", "Fixture judge · k = 3", "VisualWebArena rules"]);
      const human = o.columns[0]!.total;
      // T1, T4, T5, T7 succeed; T2, T3, T6, T8, T10, T12 fail; T9 unsure, T11 unlabelled.
      expect([human.successes, human.n, human.unsure]).toEqual([4, 10, 1]);
      close(human.rate, 0.4);
      close(human.low, 0.16818, 4);
      close(human.high, 0.68732, 4);
      const k1 = o.columns[1]!.total;
      expect([k1.successes, k1.n, k1.unparseable]).toEqual([6, 11, 1]);
      const rule = o.columns[3]!.total;
      expect([rule.successes, rule.n, rule.notEvaluable]).toEqual([4, 8, 1]);
    });

    it("counts unparseable replies as failures when asked", async () => {
      const o = await api.analytics.overview({ unparseable: "failure" });
      const k1 = o.columns.find((c) => c.label.endsWith("k = 1"))!.total;
      expect([k1.successes, k1.n]).toEqual([6, 12]);
      close(k1.rate, 0.5);
    });

    it("splits by site, run, site × run, difficulty and length buckets", async () => {
      const o = await api.analytics.overview({});
      const h = (rows: typeof o.bySite) => rows.map((r) => [r.label, r.trajectories, r.cells.human!.successes, r.cells.human!.n]);
      expect(h(o.bySite)).toEqual([
        ["Shop", 6, 2, 5],
        ["Wiki", 6, 2, 5],
      ]);
      expect(h(o.byRun)).toEqual([
        ["alpha", 6, 3, 6],
        ["beta", 6, 1, 4],
      ]);
      expect(h(o.bySiteRun)).toEqual([
        ["Shop · alpha", 3, 1, 3],
        ["Shop · beta", 3, 1, 2],
        ["Wiki · alpha", 3, 2, 3],
        ["Wiki · beta", 3, 0, 2],
      ]);
      expect(h(o.byDifficulty)).toEqual([
        ["easy", 4, 3, 4],
        ["medium", 4, 1, 3],
        ["hard", 4, 0, 3],
      ]);
      expect(o.lengthBucketWidth).toBe(5);
      expect(h(o.byLength)).toEqual([
        ["0–5", 3, 2, 3],
        ["6–10", 3, 0, 2],
        ["11–15", 3, 2, 3],
        ["16–20", 1, 0, 0],
        ["21–25", 2, 0, 2],
      ]);
    });

    it("scopes to a run", async () => {
      const o = await api.analytics.overview({ scope: { runId: fx.runIds.beta } });
      expect(o.trajectories).toBe(6);
      expect(o.columns[0]!.total.n).toBe(4);
      expect(o.bySite.map((r) => r.sel)).toEqual([
        { runId: fx.runIds.beta, site: "Shop" },
        { runId: fx.runIds.beta, site: "Wiki" },
      ]);
    });

    it("every figure's selection lists exactly its n trajectories", async () => {
      await expectDrillsMatch(await api.analytics.overview({}));
      await expectDrillsMatch(await api.analytics.overview({ unparseable: "failure", scope: { site: "Wiki" } }));
    });
  });

  describe("judge agreement", () => {
    it("lists every evaluator setting with κ against the consolidated label", async () => {
      const list = await api.analytics.judges({});
      expect(list.referenceLabels).toBe(10);
      const byLabel = Object.fromEntries(list.judges.map((j) => [j.info.label, j.stats]));
      const k1 = byLabel["Fixture judge · k = 1"]!;
      expect(k1.n).toBe(9);
      expect(k1.confusion.map((row) => row.map((c) => c.count))).toEqual([
        [3, 0],
        [2, 4],
      ]);
      close(k1.agreement, 7 / 9);
      close(k1.kappa.kappa, 4 / 7);
      // Fleiss–Cohen–Everitt variance of this table, by hand: 20/343; the Wald bounds κ ± 1.96·SE, not clipped.
      close(k1.kappa.stdKappa, Math.sqrt(20 / 343));
      close(k1.kappa.waldLow, 0.0981509, 6);
      close(k1.kappa.waldHigh, 1.0447063, 6);
      // Nine pairs are too few for an interval: it says so rather than showing one.
      expect(k1.kappa.interval).toMatchObject({ method: null, low: null, high: null, note: "no interval (n = 9)" });
      expect([k1.unparseable, k1.unsureReference, k1.noReference, k1.notEvaluable]).toEqual([1, 1, 1, 0]);
      close(k1.metrics.precision, 3 / 5);
      close(k1.metrics.recall, 1);
      close(k1.metrics.f1, 0.75);
      close(k1.prevalence.prevalenceIndex, -1 / 9);
      close(k1.prevalence.biasIndex, -2 / 9);
      close(k1.prevalence.pabak, 5 / 9);
      expect(k1.prevalence.skewed).toBe(false);
      const k3 = byLabel["Fixture judge · k = 3"]!;
      close(k3.kappa.kappa, 32 / 41);
      const rule = byLabel["VisualWebArena rules"]!;
      expect(rule.n).toBe(8);
      close(rule.kappa.kappa, 1);
      expect(rule.notEvaluable).toBe(1);
    });

    it("counts unparseable replies as failures when asked", async () => {
      const list = await api.analytics.judges({ unparseable: "failure" });
      const k1 = list.judges.find((j) => j.info.label.endsWith("k = 1"))!.stats;
      expect(k1.n).toBe(10);
      close(k1.kappa.kappa, 0.4);
    });

    it("details one judge: k-table, per site, per error category", async () => {
      const d = await api.analytics.judge({ evaluatorKey: fx.judgeKey });
      expect(d.selected.identity).toEqual({ key: fx.judgeKey, k: "1", pv: "v1" });
      expect(d.settings.map((s) => [s.info.identity.k, s.stats.n, s.stats.agreement])).toEqual([
        ["1", 9, 7 / 9],
        ["3", 9, 8 / 9],
      ]);
      expect(d.bySite.map((s) => [s.label, s.stats.n, s.stats.agreement])).toEqual([
        ["Shop", 5, 4 / 5],
        ["Wiki", 4, 3 / 4],
      ]);
      expect(d.byCategory.map((c) => [c.category, c.n, c.caught, c.missed])).toEqual([
        [HAL, 2, 1, 1],
        [NAV, 2, 1, 1],
        [VIS, 1, 1, 0],
        [null, 1, 1, 0],
      ]);
      const k3 = await api.analytics.judge({ evaluatorKey: fx.judgeKey, k: "3" });
      expect(k3.selected.identity.k).toBe("3");
      expect(k3.overall.unparseable).toBe(1);
    });

    it("gives a reproducible bootstrap interval on request", async () => {
      const a = await api.analytics.judge({ evaluatorKey: fx.judgeKey, bootstrap: { replicates: 500, seed: 3 } });
      const b = await api.analytics.judge({ evaluatorKey: fx.judgeKey, bootstrap: { replicates: 500, seed: 3 } });
      expect(a.overall.bootstrap!.replicates).toBe(500);
      expect(a.overall.bootstrap!.low).toBe(b.overall.bootstrap!.low);
      expect(a.overall.bootstrap!.low!).toBeLessThanOrEqual(a.overall.kappa.kappa!);
    });

    it("lists disagreements and unparseable replies with the judge's rationale", async () => {
      const identity = { key: fx.judgeKey, k: "1", pv: "v1" };
      const all = await api.analytics.disagreements({ identity });
      expect(all.total).toBe(2);
      expect(all.rows.map((r) => [r.trajectoryId, r.human, r.humanCategory, r.judge, r.rationale])).toEqual([
        [fx.ids.T2, "failure", NAV, "success", "k=1 thinks success"],
        [fx.ids.T10, "failure", HAL, "success", "k=1 thinks success"],
      ]);
      expect((await api.analytics.disagreements({ identity, kind: "false_failure" })).total).toBe(0);
      const unparsed = await api.analytics.disagreements({ identity, kind: "unparseable" });
      expect(unparsed.rows.map((r) => r.trajectoryId)).toEqual([fx.ids.T5]);
      // Counted as a failure, T5 (a human success) becomes a disagreement too.
      expect((await api.analytics.disagreements({ identity, unparseable: "failure" })).rows.map((r) => r.trajectoryId)).toEqual([
        fx.ids.T2,
        fx.ids.T5,
        fx.ids.T10,
      ]);
    });

    it("names an unknown evaluator in its error", async () => {
      await expect(api.analytics.judge({ evaluatorKey: "judge:999" })).rejects.toThrow(/judge:999/);
    });

    it("every figure's selection lists exactly its n trajectories", async () => {
      await expectDrillsMatch(await api.analytics.judges({}));
      await expectDrillsMatch(await api.analytics.judge({ evaluatorKey: fx.judgeKey }));
      await expectDrillsMatch(await api.analytics.judge({ evaluatorKey: fx.judgeKey, k: "3", unparseable: "failure" }));
    });
  });

  describe("human agreement", () => {
    it("computes α, P̄ and Fleiss (undefined: unequal ratings) on pre-adjudication labels", async () => {
      const h = await api.analytics.humans({ campaignId: fx.campaignId });
      expect([h.labels, h.labelledItems, h.pairableItems, h.unsureLabels]).toEqual([34, 12, 11, 1]);
      close(h.verdict.alpha.alpha, 256 / 504);
      close(h.verdict.percent.value, 8 / 11);
      expect(h.verdict.fleiss.kappa).toBeNull();
      expect(h.verdict.fleiss.reason).toMatch(/different numbers of ratings/);
      expect(h.annotators.map((a) => [a.name, a.labels, a.unsure])).toEqual([
        ["ann", 12, 0],
        ["bob", 11, 0],
        ["cy", 11, 1],
      ]);
    });

    it("gives the pairwise κ matrix", async () => {
      const h = await api.analytics.humans({ campaignId: fx.campaignId });
      const pair = (a: string, b: string) => h.pairwise.verdict.find((p) => p.a === `import:${a}` && p.b === `import:${b}`)!;
      expect(pair("ann", "bob").shared).toBe(11);
      close(pair("ann", "bob").agreement, 10 / 11);
      close(pair("ann", "bob").kappa, 48 / 59);
      expect(pair("ann", "cy").shared).toBe(10);
      close(pair("ann", "cy").agreement, 7 / 10);
      expect(pair("ann", "cy").fewShared).toBe(false);
      close(h.pairwise.combined.find((p) => p.a === "import:ann" && p.b === "import:bob")!.agreement, 10 / 11);
    });

    it("gives specific agreement per label and the most disputed trajectories", async () => {
      const h = await api.analytics.humans({ campaignId: fx.campaignId });
      const cat = Object.fromEntries(h.perCategory.map((c) => [c.label, c]));
      close(cat["success"]!.value, 20 / 27);
      expect([cat["success"]!.ratings, cat["success"]!.items]).toEqual([14, 7]);
      close(cat[`failure: ${VIS}`]!.value, 0.5);
      expect(cat[`failure: ${OTHER}`]!.value).toBe(0);
      expect(h.disputedTotal).toBe(5);
      expect(h.disputed.map((d) => d.trajectoryId)).toEqual([fx.ids.T9, fx.ids.T2, fx.ids.T5, fx.ids.T10, fx.ids.T8]);
      expect(h.disputed[0]!.labels.map((l) => [l.annotator, l.verdict])).toEqual([
        ["ann", "success"],
        ["bob", "failure"],
        ["cy", "unsure"],
      ]);
    });

    it("every figure's selection lists exactly its n trajectories", async () => {
      const h = await api.analytics.humans({ campaignId: fx.campaignId });
      await expectDrillsMatch(h);
      expect((await selectionRows(ctx.db, h.disputedSel)).length).toBe(h.disputedTotal);
      for (const p of h.pairwise.verdict) expect((await selectionRows(ctx.db, p.disagreeSel)).length).toBe(Math.round(p.shared * (1 - p.agreement!)));
      expect((await selectionRows(ctx.db, h.sel)).length).toBe(h.labelledItems);
    });
  });

  describe("error analysis", () => {
    it("splits failures by category, site and run (Table 3), and places first failing steps", async () => {
      const e = await api.analytics.errors({});
      expect([e.labelled, e.successes, e.failures, e.unsure]).toEqual([11, 4, 6, 1]);
      expect(e.overall.map((c) => [c.category, c.count])).toEqual([
        [HAL, 2],
        [NAV, 2],
        [VIS, 1],
        [null, 1],
      ]);
      close(e.overall[0]!.share, 2 / 6);
      expect(e.bySite.map((s) => [s.label, s.labelled, s.failures, s.categories.map((c) => c.count)])).toEqual([
        ["Shop", 6, 3, [1, 1, 1, 0]],
        ["Wiki", 5, 3, [1, 1, 0, 1]],
      ]);
      expect(e.byRun.map((s) => [s.label, s.failures])).toEqual([
        ["alpha", 3],
        ["beta", 3],
      ]);
      expect(e.firstFailingStep.marked).toBe(4);
      // Labels are step numbers as the player shows them (1 = first step); keys keep the stored index.
      expect(e.firstFailingStep.byIndex.filter((b) => b.count > 0).map((b) => b.label)).toEqual(["1", "3", "8", "11"]);
      expect(e.firstFailingStep.byIndex.filter((b) => b.count > 0).map((b) => b.key)).toEqual(["step:0", "step:2", "step:7", "step:10"]);
      expect(e.firstFailingStep.byDecile.map((b) => b.count)).toEqual([1, 0, 0, 0, 1, 1, 0, 0, 0, 1]);
      await expectDrillsMatch(e);
    });
  });

  describe("drill-down", () => {
    it("lists the trajectories of a selection with a trajectory-list link", async () => {
      const d = await api.analytics.drill({ sel: { site: "Shop", reference: { verdicts: ["failure"] } } });
      expect(d.total).toBe(3);
      expect(d.rows.map((r) => r.id)).toEqual([fx.ids.T2, fx.ids.T3, fx.ids.T8]);
      expect(d.description).toEqual(["site Shop", "consolidated human label: failure"]);
      expect(d.idList).toBe(formatIdList([fx.ids.T2!, fx.ids.T3!, fx.ids.T8!]));
      expect(parseIdList(d.idList!)).toEqual([fx.ids.T2, fx.ids.T3, fx.ids.T8]);
      const page2 = await api.analytics.drill({ sel: {}, page: 2, pageSize: 5 });
      expect([page2.total, page2.rows.length, page2.pageCount]).toEqual([12, 5, 3]);
    });

    it("sees new verdicts at once (the cache follows the database)", async () => {
      const before = (await api.analytics.overview({})).columns[3]!.total.n;
      await upsertVerdict(ctx.db, {
        trajectoryId: fx.ids.T12!,
        kind: "rule",
        origin: "verdict",
        evaluatorKey: fx.ruleKey,
        evaluatorName: "VisualWebArena rules",
        k: "",
        promptVersion: "1",
        verdict: "failure",
      });
      const after = (await api.analytics.overview({})).columns[3]!.total.n;
      expect(after).toBe(before + 1);
      expect(evaluatorId({ key: fx.ruleKey, k: "", pv: "1" })).toBe((await api.analytics.overview({})).columns[3]!.id);
    });
  });

  describe("prepare layer on real results", () => {
    /** Every link of a table model that points at a selection, decoded. */
    function selectionLinks(table: TableModel): Selection[] {
      return table.rows.flatMap((r) =>
        Object.values(r.cells).flatMap((c) => (c.href?.startsWith("/analytics/trajectories?sel=") ? [decodeSelection(c.href.split("sel=")[1]!)] : [])),
      );
    }

    it("shows the API's numbers in the overview tables, each linking to a resolvable selection", async () => {
      const o = await api.analytics.overview({});
      const v = prepareOverview(o);
      const shop = v.bySite.table.rows.find((r) => r.cells.group!.text === "Shop")!;
      expect(shop.cells.human!.text).toMatch(/^40\.0% \[[\d.]+, [\d.]+\] · 2\/5$/);
      expect(shop.cells.human!.csv!.slice(3)).toEqual(["2", "5"]);
      const links = selectionLinks(v.bySite.table);
      expect(links.length).toBeGreaterThan(5);
      for (const sel of links) await expect(selectionRows(ctx.db, sel)).resolves.toBeInstanceOf(Int32Array);
      expect(tableToCsv(v.byLength.table).split("\r\n")[0]).toContain("Human (consolidated) rate");
    });

    it("shows κ, the k-table and the confusion matrix as the API computed them", async () => {
      const d = await api.analytics.judge({ evaluatorKey: fx.judgeKey });
      const v = prepareJudgeDetail(d, "");
      expect(v.cards.find((c) => c.key === "kappa")!.value).toBe((4 / 7).toFixed(3));
      expect(v.kTable!.table.rows.map((r) => r.cells.k!.text)).toEqual(["1", "3"]);
      expect(v.confusion.cells.map((row) => row.map((c) => c!.text))).toEqual([
        ["3", "0"],
        ["2", "4"],
      ]);
      const list = prepareJudgeList(await api.analytics.judges({}), "");
      expect(list.chart.chart!.data.map((x) => x.label)).toEqual(["Fixture judge · k = 1", "Fixture judge · k = 3", "VisualWebArena rules"]);
    });

    it("shows the pairwise matrix and error tables as the API computed them", async () => {
      const h = await api.analytics.humans({ campaignId: fx.campaignId });
      const hv = prepareHumans(h, "verdict");
      expect(hv.matrix.cells[0]![1]!.text).toBe((48 / 59).toFixed(3));
      expect(hv.matrix.cells[1]![0]!.text).toBe((48 / 59).toFixed(3));
      const e = prepareErrors(await api.analytics.errors({}));
      expect(e.distribution.table.rows.map((r) => [r.cells.category!.text, r.cells.count!.text])).toEqual([
        [HAL, "2"],
        [NAV, "2"],
        [VIS, "1"],
        ["(no category)", "1"],
      ]);
      for (const sel of [...selectionLinks(e.bySite.table), ...selectionLinks(hv.pairs)])
        await expect(selectionRows(ctx.db, sel)).resolves.toBeInstanceOf(Int32Array);
    });
  });

  describe("packed reads stay exact with awkward text", () => {
    it("keeps sites and categories containing separator characters, empty strings and nulls apart", async () => {
      const other = await createBackendContext(backend, "verdict-analytics-packed-");
      try {
        const odd = ["Shop\u001fA", "Shop\u001eB", "", "\u001cLeading", "Plain"];
        const sites: (string | null)[] = [...odd, null];
        const setId = await ensureTaskSet(other.db, { name: "Odd", benchmark: "test" });
        const runId = await upsertRun(other.db, { runKey: "odd", name: "odd run", agentName: "a", model: null, sourceSystem: "test", config: null });
        const ids: number[] = [];
        for (const [i, site] of sites.entries()) {
          const { id: taskId } = await upsertTask(other.db, setId, { externalId: `t${i}`, site, intent: "x", startUrl: null, contentHash: `t${i}` });
          ids.push(
            (
              await saveTrajectory(other.db, {
                runId,
                taskId,
                attempt: 0,
                finalAnswer: null,
                outcome: "answered",
                outcomeDetail: null,
                stepCount: 1,
                sourceFormat: "test",
                sourcePath: null,
                contentHash: `h${i}`,
                steps: [],
              })
            ).id,
          );
        }
        const evaluatorKey = "import:odd\u001fjudge";
        for (const [i, trajectoryId] of ids.entries()) {
          await upsertVerdict(other.db, {
            trajectoryId,
            kind: "judge",
            origin: "import",
            evaluatorKey,
            evaluatorName: "odd",
            k: i % 2 ? "1\u001e" : "",
            promptVersion: "",
            verdict: i % 3 ? "success" : "failure",
          });
        }
        const o = await (await callerWithRole(other, "researcher")).analytics.overview({});
        expect(o.bySite.map((r) => r.site).sort()).toEqual([...sites].sort());
        expect(o.columns.map((c) => c.info!.identity)).toEqual([
          { key: evaluatorKey, k: "", pv: "" },
          { key: evaluatorKey, k: "1\u001e", pv: "" },
        ]);
        for (const row of o.bySite) expect((await selectionRows(other.db, row.sel)).length).toBe(1);
      } finally {
        await other.cleanup();
      }
    });
  });

  describe("grouped reads through covering indexes", () => {
    /** Rows of packed columns as sorted tuples: text fields decoded (null for none), integers as numbers (null for NULL). */
    function tuples<K extends string>(p: PackedColumns<K>, fields: K[], text: K[]): string[] {
      const out: string[] = [];
      for (let i = 0; i < p.length; i++) {
        out.push(
          JSON.stringify(
            fields.map((f) => (text.includes(f) ? (p.col[f][i]! < 0 ? null : p.dict[f][p.col[f][i]!]) : p.col[f][i] === NULL_INT ? null : p.col[f][i])),
          ),
        );
      }
      return out.sort();
    }
    /** Rows of a plain query as sorted tuples, in the order of its columns (integers truncated, as the packed read does). */
    const sqlTuples = async (t: TestContext, q: ReturnType<typeof sql>) =>
      (await rawAll(t.db, q)).map((r) => JSON.stringify(Object.values(r).map((v) => (typeof v === "number" ? Math.trunc(v) : v)))).sort();

    it("return exactly the rows a plain query returns, also when an integer column holds a non-integer", async () => {
      const other = await createBackendContext(backend, "verdict-analytics-grouped-");
      try {
        const f = await seedAnalyticsFixture(other.db);
        if (backend === "sqlite") {
          // A REAL in an INTEGER column (SQLite keeps 2.5 as it is; PostgreSQL's typed columns cannot hold one) cannot
          // be parsed from the integer list: that group is read again row by row and must still come out right.
          await rawRun(other.db, sql`update labels set first_failing_step = 2.5 where id = (select min(id) from labels where campaign_id = ${f.campaignId})`);
          await rawRun(other.db, sql`update consolidated_labels set first_failing_step = 1.5 where id = (select min(id) from consolidated_labels)`);
        } else {
          await rawRun(other.db, sql`update labels set first_failing_step = 2 where id = (select min(id) from labels where campaign_id = ${f.campaignId})`);
        }

        const labelFields = ["annotatorKey", "verdict", "category", "itemId", "trajectoryId", "firstFailingStep"] as const;
        const l = await loadCampaignLabelColumns(other.db, f.campaignId);
        expect(l.length).toBeGreaterThan(10);
        expect(tuples(l, [...labelFields], ["annotatorKey", "verdict", "category"])).toEqual(
          await sqlTuples(
            other,
            sql`select annotator_key, verdict, category, item_id, trajectory_id, first_failing_step from labels where campaign_id = ${f.campaignId} and status = 'active'`,
          ),
        );
        expect(tuples(l, ["firstFailingStep"], [])).toContain("[2]");

        const c = await loadConsolidatedColumns(other.db);
        expect(tuples(c, ["campaignId", "verdict", "category", "trajectoryId", "firstFailingStep"], ["verdict", "category"])).toEqual(
          await sqlTuples(other, sql`select campaign_id, verdict, category, trajectory_id, first_failing_step from consolidated_labels`),
        );
        const v = await loadVerdictColumns(other.db);
        expect(v.length).toBeGreaterThan(10);
        expect(tuples(v, ["evaluatorKey", "k", "promptVersion", "verdict", "trajectoryId"], ["evaluatorKey", "k", "promptVersion", "verdict"])).toEqual(
          await sqlTuples(other, sql`select evaluator_key, k, prompt_version, verdict, trajectory_id from evaluator_verdicts`),
        );
        const key = (await rawGet<{ key: string }>(other.db, sql`select evaluator_key as "key" from evaluator_verdicts order by id limit 1`))!.key;
        expect(tuples(await loadVerdictColumns(other.db, key), ["evaluatorKey", "trajectoryId"], ["evaluatorKey"])).toEqual(
          await sqlTuples(other, sql`select evaluator_key, trajectory_id from evaluator_verdicts where evaluator_key = ${key}`),
        );
      } finally {
        await other.cleanup();
      }
    });
  });
});

/**
 * The same dataset on SQLite and on PostgreSQL must give the same analytics, figure for figure: the dialects differ
 * in grouping, ordering, JSON, counts and floats, and a difference anywhere shows up here. Written straight into
 * the tables (seedAnalyticsRows), so only the analytics code is under test.
 */
describe.skipIf(!testBackends().includes("postgres") || postgresSkipReason() !== null)("analytics on SQLite and PostgreSQL", () => {
  /** Results as comparable text: dates (creation times differ between the two runs) dropped, floats to 10 digits. */
  const normalise = (value: unknown) =>
    JSON.parse(
      JSON.stringify(value, function (this: Record<string, unknown>, key, v: unknown) {
        if (this[key] instanceof Date) return "<date>";
        return typeof v === "number" && !Number.isInteger(v) ? Number(v.toPrecision(10)) : v;
      }),
    ) as unknown;

  async function everything(backend: TestBackend): Promise<Record<string, unknown>> {
    const ctx = await createBackendContext(backend, "verdict-analytics-both-");
    try {
      const f = await seedAnalyticsRows(ctx.db);
      const db = ctx.db;
      const out: Record<string, unknown> = {};
      out.options = await analyticsOptions(db);
      for (const difficulty of ["overall", "reasoning"] as const) {
        out[`overview:${difficulty}`] = await analyticsOverview(db, { scope: {}, unparseable: "exclude", difficulty });
      }
      out.overviewShop = await analyticsOverview(db, { scope: { site: "Shop", runId: f.runIds.beta }, unparseable: "failure", difficulty: "overall" });
      out.judges = await judgeAgreementList(db, { scope: {}, unparseable: "exclude" });
      out.judge = await judgeAgreementDetail(db, {
        scope: {},
        unparseable: "failure",
        evaluatorKey: f.judgeKey,
        k: "3",
        bootstrap: { replicates: 200, seed: 7 },
      });
      out.disagreements = await judgeDisagreements(db, {
        scope: {},
        unparseable: "exclude",
        identity: { key: f.judgeKey, k: "1", pv: "v1" },
        kind: "false_success",
        page: 1,
        pageSize: 20,
      });
      out.measures = await judgeMeasures(db, { scope: {}, unparseable: "exclude" });
      out.failureSteps = await failureStepAgreement(db, { scope: {} });
      out.errors = await errorAnalysis(db, { scope: { taskSetId: f.taskSetId } });
      out.drill = await drillDown(db, { sel: { reference: { verdicts: ["failure"] } }, page: 1, pageSize: 50 });
      out.drillCampaign = await drillDown(db, { sel: { campaign: { campaignId: f.campaignId, disagree: true } }, page: 1, pageSize: 50 });
      out.summaries = await listEvaluatorSummaries(db);
      out.totals = await verdictTotals(db, { evaluatorKey: f.judgeKey });
      return normalise(out) as Record<string, unknown>;
    } finally {
      await ctx.cleanup();
    }
  }

  it("gives the same figures, lists and selections on both engines", async () => {
    const onSqlite = await everything("sqlite");
    const onPostgres = await everything("postgres");
    for (const key of Object.keys(onSqlite)) expect(onPostgres[key], key).toEqual(onSqlite[key]);
    // Not vacuous: the dataset's figures are there.
    expect((onSqlite.drill as { total: number }).total).toBe(6);
  });
});

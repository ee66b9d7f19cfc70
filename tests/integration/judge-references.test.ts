/**
 * A judge against any human reference (the consolidated label, the annotators' majority with ties counted apart,
 * one annotator) and any view split by a task attribute a source carried, on both engines, through the services,
 * the drill-down and `agreement judges`. Every figure is worked by hand below.
 *
 * Twelve trajectories; tasks 1–6 carry lang = en, 7–12 lang = zh. Labels of Ann, Bob, Cy (imported; an import
 * consolidates the unanimous items only) and an imported judge:
 *
 *   item  labels  majority  consolidated  judge        item  labels  majority  consolidated  judge
 *    1    S S S      S          S          S            7    S S S      S          S          S
 *    2    S S S      S          S          S            8    F F F      F          F          F
 *    3    S S F      S          –          F            9    F S F      F          –          S
 *    4    F F F      F          F          F           10    S S F      S          –          S
 *    5    F F S      F          –          S           11    F F F      F          F          S
 *    6    S F F      F          –          F           12    S F –     tie         –          S
 *
 * Against the majority (item 12 is a tie, counted apart): ss 1 2 7 10, sf 3, fs 5 9 11, ff 4 6 8; n = 11,
 *   P_o = 7/11, P_e = (5·7 + 6·4)/121 = 59/121, κ = (77 − 59)/(121 − 59) = 9/31.
 *   lang = en (1–6): ss 2, sf 1, fs 1, ff 2 → P_o = 2/3, P_e = 1/2, κ = 1/3.
 *   lang = zh (7–11): ss 2, sf 0, fs 2, ff 1 → P_o = 3/5, P_e = (2·4 + 3·1)/25 = 11/25, κ = 2/7; 1 tie.
 * Against the consolidated label (1 2 4 7 8 11): ss 3, fs 1, ff 2 → n = 6, κ = (5/6 − 1/2)/(1/2) = 2/3.
 * Against Cy (no label on 12): ss 1 2 5 7, fs 9 10 11, ff 3 4 6 8 → n = 11, P_e = (4·7 + 7·4)/121, κ = 32/65.
 * Fleiss among the three on lang = en: P̄ = (3·1 + 3·(1/3))/6 = 2/3, p_S = 10/18, P̄_e = 41/81, κ = 13/40;
 *   on zh item 12 has two labels, so Fleiss is undefined there (α is not).
 * Success rates by lang: judge en 3/6 (1 2 5), zh 5/6 (all but 8); consolidated en 2/3, zh 1/3.
 * Error analysis by lang (consolidated failures): en 1 of 3 labelled (item 4), zh 2 of 3 (8, 11). The judge's
 * false-positive rate by lang against the consolidated label: en 0 of 1 (item 4), zh 1 of 2 (item 11 of 8, 11).
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { tablesOf } from "../../db/database";
import { upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { closeSharedDatabases } from "../../server/context";
import {
  analyticsOptions,
  analyticsOverview,
  drillDown,
  errorAnalysis,
  humanAgreement,
  judgeAgreementDetail,
  judgeAgreementList,
  judgeMeasures,
} from "../../server/services/analytics";
import { seedTrajectories } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { runCliInProcess } from "../helpers/cli";
import type { TestContext } from "../helpers/context";
import { importStudyLabels } from "../helpers/study-labels";

const LABELS = ["SSS", "SSS", "SSF", "FFF", "FFS", "SFF", "SSS", "FFF", "FSF", "SSF", "FFF", "SF"];
const JUDGE = "SSFFSFSFSSSS";
const JUDGE_KEY = "import:study-judge";

function close(actual: number | null | undefined, expected: number): void {
  expect(actual).not.toBeNull();
  expect(actual!).toBeCloseTo(expected, 12);
}

describeEachBackend("judge references and splits by task attribute", (backend) => {
  let ctx: TestContext;
  let campaignId: number;
  let ids: number[];

  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-references-");
    ids = await seedTrajectories(ctx.db, LABELS.length);
    const { tasks, trajectories } = tablesOf(ctx.db);
    for (let i = 0; i < ids.length; i++) {
      const [t] = await ctx.db.select({ taskId: trajectories.taskId }).from(trajectories).where(eq(trajectories.id, ids[i]!));
      await ctx.db
        .update(tasks)
        .set({ attributes: { lang: i < 6 ? "en" : "zh", ques_group: `g${i % 2}` } })
        .where(eq(tasks.id, t!.taskId));
      await upsertVerdict(ctx.db, {
        trajectoryId: ids[i]!,
        kind: "judge",
        origin: "import",
        evaluatorKey: JUDGE_KEY,
        evaluatorName: "study-judge",
        k: "",
        promptVersion: "",
        verdict: JUDGE[i] === "S" ? "success" : "failure",
      });
    }
    // Error categories on some failure labels: item 6 (S F F) both failures "navigation", item 9 (F S F) one
    // "navigation" and one "hallucination" (no most frequent category), item 5 (F F S) one "hallucination".
    campaignId = await importStudyLabels(ctx, ids, LABELS, ["Ann", "Bob", "Cy"], {
      "5:1": "navigation",
      "5:2": "navigation",
      "8:0": "navigation",
      "8:2": "hallucination",
      "4:0": "hallucination",
    });
  });
  afterEach(async () => {
    await closeSharedDatabases();
    await ctx.cleanup();
  });

  const base = { scope: {}, unparseable: "exclude" as const };

  it("measures the judge against the majority (ties apart), the consolidated label and one annotator", async () => {
    const majority = await judgeAgreementList(ctx.db, { ...base, campaignId, reference: { kind: "majority" } });
    expect(majority.reference).toMatchObject({ labels: 11, ties: 1, unsure: 0, description: "the majority of the annotators" });
    const m = majority.judges[0]!.stats;
    expect(m).toMatchObject({ n: 11, tieReference: 1, noReference: 0, falseSuccess: 3, falseFailure: 1 });
    close(m.agreement, 7 / 11);
    close(m.kappa.kappa, 9 / 31);

    const consolidated = (await judgeAgreementList(ctx.db, { ...base, campaignId })).judges[0]!.stats;
    expect(consolidated).toMatchObject({ n: 6, noReference: 6, tieReference: 0 });
    close(consolidated.kappa.kappa, 2 / 3);

    const cy = await judgeAgreementList(ctx.db, { ...base, campaignId, reference: { kind: "annotator", annotator: "Cy" } });
    expect(cy.reference.description).toBe("Cy's labels");
    expect(cy.judges[0]!.stats).toMatchObject({ n: 11, noReference: 1 });
    close(cy.judges[0]!.stats.kappa.kappa, 32 / 65);

    await expect(judgeAgreementList(ctx.db, { ...base, campaignId, reference: { kind: "annotator", annotator: "Dee" } })).rejects.toThrow(
      /no annotator "Dee" has labels in campaign #\d+; the annotators are "Ann", "Bob", "Cy"/,
    );
  });

  it("the judge page lists every reference, and a figure's selection lists its trajectories", async () => {
    const d = await judgeAgreementDetail(ctx.db, { ...base, campaignId, reference: { kind: "majority" }, evaluatorKey: JUDGE_KEY });
    expect(d.byReference.map((r) => [r.label, r.current, r.stats.n])).toEqual([
      ["Consolidated label", false, 6],
      ["Majority of the annotators", true, 11],
      ["Ann", false, 12],
      ["Bob", false, 12],
      ["Cy", false, 11],
    ]);
    // The majority's error category: the most frequent among its failure labels. Failures by majority: 4 (none),
    // 5 (hallucination, one vote against none), 6 (navigation), 8, 9 (a tie between categories: none), 11.
    expect(d.byCategory.map((c) => [c.category, c.n, c.caught])).toEqual([
      ["hallucination", 1, 0],
      ["navigation", 1, 1],
      [null, 4, 2],
    ]);
    // Human failure (by majority) and the judge said success: items 5, 9, 11.
    const cell = d.overall.confusion[1]![0]!;
    expect(cell.count).toBe(3);
    const listed = await drillDown(ctx.db, { sel: cell.sel, page: 1, pageSize: 50 });
    expect(listed.rows.map((r) => r.id).sort((a, b) => a - b)).toEqual([ids[4], ids[8], ids[10]]);
    expect(listed.description.join(" · ")).toMatch(/majority of the annotators/);
  });

  it("splits judge agreement, success rates and human agreement by a task attribute", async () => {
    const options = await analyticsOptions(ctx.db);
    expect(options.splitKeys).toEqual(
      expect.arrayContaining([
        { key: "attr:lang", label: "lang", values: 2 },
        { key: "attr:ques_group", label: "ques_group", values: 2 },
      ]),
    );

    const list = await judgeAgreementList(ctx.db, { ...base, campaignId, reference: { kind: "majority" }, by: "lang" });
    expect(list.split).toEqual({ by: "attr:lang", title: "lang" });
    const groups = list.judges[0]!.groups!;
    expect(groups.map((g) => [g.label, g.stats.n, g.stats.tieReference])).toEqual([
      ["en", 6, 0],
      ["zh", 5, 1],
    ]);
    close(groups[0]!.stats.kappa.kappa, 1 / 3);
    close(groups[1]!.stats.kappa.kappa, 2 / 7);
    const zh = await drillDown(ctx.db, { sel: groups[1]!.stats.sel, page: 1, pageSize: 50 });
    expect(zh.total).toBe(5);

    const overview = await analyticsOverview(ctx.db, { ...base, campaignId, difficulty: "overall", by: "attr:lang" });
    const judgeColumn = overview.columns.find((c) => c.info?.identity.key === JUDGE_KEY)!.id;
    expect(
      overview.split!.rows.map((r) => [r.label, r.cells[judgeColumn]!.successes, r.cells[judgeColumn]!.n, r.cells.human!.successes, r.cells.human!.n]),
    ).toEqual([
      ["en", 3, 6, 2, 3],
      ["zh", 5, 6, 1, 3],
    ]);

    const humans = await humanAgreement(ctx.db, campaignId, "lang");
    const [en, zhHumans] = humans.split!.rows;
    close(en!.verdict.fleiss.kappa, 13 / 40);
    expect(zhHumans!.verdict.fleiss.kappa).toBeNull();
    expect(zhHumans!.verdict.fleiss.reason).toMatch(/different numbers of ratings \(2 to 3\)/);
    expect(zhHumans!.verdict.alpha.alpha).not.toBeNull();

    const errors = await errorAnalysis(ctx.db, { scope: {}, campaignId, by: "lang" });
    expect(errors.split!.rows.map((r) => [r.label, r.failures, r.labelled])).toEqual([
      ["en", 1, 3],
      ["zh", 2, 3],
    ]);
    const measures = await judgeMeasures(ctx.db, { ...base, campaignId, by: "lang" });
    const fpr = measures.evaluators[0]!.bySplit!.map((g) => [g.label, g.errors.falsePositive.errors, g.errors.falsePositive.of]);
    expect(fpr).toEqual([
      ["en", 0, 1],
      ["zh", 1, 2],
    ]);
    expect(measures.evaluators[0]!.splitTitle).toBe("lang");

    await expect(judgeAgreementList(ctx.db, { ...base, campaignId, by: "colour" })).rejects.toThrow(
      /cannot split by "colour": the keys are site, run, task-set, difficulty.*task attributes lang, ques_group/,
    );
  });

  it("counts a campaign's split keys over its own trajectories: another campaign's tasks without the attribute add no '(not given)' group", async () => {
    // Two trajectories outside the campaign, of tasks that carry no attributes.
    await seedTrajectories(ctx.db, 2, { taskSet: "Other set", taskIds: ["other-1", "other-2"] });
    const lang = (o: Awaited<ReturnType<typeof analyticsOptions>>) => o.splitKeys.find((k) => k.key === "attr:lang");
    expect(lang(await analyticsOptions(ctx.db))).toEqual({ key: "attr:lang", label: "lang", values: 3 });
    expect(lang(await analyticsOptions(ctx.db, { campaignId }))).toEqual({ key: "attr:lang", label: "lang", values: 2 });
    // The campaign's own split has exactly those two groups.
    const split = (await humanAgreement(ctx.db, campaignId, "lang")).split!;
    expect(split.rows.map((r) => [r.label, r.items])).toEqual([
      ["en", 6],
      ["zh", 6],
    ]);
  });

  it("npm run cli -- agreement judges prints each evaluator's n, agreement, κ and interval, per group with --by", async () => {
    const env =
      backend === "postgres"
        ? { ...process.env, VERDICT_DATABASE_URL: ctx.config.postgresUrl }
        : { ...process.env, VERDICT_DATA_DIR: ctx.dir, VERDICT_DB: ctx.config.dbPath, VERDICT_DATABASE_URL: undefined };
    const r = await runCliInProcess(["agreement", "judges", "--campaign", String(campaignId), "--reference", "majority", "--by", "lang", "--json"], env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ campaign_id: campaignId, reference: "majority", reference_labels: 11, reference_ties: 1, by: "attr:lang" });
    const [judge] = out.evaluators;
    expect(judge).toMatchObject({ key: JUDGE_KEY, n: 11, reference_tie: 1, ci_method: "bootstrap" });
    close(judge.kappa, 9 / 31);
    close(judge.agreement, 7 / 11);
    expect(judge.groups.map((g: { group: string; n: number }) => [g.group, g.n])).toEqual([
      ["en", 6],
      ["zh", 5],
    ]);
    expect(judge.groups[0].ci_note).toBe("no interval (n = 6)");

    const text = await runCliInProcess(["agreement", "judges", "--campaign", String(campaignId), "--reference", "annotator:Cy"], env);
    expect(text.stdout).toMatch(/against Cy's labels; 11 trajectories with success or failure/);
    expect(text.stdout).toMatch(/study-judge\s+11\s+72\.7%\s+0\.492/);

    const bad = await runCliInProcess(["agreement", "judges", "--campaign", String(campaignId), "--reference", "someone"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/the reference must be consolidated, majority or annotator:NAME/);
    expect((await runCliInProcess(["agreement", "judges"], env)).stderr).toMatch(/--campaign ID is required/);
  });
});

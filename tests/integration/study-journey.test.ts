/**
 * Issue 25's journey through the services on both engines (the browser version is tests/e2e/study-journey.spec.ts):
 * the fork's folder as published (task file with its own fields, run folder, the judge's auto-evaluation log), the
 * human evaluation of three evaluators as a wide-layout workbook loaded with `labels import`, then judge vs majority κ on all items, Fleiss κ among the evaluators, the
 * same from `agreement judges`, and the same Fleiss κ from the campaign's own label export through `agreement csv`.
 * Figures worked by hand in tests/helpers/study-fixture.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { closeSharedDatabases } from "../../server/context";
import { humanAgreement, judgeAgreementList } from "../../server/services/analytics";
import { exportCampaignLabels } from "../../server/services/annotation";
import { runImport } from "../../server/services/imports/ingest";
import { makeActor } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { runCliInProcess } from "../helpers/cli";
import type { TestContext } from "../helpers/context";
import { STUDY_EVALUATORS, STUDY_FIGURES, STUDY_WIDE_MAPPING, studyWorkbook, writeStudyFork } from "../helpers/study-fixture";

describeEachBackend("issue 25 journey", (backend) => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-study-journey-");
  });
  afterEach(async () => {
    await closeSharedDatabases();
    await ctx.cleanup();
  });

  it("from the fork's folder and the human evaluation to judge vs majority κ and Fleiss κ, the same in every place", async () => {
    const fork = path.join(ctx.dir, "webvoyager-fork");
    // The judge's log names the run folder as it was before the fork renamed it: its blocks match by task folder.
    await writeStudyFork(fork);
    const imported = await runImport(ctx, { path: fork });
    expect(imported).toMatchObject({ created: 12, verdicts: 12 });
    expect(imported.evaluatorLogs).toMatchObject([{ blocks: 12, matched: 12, unmatched: [], verdicts: { success: 8, failure: 4 } }]);

    const researcher = await makeActor(ctx, "Rhea", "researcher");
    const env =
      backend === "postgres"
        ? { ...process.env, VERDICT_DATABASE_URL: ctx.config.postgresUrl }
        : { ...process.env, VERDICT_DATA_DIR: ctx.dir, VERDICT_DB: ctx.config.dbPath, VERDICT_DATABASE_URL: undefined };
    // The workbook as the study keeps it (a notes sheet, three evaluators side by side on each row), loaded directly.
    const book = path.join(ctx.dir, "human_evaluation.xlsx");
    fs.writeFileSync(book, await studyWorkbook());
    const mapping = path.join(ctx.dir, "wide.json");
    fs.writeFileSync(mapping, JSON.stringify(STUDY_WIDE_MAPPING));
    const loaded = await runCliInProcess(
      [
        "labels",
        "import",
        book,
        "--mapping",
        mapping,
        "--sheet",
        "Human evaluation",
        "--new-campaign",
        "Fork study",
        "--annotators-per-item",
        "3",
        "--as",
        "rhea@test.example",
        "--json",
      ],
      env,
    );
    expect(loaded.stderr).toBe("");
    expect(loaded.code).toBe(0);
    const labels = JSON.parse(loaded.stdout);
    expect(labels).toMatchObject({ sheet: "Human evaluation", rows: 12, labels: 36, created: 36, unmatchedCount: 0, annotators: [...STUDY_EVALUATORS] });
    const campaignId = labels.campaignId as number;

    const base = { scope: {}, campaignId, unparseable: "exclude" as const };
    const [judge] = (await judgeAgreementList(ctx.db, { ...base, reference: { kind: "majority" } })).judges;
    expect(judge!.stats.n).toBe(STUDY_FIGURES.items);
    expect(judge!.stats.kappa.kappa).toBeCloseTo(STUDY_FIGURES.majorityKappa, 12);
    const consolidated = (await judgeAgreementList(ctx.db, base)).judges[0]!.stats;
    expect(consolidated.n).toBe(STUDY_FIGURES.consolidatedN);
    expect(consolidated.kappa.kappa).toBeCloseTo(STUDY_FIGURES.consolidatedKappa, 12);
    const byLang = (await judgeAgreementList(ctx.db, { ...base, reference: { kind: "majority" }, by: "lang" })).judges[0]!.groups!;
    expect(byLang.map((g) => [g.label, g.stats.n])).toEqual([
      ["en", 6],
      ["zh", 6],
    ]);
    for (const g of byLang) expect(g.stats.kappa.kappa).toBeCloseTo(1 / 3, 12);

    const humans = await humanAgreement(ctx.db, campaignId);
    expect(humans.verdict.fleiss.kappa).toBeCloseTo(STUDY_FIGURES.fleissKappa, 12);
    expect(humans.verdict.alpha.alpha).toBeCloseTo(STUDY_FIGURES.krippendorffAlpha, 12);

    const cli = JSON.parse((await runCliInProcess(["agreement", "judges", "--campaign", String(campaignId), "--reference", "majority", "--json"], env)).stdout);
    expect(cli.evaluators[0]).toMatchObject({ n: STUDY_FIGURES.items });
    expect(cli.evaluators[0].kappa).toBeCloseTo(STUDY_FIGURES.majorityKappa, 12);

    const exported = await exportCampaignLabels(ctx.db, researcher, campaignId, "csv");
    const file = path.join(ctx.dir, exported.fileName);
    fs.writeFileSync(file, exported.body);
    const csv = JSON.parse((await runCliInProcess(["agreement", "csv", file, "--json"], process.env)).stdout);
    expect(csv).toMatchObject({ layout: "verdict-export", items: 12, raters: 3 });
    expect(csv.fleiss_kappa).toBeCloseTo(STUDY_FIGURES.fleissKappa, 12);
    expect([csv.fleiss_kappa_ci_low, csv.fleiss_kappa_ci_high]).toEqual([humans.verdict.fleiss.interval.low, humans.verdict.fleiss.interval.high]);
  });
});

/**
 * Issue 25's journey through the services on both engines (the browser version is tests/e2e/study-journey.spec.ts):
 * the fork's folder as published (task file with its own fields, run folder, the judge's auto-evaluation log), the
 * human evaluation of three evaluators, then judge vs majority κ on all items, Fleiss κ among the evaluators, the
 * same from `agreement judges`, and the same Fleiss κ from the campaign's own label export through `agreement csv`.
 * Figures worked by hand in tests/helpers/study-fixture.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { closeSharedDatabases } from "../../server/context";
import { humanAgreement, judgeAgreementList } from "../../server/services/analytics";
import { exportCampaignLabels, importLabelsCsv } from "../../server/services/annotation";
import { runImport } from "../../server/services/imports/ingest";
import { makeActor } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { runCliInProcess } from "../helpers/cli";
import type { TestContext } from "../helpers/context";
import { STUDY_FIGURES, STUDY_LABEL_MAPPING, studyLabelsCsv, writeStudyFork } from "../helpers/study-fixture";

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
    const labels = await importLabelsCsv(ctx.db, researcher, { csv: studyLabelsCsv(), source: "human_evaluation.csv", mapping: { ...STUDY_LABEL_MAPPING }, campaign: { name: "Fork study", annotatorsPerItem: 3 } });
    expect(labels).toMatchObject({ rows: 36, created: 36, unmatchedCount: 0 });
    const campaignId = labels.campaignId!;

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

    const env = backend === "postgres" ? { ...process.env, VERDICT_DATABASE_URL: ctx.config.postgresUrl } : { ...process.env, VERDICT_DATA_DIR: ctx.dir, VERDICT_DB: ctx.config.dbPath, VERDICT_DATABASE_URL: undefined };
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

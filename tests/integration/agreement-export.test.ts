/**
 * `agreement csv` on Verdict's own label export, on both engines: recognised with no column flags, the annotators'
 * verdicts only (consolidated rows are the campaign's outcome, not a rater), equal to the Human agreement page; and
 * `--where` filtering any CSV.
 *
 * The study, worked by hand: 12 trajectories, 3 annotators. Items 1–5 S S S, 6–8 F F F, 9–10 S S F, 11 S F F,
 * 12 F F S. Per item (S, F): 5 × (3,0), 3 × (0,3), 2 × (2,1), 2 × (1,2).
 *   Fleiss: P̄ = (8·1 + 4·(2/6))/12 = 7/9; p_S = 21/36, p_F = 15/36, P̄_e = (441 + 225)/1296 = 37/72;
 *           κ = (7/9 − 37/72)/(35/72) = 19/35.
 *   α: n = 36, n_S = 21, n_F = 15; each mixed item adds (9 − 5)/2 = 2, four of them → 8;
 *      α = 1 − 35·8/(1296 − 441 − 225) = 1 − 280/630 = 5/9.
 * Counting the 8 consolidated rows of the unanimous items as a fourth rater (what a plain column mapping did):
 *      n = 44, n_S = 26, n_F = 18, α = 1 − 43·8/(1936 − 676 − 324) = 1 − 344/936 = 74/117, and Fleiss undefined.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { exportCampaignLabels } from "../../server/services/annotation";
import { humanAgreement } from "../../server/services/analytics";
import { makeActor, seedTrajectories } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { runCliInProcess } from "../helpers/cli";
import type { TestContext } from "../helpers/context";
import { importStudyLabels } from "../helpers/study-labels";

const LABELS = ["SSS", "SSS", "SSS", "SSS", "SSS", "FFF", "FFF", "FFF", "SSF", "SSF", "SFF", "FFS"];

describeEachBackend("agreement csv on Verdict's label export", (backend) => {
  let ctx: TestContext;
  let exportFile: string;
  let campaignId: number;

  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-agreement-export-");
    const ids = await seedTrajectories(ctx.db, LABELS.length);
    campaignId = await importStudyLabels(ctx, ids, LABELS);
    const researcher = await makeActor(ctx, "Rex", "researcher");
    const exported = await exportCampaignLabels(ctx.db, researcher, campaignId, "csv");
    exportFile = path.join(ctx.dir, exported.fileName);
    fs.writeFileSync(exportFile, exported.body);
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  it("counts the annotators' verdicts only, with no column flags, and equals the Human agreement page", async () => {
    const consolidatedRows = fs
      .readFileSync(exportFile, "utf8")
      .split("\n")
      .filter((l) => l.startsWith("consolidated,")).length;
    expect(consolidatedRows).toBe(8);
    const r = await runCliInProcess(["agreement", "csv", exportFile, "--json"], process.env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ layout: "verdict-export", items: 12, raters: 3, ratings: 36, rows_left_out: [{ rows: 8 }] });
    expect(out.fleiss_kappa).toBeCloseTo(19 / 35, 14);
    expect(out.krippendorff_alpha).toBeCloseTo(5 / 9, 14);
    expect(out.fleiss_kappa_ci_method).toBe("bootstrap");
    // The page's figures on the same campaign, interval included (same items, same seed).
    const page = await humanAgreement(ctx.db, campaignId);
    expect(page.verdict.fleiss.kappa).toBeCloseTo(19 / 35, 14);
    expect(page.verdict.alpha.alpha).toBeCloseTo(5 / 9, 14);
    expect([out.fleiss_kappa_ci_low, out.fleiss_kappa_ci_high]).toEqual([page.verdict.fleiss.interval.low, page.verdict.fleiss.interval.high]);

    const text = await runCliInProcess(["agreement", "csv", exportFile], process.env);
    expect(text.stdout).toMatch(/a Verdict label export; the ratings are the annotators' verdicts/);
    expect(text.stdout).toMatch(/left out: 8 consolidated labels/);
    expect(text.stdout).toMatch(/Fleiss' κ\s+0\.543 \[/);
  });

  it("leaves the consolidated rows out also when the columns are named, unless a --where on kind says otherwise", async () => {
    const named = JSON.parse(
      (await runCliInProcess(["agreement", "csv", exportFile, "--item", "item_id", "--rater", "annotator_name", "--label", "verdict", "--json"], process.env))
        .stdout,
    );
    expect(named).toMatchObject({ layout: "columns", raters: 3, ratings: 36 });
    expect(named.krippendorff_alpha).toBeCloseTo(5 / 9, 14);
    // Asked for explicitly, every row counts: the consolidated labels become a fourth "rater" and inflate α.
    const all = JSON.parse(
      (
        await runCliInProcess(
          ["agreement", "csv", exportFile, "--item", "item_id", "--rater", "annotator_name", "--label", "verdict", "--where", "kind!=none", "--json"],
          process.env,
        )
      ).stdout,
    );
    expect(all).toMatchObject({ raters: 4, ratings: 44, fleiss_kappa: null });
    expect(all.krippendorff_alpha).toBeCloseTo(74 / 117, 14);
  });

  it("--where filters any CSV before counting, and names an unknown column", async () => {
    // The 12 items split by a column: Ann's and Bob's verdicts only → pairwise κ between them on all 12 items.
    // Ann S×8 (1–5, 9–11), F×4; Bob S×7 (1–5, 9, 10), F×5 — table [[7, 1], [0, 4]]: P_o = 11/12,
    // P_e = (8·7 + 4·5)/144 = 76/144, κ = (132/144 − 76/144)/(68/144) = 56/68 = 14/17.
    const out = JSON.parse(
      (await runCliInProcess(["agreement", "csv", exportFile, "--where", "annotator_name!=Cy", "--where", "kind=annotation", "--json"], process.env)).stdout,
    );
    expect(out).toMatchObject({ raters: 2, ratings: 24, rows_filtered_out: 20 });
    expect(out.pairwise[0].kappa).toBeCloseTo(14 / 17, 14);
    const bad = await runCliInProcess(["agreement", "csv", exportFile, "--where", "colour=red"], process.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--where colour=red: column "colour" is not in the header/);
    const malformed = await runCliInProcess(["agreement", "csv", exportFile, "--where", "kind"], process.env);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/--where needs COLUMN=VALUE or COLUMN!=VALUE/);
  });

  it("a CSV that is not an export still needs its columns named", async () => {
    const file = path.join(ctx.dir, "plain.csv");
    fs.writeFileSync(file, "task,who,label\n1,a,x\n1,b,x\n");
    const r = await runCliInProcess(["agreement", "csv", file], process.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/name the item, rater and label columns \(--item, --rater, --label\); the file is not a Verdict label export/);
  });
});

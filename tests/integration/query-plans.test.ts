/**
 * The look-ups that run on every screenshot request and every player window use indexes on both engines. Each test
 * runs the application's code, records the statements it really sent (tests/helpers/statements.ts) and explains
 * those, so a change to the repository's SQL that loses the index fails here, not a copy of the query.
 */
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { rawRun } from "../../db/database";
import { createCampaign, setCampaignQaReviewers } from "../../server/services/annotation";
import { mayFetchScreenshot } from "../../server/services/access/scope";
import { getStepWindow, triageFilterOptions } from "../../server/services/trajectory-views";
import { loadCampaignLabelColumns, loadConsolidatedColumns, loadTaskColumns, loadTrajectoryColumns, loadVerdictColumns } from "../../db/repositories/analytics";
import { decisionTallies } from "../../db/repositories/annotation/labels";
import { upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { fakeScreenshotHash, seedLongTrajectory } from "../helpers/long-trajectory";
import { queryPlan, recordStatements, type Statement } from "../helpers/statements";
import { testUser } from "../helpers/trpc";

describeEachBackend("query plans of the hot look-ups", (backend) => {
  let ctx: TestContext;
  let trajectoryId: number;
  let annotatorId: string;
  let campaignId: number;

  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-plans-");
    trajectoryId = await seedLongTrajectory(ctx.db, { steps: 120, thoughtBytes: 16, marks: 2 });
    const other = await seedLongTrajectory(ctx.db, { steps: 5, externalTaskId: "other-5", thoughtBytes: 16, marks: 2 });
    const researcher = await testUser(ctx, "researcher");
    annotatorId = (await testUser(ctx, "annotator", "Plan Annotator")).userId;
    const qa = await testUser(ctx, "annotator", "Plan Reviewer");
    const actor = { userId: researcher.userId, name: researcher.name, role: "researcher" as const };
    const campaign = await createCampaign(ctx.db, actor, { name: "Plans", trajectoryIds: [trajectoryId], annotatorsPerItem: 1, annotatorIds: [annotatorId] });
    await createCampaign(ctx.db, actor, { name: "Elsewhere", trajectoryIds: [other], annotatorsPerItem: 1, annotatorIds: [qa.userId] });
    await setCampaignQaReviewers(ctx.db, actor, campaign.id, { add: [qa.userId] });
    campaignId = campaign.id;
  });
  afterEach(async () => ctx?.cleanup());

  /**
   * Whether the plan seeks `index` by `column` (not merely walks it whole): SQLite's `SEARCH … USING [COVERING]
   * INDEX name (column=?…)`, PostgreSQL's scan `using name` with an `Index Cond` on the column.
   */
  const seeks = (plan: string[], index: string, column: string) =>
    backend === "sqlite"
      ? plan.some((l) => new RegExp(`SEARCH \\w+ USING (COVERING )?INDEX ${index} \\(${column}=`).test(l))
      : plan.some((l) => new RegExp(`using ${index} on`).test(l)) && plan.some((l) => l.includes(`Index Cond: (${column} = `));
  /** Table scans in a plan: SQLite's `SCAN <table>` (a constant row is no table) or PostgreSQL's Seq Scan. */
  const tableScans = (plan: string[]) => plan.filter((l) => (backend === "sqlite" ? /^SCAN (?!CONSTANT ROW)/.test(l.trim()) : /Seq Scan/.test(l)));

  it("a screenshot request: the annotator's, the QA reviewer's and the pairwise checks search the hash indexes, no table scan", async () => {
    const user = { userId: annotatorId, role: "annotator" as const };
    // A hash nobody has: every check runs to the end (annotator's campaigns, then QA items, then pairwise pairs).
    const statements = await recordStatements(ctx.db, async () => {
      expect(await mayFetchScreenshot(ctx.db, user, fakeScreenshotHash("no such screenshot"))).toBe(false);
    });
    const checks = statements.filter((s) => /screenshot_hash/.test(s.sql));
    const kindOf = (sql: string) =>
      /pairwise_items/.test(sql) ? "pairwise" : /campaign_qa_reviewers/.test(sql) ? "qa" : /campaign_annotators/.test(sql) ? "annotator" : "other";
    expect(checks.map((s) => kindOf(s.sql))).toEqual(["annotator", "qa", "pairwise"]);
    for (const s of checks) {
      const plan = await queryPlan(ctx.db, s);
      expect(seeks(plan, "steps_screenshot_hash_idx", "screenshot_hash"), plan.join("\n")).toBe(true);
      expect(seeks(plan, "steps_raw_screenshot_hash_idx", "raw_screenshot_hash"), plan.join("\n")).toBe(true);
      expect(tableScans(plan), plan.join("\n")).toEqual([]);
    }
  });

  it("a player window: one range read along the (trajectory, step) index, no sort", async () => {
    let window: Awaited<ReturnType<typeof getStepWindow>> | undefined;
    const statements = await recordStatements(ctx.db, async () => {
      window = await getStepWindow(ctx.db, trajectoryId, 60, 50);
    });
    expect(window).toBeDefined();
    const reads = statements.filter((s: Statement) => /from "steps"/.test(s.sql) && /limit/i.test(s.sql) && /offset/i.test(s.sql));
    expect(reads).toHaveLength(1);
    const plan = await queryPlan(ctx.db, reads[0]!);
    expect(seeks(plan, "steps_trajectory_idx_uq", "trajectory_id"), plan.join("\n")).toBe(true);
    expect(plan.join("\n")).not.toMatch(backend === "sqlite" ? /TEMP B-TREE/ : /\bSort\b/);
    expect(tableScans(plan), plan.join("\n")).toEqual([]);
  });

  it("the analytics read of every verdict walks one index that holds every column it reads, never the wide verdict rows", async () => {
    await upsertVerdict(ctx.db, {
      trajectoryId,
      kind: "judge",
      origin: "verdict",
      evaluatorKey: "judge:plans",
      evaluatorName: "Plans judge",
      k: "3",
      promptVersion: "v1",
      verdict: "failure",
      rationale: "a long reply",
      sampleCount: 3,
      sampleSuccesses: 1,
      sampleFailures: 2,
      firstFailingStep: 4,
    });
    const statements = await recordStatements(ctx.db, async () => {
      const columns = await loadVerdictColumns(ctx.db);
      expect([...columns.col.sampleFailures, ...columns.col.firstFailingStep]).toEqual([2, 4]);
    });
    const read = statements.filter((s) => /from evaluator_verdicts/.test(s.sql));
    expect(read).toHaveLength(1);
    const plan = await queryPlan(ctx.db, read[0]!);
    // SQLite: a covering index scan; PostgreSQL: an index-only scan (sequential scans are off while explaining).
    const covered = backend === "sqlite" ? /USING COVERING INDEX evaluator_verdicts_analytics_idx/ : /Index Only Scan using evaluator_verdicts_analytics_idx/;
    expect(
      plan.some((l) => covered.test(l)),
      plan.join("\n"),
    ).toBe(true);
  });

  it("the trajectory list's evaluator menu reads the verdicts index, one verdict row per evaluator, and counts nothing", async () => {
    const verdict = (evaluatorKey: string, evaluatorName: string, k: string, verdict: "success" | "failure") =>
      upsertVerdict(ctx.db, {
        trajectoryId,
        kind: "judge",
        origin: "verdict",
        evaluatorKey,
        evaluatorName,
        k,
        promptVersion: "v1",
        verdict,
        rationale: "a long reply",
      });
    await verdict("judge:menu-a", "Menu judge A", "1", "failure");
    await verdict("judge:menu-a", "Menu judge A", "3", "success");
    await verdict("judge:menu-b", "Menu judge B", "1", "success");
    if (backend === "postgres") await rawRun(ctx.db, sql`vacuum analyze evaluator_verdicts`);
    const statements = await recordStatements(ctx.db, async () => {
      const { evaluators } = await triageFilterOptions(ctx.db);
      expect(evaluators.map((e) => [e.ref, e.name, e.kind])).toEqual([
        ["judge:menu-a|1|v1", "Menu judge A", "judge"],
        ["judge:menu-a|3|v1", "Menu judge A", "judge"],
        ["judge:menu-b|1|v1", "Menu judge B", "judge"],
      ]);
    });
    const read = statements.filter((s) => /from evaluator_verdicts/.test(s.sql));
    expect(read).toHaveLength(1);
    const plan = await queryPlan(ctx.db, read[0]!);
    const detail = plan.join("\n");
    if (backend === "sqlite") {
      // The identities and each one's row come from the index; the verdict rows are read by row id, one each.
      const reads = plan.filter((l) => /^(SCAN|SEARCH) (evaluator_verdicts|m|v)\b/.test(l.trim()));
      expect(reads.length, detail).toBeGreaterThan(0);
      for (const l of reads) expect(l, detail).toMatch(/USING COVERING INDEX evaluator_verdicts_analytics_idx|USING INTEGER PRIMARY KEY/);
      expect(detail).not.toMatch(/TEMP B-TREE FOR GROUP BY/);
    } else {
      expect(detail).toMatch(/Index Only Scan using evaluator_verdicts_analytics_idx/);
      expect(tableScans(plan), detail).toEqual([]);
    }
  });

  it("the analytics reads of tasks, trajectories, labels and consolidated labels walk their indexes alone, row ids included", async () => {
    const reads: [string, RegExp, () => Promise<{ length: number }>][] = [
      ["tasks_site_analytics_idx", /from tasks/, () => loadTaskColumns(ctx.db)],
      ["trajectories_steps_idx", /from trajectories/, () => loadTrajectoryColumns(ctx.db)],
      ["labels_campaign_analytics_idx", /from labels/, () => loadCampaignLabelColumns(ctx.db, campaignId)],
      ["consolidated_labels_campaign_analytics_idx", /from consolidated_labels/, () => loadConsolidatedColumns(ctx.db, campaignId)],
    ];
    // As autovacuum leaves a long-lived database: its visibility map tells the planner an index-only scan pays.
    if (backend === "postgres") await rawRun(ctx.db, sql`vacuum analyze tasks, trajectories, labels, consolidated_labels`);
    for (const [index, table, load] of reads) {
      const statements = await recordStatements(ctx.db, async () => {
        await load();
      });
      const read = statements.filter((s) => table.test(s.sql));
      expect(read).toHaveLength(1);
      const plan = await queryPlan(ctx.db, read[0]!);
      // PostgreSQL's indexes hold no row id of their own: without id among the index's columns every row is looked
      // up in the table (an Index Scan, not an Index Only Scan). SQLite's always carry the row id.
      const covered = backend === "sqlite" ? new RegExp(`USING COVERING INDEX ${index}`) : new RegExp(`Index Only Scan using ${index}`);
      expect(
        plan.some((l) => covered.test(l)),
        `${index}:\n${plan.join("\n")}`,
      ).toBe(true);
    }
  });
  it("the Human agreement page's tally of decisions reads only the decided consolidated labels, from their own index", async () => {
    if (backend === "postgres") await rawRun(ctx.db, sql`vacuum analyze consolidated_labels`);
    const statements = await recordStatements(ctx.db, async () => {
      await decisionTallies(ctx.db, [campaignId]);
    });
    const read = statements.filter((s) => /from "?consolidated_labels"?/.test(s.sql));
    expect(read).toHaveLength(1);
    const plan = await queryPlan(ctx.db, read[0]!);
    // A partial index of the adjudicated and QA-reviewed labels holding every column tallied: no other row is read.
    const covered = backend === "sqlite" ? /USING COVERING INDEX consolidated_labels_decisions_idx/ : /Index Only Scan using consolidated_labels_decisions_idx/;
    expect(
      plan.some((l) => covered.test(l)),
      plan.join("\n"),
    ).toBe(true);
    expect(tableScans(plan)).toEqual([]);
  });
});

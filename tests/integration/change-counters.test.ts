/**
 * Per-table change counters (db/schema/changes.ts) and the analytics cache built on them: every counted table has
 * its triggers after all migrations, counters move on the writes analytics care about and only those, and cached
 * analytics data is reloaded exactly when a table it was read from changed — also when another connection wrote.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../db/client";
import { tableVersions } from "../../db/repositories/analytics";
import { upsertVerdict } from "../../db/repositories/evaluation";
import { COUNTED_TABLES, type CountedTable } from "../../db/schema/changes";
import { analyticsOverview, humanAgreement } from "../../server/services/analytics";
import { getCampaignLabels, getFacts, getReference, getVerdictSets } from "../../server/services/analytics/dataset";
import { createTestContext, type TestContext } from "../helpers/context";
import { seedAnalyticsFixture, type AnalyticsFixture } from "../helpers/analytics-fixture";

let ctx: TestContext;
let fx: AnalyticsFixture;

beforeEach(() => {
  ctx = createTestContext("verdict-change-counters-");
  fx = seedAnalyticsFixture(ctx.db);
});
afterEach(() => ctx.cleanup());

const run = (q: string, ...params: unknown[]) => ctx.db.$client.prepare(q).run(...params);

/** Which counters moved between two readings. */
function moved(before: Record<CountedTable, number>, after: Record<CountedTable, number>): CountedTable[] {
  return (Object.keys(COUNTED_TABLES) as CountedTable[]).filter((t) => after[t] !== before[t]).sort();
}

describe("change counters", () => {
  it("exist for every counted table, with insert, delete and update triggers", () => {
    const triggers = ctx.db.$client.prepare("select name, tbl_name as tbl from sqlite_master where type = 'trigger'").all() as { name: string; tbl: string }[];
    for (const table of Object.keys(COUNTED_TABLES)) {
      for (const event of ["insert", "delete", "update"]) expect(triggers).toContainEqual({ name: `${table}_count_${event}`, tbl: table });
    }
    expect(Object.keys(tableVersions(ctx.db)).sort()).toEqual(Object.keys(COUNTED_TABLES).sort());
  });

  it("move on inserts, deletes and updates of read columns, and not on other columns", () => {
    let v = tableVersions(ctx.db);
    const step = (write: () => void) => {
      const before = v;
      write();
      v = tableVersions(ctx.db);
      return moved(before, v);
    };
    const labelId = (ctx.db.$client.prepare("select min(id) from labels").pluck().get() as number);
    expect(step(() => run("update labels set note = 'seen' where id = ?", labelId))).toEqual([]);
    expect(step(() => run("update labels set verdict = 'unsure', category = null where id = ?", labelId))).toEqual(["labels"]);
    expect(step(() => run("update trajectories set updated_at = updated_at + 1"))).toEqual([]);
    expect(step(() => run("update trajectories set step_count = step_count + 1 where id = ?", fx.ids.T1))).toEqual(["trajectories"]);
    expect(step(() => run("update tasks set intent = 'reworded'"))).toEqual([]);
    expect(step(() => run("update tasks set site = 'Elsewhere' where id = (select task_id from trajectories where id = ?)", fx.ids.T2))).toEqual(["tasks"]);
    expect(step(() => run("update evaluator_verdicts set rationale = 'why' where evaluator_key = ?", fx.judgeKey))).toEqual([]);
    expect(step(() => upsertVerdict(ctx.db, { trajectoryId: fx.ids.T11!, kind: "judge", origin: "import", evaluatorKey: "import:x", evaluatorName: "x", k: "", promptVersion: "", verdict: "success" }))).toEqual(["evaluator_verdicts"]);
    expect(step(() => run("delete from consolidated_labels where trajectory_id = ?", fx.ids.T1))).toEqual(["consolidated_labels"]);
    // Deleting a trajectory cascades to its labels and verdicts: each of those tables counts.
    expect(step(() => run("delete from trajectories where id = ?", fx.ids.T3))).toEqual(["consolidated_labels", "evaluator_verdicts", "labels", "trajectories"]);
  });
});

describe("analytics cache", () => {
  it("reloads only what depends on the table written", () => {
    const facts = getFacts(ctx.db);
    const reference = getReference(ctx.db);
    const verdicts = getVerdictSets(ctx.db);
    const labels = getCampaignLabels(ctx.db, fx.campaignId);
    expect(getFacts(ctx.db)).toBe(facts);
    expect(getCampaignLabels(ctx.db, fx.campaignId)).toBe(labels);

    run("update labels set verdict = 'unsure', category = null where id = (select min(id) from labels)");
    expect(getFacts(ctx.db)).toBe(facts);
    expect(getReference(ctx.db)).toBe(reference);
    expect(getVerdictSets(ctx.db)).toBe(verdicts);
    const relabelled = getCampaignLabels(ctx.db, fx.campaignId);
    expect(relabelled).not.toBe(labels);
    expect(relabelled.dict.verdict[relabelled.col.verdict[0]!]).toBeDefined();

    upsertVerdict(ctx.db, { trajectoryId: fx.ids.T11!, kind: "judge", origin: "import", evaluatorKey: "import:late", evaluatorName: "late", k: "", promptVersion: "", verdict: "failure" });
    expect(getFacts(ctx.db)).toBe(facts);
    expect(getReference(ctx.db)).toBe(reference);
    const after = getVerdictSets(ctx.db);
    expect(after).not.toBe(verdicts);
    expect(after.map((s) => s.identity.key)).toContain("import:late");

    run("update trajectories set step_count = step_count + 1 where id = ?", fx.ids.T1);
    const refreshed = getFacts(ctx.db);
    expect(refreshed).not.toBe(facts);
    // Everything indexed by facts rows is reloaded with them.
    expect(getReference(ctx.db)).not.toBe(reference);
    expect(getVerdictSets(ctx.db)).not.toBe(after);
    expect(getCampaignLabels(ctx.db, fx.campaignId)).toBe(relabelled);
  });

  it("sees writes made through another connection to the same file", () => {
    const before = analyticsOverview(ctx.db, { scope: {}, unparseable: "exclude", difficulty: "overall" });
    const humansBefore = humanAgreement(ctx.db, fx.campaignId);
    const other = openDatabase(ctx.config.dbPath);
    try {
      other.$client.prepare("update consolidated_labels set verdict = 'success', category = null where trajectory_id = ?").run(fx.ids.T2);
      other.$client.prepare("update labels set status = 'withdrawn' where id = (select min(id) from labels where campaign_id = ?)").run(fx.campaignId);
    } finally {
      other.$client.close();
    }
    const after = analyticsOverview(ctx.db, { scope: {}, unparseable: "exclude", difficulty: "overall" });
    expect(after.columns[0]!.total.successes).toBe(before.columns[0]!.total.successes + 1);
    expect(humanAgreement(ctx.db, fx.campaignId).labels).toBe(humansBefore.labels - 1);
  });
});

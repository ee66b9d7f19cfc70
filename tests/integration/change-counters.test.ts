/**
 * Per-table change counters (db/schema/changes.ts) and the analytics cache built on them: every counted table has
 * its triggers after all migrations, counters move on the writes analytics care about and only those, and cached
 * analytics data is reloaded exactly when a table it was read from changed — also when another connection wrote.
 */
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../db/client";
import { closeDatabase, rawAll, rawGet, rawRun, type Db } from "../../db/database";
import { openPostgresDatabase } from "../../db/postgres";
import { tableVersions } from "../../db/repositories/analytics";
import { upsertVerdict } from "../../db/repositories/evaluation";
import { COUNTED_TABLES, type CountedTable } from "../../db/schema/changes";
import { analyticsOverview } from "../../server/services/analytics";
import { getCampaignLabels, getFacts, getReference, getVerdictSets } from "../../server/services/analytics/dataset";
import type { TestContext } from "../helpers/context";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { seedAnalyticsRows, type AnalyticsFixture } from "../helpers/analytics-fixture";

/** Which counters moved between two readings. */
function moved(before: Record<CountedTable, number>, after: Record<CountedTable, number>): CountedTable[] {
  return (Object.keys(COUNTED_TABLES) as CountedTable[]).filter((t) => after[t] !== before[t]).sort();
}

describeEachBackend("change counters and the analytics cache", (backend) => {
  let ctx: TestContext;
  let fx: AnalyticsFixture;

  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-change-counters-");
    // Written straight into the tables, so the suite runs on either engine whatever the other repositories do.
    fx = await seedAnalyticsRows(ctx.db);
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  const run = (q: ReturnType<typeof sql>) => rawRun(ctx.db, q);

  /** A second connection to the same database, as another process (worker, CLI, second web server) has. */
  function otherConnection(): Db {
    return backend === "postgres" ? openPostgresDatabase(ctx.config.postgresUrl!).db : openDatabase(ctx.config.dbPath);
  }

  describe("change counters", () => {
    it("exist for every counted table, with insert, delete and update triggers", async () => {
      const triggers =
        backend === "sqlite"
          ? await rawAll<{ name: string; tbl: string }>(ctx.db, sql`select name, tbl_name as tbl from sqlite_master where type = 'trigger'`)
          : await rawAll<{ name: string; tbl: string }>(ctx.db, sql`select distinct trigger_name as name, event_object_table as tbl from information_schema.triggers`);
      for (const table of Object.keys(COUNTED_TABLES)) {
        for (const event of ["insert", "delete", "update"]) expect(triggers).toContainEqual({ name: `${table}_count_${event}`, tbl: table });
      }
      expect(Object.keys(await tableVersions(ctx.db)).sort()).toEqual(Object.keys(COUNTED_TABLES).sort());
    });

    it("move on inserts, deletes and updates of read columns, and not on other columns", async () => {
      let v = await tableVersions(ctx.db);
      const step = async (write: () => Promise<unknown>) => {
        const before = v;
        await write();
        v = await tableVersions(ctx.db);
        return moved(before, v);
      };
      const labelId = Number((await rawGet<{ id: number }>(ctx.db, sql`select min(id) as id from labels`))!.id);
      expect(await step(() => run(sql`update labels set note = 'seen' where id = ${labelId}`))).toEqual([]);
      expect(await step(() => run(sql`update labels set verdict = 'unsure', category = null where id = ${labelId}`))).toEqual(["labels"]);
      expect(await step(() => run(sql`update trajectories set updated_at = updated_at + 1`))).toEqual([]);
      expect(await step(() => run(sql`update trajectories set step_count = step_count + 1 where id = ${fx.ids.T1}`))).toEqual(["trajectories"]);
      expect(await step(() => run(sql`update tasks set intent = 'reworded'`))).toEqual([]);
      expect(await step(() => run(sql`update tasks set site = 'Elsewhere' where id = (select task_id from trajectories where id = ${fx.ids.T2})`))).toEqual(["tasks"]);
      expect(await step(() => run(sql`update evaluator_verdicts set rationale = 'why' where evaluator_key = ${fx.judgeKey}`))).toEqual([]);
      // Judge measures read the sample counts and first failing steps: updates of those count too.
      expect(await step(() => run(sql`update evaluator_verdicts set sample_count = 3 where evaluator_key = ${fx.judgeKey}`))).toEqual(["evaluator_verdicts"]);
      expect(await step(() => run(sql`update evaluator_verdicts set first_failing_step = 1 where evaluator_key = ${fx.judgeKey}`))).toEqual(["evaluator_verdicts"]);
      expect(
        await step(() => upsertVerdict(ctx.db, { trajectoryId: fx.ids.T11!, kind: "judge", origin: "import", evaluatorKey: "import:x", evaluatorName: "x", k: "", promptVersion: "", verdict: "success" })),
      ).toEqual(["evaluator_verdicts"]);
      expect(await step(() => run(sql`delete from consolidated_labels where trajectory_id = ${fx.ids.T1}`))).toEqual(["consolidated_labels"]);
      // Deleting a trajectory cascades to its labels and verdicts: each of those tables counts.
      expect(await step(() => run(sql`delete from trajectories where id = ${fx.ids.T3}`))).toEqual(["consolidated_labels", "evaluator_verdicts", "labels", "trajectories"]);
    });
  });

  describe("analytics cache", () => {
    it("reloads only what depends on the table written", async () => {
      const facts = await getFacts(ctx.db);
      const reference = await getReference(ctx.db);
      const verdicts = await getVerdictSets(ctx.db);
      const labels = await getCampaignLabels(ctx.db, fx.campaignId);
      expect(await getFacts(ctx.db)).toBe(facts);
      expect(await getCampaignLabels(ctx.db, fx.campaignId)).toBe(labels);

      await run(sql`update labels set verdict = 'unsure', category = null where id = (select min(id) from labels)`);
      expect(await getFacts(ctx.db)).toBe(facts);
      expect(await getReference(ctx.db)).toBe(reference);
      expect(await getVerdictSets(ctx.db)).toBe(verdicts);
      const relabelled = await getCampaignLabels(ctx.db, fx.campaignId);
      expect(relabelled).not.toBe(labels);
      expect(relabelled.dict.verdict[relabelled.col.verdict[0]!]).toBeDefined();

      await upsertVerdict(ctx.db, { trajectoryId: fx.ids.T11!, kind: "judge", origin: "import", evaluatorKey: "import:late", evaluatorName: "late", k: "", promptVersion: "", verdict: "failure" });
      expect(await getFacts(ctx.db)).toBe(facts);
      expect(await getReference(ctx.db)).toBe(reference);
      const after = await getVerdictSets(ctx.db);
      expect(after).not.toBe(verdicts);
      expect(after.map((s) => s.identity.key)).toContain("import:late");

      await run(sql`update trajectories set step_count = step_count + 1 where id = ${fx.ids.T1}`);
      const refreshed = await getFacts(ctx.db);
      expect(refreshed).not.toBe(facts);
      // Everything indexed by facts rows is reloaded with them.
      expect(await getReference(ctx.db)).not.toBe(reference);
      expect(await getVerdictSets(ctx.db)).not.toBe(after);
      expect(await getCampaignLabels(ctx.db, fx.campaignId)).toBe(relabelled);
    });

    it("shares one load between callers asking at the same time", async () => {
      const [a, b] = await Promise.all([getFacts(ctx.db), getFacts(ctx.db)]);
      expect(a).toBe(b);
      expect(a.n).toBe(12);
    });

    it("sees writes made through another connection to the same database", async () => {
      const before = await analyticsOverview(ctx.db, { scope: {}, unparseable: "exclude", difficulty: "overall" });
      const labelsBefore = (await getCampaignLabels(ctx.db, fx.campaignId)).length;
      const other = otherConnection();
      try {
        await rawRun(other, sql`update consolidated_labels set verdict = 'success', category = null where trajectory_id = ${fx.ids.T2}`);
        await rawRun(other, sql`update labels set status = 'withdrawn' where id = (select min(id) from labels where campaign_id = ${fx.campaignId})`);
      } finally {
        await closeDatabase(other);
      }
      const after = await analyticsOverview(ctx.db, { scope: {}, unparseable: "exclude", difficulty: "overall" });
      expect(after.columns[0]!.total.successes).toBe(before.columns[0]!.total.successes + 1);
      expect((await getCampaignLabels(ctx.db, fx.campaignId)).length).toBe(labelsBefore - 1);
    });
  });
});

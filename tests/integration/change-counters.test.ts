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
import { loadCampaignLabelColumns, tableVersions } from "../../db/repositories/analytics";
import { upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { COUNTED_TABLES, LABEL_REMOVALS_COUNTER, VERDICT_REMOVALS_COUNTER, type CountedTable } from "../../db/schema/changes";
import { analyticsOverview } from "../../server/services/analytics";
import { getCampaignLabels, getFacts, getReference, getVerdictSets, loadVerdictSets, type VerdictSet } from "../../server/services/analytics/dataset";
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
          : await rawAll<{ name: string; tbl: string }>(
              ctx.db,
              sql`select distinct trigger_name as name, event_object_table as tbl from information_schema.triggers`,
            );
      for (const table of Object.keys(COUNTED_TABLES)) {
        for (const event of ["insert", "delete", "update"]) expect(triggers).toContainEqual({ name: `${table}_count_${event}`, tbl: table });
      }
      expect(Object.keys(await tableVersions(ctx.db)).sort()).toEqual(
        [...Object.keys(COUNTED_TABLES), VERDICT_REMOVALS_COUNTER, LABEL_REMOVALS_COUNTER].sort(),
      );
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
      expect(await step(() => run(sql`update tasks set site = 'Elsewhere' where id = (select task_id from trajectories where id = ${fx.ids.T2})`))).toEqual([
        "tasks",
      ]);
      // Attributes split every view: a re-import that changes them must make the cached splits stale.
      const taskOfT2 = sql`(select task_id from trajectories where id = ${fx.ids.T2})`;
      expect(await step(() => run(sql`update tasks set attributes = '{"lang":"de"}' where id = ${taskOfT2}`))).toEqual(["tasks"]);
      // A flag in the validity ledger changes which trajectories count.
      expect(await step(() => run(sql`insert into task_flags (task_id, status, reason, user_name) values (${taskOfT2}, 'broken', 'gone', 'R')`))).toEqual([
        "task_flags",
      ]);
      expect(await step(() => run(sql`update evaluator_verdicts set rationale = 'why' where evaluator_key = ${fx.judgeKey}`))).toEqual([]);
      // Judge measures read the sample counts and first failing steps: updates of those count too.
      expect(await step(() => run(sql`update evaluator_verdicts set sample_count = 3 where evaluator_key = ${fx.judgeKey}`))).toEqual(["evaluator_verdicts"]);
      expect(await step(() => run(sql`update evaluator_verdicts set first_failing_step = 1 where evaluator_key = ${fx.judgeKey}`))).toEqual([
        "evaluator_verdicts",
      ]);
      expect(
        await step(() =>
          upsertVerdict(ctx.db, {
            trajectoryId: fx.ids.T11!,
            kind: "judge",
            origin: "import",
            evaluatorKey: "import:x",
            evaluatorName: "x",
            k: "",
            promptVersion: "",
            verdict: "success",
          }),
        ),
      ).toEqual(["evaluator_verdicts"]);
      expect(await step(() => run(sql`delete from consolidated_labels where trajectory_id = ${fx.ids.T1}`))).toEqual(["consolidated_labels"]);
      // Deleting a trajectory cascades to its labels and verdicts: each of those tables counts.
      expect(await step(() => run(sql`delete from trajectories where id = ${fx.ids.T3}`))).toEqual([
        "consolidated_labels",
        "evaluator_verdicts",
        "labels",
        "trajectories",
      ]);
    });
  });

  describe("verdict stamps", () => {
    const stampOf = async (trajectoryId: number, key: string) =>
      Number(
        (await rawGet<{ v: number }>(
          ctx.db,
          sql`select change_version as v from evaluator_verdicts where trajectory_id = ${trajectoryId} and evaluator_key = ${key} order by k limit 1`,
        ))!.v,
      );

    it("carry the counter their write left; removals move a counter of their own", async () => {
      const before = await tableVersions(ctx.db);
      await upsertVerdict(ctx.db, {
        trajectoryId: fx.ids.T11!,
        kind: "judge",
        origin: "import",
        evaluatorKey: "import:stamp",
        evaluatorName: "s",
        k: "",
        promptVersion: "",
        verdict: "success",
      });
      const inserted = await tableVersions(ctx.db);
      expect(inserted.evaluator_verdicts).toBeGreaterThan(before.evaluator_verdicts);
      expect(await stampOf(fx.ids.T11!, "import:stamp")).toBe(inserted.evaluator_verdicts);

      // Re-judging the same identity replaces the row and stamps it again.
      await upsertVerdict(ctx.db, {
        trajectoryId: fx.ids.T11!,
        kind: "judge",
        origin: "import",
        evaluatorKey: "import:stamp",
        evaluatorName: "s",
        k: "",
        promptVersion: "",
        verdict: "failure",
      });
      const replaced = await tableVersions(ctx.db);
      expect(await stampOf(fx.ids.T11!, "import:stamp")).toBe(replaced.evaluator_verdicts);
      // A column analytics do not read leaves the stamp alone.
      await run(sql`update evaluator_verdicts set rationale = 'why' where evaluator_key = 'import:stamp'`);
      expect(await stampOf(fx.ids.T11!, "import:stamp")).toBe(replaced.evaluator_verdicts);
      expect(replaced[VERDICT_REMOVALS_COUNTER]).toBe(before[VERDICT_REMOVALS_COUNTER]);

      await run(sql`update evaluator_verdicts set k = 'other' where evaluator_key = 'import:stamp'`);
      const renamed = await tableVersions(ctx.db);
      expect(renamed[VERDICT_REMOVALS_COUNTER]).toBe(before[VERDICT_REMOVALS_COUNTER] + 1);
      await run(sql`delete from evaluator_verdicts where evaluator_key = 'import:stamp'`);
      expect((await tableVersions(ctx.db))[VERDICT_REMOVALS_COUNTER]).toBe(before[VERDICT_REMOVALS_COUNTER] + 2);
    });
  });

  describe("label stamps", () => {
    const stampOf = async (id: number) => Number((await rawGet<{ v: number }>(ctx.db, sql`select change_version as v from labels where id = ${id}`))!.v);

    it("carry the counter their write left; removals and identity changes move a counter of their own", async () => {
      const before = await tableVersions(ctx.db);
      const id = Number((await rawGet<{ id: number }>(ctx.db, sql`select min(id) as id from labels`))!.id);
      await run(sql`update labels set verdict = 'unsure', category = null where id = ${id}`);
      const relabelled = await tableVersions(ctx.db);
      expect(relabelled.labels).toBe(before.labels + 1);
      expect(await stampOf(id)).toBe(relabelled.labels);
      // A column analytics do not read leaves the stamp and the counters alone.
      await run(sql`update labels set note = 'why' where id = ${id}`);
      expect(await stampOf(id)).toBe(relabelled.labels);
      await run(sql`update labels set status = 'withdrawn' where id = ${id}`);
      const withdrawn = await tableVersions(ctx.db);
      expect(await stampOf(id)).toBe(withdrawn.labels);
      expect(withdrawn[LABEL_REMOVALS_COUNTER]).toBe(before[LABEL_REMOVALS_COUNTER]);

      await run(sql`update labels set annotator_key = 'import:someone else' where id = ${id}`);
      expect((await tableVersions(ctx.db))[LABEL_REMOVALS_COUNTER]).toBe(before[LABEL_REMOVALS_COUNTER] + 1);
      await run(sql`delete from labels where id = ${id}`);
      const deleted = await tableVersions(ctx.db);
      expect(deleted[LABEL_REMOVALS_COUNTER]).toBe(before[LABEL_REMOVALS_COUNTER] + 2);
      expect(deleted[VERDICT_REMOVALS_COUNTER]).toBe(before[VERDICT_REMOVALS_COUNTER]);
    });
  });

  /** A verdict set as a sorted list of its entries, to compare sets whatever order their entries are in. */
  const entriesOf = (sets: VerdictSet[]) =>
    sets.map((s) => ({
      identity: s.identity,
      entries: Array.from(s.rows, (r, i) => [r, s.verdict[i], s.sampleCount[i], s.sampleSuccesses[i], s.sampleFailures[i], s.firstFailingStep[i]]).sort(
        (a, b) => a[0]! - b[0]!,
      ),
    }));

  describe("analytics cache", () => {
    it("brings cached verdicts up to date with the rows written since, as a full read would give them", async () => {
      const cachedSets = await getVerdictSets(ctx.db);
      const judgeSets = cachedSets.filter((s) => s.identity.key === fx.judgeKey);
      const untouched = cachedSets.filter((s) => s.identity.key !== fx.judgeKey);
      expect(judgeSets.length).toBeGreaterThan(0);
      expect(untouched.length).toBeGreaterThan(0);
      const target = judgeSets[0]!.identity;
      const flipped = fx.ids.T1!;
      const old = judgeSets[0]!.verdict[judgeSets[0]!.rows.indexOf((await getFacts(ctx.db)).rowOf(flipped))];

      // A judge changes its mind on one trajectory, samples another, and a new evaluator appears.
      await upsertVerdict(ctx.db, {
        trajectoryId: flipped,
        kind: "judge",
        origin: "verdict",
        evaluatorKey: target.key,
        evaluatorName: "Fixture judge",
        k: target.k,
        promptVersion: target.pv,
        verdict: old === 0 ? "failure" : "success",
        sampleCount: 3,
        sampleSuccesses: old === 0 ? 0 : 3,
        sampleFailures: old === 0 ? 3 : 0,
        firstFailingStep: 2,
      });
      await upsertVerdict(ctx.db, {
        trajectoryId: fx.ids.T11!,
        kind: "judge",
        origin: "import",
        evaluatorKey: "import:late",
        evaluatorName: "late",
        k: "",
        promptVersion: "",
        verdict: "failure",
      });
      await upsertVerdict(ctx.db, {
        trajectoryId: fx.ids.T12!,
        kind: "judge",
        origin: "import",
        evaluatorKey: "import:late",
        evaluatorName: "late",
        k: "",
        promptVersion: "",
        verdict: "success",
      });

      const patched = await getVerdictSets(ctx.db);
      // Only the set that changed was rebuilt: the others are the cached objects themselves, so nothing was read again.
      for (const set of untouched) expect(patched).toContain(set);
      expect(patched).not.toContain(judgeSets[0]);
      expect(entriesOf(patched)).toEqual(entriesOf(await loadVerdictSets(ctx.db, await getFacts(ctx.db))));
      const late = patched.find((s) => s.identity.key === "import:late")!;
      expect(late.rows.length).toBe(2);
      // One evaluator's own list is patched the same way.
      const own = await getVerdictSets(ctx.db, "import:late");
      expect(entriesOf(own)).toEqual(entriesOf(patched.filter((s) => s.identity.key === "import:late")));

      // A removed verdict cannot be patched in: everything is read again, and it is gone.
      await run(sql`delete from evaluator_verdicts where evaluator_key = 'import:late' and trajectory_id = ${fx.ids.T12}`);
      const reread = await getVerdictSets(ctx.db);
      for (const set of untouched) expect(reread).not.toContain(set);
      expect(reread.find((s) => s.identity.key === "import:late")!.rows.length).toBe(1);
      expect(entriesOf(reread)).toEqual(entriesOf(await loadVerdictSets(ctx.db, await getFacts(ctx.db))));
    });

    it("brings a campaign's cached labels up to date with the rows written since, exactly as a full read gives them", async () => {
      const labels = await getCampaignLabels(ctx.db, fx.campaignId);
      const itemOf = async (trajectoryId: number) =>
        Number((await rawGet<{ id: number }>(ctx.db, sql`select id from campaign_items where trajectory_id = ${trajectoryId}`))!.id);
      const insertLabel = async (trajectoryId: number, annotatorKey: string, verdict: string, category: string | null) =>
        run(
          sql`insert into labels (campaign_id, item_id, trajectory_id, annotator_key, annotator_name, origin, verdict, category)
              values (${fx.campaignId}, ${await itemOf(trajectoryId)}, ${trajectoryId}, ${annotatorKey}, 'x', 'import', ${verdict}, ${category})`,
        );
      // A new annotator whose key sorts between two others, and one whose key sorts after a character above U+FFFF
      // would in UTF-16 but not in the databases' byte order; a category no label had; a label changed twice; one
      // withdrawn; one whose category was the last of its value; one back from withdrawn.
      await insertLabel(fx.ids.T11!, "import:b-new", "failure", "a brand-new category");
      await insertLabel(fx.ids.T12!, "import:\u{1F600}", "success", null);
      await insertLabel(fx.ids.T12!, "import:\uFF21", "failure", "Ｚ");
      const t2 = await itemOf(fx.ids.T2!);
      await run(sql`update labels set verdict = 'success', category = null where item_id = ${t2} and annotator_key = 'import:ann'`);
      await run(
        sql`update labels set verdict = 'failure', category = 'navigation stuck', first_failing_step = 2 where item_id = ${t2} and annotator_key = 'import:ann'`,
      );
      await run(sql`update labels set status = 'withdrawn' where item_id = ${await itemOf(fx.ids.T4!)} and annotator_key = 'import:bob'`);
      await run(sql`update labels set category = 'hallucination' where category = 'visual grounding issue'`);
      const t9 = await itemOf(fx.ids.T9!);
      await run(sql`update labels set status = 'withdrawn' where item_id = ${t9} and annotator_key = 'import:cy'`);
      await run(sql`update labels set status = 'active' where item_id = ${t9} and annotator_key = 'import:cy'`);
      const patched = await getCampaignLabels(ctx.db, fx.campaignId);
      expect(patched).not.toBe(labels);
      const full = await loadCampaignLabelColumns(ctx.db, fx.campaignId);
      expect(patched.length).toBe(labels.length + 3 - 1);
      expect(patched).toEqual(full);
      expect(patched.dict.category).toContain("a brand-new category");
      expect(patched.dict.category).not.toContain("visual grounding issue");
      // Nothing written since: the patched copy is kept as it is.
      expect(await getCampaignLabels(ctx.db, fx.campaignId)).toBe(patched);

      // A deleted label cannot be patched in: the campaign's labels are read again, and it is gone.
      await run(sql`delete from labels where item_id = ${t9} and annotator_key = 'import:cy'`);
      const reread = await getCampaignLabels(ctx.db, fx.campaignId);
      expect(reread.length).toBe(patched.length - 1);
      expect(reread).toEqual(await loadCampaignLabelColumns(ctx.db, fx.campaignId));
    });

    it("sees verdicts another connection wrote, patched in", async () => {
      const before = await getVerdictSets(ctx.db);
      const other = otherConnection();
      try {
        await upsertVerdict(other, {
          trajectoryId: fx.ids.T11!,
          kind: "judge",
          origin: "import",
          evaluatorKey: "import:elsewhere",
          evaluatorName: "e",
          k: "",
          promptVersion: "",
          verdict: "success",
        });
      } finally {
        await closeDatabase(other);
      }
      const after = await getVerdictSets(ctx.db);
      expect(after.find((s) => s.identity.key === "import:elsewhere")?.rows.length).toBe(1);
      for (const set of before) expect(after).toContain(set);
    });

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

      await upsertVerdict(ctx.db, {
        trajectoryId: fx.ids.T11!,
        kind: "judge",
        origin: "import",
        evaluatorKey: "import:late",
        evaluatorName: "late",
        k: "",
        promptVersion: "",
        verdict: "failure",
      });
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

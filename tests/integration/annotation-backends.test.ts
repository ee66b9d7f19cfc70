/**
 * The annotator's hot path on every database backend: "next" under many annotators asking at once (PostgreSQL
 * runs it SERIALIZABLE and retries the loser), exactly-once submits with an idempotency key, undo, consolidation,
 * adjudication, the blind rule's look-ups and the strategies' hand-written SQL. Data is written through the
 * dialect-neutral tables (not the catalog importers), so the suite runs only through annotation code.
 */
import { count, eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { first, rawGet, tablesOf, type Db } from "../../db/database";
import { addCampaignAnnotators, annotatorProgress, getItemByTrajectory, liveReservationCounts } from "../../db/repositories/annotation/campaigns";
import { isBlindedFor, labellingBlindCount } from "../../db/repositories/access/blind-rule";
import { qualityLabelRows, strataCoverage, strategyCandidates } from "../../db/repositories/annotation/quality";
import { pickCandidate } from "../../server/domain/annotation/assignment";
import { queueOrderSalt } from "../../server/domain/annotation/label-schema";
import type { Actor } from "../../server/domain/access/actor";
import {
  adjudicate,
  campaignOverview,
  createCampaign,
  exportCampaignLabels,
  importLabelsCsv,
  markGold,
  myCampaigns,
  myRecentLabels,
  nextAssignment,
  submitLabel,
  undoSubmit,
  updateCampaignSettings,
  updateQualitySettings,
} from "../../server/services/annotation";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";

describeEachBackend("annotation hot path", (backend) => {
  let ctx: TestContext;
  let db: Db;
  let researcher: Actor;
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-annotation-backends-");
    db = ctx.db;
    researcher = await user("Rita Researcher", "researcher");
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  let seq = 0;
  async function user(name: string, role: Actor["role"]): Promise<Actor> {
    const { users } = tablesOf(db);
    const id = `u-${++seq}-${name.replace(/\W+/g, "-").toLowerCase()}`;
    await db.insert(users).values({ id, name, email: `${id}@test.example`, role });
    return { userId: id, name, role };
  }

  /** `n` trajectories on two sites and two runs, written straight into the tables. */
  async function trajectories(n: number): Promise<number[]> {
    const { taskSets, tasks, agentRuns, trajectories } = tablesOf(db);
    const [set] = await db
      .insert(taskSets)
      .values({ name: `Set ${++seq}`, benchmark: "webvoyager" })
      .returning();
    const runs = await db
      .insert(agentRuns)
      .values([0, 1].map((r) => ({ runKey: `run-${seq}-${r}`, name: `Run ${r}`, agentName: `agent-${r}`, model: `model-${r}`, sourceSystem: "test" })))
      .returning();
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const [task] = await db
        .insert(tasks)
        .values({ taskSetId: set!.id, externalId: `t-${i}`, site: i % 2 ? "Allrecipes" : "GitHub", intent: `Do ${i}`, contentHash: `h-${seq}-${i}` })
        .returning();
      const [t] = await db
        .insert(trajectories)
        .values({ runId: runs[i % 2]!.id, taskId: task!.id, attempt: 0, outcome: "answered", stepCount: 4, sourceFormat: "test", contentHash: `c-${seq}-${i}` })
        .returning();
      ids.push(t!.id);
    }
    return ids;
  }

  async function campaign(ids: number[], people: Actor[], o: { k?: number; blind?: boolean } = {}) {
    const c = await createCampaign(db, researcher, { name: `Campaign ${++seq}`, trajectoryIds: ids, annotatorsPerItem: o.k ?? 2, blind: o.blind ?? true });
    await addCampaignAnnotators(
      db,
      c.id,
      people.map((p) => p.userId),
    );
    return c;
  }

  let keyNo = 0;
  const key = () => `backend-key-${++keyNo}-${Math.random().toString(36).slice(2)}`;

  async function people(n: number): Promise<Actor[]> {
    const out: Actor[] = [];
    for (let i = 0; i < n; i++) out.push(await user(`Annotator ${i}`, "annotator"));
    return out;
  }

  it("describes a selection by filter with the task set and run named, not their ids (review 2, #13)", async () => {
    const ids = await trajectories(4);
    const setName = `Set ${seq}`;
    const { trajectories: t, tasks } = tablesOf(db);
    const row = await first(
      db.select({ runId: t.runId, taskSetId: tasks.taskSetId }).from(t).innerJoin(tasks, eq(tasks.id, t.taskId)).where(eq(t.id, ids[0]!)),
    );
    const c = await createCampaign(db, researcher, {
      name: `By filter ${++seq}`,
      filter: { taskSetId: row!.taskSetId, runId: row!.runId, sample: 1, seed: 7 },
      annotatorsPerItem: 1,
    });
    expect(c.selection.description).toBe(`random sample of 1 (seed 7) of task set “${setName}”, run “Run 0”`);
  });

  it("hands the last slot to exactly one of many annotators asking at once", async () => {
    const [t] = await trajectories(1);
    const crowd = await people(6);
    const c = await campaign([t!], crowd, { k: 1 });
    const got = await Promise.all(crowd.map((p) => nextAssignment(db, p, c.id)));
    expect(got.filter((a) => a !== null)).toHaveLength(1);
    const { reservations } = tablesOf(db);
    const held = await first(db.select({ n: count() }).from(reservations).where(eq(reservations.status, "active")).limit(1));
    expect(held?.n).toBe(1);
  });

  // Only PostgreSQL plans from statistics that lag behind: registered for that engine alone.
  if (backend === "postgres")
    it("refreshes PostgreSQL's statistics of the queue when a large campaign is created, so the next query is planned for its size", async () => {
      const stats = async () => Number((await rawGet<{ n: number }>(db, sql`select reltuples as n from pg_class where relname = 'campaign_items'`))!.n);
      const few = await trajectories(20);
      await campaign(few, []);
      // A small campaign leaves the statistics to autovacuum: the table has never been analysed.
      expect(await stats()).toBeLessThan(20);
      const many = await trajectories(240);
      await campaign(many, []);
      expect(await stats()).toBe(260);
    });

  it("gives annotators asking at once different items while items are left", async () => {
    const ids = await trajectories(4);
    const crowd = await people(4);
    const c = await campaign(ids, crowd, { k: 1 });
    const got = await Promise.all(crowd.map((p) => nextAssignment(db, p, c.id)));
    expect(new Set(got.map((a) => a?.trajectoryId)).size).toBe(4);
  });

  it("a crowd labelling one campaign at once gets no error and stores every item's k labels exactly once", async () => {
    const ids = await trajectories(10);
    const crowd = await people(20);
    const c = await campaign(ids, crowd, { k: 3 });
    // Every annotator asks and submits as fast as it can until its queue is empty, all of them side by side.
    const work = async (p: Actor) => {
      let done = 0;
      for (;;) {
        const a = await nextAssignment(db, p, c.id);
        if (!a) return done;
        await submitLabel(db, p, {
          campaignId: c.id,
          trajectoryId: a.trajectoryId,
          verdict: done % 2 ? "success" : "failure",
          ...(done % 2 ? {} : { category: "other", firstFailingStep: 0, note: "x" }),
          idempotencyKey: key(),
        });
        done++;
      }
    };
    const counts = await Promise.all(crowd.map(work));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(30);
    const { labels } = tablesOf(db);
    const rows = await db.select({ trajectoryId: labels.trajectoryId, userId: labels.userId }).from(labels);
    expect(rows).toHaveLength(30);
    expect(new Set(rows.map((r) => `${r.trajectoryId}:${r.userId}`)).size).toBe(30);
    for (const t of ids) expect((await getItemByTrajectory(db, c.id, t))?.labelCount).toBe(3);
  });

  it("stores a submit sent five times at once with one idempotency key exactly once", async () => {
    const [t] = await trajectories(1);
    const [a] = await people(1);
    const c = await campaign([t!], [a!], { k: 1 });
    const k = key();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => submitLabel(db, a!, { campaignId: c.id, trajectoryId: t!, verdict: "success", idempotencyKey: k })),
    );
    expect(new Set(results.map((r) => r.revisionId)).size).toBe(1);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    const { labels, labelRevisions } = tablesOf(db);
    expect((await db.select().from(labels)).length).toBe(1);
    expect((await db.select().from(labelRevisions)).length).toBe(1);
    expect((await getItemByTrajectory(db, c.id, t!))?.labelCount).toBe(1);
  });

  it("applies an undo sent five times at once with one idempotency key once, and gives the slot back to its annotator only", async () => {
    const [t] = await trajectories(1);
    const [a, ...others] = await people(4);
    const c = await campaign([t!], [a!, ...others], { k: 1 });
    await submitLabel(db, a!, { campaignId: c.id, trajectoryId: t!, verdict: "failure", category: "hallucination", idempotencyKey: key() });
    const k = key();
    // The undo gives the item's only slot back to its annotator while the others ask for work at the same moment.
    const [undos, nexts] = await Promise.all([
      Promise.all(Array.from({ length: 5 }, () => undoSubmit(db, a!, { campaignId: c.id, idempotencyKey: k }))),
      Promise.all(others.map((p) => nextAssignment(db, p, c.id))),
    ]);
    expect(new Set(undos.map((r) => r.revisionId)).size).toBe(1);
    expect(undos.filter((r) => !r.replayed)).toHaveLength(1);
    expect(undos[0]!.status).toBe("withdrawn");
    expect(nexts.every((n) => n === null)).toBe(true);
    const { labelRevisions, reservations } = tablesOf(db);
    expect((await db.select().from(labelRevisions)).map((r) => r.action).sort()).toEqual(["submit", "undo"]);
    const held = await db.select().from(reservations).where(eq(reservations.status, "active"));
    expect(held.map((r) => r.userId)).toEqual([a!.userId]);
    expect((await getItemByTrajectory(db, c.id, t!))?.labelCount).toBe(0);
  });

  it("replays a repeated submit and a repeated undo after the campaign closed, and refuses new ones", async () => {
    const [t] = await trajectories(1);
    const [a] = await people(1);
    const c = await campaign([t!], [a!], { k: 1 });
    const submitKey = key();
    const undoKey = key();
    const submitted = await submitLabel(db, a!, { campaignId: c.id, trajectoryId: t!, verdict: "success", idempotencyKey: submitKey });
    const undone = await undoSubmit(db, a!, { campaignId: c.id, idempotencyKey: undoKey });
    await updateCampaignSettings(db, researcher, c.id, { status: "closed" });
    // A retry after a lost response gets the stored answer, not an error about the closed campaign.
    expect(await submitLabel(db, a!, { campaignId: c.id, trajectoryId: t!, verdict: "success", idempotencyKey: submitKey })).toMatchObject({
      revisionId: submitted.revisionId,
      replayed: true,
    });
    expect(await undoSubmit(db, a!, { campaignId: c.id, idempotencyKey: undoKey })).toMatchObject({ revisionId: undone.revisionId, replayed: true });
    await expect(undoSubmit(db, a!, { campaignId: c.id, idempotencyKey: key() })).rejects.toThrow(/is closed/);
  });

  it("labels, disputes, adjudicates and undoes with the same results, and the blind rule reads the same", async () => {
    const ids = await trajectories(2);
    const [a, b] = await people(2);
    const c = await campaign(ids, [a!, b!], { k: 2 });
    expect(await labellingBlindCount(db, a!.userId)).toBe(2);
    const aGot = (await nextAssignment(db, a!, c.id))!;
    expect(await isBlindedFor(db, a!.userId, aGot.trajectoryId)).toBe(true);
    const s1 = await submitLabel(db, a!, {
      campaignId: c.id,
      trajectoryId: aGot.trajectoryId,
      verdict: "success",
      timeSpentMs: 2500,
      stepsViewed: [0, 2],
      idempotencyKey: key(),
    });
    expect(await isBlindedFor(db, a!.userId, aGot.trajectoryId)).toBe(false);
    expect(await labellingBlindCount(db, a!.userId)).toBe(1);
    const bSubmit = await submitLabel(db, b!, {
      campaignId: c.id,
      trajectoryId: aGot.trajectoryId,
      verdict: "failure",
      category: "other",
      idempotencyKey: key(),
    });
    expect(bSubmit.itemState).toBe("disputed");

    // Undo of b's submit withdraws it; the item is open again; a second submit brings agreement.
    const undone = await undoSubmit(db, b!, { campaignId: c.id, idempotencyKey: key() });
    expect(undone.status).toBe("withdrawn");
    expect(undone.itemState).toBe("open");
    const agreed = await submitLabel(db, b!, { campaignId: c.id, trajectoryId: aGot.trajectoryId, verdict: "success", idempotencyKey: key() });
    expect(agreed.itemState).toBe("agreed");

    const other = ids.find((t) => t !== aGot.trajectoryId)!;
    await submitLabel(db, a!, { campaignId: c.id, trajectoryId: other, verdict: "success", idempotencyKey: key() });
    await submitLabel(db, b!, { campaignId: c.id, trajectoryId: other, verdict: "failure", category: "other", idempotencyKey: key() });
    const decided = await adjudicate(db, researcher, {
      campaignId: c.id,
      trajectoryId: other,
      verdict: "failure",
      category: "other",
      reason: "the answer is wrong",
      confidence: "high",
    });
    expect(decided.consolidated).toMatchObject({ method: "adjudicated", verdict: "failure", adjudicatorName: researcher.name, confidence: "high" });

    const overview = await campaignOverview(db, researcher, c.id);
    expect(overview.counts).toMatchObject({ items: 2, agreed: 1, adjudicated: 1, labels: 4, annotators: 2 });
    const aRow = overview.annotators.find((x) => x.userId === a!.userId)!;
    // Sums and averages are numbers on both engines (node-postgres returns them as strings unless mapped).
    // The mean is over labels with a time (one here).
    expect(aRow).toMatchObject({ labelled: 2, success: 2, failure: 0, meanTimeMs: 2500 });
    expect(typeof aRow.meanTimeMs).toBe("number");
    expect(s1.values.verdict).toBe("success");

    const progress = await annotatorProgress(db, c.id, Date.now());
    expect(progress.done.map((d) => typeof d.success)).toEqual(["number", "number"]);
    expect((await myCampaigns(db, a!)).find((x) => x.id === c.id)?.remaining).toBe(0);
    expect((await myRecentLabels(db, a!, c.id)).map((r) => r.verdict)).toEqual(["success", "success"]);

    const csv = await exportCampaignLabels(db, researcher, c.id, "csv");
    expect(csv.body.split("\n").filter((l) => l.startsWith("annotation,")).length).toBe(4);
    const quality = await qualityLabelRows(db, c.id);
    expect(quality.find((r) => r.annotatorKey === `user:${a!.userId}` && r.trajectoryId === aGot.trajectoryId)).toMatchObject({
      stepsViewed: 2,
      timeSpentMs: 2500,
      gold: 0,
      stepCount: 4,
    });
  });

  it("hands out items by site, at random and gold on a gold turn through the strategies' SQL", async () => {
    const ids = await trajectories(6);
    const [a] = await people(1);
    const c = await campaign(ids, [a!], { k: 1, blind: false });
    expect([...(await strataCoverage(db, c.id, "site")).entries()].sort()).toEqual([
      ["Allrecipes", { items: 3, labels: 0 }],
      ["GitHub", { items: 3, labels: 0 }],
    ]);
    for (const strategy of ["by_site", "by_run", "random", "disputed_first"] as const) {
      await updateQualitySettings(db, researcher, c.id, { assignmentStrategy: strategy });
      const got = await nextAssignment(db, a!, c.id);
      expect(ids).toContain(got?.trajectoryId);
    }
    await markGold(db, researcher, { campaignId: c.id, trajectoryId: ids[5]!, verdict: "success" });
    await updateQualitySettings(db, researcher, c.id, { assignmentStrategy: "least_covered", goldRate: 1 });
    // The held reservation comes first; once it is labelled, every turn is a gold turn at rate 1.
    const held = (await nextAssignment(db, a!, c.id))!;
    await submitLabel(db, a!, { campaignId: c.id, trajectoryId: held.trajectoryId, verdict: "success", idempotencyKey: key() });
    expect((await nextAssignment(db, a!, c.id))?.trajectoryId).toBe(ids[5]);
  });

  it("by site and by run hand out what the rule picks over every candidate, reading one stratum a page at a time", async () => {
    // 150 items on two sites and two runs: more than a page (64) per stratum.
    const ids = await trajectories(150);
    const crowd = await people(4);
    const holders = await people(3);
    const c = await campaign(ids, [...crowd, ...holders], { k: 2, blind: false });
    // Uneven coverage: one site's first items labelled once, and live reservations held by others.
    for (const t of ids.filter((_, i) => i % 2 === 1).slice(0, 30)) {
      await submitLabel(db, holders[0]!, { campaignId: c.id, trajectoryId: t, verdict: "success", idempotencyKey: key() });
    }
    for (const strategy of ["by_site", "by_run"] as const) {
      await updateQualitySettings(db, researcher, c.id, { assignmentStrategy: strategy });
      for (const h of holders.slice(1)) await nextAssignment(db, h, c.id);
      const stratum = strategy === "by_site" ? "site" : "run";
      for (let round = 0; round < 16; round++) {
        const p = crowd[round % crowd.length]!;
        const now = Date.now();
        const reserved = await liveReservationCounts(db, c.id, p.userId, now);
        const strata = await strataCoverage(db, c.id, stratum);
        const every = await strategyCandidates(db, {
          campaignId: c.id,
          userId: p.userId,
          needed: 2,
          salt: queueOrderSalt(p.userId),
          skipped: false,
          stratum,
          withDisputed: false,
          withVerdicts: false,
        });
        const expected = pickCandidate(
          strategy,
          every.map((r) => ({ ...r, disputed: r.disputed === 1, reserved: reserved.get(r.itemId) ?? 0 })),
          2,
          strata,
        );
        const got = await nextAssignment(db, p, c.id, { now });
        expect(got?.trajectoryId, `${strategy}, round ${round}`).toBe(expected?.trajectoryId);
        await submitLabel(db, p, { campaignId: c.id, trajectoryId: got!.trajectoryId, verdict: "success", idempotencyKey: key() });
      }
    }
  });

  it("imports a label file into a new campaign once, counting what it did even when the transaction is retried", async () => {
    const ids = await trajectories(2);
    const csv = `trajectory_id,annotator,verdict\n${ids[0]},Ann,success\n${ids[1]},Ann,failure\n${ids[1]},Bob,failure\n`;
    const request = {
      csv,
      source: "labels.csv",
      mapping: { annotator: "annotator", verdict: "verdict", trajectoryId: "trajectory_id" },
      campaign: { name: "Imported", annotatorsPerItem: 2 },
    };
    const report = await importLabelsCsv(db, researcher, request);
    expect(report).toMatchObject({ created: 3, updated: 0, unchanged: 0, itemsAdded: 2 });
    const again = await importLabelsCsv(db, researcher, { ...request, campaign: { id: report.campaignId! } });
    expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 3, itemsAdded: 0 });
    const dry = await importLabelsCsv(db, researcher, { ...request, campaign: { name: "Dry" }, dryRun: true });
    expect(dry).toMatchObject({ created: 3, campaignId: null });
  });
});

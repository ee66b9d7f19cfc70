/**
 * Submit & next's look-ahead (issue 30, item 7): `labelling.lookAhead` names the item the annotator would most likely
 * be handed after submitting the one on screen, with what the labelling page shows of it, so the page can have it
 * ready before the submit. It must reserve and write nothing (another annotator may still take the item, and k per
 * item holds), hand out what Submit & next then hands out under every strategy and with gold mixed in, and show
 * nothing the annotator would not see on that item: exactly `labelling.item` and `labelling.mine` for it.
 */
import { count, eq } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { first, tablesOf, type Db } from "../../db/database";
import { addCampaignAnnotators, getItemByNumber, getItemByTrajectory, upsertReservation } from "../../db/repositories/annotation/campaigns";
import type { Actor } from "../../server/domain/access/actor";
import {
  createCampaign,
  itemTrajectory,
  lookAheadItem,
  markGold,
  myItemLabel,
  nextItem,
  submitItemLabelAndNext,
  updateQualitySettings,
} from "../../server/services/annotation";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";

describeEachBackend("labelling look-ahead", (backend) => {
  let ctx: TestContext;
  let db: Db;
  let researcher: Actor;
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-look-ahead-");
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

  /** `n` trajectories on two sites and two runs (named after their agents, which the blind hides). */
  async function trajectories(n: number): Promise<number[]> {
    const { taskSets, tasks, agentRuns, trajectories } = tablesOf(db);
    const [set] = await db
      .insert(taskSets)
      .values({ name: `Set ${++seq}`, benchmark: "webvoyager" })
      .returning();
    const runs = await db
      .insert(agentRuns)
      .values(
        [0, 1].map((r) => ({ runKey: `run-${seq}-${r}`, name: `Secret agent run ${r}`, agentName: `agent-${r}`, model: `model-${r}`, sourceSystem: "test" })),
      )
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

  async function campaign(ids: number[], people: Actor[], k = 1) {
    const c = await createCampaign(db, researcher, { name: `Campaign ${++seq}`, trajectoryIds: ids, annotatorsPerItem: k, blind: true });
    await addCampaignAnnotators(
      db,
      c.id,
      people.map((p) => p.userId),
    );
    return c;
  }

  /** Every row of the tables an assignment or a label writes, as text: what "reserves nothing, writes nothing" compares. */
  async function written(): Promise<string> {
    const { reservations, labels, labelRevisions, campaignItems } = tablesOf(db);
    const rows = await Promise.all([
      db.select().from(reservations).orderBy(reservations.itemId, reservations.userId),
      db.select().from(labels).orderBy(labels.id),
      db.select().from(labelRevisions).orderBy(labelRevisions.id),
      db.select().from(campaignItems).orderBy(campaignItems.id),
    ]);
    return JSON.stringify(rows);
  }

  let keyNo = 0;
  const submitAndNext = (a: Actor, campaignId: number, itemNo: number) =>
    submitItemLabelAndNext(db, a, { campaignId, itemNo, verdict: "success", idempotencyKey: `look-ahead-${++keyNo}-key`, andNext: true });

  it("reserves and writes nothing, and shows exactly what the labelling page shows of the item", async () => {
    const ids = await trajectories(6);
    const [ann, other] = [await user("Ann", "annotator"), await user("Otto", "annotator")];
    const c = await campaign(ids, [ann, other], 2);
    const onScreen = (await nextItem(db, ann, c.id))!;
    // Another annotator's label and region notes on every item: the look-ahead must show none of them.
    for (const t of ids) {
      const no = (await getItemByTrajectory(db, c.id, t))!.itemNo!;
      await submitItemLabelAndNext(db, other, {
        campaignId: c.id,
        itemNo: no,
        verdict: "failure",
        category: "other",
        note: "Otto's secret note",
        idempotencyKey: `otto-${t}-key`,
      });
    }
    const before = await written();
    const ahead = (await lookAheadItem(db, ann, c.id, onScreen.itemNo))!;
    expect(await written()).toBe(before);
    expect(ahead.itemNo).not.toBe(onScreen.itemNo);
    expect(ahead.item).toEqual(await itemTrajectory(db, ann, c.id, ahead.itemNo));
    expect(ahead.mine).toEqual(await myItemLabel(db, ann, c.id, ahead.itemNo));
    const text = JSON.stringify(ahead);
    for (const secret of ["Otto's secret note", "Secret agent run", "agent-0", "agent-1", "model-0", "model-1", "disputed"]) expect(text).not.toContain(secret);
    expect(ahead.mine.label).toBeNull();
    expect(ahead.item.agentHidden).toBe(true);
  });

  for (const strategy of ["least_covered", "random", "by_site", "by_run", "disputed_first"] as const) {
    it(`names the item Submit & next then hands out, item after item (${strategy})`, async () => {
      const ids = await trajectories(7);
      const ann = await user("Ann", "annotator");
      const c = await campaign(ids, [ann], 1);
      await updateQualitySettings(db, researcher, c.id, { assignmentStrategy: strategy });
      let on = (await nextItem(db, ann, c.id))!.itemNo;
      const seen = [on];
      for (let i = 0; i < ids.length; i++) {
        const ahead = await lookAheadItem(db, ann, c.id, on);
        const { next } = await submitAndNext(ann, c.id, on);
        expect(ahead?.itemNo ?? null).toBe(next?.itemNo ?? null);
        if (!next) break;
        on = next.itemNo;
        seen.push(on);
      }
      // Every item once, then nothing left to look ahead to.
      expect(new Set(seen).size).toBe(ids.length);
      expect(await lookAheadItem(db, ann, c.id, on)).toBeNull();
    });
  }

  for (const [strategy, gold] of [
    ["least_covered", false],
    ["random", false],
    ["by_site", false],
    ["by_run", false],
    ["disputed_first", false],
    ["least_covered", true],
  ] as const) {
    it(`looks ahead from the item shown before the submit that handed it out is stored (${strategy}${gold ? ", gold mixed in" : ""})`, async () => {
      // The page shows the next item as Submit & next is sent, and asks at once for the item after it, naming the
      // item whose submit is still on its way: the answer must be what the two submits then hand out, in that order.
      const ids = await trajectories(8);
      const ann = await user("Ann", "annotator");
      const c = await campaign(ids, [ann], 1);
      if (gold) {
        for (const t of ids.slice(5)) await markGold(db, researcher, { campaignId: c.id, trajectoryId: t, verdict: "success" });
        await updateQualitySettings(db, researcher, c.id, { goldRate: 0.5 });
      }
      await updateQualitySettings(db, researcher, c.id, { assignmentStrategy: strategy });
      let on = (await nextItem(db, ann, c.id))!.itemNo;
      let ahead = (await lookAheadItem(db, ann, c.id, on))?.itemNo ?? null;
      const seen = [on];
      while (ahead !== null) {
        const before = await written();
        const after = (await lookAheadItem(db, ann, c.id, ahead, {}, [on]))?.itemNo ?? null;
        expect(await written()).toBe(before);
        expect(after).not.toBe(on);
        expect((await submitAndNext(ann, c.id, on)).next?.itemNo ?? null).toBe(ahead);
        // Asked again once that submit is stored, the same answer.
        expect((await lookAheadItem(db, ann, c.id, ahead, {}, [on]))?.itemNo ?? null).toBe(after);
        expect((await lookAheadItem(db, ann, c.id, ahead))?.itemNo ?? null).toBe(after);
        on = ahead;
        ahead = after;
        seen.push(on);
      }
      expect((await submitAndNext(ann, c.id, on)).next).toBeNull();
      expect(new Set(seen).size).toBe(ids.length);
    });
  }

  it("names the gold item a gold turn hands out, and never the item on screen", async () => {
    const ids = await trajectories(6);
    const ann = await user("Ann", "annotator");
    const c = await campaign(ids, [ann], 1);
    for (const t of ids.slice(3)) await markGold(db, researcher, { campaignId: c.id, trajectoryId: t, verdict: "success" });
    await updateQualitySettings(db, researcher, c.id, { goldRate: 0.5 });
    let on = (await nextItem(db, ann, c.id))!.itemNo;
    for (let i = 0; i < ids.length; i++) {
      const ahead = await lookAheadItem(db, ann, c.id, on);
      expect(ahead?.itemNo).not.toBe(on);
      const { next } = await submitAndNext(ann, c.id, on);
      expect(ahead?.itemNo ?? null).toBe(next?.itemNo ?? null);
      if (!next) break;
      on = next.itemNo;
    }
  });

  it("leaves the item to others: one another annotator takes meanwhile is not handed out, and k per item holds", async () => {
    const ids = await trajectories(3);
    const [ann, bob] = [await user("Ann", "annotator"), await user("Bob", "annotator")];
    const c = await campaign(ids, [ann, bob], 1);
    const on = (await nextItem(db, ann, c.id))!.itemNo;
    const ahead = (await lookAheadItem(db, ann, c.id, on))!;
    const aheadItem = (await getItemByNumber(db, c.id, ahead.itemNo))!;
    // Bob takes the looked-ahead item before Ann submits (as `next` would reserve it for him).
    const now = Date.now();
    await upsertReservation(db, {
      campaignId: c.id,
      itemId: aheadItem.id,
      userId: bob.userId,
      status: "active",
      reservedAt: new Date(now),
      expiresAt: new Date(now + 3_600_000),
    });
    const { next } = await submitAndNext(ann, c.id, on);
    expect(next).not.toBeNull();
    expect(next!.itemNo).not.toBe(ahead.itemNo);
    const { reservations } = tablesOf(db);
    const held = await first(db.select({ n: count() }).from(reservations).where(eq(reservations.itemId, aheadItem.id)).limit(1));
    expect(held?.n).toBe(1);
  });

  it("is refused to someone who does not annotate the campaign, and names an unknown item", async () => {
    const ids = await trajectories(2);
    const [ann, stranger] = [await user("Ann", "annotator"), await user("Stan", "annotator")];
    const c = await campaign(ids, [ann], 1);
    await expect(lookAheadItem(db, stranger, c.id, 1)).rejects.toThrow(/not an annotator/);
    await expect(lookAheadItem(db, ann, c.id, 99)).rejects.toThrow(/item of campaign/);
    await expect(lookAheadItem(db, ann, c.id, 1, {}, [99])).rejects.toThrow(/item of campaign/);
  });
});

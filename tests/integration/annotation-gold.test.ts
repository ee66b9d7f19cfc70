/**
 * Gold items and assignment strategies on a real SQLite database: marking and promoting gold, gold mixed into each
 * annotator's queue at the campaign's rate (and with every strategy), accuracy with its Wilson interval, warn and
 * block thresholds, gold left out of agreement statistics, and what an annotator can (not) learn of gold.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Actor } from "../../server/domain/access/actor";
import { isGoldTurn } from "../../server/domain/annotation/assignment";
import { queueOrderSalt } from "../../server/domain/annotation/label-schema";
import { AppError } from "../../server/errors";
import { humanAgreement } from "../../server/services/analytics";
import {
  BLOCKED_MESSAGE,
  campaignGold,
  createCampaign,
  markGold,
  myCampaigns,
  myItemLabel,
  myRecentLabels,
  nextAssignment,
  nextItem,
  promoteGold,
  reopenItem,
  submitLabel,
  updateQualitySettings,
} from "../../server/services/annotation";
import { findLiveReservation, getItemByTrajectory } from "../../db/repositories/annotation/campaigns";
import { createTestContext, type TestContext } from "../helpers/context";
import { makeActor, seedTrajectories } from "../helpers/annotation-fixture";
import { wilson95 } from "../helpers/intervals";

let ctx: TestContext;
let researcher: Actor;
let ann: Actor[];
beforeEach(async () => {
  ctx = createTestContext("verdict-gold-");
  researcher = await makeActor(ctx, "Rita Researcher", "researcher");
  ann = [
    await makeActor(ctx, "Ann One", "annotator"),
    await makeActor(ctx, "Ben Two", "annotator"),
    await makeActor(ctx, "Cat Three", "annotator"),
    await makeActor(ctx, "Dan Four", "annotator"),
  ];
});
afterEach(async () => {
  await ctx.cleanup();
});

let keyNo = 0;
async function submit(
  actor: Actor,
  campaignId: number,
  trajectoryId: number,
  verdict: string,
  category: string | null = verdict === "failure" ? "other" : null,
) {
  return await submitLabel(ctx.db, actor, { campaignId, trajectoryId, verdict, category, idempotencyKey: `gold-test-${++keyNo}` });
}

async function code(fn: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof AppError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error("expected the call to throw");
}

/** The annotator's shuffled position of an item, as the queue computes it. */
function orderOf(userId: string, itemId: number): number {
  const salt = BigInt(queueOrderSalt(userId));
  const id = BigInt(itemId);
  return Number((((id | salt) - (id & salt)) * 2654435761n) % 4294967296n);
}

async function campaign(n: number, o: { k?: number; annotators?: Actor[]; blind?: boolean } = {}) {
  const ids = await seedTrajectories(ctx.db, n);
  const c = await createCampaign(ctx.db, researcher, {
    name: `Campaign ${++keyNo}`,
    trajectoryIds: ids,
    annotatorIds: (o.annotators ?? ann.slice(0, 2)).map((a) => a.userId),
    annotatorsPerItem: o.k ?? 2,
    blind: o.blind ?? true,
  });
  return { c, ids };
}

describe("gold items", () => {
  it("are handed out on gold turns, judged against the known answer with a Wilson interval, and block below the threshold", async () => {
    const { c, ids } = await campaign(8);
    await markGold(ctx.db, researcher, { campaignId: c.id, trajectoryId: ids[0]!, verdict: "success" });
    await markGold(ctx.db, researcher, { campaignId: c.id, trajectoryId: ids[1]!, verdict: "failure", category: "hallucination" });
    await updateQualitySettings(ctx.db, researcher, c.id, { goldRate: 1 });
    const [a, b] = ann as [Actor, Actor];
    // Rate 1: both gold items first (in a's own order), then regular items.
    const first = (await nextAssignment(ctx.db, a, c.id))!;
    expect([ids[0], ids[1]]).toContain(first.trajectoryId);
    await submit(a, c.id, first.trajectoryId, first.trajectoryId === ids[0] ? "success" : "failure", "other"); // right on gold 0, wrong category on gold 1
    const second = (await nextAssignment(ctx.db, a, c.id))!;
    expect([ids[0], ids[1]]).toContain(second.trajectoryId);
    expect(second.trajectoryId).not.toBe(first.trajectoryId);
    await submit(a, c.id, second.trajectoryId, second.trajectoryId === ids[0] ? "success" : "failure", "other");
    const third = (await nextAssignment(ctx.db, a, c.id))!;
    expect(ids.slice(2)).toContain(third.trajectoryId);

    // a: 1 right of 2 (the failure named "other", the answer says "hallucination").
    let gold = await campaignGold(ctx.db, researcher, c.id);
    expect(gold.items.map((g) => [g.trajectoryId, g.verdict, g.category, g.source])).toEqual(
      expect.arrayContaining([
        [ids[0], "success", null, "marked"],
        [ids[1], "failure", "hallucination", "marked"],
      ]),
    );
    expect(gold.annotators).toHaveLength(1);
    expect(gold.annotators[0]).toMatchObject({ name: "Ann One", answered: 2, correct: 1, status: "too_few" });
    expect(gold.annotators[0]!.accuracy).toMatchObject(wilson95(1, 2));

    // Thresholds: warn below 0.8, block below 0.6 after 2 answers → a (50 %) is blocked, with a message, and loses
    // the reservation they held; b (no answers yet) is not.
    await updateQualitySettings(ctx.db, researcher, c.id, { goldWarnBelow: 0.8, goldBlockBelow: 0.6, goldMinAnswered: 2 });
    gold = await campaignGold(ctx.db, researcher, c.id);
    expect(gold.annotators[0]!.status).toBe("blocked");
    expect(await findLiveReservation(ctx.db, c.id, a.userId, Date.now())).toMatchObject({ trajectoryId: third.trajectoryId });
    expect(await code(async () => await nextAssignment(ctx.db, a, c.id))).toEqual({ code: "FORBIDDEN", message: BLOCKED_MESSAGE });
    expect(await findLiveReservation(ctx.db, c.id, a.userId, Date.now())).toBeUndefined();
    expect(await nextAssignment(ctx.db, b, c.id)).not.toBeNull();
    // Block lowered to 0.4: a is only warned and gets items again.
    await updateQualitySettings(ctx.db, researcher, c.id, { goldBlockBelow: 0.4 });
    expect((await campaignGold(ctx.db, researcher, c.id)).annotators[0]!.status).toBe("warn");
    expect(await nextAssignment(ctx.db, a, c.id)).not.toBeNull();
  });

  it("refuses bad settings and bad answers with the field named", async () => {
    const { c, ids } = await campaign(3);
    expect((await code(async () => await updateQualitySettings(ctx.db, researcher, c.id, { goldRate: 1.5 }))).message).toMatch(
      /^goldRate: a share from 0 to 1/,
    );
    expect((await code(async () => await updateQualitySettings(ctx.db, researcher, c.id, { goldWarnBelow: 0.5, goldBlockBelow: 0.7 }))).message).toMatch(
      /goldBlockBelow \(0.7\) is above goldWarnBelow \(0.5\)/,
    );
    expect((await code(async () => await updateQualitySettings(ctx.db, researcher, c.id, { assignmentStrategy: "alphabetical" as never }))).message).toMatch(
      /^assignmentStrategy: one of least_covered/,
    );
    expect((await code(async () => await markGold(ctx.db, researcher, { campaignId: c.id, trajectoryId: ids[0]!, verdict: "maybe" }))).message).toMatch(
      /^verdict: must be one of/,
    );
    expect(
      (await code(async () => await markGold(ctx.db, researcher, { campaignId: c.id, trajectoryId: ids[0]!, verdict: "failure", category: "nope" }))).message,
    ).toMatch(/^category: "nope" is not one of/);
    expect((await code(async () => await markGold(ctx.db, ann[0]!, { campaignId: c.id, trajectoryId: ids[0]!, verdict: "success" }))).code).toBe("FORBIDDEN");
  });

  it("promotes unanimous and adjudicated items with their consolidated label as the answer; open items cannot be", async () => {
    const { c, ids } = await campaign(3);
    const [a, b] = ann as [Actor, Actor];
    await submit(a, c.id, ids[0]!, "failure", "other");
    await submit(b, c.id, ids[0]!, "failure", "other");
    await submit(a, c.id, ids[1]!, "success");
    expect(await promoteGold(ctx.db, researcher, { campaignId: c.id, trajectoryIds: [ids[0]!] })).toEqual({ promoted: 1 });
    expect((await code(async () => await promoteGold(ctx.db, researcher, { campaignId: c.id, trajectoryIds: [ids[1]!] }))).message).toMatch(
      /is open: only unanimous or adjudicated/,
    );
    const g = (await campaignGold(ctx.db, researcher, c.id)).items;
    expect(g.map((x) => [x.trajectoryId, x.verdict, x.category, x.source])).toEqual([[ids[0], "failure", "other", "unanimous"]]);
    // A gold item cannot be reopened as an ordinary one.
    expect((await code(async () => await reopenItem(ctx.db, researcher, { campaignId: c.id, trajectoryId: ids[0]!, reason: "again" }))).message).toMatch(
      /is a gold item; take it out of gold first/,
    );
    // Promoting again changes nothing.
    expect(await promoteGold(ctx.db, researcher, { campaignId: c.id, trajectoryIds: [ids[0]!] })).toEqual({ promoted: 0 });
  });

  it("mixes gold at the turns isGoldTurn draws, the same for the service as for the pure rule", async () => {
    const { c, ids } = await campaign(24, { k: 1, annotators: [ann[0]!] });
    const goldIds = ids.slice(0, 4);
    for (const t of goldIds) await markGold(ctx.db, researcher, { campaignId: c.id, trajectoryId: t, verdict: "success" });
    await updateQualitySettings(ctx.db, researcher, c.id, { goldRate: 0.3 });
    const a = ann[0]!;
    let goldLeft = goldIds.length;
    let regularLeft = ids.length - goldIds.length;
    for (let turn = 0; turn < ids.length; turn++) {
      const got = (await nextAssignment(ctx.db, a, c.id))!;
      const isGold = goldIds.includes(got.trajectoryId);
      const expected = goldLeft > 0 && (isGoldTurn(a.userId, c.id, turn, 0.3) || regularLeft === 0);
      expect(isGold, `turn ${turn}`).toBe(expected);
      if (isGold) goldLeft--;
      else regularLeft--;
      await submit(a, c.id, got.trajectoryId, "success");
    }
    expect(await nextAssignment(ctx.db, a, c.id)).toBeNull();
  });

  it("is left out of agreement statistics: item counts, labels and κ see only the other items", async () => {
    const { c, ids } = await campaign(4);
    const [a, b] = ann as [Actor, Actor];
    // Gold item: both right. Items 1–3: a and b agree on 1 and 2, disagree on 3.
    await markGold(ctx.db, researcher, { campaignId: c.id, trajectoryId: ids[0]!, verdict: "success" });
    for (const x of [a, b]) await submit(x, c.id, ids[0]!, "success");
    await submit(a, c.id, ids[1]!, "success");
    await submit(b, c.id, ids[1]!, "success");
    await submit(a, c.id, ids[2]!, "failure");
    await submit(b, c.id, ids[2]!, "failure");
    await submit(a, c.id, ids[3]!, "success");
    await submit(b, c.id, ids[3]!, "failure");
    const h = await humanAgreement(ctx.db, c.id);
    expect(h.campaign.items).toBe(3);
    expect(h.labelledItems).toBe(3);
    expect(h.labels).toBe(6);
    // 2 of 3 items agree on the verdict.
    expect(h.pairwise.verdict[0]!.agreement).toBeCloseTo(2 / 3, 10);
    expect(h.pairwise.verdict[0]!.shared).toBe(3);
  });
});

describe("an annotator never learns an item is gold", () => {
  it("the item's state, their done list, next and their campaign list look like any other item's", async () => {
    const { c, ids } = await campaign(4, { blind: true });
    await markGold(ctx.db, researcher, { campaignId: c.id, trajectoryId: ids[0]!, verdict: "success" });
    await updateQualitySettings(ctx.db, researcher, c.id, { goldRate: 1 });
    const a = ann[0]!;
    const before = (await myCampaigns(ctx.db, a)).find((x) => x.id === c.id)!;
    expect(before.remaining).toBe(4);
    const n = (await nextItem(ctx.db, a, c.id))!;
    expect(Object.keys(n).sort()).toEqual(["campaignId", "expiresAt", "itemNo", "reservedAt", "resumed"]);
    const goldNo = (await getItemByTrajectory(ctx.db, c.id, ids[0]!))!.itemNo!;
    expect(n.itemNo).toBe(goldNo);
    // Before and after labelling: "open", as any item still waiting for its other annotator.
    expect((await myItemLabel(ctx.db, a, c.id, goldNo)).itemState).toBe("open");
    await submit(a, c.id, ids[0]!, "success");
    expect((await myItemLabel(ctx.db, a, c.id, goldNo)).itemState).toBe("open");
    expect((await myRecentLabels(ctx.db, a, c.id)).map((r) => r.itemState)).toEqual(["open"]);
    // "remaining" went down by one, as for any label.
    expect((await myCampaigns(ctx.db, a)).find((x) => x.id === c.id)!.remaining).toBe(3);
    // The JSON an annotator gets never says gold, known answer or the researcher's name.
    const seen = JSON.stringify([
      await myItemLabel(ctx.db, a, c.id, goldNo),
      await myRecentLabels(ctx.db, a, c.id),
      await myCampaigns(ctx.db, a),
      await nextItem(ctx.db, a, c.id),
    ]);
    expect(seen).not.toMatch(/gold|known answer|Rita/i);
  });
});

describe("assignment strategies", () => {
  it("random: the annotator's own shuffled order, regardless of how covered items are", async () => {
    const { c, ids } = await campaign(6, { k: 2, annotators: ann.slice(0, 2) });
    await updateQualitySettings(ctx.db, researcher, c.id, { assignmentStrategy: "random" });
    const [a, b] = ann as [Actor, Actor];
    const items = await Promise.all(ids.map(async (t) => (await getItemByTrajectory(ctx.db, c.id, t))!));
    const byOrder = [...items].sort((x, y) => orderOf(a.userId, x.id) - orderOf(a.userId, y.id));
    // b labels a's first item: under least covered a would move on, under random a still gets it.
    await submit(b, c.id, byOrder[0]!.trajectoryId, "success");
    const picked: number[] = [];
    for (let i = 0; i < 3; i++) {
      const got = (await nextAssignment(ctx.db, a, c.id))!;
      picked.push(got.trajectoryId);
      await submit(a, c.id, got.trajectoryId, "success");
    }
    expect(picked).toEqual(byOrder.slice(0, 3).map((x) => x.trajectoryId));
  });

  it("by_run: the run furthest behind first, so runs advance together", async () => {
    const runA = await seedTrajectories(ctx.db, 3, { agentName: "alpha", taskSet: "Runs" });
    const runB = await seedTrajectories(ctx.db, 3, { agentName: "beta", taskSet: "Runs" });
    const c = await createCampaign(ctx.db, researcher, {
      name: "By run",
      trajectoryIds: [...runA, ...runB],
      annotatorIds: ann.slice(0, 3).map((a) => a.userId),
      annotatorsPerItem: 3,
    });
    await updateQualitySettings(ctx.db, researcher, c.id, { assignmentStrategy: "by_run" });
    const [a, b, d] = ann as [Actor, Actor, Actor];
    // Run beta: 2 labels on 3 items × 3 = 22 %; run alpha: 1 label = 11 %. a gets alpha first even though the
    // least covered items (0 labels) exist in both runs.
    await submit(b, c.id, runB[0]!, "success");
    await submit(d, c.id, runB[1]!, "success");
    await submit(b, c.id, runA[0]!, "success");
    const got = (await nextAssignment(ctx.db, a, c.id))!;
    expect(runA.slice(1)).toContain(got.trajectoryId);
    // Inside the run, least covered: runA[1] and runA[2] have 0 labels, runA[0] has 1.
    expect(got.trajectoryId).not.toBe(runA[0]);
  });

  it("disputed_first: items whose labels disagree first, then the least covered; gold mixing still applies", async () => {
    const { c, ids } = await campaign(5, { k: 2, annotators: ann });
    const [a, b, d, qa] = ann as [Actor, Actor, Actor, Actor];
    await submit(a, c.id, ids[1]!, "success");
    await submit(b, c.id, ids[1]!, "failure"); // disputed
    await submit(a, c.id, ids[2]!, "success"); // one label, not disputed
    await submit(d, c.id, ids[3]!, "success");
    await updateQualitySettings(ctx.db, researcher, c.id, { assignmentStrategy: "disputed_first" });
    const got = (await nextAssignment(ctx.db, qa, c.id))!;
    expect(got.trajectoryId).toBe(ids[1]);
    await submit(qa, c.id, ids[1]!, "failure");
    // Nothing else disagrees: the least covered (ids[0] or ids[4], 0 labels) next.
    expect([ids[0], ids[4]]).toContain((await nextAssignment(ctx.db, qa, c.id))!.trajectoryId);

    // With gold at rate 1, the gold item comes before the disputed one.
    const second = await campaign(3, { k: 2, annotators: ann });
    await markGold(ctx.db, researcher, { campaignId: second.c.id, trajectoryId: second.ids[2]!, verdict: "success" });
    await updateQualitySettings(ctx.db, researcher, second.c.id, { assignmentStrategy: "disputed_first", goldRate: 1 });
    await submit(a, second.c.id, second.ids[0]!, "success");
    await submit(b, second.c.id, second.ids[0]!, "failure");
    expect((await nextAssignment(ctx.db, qa, second.c.id))!.trajectoryId).toBe(second.ids[2]);
  });

  it.each(["least_covered", "random", "by_site", "by_run", "disputed_first"] as const)("%s hands out a gold item on a gold turn", async (strategy) => {
    const { c, ids } = await campaign(4);
    await markGold(ctx.db, researcher, { campaignId: c.id, trajectoryId: ids[3]!, verdict: "success" });
    await updateQualitySettings(ctx.db, researcher, c.id, { assignmentStrategy: strategy, goldRate: 1 });
    expect((await nextAssignment(ctx.db, ann[0]!, c.id))!.trajectoryId).toBe(ids[3]);
    await submit(ann[0]!, c.id, ids[3]!, "success");
    expect(ids.slice(0, 3)).toContain((await nextAssignment(ctx.db, ann[0]!, c.id))!.trajectoryId);
  });
});

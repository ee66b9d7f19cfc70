/**
 * A campaign's qualification phase (issue 30, item 6) on both engines, as an annotator would try to get around it:
 * qualification items come first and in order, nothing else can be labelled before passing, the known answer comes
 * only with the feedback after one's own answer is stored and that answer cannot then be changed or undone, a failed
 * annotator gets nothing more, and labels of annotators who have not passed stay out of the agreement statistics.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import type { Actor } from "../../server/domain/access/actor";
import { AppError } from "../../server/errors";
import { humanAgreement } from "../../server/services/analytics";
import {
  campaignForAnnotator,
  campaignQualification,
  createCampaign,
  markGold,
  myItemLabel,
  nextItem,
  setQualification,
  submitItemLabel,
  submitLabel,
  undoItemSubmit,
} from "../../server/services/annotation";
import { itemTrajectory } from "../../server/services/annotation/labelling";
import { getItemByTrajectory } from "../../db/repositories/annotation/campaigns";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { makeActor, seedTrajectories } from "../helpers/annotation-fixture";

const SECRET_NOTE = "known-answer-note-7f3a";

describeEachBackend("qualification phase", (backend) => {
  let ctx: TestContext;
  let researcher: Actor;
  let ann: Actor[];
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-qualification-");
    researcher = await makeActor(ctx, "Rita Researcher", "researcher");
    ann = [await makeActor(ctx, "Ann One", "annotator"), await makeActor(ctx, "Ben Two", "annotator"), await makeActor(ctx, "Cat Three", "annotator")];
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  let keyNo = 0;
  const key = () => `qualification-key-${++keyNo}`;

  async function refusal(fn: () => Promise<unknown>): Promise<string> {
    try {
      await fn();
    } catch (e) {
      if (e instanceof AppError) return `${e.code}: ${e.message}`;
      throw e;
    }
    throw new Error("expected the call to be refused");
  }

  /** A campaign of 6 trajectories whose first 3 are qualification items (success, failure, success), passing at 2 of 3. */
  async function qualifiedCampaign() {
    const ids = await seedTrajectories(ctx.db, 6);
    const c = await createCampaign(ctx.db, researcher, {
      name: `Qualified ${++keyNo}`,
      trajectoryIds: ids,
      annotatorIds: ann.map((a) => a.userId),
      annotatorsPerItem: 3,
      blind: true,
    });
    const answers = ["success", "failure", "success"] as const;
    for (const [i, verdict] of answers.entries()) {
      await markGold(ctx.db, researcher, { campaignId: c.id, trajectoryId: ids[i]!, verdict, category: null, note: `${SECRET_NOTE} ${i}` });
    }
    await setQualification(ctx.db, researcher, { campaignId: c.id, passAt: 0.6, trajectoryIds: ids.slice(0, 3) });
    const itemNoOf = async (t: number) => (await getItemByTrajectory(ctx.db, c.id, t))!.itemNo!;
    const itemNos = await Promise.all(ids.map(itemNoOf));
    // Qualification items are handed out in item order; the known answer of each, by item number.
    const known = new Map(answers.map((v, i) => [itemNos[i]!, v]));
    const order = itemNos.slice(0, 3).sort((x, y) => x - y);
    return { c, ids, itemNos, known, order };
  }

  /** Answers the annotator's next item with `verdict` through the annotator's own API. */
  async function answerNext(a: Actor, campaignId: number, verdict: string | ((itemNo: number) => string)) {
    const next = await nextItem(ctx.db, a, campaignId);
    if (!next) throw new Error("nothing handed out");
    const v = typeof verdict === "string" ? verdict : verdict(next.itemNo);
    const r = await submitItemLabel(ctx.db, a, {
      campaignId,
      itemNo: next.itemNo,
      verdict: v,
      category: v === "failure" ? "other" : null,
      idempotencyKey: key(),
    });
    return r;
  }

  it("hands out the qualification first, refuses anything else and any second answer, and shows the answer only after the submit", async () => {
    const { c, ids, itemNos, known, order } = await qualifiedCampaign();
    const [a] = ann;
    const wrong = (itemNo: number) => (known.get(itemNo) === "success" ? "failure" : "success");

    // Before answering: the first qualification item is handed out, and nothing the annotator can read of it names the answer.
    const first = await nextItem(ctx.db, a!, c.id);
    expect(first!.itemNo).toBe(order[0]);
    const readable = JSON.stringify([
      await itemTrajectory(ctx.db, a!, c.id, first!.itemNo),
      await myItemLabel(ctx.db, a!, c.id, first!.itemNo),
      await campaignForAnnotator(ctx.db, a!, c.id),
    ]);
    expect(readable).not.toContain(SECRET_NOTE);

    // Skipping ahead to a regular item, by item number or by trajectory, is refused.
    const early = `FORBIDDEN: Answer this campaign's qualification items first (0 of 3 answered)`;
    expect(await refusal(() => submitItemLabel(ctx.db, a!, { campaignId: c.id, itemNo: itemNos[4]!, verdict: "success", idempotencyKey: key() }))).toBe(early);
    expect(await refusal(() => submitLabel(ctx.db, a!, { campaignId: c.id, trajectoryId: ids[4]!, verdict: "success", idempotencyKey: key() }))).toBe(early);
    // The feedback comes with the stored answer: wrong here, with the known answer and its note.
    const r1 = await answerNext(a!, c.id, wrong);
    expect(r1.itemNo).toBe(order[0]);
    expect(r1.qualification).toEqual({
      correct: false,
      expected: { verdict: known.get(order[0]!), category: null, note: `${SECRET_NOTE} ${itemNos.indexOf(order[0]!)}` },
      standing: { status: "in_progress", items: 3, answered: 1, correct: 0, passAt: 0.6 },
    });
    // Having seen the answer, changing or undoing one's own is refused.
    expect(
      await refusal(() => submitItemLabel(ctx.db, a!, { campaignId: c.id, itemNo: order[0]!, verdict: known.get(order[0]!)!, idempotencyKey: key() })),
    ).toBe("CONFLICT: A qualification answer cannot be changed once it is submitted");
    expect(await refusal(() => undoItemSubmit(ctx.db, a!, { campaignId: c.id, idempotencyKey: key() }))).toBe(
      "CONFLICT: A qualification answer cannot be undone",
    );

    // The rest in order; 2 of 3 right passes at 0.6, and regular items follow.
    const right = (itemNo: number) => known.get(itemNo)!;
    const r2 = await answerNext(a!, c.id, right);
    expect(r2.itemNo).toBe(order[1]);
    expect(r2.qualification!.correct).toBe(true);
    const r3 = await answerNext(a!, c.id, right);
    expect(r3.itemNo).toBe(order[2]);
    expect(r3.qualification!.standing).toEqual({ status: "passed", items: 3, answered: 3, correct: 2, passAt: 0.6 });
    const regular = await answerNext(a!, c.id, "success");
    expect(itemNos.slice(3)).toContain(regular.itemNo);
    expect(regular.qualification).toBeNull();
  });

  it("stops an annotator who fails, shows each result to the researcher, and leaves unqualified labels out of agreement", async () => {
    const { c, ids, known, order } = await qualifiedCampaign();
    const [a, b, d] = ann;
    const right = (itemNo: number) => known.get(itemNo)!;
    const wrong = (itemNo: number) => (known.get(itemNo) === "success" ? "failure" : "success");
    for (let i = 0; i < 3; i++) await answerNext(a!, c.id, right);
    // b: right on the first only.
    await answerNext(b!, c.id, right);
    for (let i = 0; i < 2; i++) await answerNext(b!, c.id, wrong);
    expect(await refusal(() => nextItem(ctx.db, b!, c.id))).toMatch(/^FORBIDDEN: You did not reach the share of right answers/);
    expect(await refusal(() => submitLabel(ctx.db, b!, { campaignId: c.id, trajectoryId: ids[3]!, verdict: "success", idempotencyKey: key() }))).toMatch(
      /^FORBIDDEN: You did not reach/,
    );
    // d answers one qualification item only: still in progress.
    await answerNext(d!, c.id, right);

    const q = await campaignQualification(ctx.db, researcher, c.id);
    expect(q.passAt).toBe(0.6);
    expect(q.items.map((i) => i.itemNo)).toEqual(order);
    expect(q.annotators.map((x) => [x.name, x.status, x.correct, x.answered])).toEqual([
      ["Ann One", "passed", 3, 3],
      ["Ben Two", "failed", 1, 3],
      ["Cat Three", "in_progress", 1, 1],
    ]);
    expect(await refusal(() => campaignQualification(ctx.db, a!, c.id))).toMatch(/^FORBIDDEN/);

    // Agreement counts a's labels only: b's and d's labels (here on gold items, which agreement leaves out anyway) are
    // named as left out, and a regular item labelled by a alone is the only labelled item.
    await answerNext(a!, c.id, "success");
    const agreement = await humanAgreement(ctx.db, c.id);
    expect(agreement.unqualified).toEqual({ annotators: 2, labels: 4 });
    expect(agreement.labels).toBe(1);
    expect(agreement.annotators.find((x) => x.name === "Ben Two")?.labels ?? 0).toBe(0);

    // Turning the phase off lets everyone's labels count again.
    await setQualification(ctx.db, researcher, { campaignId: c.id, passAt: null, trajectoryIds: [] });
    expect((await humanAgreement(ctx.db, c.id)).unqualified).toEqual({ annotators: 0, labels: 0 });
    expect((await nextItem(ctx.db, b!, c.id))!.itemNo).not.toBe(undefined);
  });

  it("takes only the campaign's gold items and a share above 0, from researchers", async () => {
    const { c, ids } = await qualifiedCampaign();
    expect(await refusal(() => setQualification(ctx.db, researcher, { campaignId: c.id, passAt: 0.5, trajectoryIds: [ids[4]!] }))).toBe(
      `BAD_REQUEST: trajectoryIds: ${ids[4]} is not a gold item of this campaign`,
    );
    expect(await refusal(() => setQualification(ctx.db, researcher, { campaignId: c.id, passAt: 0, trajectoryIds: [ids[0]!] }))).toMatch(
      /passAt: a share above 0/,
    );
    expect(await refusal(() => setQualification(ctx.db, ann[0]!, { campaignId: c.id, passAt: 0.5, trajectoryIds: [ids[0]!] }))).toMatch(/^FORBIDDEN/);
  });
});

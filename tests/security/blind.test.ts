/**
 * The blind cannot be broken by reading neighbours. A blind annotator, signed in through the real tRPC caller,
 * walks every procedure an annotator may call (listed from the router itself, so a new procedure fails here until
 * it is given inputs below) and nothing they get back names a run, agent, model or source system, gives evaluator
 * information or says what other annotators decided, before their own label. Then each rule on its own: closing
 * a campaign, item numbers, campaign summaries, tasks, runs and task sets, screenshots, labels after a reveal.
 */
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getItemByTrajectory } from "../../db/repositories/annotation/campaigns";
import { agentRuns, evaluatorVerdicts, reservations, scannerMatches, screenshots, steps, tasks, trajectories } from "../../db/schema/index";
import { appRouter } from "../../server/api/root";
import type { ProcedureMeta, RequestSession } from "../../server/api/trpc";
import { createCampaign, createPairwiseCampaign, markGold, setQualification, updateCampaignSettings } from "../../server/services/annotation";
import { mayFetchScreenshot, mayViewEvaluations } from "../../server/services/access";
import { NOT_BROWSABLE_MESSAGE } from "../../server/services/access/scope";
import { seedTrajectories } from "../helpers/annotation-fixture";
import { createTestContext, type TestContext } from "../helpers/context";
import { callerAs, testUser } from "../helpers/trpc";
import { eq, inArray } from "drizzle-orm";

/** Strings that identify an agent or give evaluations away; none may reach a blind annotator. */
const SECRETS = {
  runA: "agent-orion run",
  runB: "agent-zephyr run",
  agentA: "agent-orion",
  agentB: "agent-zephyr",
  modelA: "model-orion-7x",
  modelB: "model-zephyr-9y",
  systemA: "system-orion",
  systemB: "system-zephyr",
  format: "format-secret",
  sourcePath: "/runs/orion/secret-path",
  rule: "RULE-CONFIG-SECRET",
  reference: "REFERENCE-ANSWER-SECRET",
  judge: "JUDGE-RATIONALE-SECRET",
  otherNote: "OTHER-ANNOTATOR-NOTE",
  otherName: "Other Person",
  /** The researcher's explanation of a qualification item's known answer: shown only after the annotator's answer. */
  goldNote: "GOLD-EXPLANATION-SECRET",
};

/** The others' region marks on the disputed item: a blind annotator sees no marks but their own (they draw none here). */
const OTHERS_MARKS = [
  { kind: "box", step: 0, label: "should have clicked", x: 1, y: 2, width: 6, height: 5 },
  { kind: "point", step: 0, label: "the answer was here", x: 3, y: 4 },
];

let ctx: TestContext;
let researcher: RequestSession;
let blindAnn: RequestSession;
let others: RequestSession[];
let runA: number;
let runB: number;
let ids: number[];
let outsider: number;
let taskIds: number[];
let outsideTask: number;
let campaignId: number;
let filterCampaignId: number;
let pairwiseId: number;
let qualifiedCampaignId: number;
const hash = (n: number) => n.toString(16).padStart(64, "0");

beforeAll(async () => {
  ctx = createTestContext("verdict-security-blind-");
  researcher = await testUser(ctx, "researcher", "Rita Researcher");
  blindAnn = await testUser(ctx, "annotator", "Blind Annotator");
  others = [await testUser(ctx, "annotator", `${SECRETS.otherName} One`), await testUser(ctx, "annotator", `${SECRETS.otherName} Two`)];
  // Two agents on the same two tasks, plus a trajectory (and task) in no campaign of the annotator.
  const a = await seedTrajectories(ctx.db, 2, { taskSet: "Shared set", agentName: SECRETS.agentA, model: SECRETS.modelA });
  const b = await seedTrajectories(ctx.db, 2, { taskSet: "Shared set", agentName: SECRETS.agentB, model: SECRETS.modelB });
  [outsider] = (await seedTrajectories(ctx.db, 1, {
    taskSet: "Shared set",
    agentName: "outside-agent",
    model: "outside-model",
    taskIds: ["outside-task"],
  })) as [number];
  ids = [...a, ...b];
  const run = async (t: number) =>
    (await ctx.db.select({ r: trajectories.runId, task: trajectories.taskId }).from(trajectories).where(eq(trajectories.id, t)))[0]!;
  runA = (await run(a[0]!)).r;
  runB = (await run(b[0]!)).r;
  const taskOf: number[] = [];
  for (const t of ids) taskOf.push((await run(t)).task);
  taskIds = [...new Set(taskOf)];
  outsideTask = (await run(outsider)).task;
  await ctx.db.update(agentRuns).set({ sourceSystem: SECRETS.systemA }).where(eq(agentRuns.id, runA));
  await ctx.db.update(agentRuns).set({ sourceSystem: SECRETS.systemB }).where(eq(agentRuns.id, runB));
  await ctx.db.update(trajectories).set({ sourceFormat: SECRETS.format, sourcePath: SECRETS.sourcePath });
  await ctx.db.update(tasks).set({
    evaluatorConfig: { eval_types: ["string_match"], must_include: [SECRETS.rule] },
    referenceAnswers: [{ kind: "exact_match", text: SECRETS.reference }],
  });
  for (const t of [...ids, outsider]) {
    await ctx.db.insert(evaluatorVerdicts).values({
      trajectoryId: t,
      kind: "judge",
      origin: "verdict",
      evaluatorKey: "judge:1",
      evaluatorName: "Judge",
      verdict: "failure",
      rationale: SECRETS.judge,
    });
    // A scanner's finding is an evaluation too: its matched text must not reach a blind annotator either.
    await ctx.db
      .insert(scannerMatches)
      .values({ scannerKey: "captcha", trajectoryId: t, stepIndex: 0, ruleIndex: 0, field: "element", matchedText: SECRETS.judge });
  }
  // Screenshots on every step, so the screenshot rule has something to refuse.
  const allSteps = await ctx.db
    .select({ id: steps.id })
    .from(steps)
    .where(inArray(steps.trajectoryId, [...ids, outsider]));
  for (const [i, s] of allSteps.entries()) {
    await ctx.db.insert(screenshots).values({ hash: hash(i + 1), mime: "image/png", width: 10, height: 10, bytes: 1 });
    await ctx.db
      .update(steps)
      .set({ screenshotHash: hash(i + 1) })
      .where(eq(steps.id, s.id));
  }

  const actor = { userId: researcher.userId, name: researcher.name, role: researcher.role };
  campaignId = (
    await createCampaign(ctx.db, actor, {
      name: "Blind campaign",
      trajectoryIds: ids,
      annotatorsPerItem: 2,
      labelSchema: { requireCategory: false },
      annotatorIds: [blindAnn.userId, ...others.map((o) => o.userId)],
    })
  ).id;
  // A campaign made from the list's filter: its description names the model.
  filterCampaignId = (
    await createCampaign(ctx.db, actor, { name: "From filter", filter: { model: SECRETS.modelB }, annotatorsPerItem: 1, annotatorIds: [blindAnn.userId] })
  ).id;
  // A pairwise campaign over the two agents' attempts: two pairs, the blind annotator answers them.
  pairwiseId = (await createPairwiseCampaign(ctx.db, actor, { name: "Pairwise blind", trajectoryIds: ids, annotatorIds: [blindAnn.userId] })).campaign.id;
  // A campaign that starts with a qualification: its known answer (and the explanation) waits for the annotator's own.
  const qualificationItems = await seedTrajectories(ctx.db, 2, { taskSet: "Qualification set", agentName: "qualification-agent" });
  qualifiedCampaignId = (
    await createCampaign(ctx.db, actor, { name: "Qualified", trajectoryIds: qualificationItems, annotatorsPerItem: 1, annotatorIds: [blindAnn.userId] })
  ).id;
  await markGold(ctx.db, actor, { campaignId: qualifiedCampaignId, trajectoryId: qualificationItems[0]!, verdict: "failure", note: SECRETS.goldNote });
  await setQualification(ctx.db, actor, { campaignId: qualifiedCampaignId, passAt: 1, trajectoryIds: [qualificationItems[0]!] });
  // The two others disagree on the first trajectory: the item is disputed.
  const first = await itemNo(ids[0]!);
  await (
    await callerAs(ctx, others[0]!)
  ).labelling.submit({ campaignId, itemNo: first, verdict: "success", note: SECRETS.otherNote, marks: OTHERS_MARKS, idempotencyKey: "other-1-first" });
  await (
    await callerAs(ctx, others[1]!)
  ).labelling.submit({ campaignId, itemNo: first, verdict: "failure", note: SECRETS.otherNote, idempotencyKey: "other-2-first" });
  expect((await getItemByTrajectory(ctx.db, campaignId, ids[0]!))!.state).toBe("disputed");
});
afterAll(async () => ctx.cleanup());

async function itemNo(trajectoryId: number, campaign = campaignId): Promise<number> {
  return (await getItemByTrajectory(ctx.db, campaign, trajectoryId))!.itemNo!;
}

type Procedure = { _def: { type: string; meta?: ProcedureMeta } };
const procedures = Object.entries((appRouter._def as unknown as { procedures: Record<string, Procedure> }).procedures);
/** What an annotator may call: every procedure that does not require researcher or admin. */
const annotatorProcedures = procedures.filter(([, p]) => p._def.meta?.access === "signedIn" || p._def.meta?.access === "public").map(([path]) => path);

/** Inputs to try for each procedure an annotator may call: every id of interest, real and made up. */
function inputsFor(path: string): unknown[] | undefined {
  const trajectoryInputs = [...ids, outsider, 999];
  const items = [1, 2, 3, 4, 5, 99];
  const campaigns = [campaignId, filterCampaignId, qualifiedCampaignId];
  const table: Record<string, unknown[]> = {
    "trajectories.list": [{}, { runId: runA }, { model: SECRETS.modelA }, { sort: "updated", dir: "desc" }, { ids: trajectoryInputs }],
    "trajectories.filterOptions": [undefined],
    "trajectories.browsingScope": [undefined],
    "trajectories.byId": trajectoryInputs.map((id) => ({ id })),
    "trajectories.resolveLink": [{ key: "ab".repeat(32) }, ...trajectoryInputs.map((id) => ({ key: "ab".repeat(32), id }))],
    "trajectories.warmImages": trajectoryInputs.map((id) => ({ id, width: 640 })),
    "trajectories.steps": trajectoryInputs.flatMap((id) => [
      { id, from: 0 },
      { id, from: 1, count: 2 },
    ]),
    "tasks.byId": [...taskIds, outsideTask].map((id) => ({ id })),
    "judge.verdicts.forTrajectory": trajectoryInputs.map((trajectoryId) => ({ trajectoryId })),
    "judge.verdicts.panel": trajectoryInputs.map((trajectoryId) => ({ trajectoryId })),
    "scanners.trajectory": trajectoryInputs.map((trajectoryId) => ({ trajectoryId })),
    "accounts.session": [undefined],
    "accounts.me": [undefined],
    "accounts.apiTokens.list": [undefined],
    "accounts.apiTokens.create": [{ name: "walk", scope: "read", days: 1 }],
    "accounts.apiTokens.revoke": [{ id: 1 }, { id: 999 }],
    "accounts.setup": [{ email: "late@example.org", name: "Late", password: "late-password-1" }],
    "accounts.invitation": [{ token: "not-a-real-invitation-token" }],
    "accounts.acceptInvitation": [{ token: "not-a-real-invitation-token", name: "X", password: "x-password-123" }],
    "campaigns.list": [undefined],
    "labelling.myCampaigns": [undefined],
    "labelling.campaign": campaigns.map((id) => ({ id })),
    "labelling.next": campaigns.map((c) => ({ campaignId: c })),
    "labelling.qualification": campaigns.map((c) => ({ campaignId: c })),
    "labelling.skip": [{ campaignId, itemNo: 99 }],
    "labelling.release": campaigns.map((c) => ({ campaignId: c })),
    "labelling.submit": [{ campaignId, itemNo: 99, verdict: "success", idempotencyKey: "walk-submit-nowhere" }],
    "labelling.undo": [{ campaignId, idempotencyKey: "walk-undo-nothing" }],
    "labelling.mine": campaigns.flatMap((c) => items.map((n) => ({ campaignId: c, itemNo: n }))),
    "labelling.item": campaigns.flatMap((c) => items.map((n) => ({ campaignId: c, itemNo: n }))),
    // Submit & next's look-ahead: the next item's player data and own label, from every item (reserves nothing).
    "labelling.lookAhead": campaigns.flatMap((c) => items.map((n) => ({ campaignId: c, itemNo: n }))),
    "labelling.warmImages": items.map((n) => ({ campaignId, itemNo: n, width: 640 })),
    "labelling.itemSteps": campaigns.flatMap((c) => items.map((n) => ({ campaignId: c, itemNo: n, from: 0 }))),
    "labelling.done": campaigns.map((c) => ({ campaignId: c })),
    "labelling.ofTrajectory": trajectoryInputs.map((trajectoryId) => ({ trajectoryId })),
    "labelling.reveal": campaigns.flatMap((c) => items.map((n) => ({ campaignId: c, itemNo: n }))),
    "labelling.decideReveal": items.map((n) => ({ campaignId, itemNo: n, decision: "keep", reason: "walk" })),
    // The QA stage: open to researchers and designated QA reviewers only, never to a campaign's annotators as such.
    "campaigns.qaQueue": campaigns.map((id) => ({ id })),
    "campaigns.qaReview": campaigns.flatMap((id) => trajectoryInputs.map((trajectoryId) => ({ id, trajectoryId }))),
    "campaigns.qaSubmit": campaigns.flatMap((id) => trajectoryInputs.map((trajectoryId) => ({ id, trajectoryId, decision: "confirmed", reason: "walk" }))),
    // The QA page, by item number: the blind annotator is no QA reviewer, so every call is refused.
    "qa.isReviewer": [undefined],
    "qa.campaigns": [undefined],
    "qa.queue": campaigns.map((c) => ({ campaignId: c })),
    "qa.item": campaigns.flatMap((c) => items.map((n) => ({ campaignId: c, itemNo: n }))),
    "qa.trajectory": campaigns.flatMap((c) => items.map((n) => ({ campaignId: c, itemNo: n }))),
    "qa.steps": campaigns.flatMap((c) => items.map((n) => ({ campaignId: c, itemNo: n, from: 0 }))),
    "qa.warmImages": items.map((n) => ({ campaignId, itemNo: n, width: 640 })),
    "qa.submit": items.map((n) => ({ campaignId, itemNo: n, decision: "confirmed", reason: "walk" })),
    // Comment threads: on every trajectory, real and made up; writing on one names nothing back.
    "comments.threads": trajectoryInputs.map((trajectoryId) => ({ trajectoryId })),
    "comments.add": trajectoryInputs.map((trajectoryId) => ({ trajectoryId, stepIndex: 0, body: "walk comment" })),
    "comments.setResolved": [
      { commentId: 1, resolved: true },
      { commentId: 999, resolved: false },
      ...campaigns.map((c) => ({ commentId: 1, resolved: true, item: { campaignId: c, itemNo: 1 } })),
    ],
    // The labelling page's threads, by item number: the annotator's own campaign, the blind for comments applied.
    "comments.itemThreads": campaigns.flatMap((c) => items.map((n) => ({ campaignId: c, itemNo: n }))),
    "comments.addOnItem": campaigns.flatMap((c) => items.map((n) => ({ campaignId: c, itemNo: n, stepIndex: 0, body: "walk item comment" }))),
    "comments.inbox": [undefined],
    "comments.markRead": [{ commentIds: [1, 2, 999] }],
    "comments.mentionable": [undefined],
    // Pairwise: the blind annotator's pairwise campaign and the label campaigns (refused), by item number; answering
    // by left/right names nothing back.
    "pairwise.campaign": [pairwiseId, ...campaigns].map((c) => ({ campaignId: c })),
    "pairwise.next": [pairwiseId, ...campaigns].map((c) => ({ campaignId: c })),
    "pairwise.item": [pairwiseId, campaignId].flatMap((c) => items.map((n) => ({ campaignId: c, itemNo: n }))),
    "pairwise.steps": items.flatMap((n) => (["left", "right"] as const).map((side) => ({ campaignId: pairwiseId, itemNo: n, side, from: 0 }))),
    "pairwise.submit": items.map((n) => ({ campaignId: pairwiseId, itemNo: n, choice: n % 2 ? "left" : "tie" })),
    "pairwise.myAnswer": items.map((n) => ({ campaignId: pairwiseId, itemNo: n })),
  };
  return table[path];
}

/** Everything the annotator gets back from every procedure, results and error messages alike, as text. */
async function walk(session: RequestSession): Promise<{ text: string; calls: number }> {
  const caller = await callerAs(ctx, session);
  const out: string[] = [];
  let calls = 0;
  for (const path of annotatorProcedures) {
    let fn: unknown = caller;
    for (const part of path.split(".")) fn = (fn as Record<string, unknown>)[part];
    for (const input of inputsFor(path) ?? []) {
      calls++;
      try {
        out.push(`${path} ${JSON.stringify(await (fn as (i: unknown) => Promise<unknown>)(input))}`);
      } catch (e) {
        if (!(e instanceof TRPCError)) throw e;
        out.push(`${path} error ${e.code} ${e.message}`);
      }
    }
  }
  return { text: out.join("\n"), calls };
}

describe("a blind annotator walking every procedure", () => {
  it("has inputs for every procedure an annotator may call", async () => {
    expect(annotatorProcedures.length).toBeGreaterThan(20);
    expect(annotatorProcedures.filter((p) => !inputsFor(p))).toEqual([]);
  });

  it("learns no run, agent, model, source, evaluation or other annotator's decision before labelling", async () => {
    const { text, calls } = await walk(blindAnn);
    expect(calls).toBeGreaterThan(80);
    for (const [what, secret] of Object.entries(SECRETS)) expect(text.includes(secret), `${what} (${secret}) reached the annotator`).toBe(false);
    // Other people's agreement: the disputed item reads "open" to someone who has not labelled it.
    expect(text).not.toMatch(/disputed|agreed"/);
    // Nor where they put their region marks.
    expect(text).not.toMatch(/"kind":"(box|point)"|"marks":\[\{/);
    // The filter that made the second campaign (it names a run's model) is not given to them.
    expect(text).not.toContain('"selection":{');
    // The items they label are not addressed by trajectory id.
    const item = await (await callerAs(ctx, blindAnn)).labelling.item({ campaignId, itemNo: await itemNo(ids[0]!) });
    expect(item.trajectory.id).toBe(0);
    expect(item.run.id).toBe(0);
  });

  it("looking ahead to the next item (Submit & next) reserves nothing and shows only what that item's own page shows", async () => {
    const api = await callerAs(ctx, blindAnn);
    const heldBefore = await ctx.db.select().from(reservations).orderBy(reservations.itemId, reservations.userId);
    const seen: number[] = [];
    for (const n of [1, 2, 3, 4]) {
      const ahead = await api.labelling.lookAhead({ campaignId, itemNo: n });
      if (!ahead) continue;
      seen.push(ahead.itemNo);
      const text = JSON.stringify(ahead);
      for (const [what, secret] of Object.entries(SECRETS)) expect(text.includes(secret), `${what} (${secret}) reached the annotator`).toBe(false);
      expect(text).not.toMatch(/disputed|agreed"|"kind":"(box|point)"/);
      expect(ahead.item).toEqual(await api.labelling.item({ campaignId, itemNo: ahead.itemNo }));
      expect(ahead.mine).toEqual(await api.labelling.mine({ campaignId, itemNo: ahead.itemNo }));
      expect(ahead.item.trajectory.id).toBe(0);
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(await ctx.db.select().from(reservations).orderBy(reservations.itemId, reservations.userId)).toEqual(heldBefore);
  });

  it("answering pairs learns neither side's agent nor trajectory, and cannot read the ranking or the preference pairs", async () => {
    const api = await callerAs(ctx, blindAnn);
    for (const itemNo of [1, 2]) {
      const view = await api.pairwise.item({ campaignId: pairwiseId, itemNo });
      for (const side of [view.left, view.right]) {
        expect(side.trajectory).toMatchObject({ id: 0, linkKey: "", sourcePath: null });
        expect(side.run).toMatchObject({ id: 0, model: null });
        expect(side.task.id).toBe(0);
      }
      // What the annotator sends and gets back is in their left/right terms, never the stored A/B.
      const saved = await api.pairwise.submit({ campaignId: pairwiseId, itemNo, choice: "right" });
      expect(Object.keys(saved).sort()).toEqual(["choice", "itemNo", "revision"]);
      expect((await api.pairwise.myAnswer({ campaignId: pairwiseId, itemNo }))!.choice).toBe("right");
    }
    await expect(api.pairwise.ranking({ campaignId: pairwiseId })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(api.pairwise.preferencePairs({ campaignId: pairwiseId })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("after their own labels on every attempt at a task sees what the README promises for those trajectories, and nothing more", async () => {
    const api = await callerAs(ctx, blindAnn);
    // ids[0] (agent A) and ids[2] (agent B) are the two attempts at the first task.
    const t = ids[0]!;
    const labelled = await api.labelling.submit({ campaignId, itemNo: await itemNo(t), verdict: "failure", idempotencyKey: "blind-own-first" });
    expect(labelled).not.toHaveProperty("trajectoryId");
    expect(labelled.itemState).toBe("disputed");
    // The other attempt at that task is still theirs to label: this one's agent (and id) would name it by elimination.
    await expect(api.trajectories.byId({ id: t })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await api.labelling.item({ campaignId, itemNo: await itemNo(t) })).agentHidden).toBe(true);
    await api.labelling.submit({ campaignId, itemNo: await itemNo(ids[2]!), verdict: "success", idempotencyKey: "blind-own-second" });
    // ids[2] is also an item of the second campaign (made from model B's filter): still to label there, it keeps the
    // first task's agents hidden too, whichever campaign it is in.
    await expect(api.trajectories.byId({ id: t })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await api.labelling.submit({
      campaignId: filterCampaignId,
      itemNo: await itemNo(ids[2]!, filterCampaignId),
      verdict: "success",
      idempotencyKey: "blind-own-second-filter",
    });
    // That trajectory: its agent, the judge's verdict, the others' labels (in this campaign).
    const view = await api.trajectories.byId({ id: t });
    expect(view.run).toMatchObject({ id: runA, name: SECRETS.runA, model: SECRETS.modelA, sourceSystem: SECRETS.systemA });
    expect((await api.judge.verdicts.forTrajectory({ trajectoryId: t })).map((v) => v.rationale)).toEqual([SECRETS.judge]);
    const panel = await api.judge.verdicts.panel({ trajectoryId: t });
    if (panel.hidden) throw new Error("the annotator has labelled; the evaluations panel should show");
    expect(panel.verdicts.map((v) => v.rationale)).toContain(SECRETS.judge);
    expect((await api.labelling.ofTrajectory({ trajectoryId: t })).labels.map((l) => l.note)).toContain(SECRETS.otherNote);
    // The other task's attempts stay hidden, and runs and task sets stay closed to annotators.
    for (const other of [ids[1]!, ids[3]!]) {
      await expect(api.trajectories.byId({ id: other })).rejects.toMatchObject({ code: "FORBIDDEN" });
      expect((await api.labelling.item({ campaignId, itemNo: await itemNo(other) })).run.name).not.toContain("agent-");
    }
    expect((await api.trajectories.list({})).rows.map((r) => r.id).sort()).toEqual([t, ids[2]!].sort());
    await expect(api.runs.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(api.taskSets.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});

describe("each rule on its own", () => {
  it("closing a campaign keeps the blind for those who have not labelled; a researcher lifts it by turning blind off, and later labels are flagged", async () => {
    const ann = await testUser(ctx, "annotator", "Closing Annotator");
    const actor = { userId: researcher.userId, name: researcher.name, role: researcher.role };
    const [t] = (await seedTrajectories(ctx.db, 1, { taskSet: "Closing set", agentName: "closing-agent" })) as [number];
    const c = await createCampaign(ctx.db, actor, { name: "Closing", trajectoryIds: [t], annotatorsPerItem: 1, annotatorIds: [ann.userId] });
    await ctx.db
      .insert(evaluatorVerdicts)
      .values({ trajectoryId: t, kind: "judge", origin: "verdict", evaluatorKey: "judge:2", evaluatorName: "Judge", verdict: "success" });
    const api = await callerAs(ctx, ann);
    await updateCampaignSettings(ctx.db, actor, c.id, { status: "closed" });
    await expect(api.judge.verdicts.forTrajectory({ trajectoryId: t })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(api.trajectories.byId({ id: t })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await api.labelling.item({ campaignId: c.id, itemNo: await itemNo(t, c.id) })).agentHidden).toBe(true);
    // The researcher unblinds it: the annotator sees the verdict, and that is recorded.
    await updateCampaignSettings(ctx.db, actor, c.id, { status: "active", blind: false });
    expect(await api.judge.verdicts.forTrajectory({ trajectoryId: t })).toHaveLength(1);
    await api.labelling.submit({ campaignId: c.id, itemNo: await itemNo(t, c.id), verdict: "success", idempotencyKey: "closing-after-reveal" });
    const exported = await (await callerAs(ctx, researcher)).campaigns.exportLabels({ id: c.id, format: "jsonl" });
    expect(JSON.parse(exported.body.trim().split("\n")[0]!)).toMatchObject({ kind: "annotation", after_reveal: 1 });
    const review = await (await callerAs(ctx, researcher)).campaigns.review({ id: c.id, trajectoryId: t });
    expect(review.labelHistory.map((h) => h.afterReveal)).toEqual([true]);
  });

  it("numbers items 1..n in a shuffled order, not in trajectory (import) order", async () => {
    const many = await seedTrajectories(ctx.db, 40, { taskSet: "Numbering set", agentName: "numbering-agent" });
    const c = await createCampaign(
      ctx.db,
      { userId: researcher.userId, name: researcher.name, role: "researcher" },
      { name: "Numbering", trajectoryIds: many, annotatorsPerItem: 1 },
    );
    const numbers: number[] = [];
    for (const t of many) numbers.push(await itemNo(t, c.id));
    expect([...numbers].sort((x, y) => x - y)).toEqual(many.map((_, i) => i + 1));
    // 1 chance in 40! of failing by luck.
    expect(numbers).not.toEqual(many.map((_, i) => i + 1));
  });

  it("gives annotators campaign summaries without selection or others' counts; researchers labelling blind get the same for that campaign", async () => {
    const mine = await (await callerAs(ctx, blindAnn)).labelling.myCampaigns();
    expect(mine.map((c) => [c.selection, c.counts, c.restricted])).toEqual(mine.map(() => [null, null, true]));
    expect((await (await callerAs(ctx, blindAnn)).campaigns.list()).every((c) => c.selection === null && c.counts === null)).toBe(true);
    const r = await testUser(ctx, "researcher", "Labelling Researcher Two");
    const c = await createCampaign(
      ctx.db,
      { userId: researcher.userId, name: researcher.name, role: "researcher" },
      { name: "Researcher labels", filter: { model: SECRETS.modelB }, annotatorsPerItem: 1, annotatorIds: [r.userId] },
    );
    const seen = await (await callerAs(ctx, r)).campaigns.list();
    expect(seen.find((x) => x.id === c.id)).toMatchObject({ selection: null, counts: null, restricted: true });
    expect(seen.find((x) => x.id === filterCampaignId)?.selection?.description).toContain(SECRETS.modelB);
  });

  it("shows a campaign's task without rule configuration or (while blind) reference answers, and refuses other tasks", async () => {
    const api = await callerAs(ctx, blindAnn);
    await expect(api.tasks.byId({ id: outsideTask })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const task = await api.tasks.byId({ id: taskIds[1]! });
    expect(task.task.evaluatorConfig).toBeNull();
    expect(task.task.referenceAnswers).toEqual([]);
    expect(task.outcomes).toEqual({});
    const full = await (await callerAs(ctx, researcher)).tasks.byId({ id: taskIds[1]! });
    expect(JSON.stringify(full.task.evaluatorConfig)).toContain(SECRETS.rule);
  });

  // That the look-ups behind this are index searches on both engines: tests/integration/query-plans.test.ts.
  it("serves screenshots only of trajectories in the viewer's campaigns", async () => {
    const stepHash = async (t: number) => (await ctx.db.select({ h: steps.screenshotHash }).from(steps).where(eq(steps.trajectoryId, t)))[0]!.h!;
    expect(await mayFetchScreenshot(ctx.db, blindAnn, await stepHash(ids[1]!))).toBe(true);
    expect(await mayFetchScreenshot(ctx.db, blindAnn, await stepHash(outsider))).toBe(false);
    expect(await mayFetchScreenshot(ctx.db, blindAnn, hash(999_999))).toBe(false);
    expect(await mayFetchScreenshot(ctx.db, researcher, await stepHash(outsider))).toBe(true);
  });
});

describe("second review, N6: blind items cannot be lined up with trajectory ids, nor ids with runs", () => {
  /** A campaign of two agents × two tasks, k = 2, with its own annotators. */
  async function fourAttempts(tag: string, annotators: RequestSession[], k = 2) {
    const a = await seedTrajectories(ctx.db, 2, { taskSet: `N6 ${tag}`, agentName: `n6-${tag}-alpha`, model: `n6-${tag}-model-alpha` });
    const b = await seedTrajectories(ctx.db, 2, { taskSet: `N6 ${tag}`, agentName: `n6-${tag}-beta`, model: `n6-${tag}-model-beta` });
    const actor = { userId: researcher.userId, name: researcher.name, role: researcher.role };
    const c = await createCampaign(ctx.db, actor, {
      name: `N6 ${tag}`,
      trajectoryIds: [...a, ...b],
      annotatorsPerItem: k,
      labelSchema: { requireCategory: false },
      annotatorIds: annotators.map((u) => u.userId),
    });
    // a[0] and b[0] are the two attempts at one task, a[1] and b[1] at the other.
    return { campaign: c.id, a, b, no: (t: number) => itemNo(t, c.id) };
  }

  it("an item another annotator's dispute got adjudicated answers a submit without its trajectory id or what happened to it", async () => {
    const [x, y, z] = [
      await testUser(ctx, "annotator", "N6 Ann X"),
      await testUser(ctx, "annotator", "N6 Ann Y"),
      await testUser(ctx, "annotator", "N6 Ann Z"),
    ];
    const { campaign, a, no } = await fourAttempts("adjudicated", [x, y, z]);
    const item = await no(a[0]!);
    await (await callerAs(ctx, x)).labelling.submit({ campaignId: campaign, itemNo: item, verdict: "success", idempotencyKey: "n6-x-first-submit" });
    await (await callerAs(ctx, y)).labelling.submit({ campaignId: campaign, itemNo: item, verdict: "failure", idempotencyKey: "n6-y-first-submit" });
    await (await callerAs(ctx, researcher)).campaigns.adjudicate({ id: campaign, trajectoryId: a[0]!, verdict: "failure", reason: "checked the page" });
    const refused = await (
      await callerAs(ctx, z)
    ).labelling
      .submit({ campaignId: campaign, itemNo: item, verdict: "success", idempotencyKey: "n6-z-first-submit" })
      .catch((e: TRPCError) => e);
    expect(refused).toBeInstanceOf(TRPCError);
    expect((refused as TRPCError).code).toBe("CONFLICT");
    expect((refused as TRPCError).message).toBe(`Item ${item} takes no more labels`);
    expect((refused as TRPCError).message).not.toMatch(/trajector|adjudicat/i);
    // One of its own labellers is told why, still by item number.
    const own = await (
      await callerAs(ctx, x)
    ).labelling
      .submit({ campaignId: campaign, itemNo: item, verdict: "failure", idempotencyKey: "n6-x-again" })
      .catch((e: TRPCError) => e);
    expect((own as TRPCError).message).toBe(`Item ${item} was adjudicated; its labels can no longer change`);
  });

  it("gives one answer for a blind id, an id outside the campaigns and an id that does not exist, on every procedure taking an id", async () => {
    const ann = await testUser(ctx, "annotator", "N6 Scanner");
    const { a, b } = await fourAttempts("scan", [ann], 1);
    const blindIds = [...a, ...b];
    const outside = outsider;
    const missing = 987_654;
    const api = await callerAs(ctx, ann);
    const byId: Record<string, (id: number) => Promise<unknown>> = {
      "trajectories.byId": (id) => api.trajectories.byId({ id }),
      "trajectories.steps": (id) => api.trajectories.steps({ id, from: 0 }),
      "trajectories.warmImages": (id) => api.trajectories.warmImages({ id, width: 640 }),
      "judge.verdicts.forTrajectory": (trajectoryId) => api.judge.verdicts.forTrajectory({ trajectoryId }),
      "judge.verdicts.panel": (trajectoryId) => api.judge.verdicts.panel({ trajectoryId }),
      "scanners.trajectory": (trajectoryId) => api.scanners.trajectory({ trajectoryId }),
      "labelling.ofTrajectory": (trajectoryId) => api.labelling.ofTrajectory({ trajectoryId }),
    };
    for (const [path, call] of Object.entries(byId)) {
      const answers = new Set<string>();
      for (const id of [...blindIds, outside, missing]) {
        const e = await call(id).then(
          () => null,
          (err: TRPCError) => err,
        );
        expect(e, `${path}(${id}) answered`).toBeInstanceOf(TRPCError);
        answers.add(`${e!.code} ${e!.message}`);
        expect(e!.message, path).not.toContain(String(id));
      }
      expect([...answers], path).toHaveLength(1);
    }
  });

  it("keeps a labelled attempt's run, model and id from its annotator until every attempt at its task is labelled, or the campaign closes", async () => {
    const ann = await testUser(ctx, "annotator", "N6 Eliminator");
    const { campaign, a, b, no } = await fourAttempts("elimination", [ann], 1);
    const api = await callerAs(ctx, ann);
    const secrets = ["n6-elimination-alpha", "n6-elimination-beta", "n6-elimination-model"];
    const seen = async () => JSON.stringify([await api.trajectories.list({}), await api.labelling.item({ campaignId: campaign, itemNo: await no(a[0]!) })]);

    // One attempt at the first task labelled: the other is still to label, so nothing names the agent of either.
    await api.labelling.submit({ campaignId: campaign, itemNo: await no(a[0]!), verdict: "success", idempotencyKey: "n6-elim-1" });
    for (const s of secrets) expect(await seen()).not.toContain(s);
    expect((await api.trajectories.list({})).rows).toEqual([]);
    await expect(api.trajectories.byId({ id: a[0]! })).rejects.toMatchObject({ code: "FORBIDDEN", message: NOT_BROWSABLE_MESSAGE });
    const item = await api.labelling.item({ campaignId: campaign, itemNo: await no(a[0]!) });
    expect(item).toMatchObject({ agentHidden: true, trajectory: { id: 0 }, run: { id: 0, model: null } });

    // Both attempts at that task labelled: their agents (and ids) are theirs to see; the other task's are not.
    await api.labelling.submit({ campaignId: campaign, itemNo: await no(b[0]!), verdict: "failure", idempotencyKey: "n6-elim-2" });
    expect((await api.trajectories.byId({ id: a[0]! })).run.name).toBe("n6-elimination-alpha run");
    expect((await api.trajectories.list({})).rows.map((r) => r.id).sort()).toEqual([a[0]!, b[0]!].sort());
    await api.labelling.submit({ campaignId: campaign, itemNo: await no(a[1]!), verdict: "success", idempotencyKey: "n6-elim-3" });
    await expect(api.trajectories.byId({ id: a[1]! })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await api.labelling.item({ campaignId: campaign, itemNo: await no(a[1]!) })).agentHidden).toBe(true);

    // Closing the campaign ends the labelling: the labelled attempt's agent shows; the unlabelled one stays blind.
    await updateCampaignSettings(ctx.db, { userId: researcher.userId, name: researcher.name, role: "researcher" }, campaign, { status: "closed" });
    expect((await api.trajectories.byId({ id: a[1]! })).run.name).toBe("n6-elimination-alpha run");
    await expect(api.trajectories.byId({ id: b[1]! })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});

describe("second review, L8: a researcher labelling blind cannot read evaluator totals, judge their own blind items, or leave to escape", () => {
  it("refuses evaluator summaries, batches and rule runs while blind; leaving and lifting the blind are for someone else", async () => {
    const r = await testUser(ctx, "researcher", "L8 Blind Researcher");
    const [t] = (await seedTrajectories(ctx.db, 1, { taskSet: "L8 set", agentName: "l8-agent" })) as [number];
    const owner = { userId: researcher.userId, name: researcher.name, role: researcher.role };
    const c = await createCampaign(ctx.db, owner, { name: "L8 campaign", trajectoryIds: [t], annotatorsPerItem: 1, annotatorIds: [r.userId] });
    const api = await callerAs(ctx, r);
    const blindRefusal = { code: "FORBIDDEN", message: expect.stringMatching(/You are labelling 1 trajectory blind/) };
    await expect(api.judge.verdicts.evaluators()).rejects.toMatchObject(blindRefusal);
    await expect(api.judge.batches.list()).rejects.toMatchObject(blindRefusal);
    await expect(api.judge.batches.start({ config: 1, selection: { trajectoryIds: [t] }, kValues: [1] })).rejects.toMatchObject(blindRefusal);
    await expect(api.judge.batches.progress({ id: 1 })).rejects.toMatchObject(blindRefusal);
    await expect(api.judge.rules.run({ selection: { trajectoryIds: [t] } })).rejects.toMatchObject(blindRefusal);
    // Improving a judge shows judges' verdicts beside people's labels: closed the same way.
    await expect(api.judge.stress.list()).rejects.toMatchObject(blindRefusal);
    await expect(api.judge.stress.report({ id: 1 })).rejects.toMatchObject(blindRefusal);
    await expect(api.judge.stress.estimate({ config: 1, campaign: c.id, k: 1 })).rejects.toMatchObject(blindRefusal);
    await expect(api.judge.alignment.create({ name: "x", config: 1, campaign: c.id, k: 1 })).rejects.toMatchObject(blindRefusal);
    await expect(api.judge.alignment.versions({ id: 1 })).rejects.toMatchObject(blindRefusal);
    await expect(api.judge.alignment.disagreements({ id: 1 })).rejects.toMatchObject(blindRefusal);
    await expect(api.judge.alignment.splitItems({ id: 1 })).rejects.toMatchObject(blindRefusal);
    await expect(api.judge.alignment.compare({ id: 1, a: 1, b: 2 })).rejects.toMatchObject(blindRefusal);

    await expect(api.campaigns.setAnnotators({ id: c.id, remove: [r.userId] })).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringContaining("another researcher or an admin can take you off it"),
    });
    await expect(api.campaigns.update({ id: c.id, blind: false })).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringContaining("another researcher or an admin can lift its blind"),
    });
    expect(await mayViewEvaluations(ctx.db, r.userId, t)).toBe(false);
    // Another researcher may take them off; then the summaries open.
    await (await callerAs(ctx, researcher)).campaigns.setAnnotators({ id: c.id, remove: [r.userId] });
    await expect(api.judge.verdicts.evaluators()).resolves.toBeInstanceOf(Array);
  });
});

import { eq } from "drizzle-orm";
import { sqliteClient } from "../../db/database";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { labelRevisions } from "../../db/schema/index";
import { getItemByTrajectory } from "../../db/repositories/annotation/campaigns";
import type { Actor } from "../../server/domain/access/actor";
import { parseCsvTable } from "../../server/domain/csv";
import { AppError } from "../../server/errors";
import { humanAgreement } from "../../server/services/analytics";
import {
  adjudicate,
  campaignOverview,
  createCampaign,
  exportCampaignLabels,
  itemReview,
  myItemLabel,
  qaItemReview,
  qaQueue,
  submitLabel,
  submitQaReview,
  updateCampaignSettings,
} from "../../server/services/annotation";
import { visibleLabelsOfTrajectory } from "../../server/services/access";
import { createTestContext, type TestContext } from "../helpers/context";
import { makeActor, seedTrajectories } from "../helpers/annotation-fixture";

let ctx: TestContext;
let researcher: Actor;
let ann: Actor[];
let qaAnnotator: Actor;
beforeEach(async () => {
  ctx = createTestContext("verdict-protocols-");
  researcher = await makeActor(ctx, "Rita Researcher", "researcher");
  ann = [];
  for (const n of ["Ann A", "Ann B", "Ann C", "Ann D"]) ann.push(await makeActor(ctx, n, "annotator"));
  qaAnnotator = await makeActor(ctx, "Quinn QA", "annotator");
});
afterEach(async () => {
  await ctx.cleanup();
});

let seq = 0;
const key = async () => `proto-key-${++seq}-${Math.random().toString(36).slice(2)}`;

async function errorOf(fn: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof AppError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error("expected the call to throw");
}

async function om2wCampaign(trajectoryIds: number[], extra: Partial<Parameters<typeof createCampaign>[2]> = {}) {
  return await createCampaign(ctx.db, researcher, {
    name: `OM2W ${Math.random()}`,
    template: "online-mind2web",
    trajectoryIds,
    annotatorIds: ann.slice(0, 3).map((a) => a.userId),
    qaReviewerIds: [qaAnnotator.userId],
    ...extra,
  });
}

async function label(actor: Actor, campaignId: number, trajectoryId: number, v: Record<string, unknown>) {
  return await submitLabel(ctx.db, actor, { campaignId, trajectoryId, verdict: "success", ...v, idempotencyKey: await key() } as Parameters<
    typeof submitLabel
  >[2]);
}

const failure = { verdict: "failure", category: "wrong navigation", firstFailingStep: 1, note: "opened the wrong city" };

describe("campaigns from templates", () => {
  it("copies the template's schema, guidelines, k and version into the campaign", async () => {
    const [t] = await seedTrajectories(ctx.db, 1);
    const c = await om2wCampaign([t!]);
    expect(c.templateId).toBe("online-mind2web");
    expect(c.templateVersion).toBe(1);
    expect(c.guidelineVersion).toBe(1);
    expect(c.annotatorsPerItem).toBe(3);
    expect(c.instructions).toMatch(/Not executable \(2\)/);
    expect(c.labelSchema).toMatchObject({ allowNotExecutable: true, requireFailureStep: true, requireReasoning: true, qaReview: true });
    expect(c.labelSchema.categories).toContain("incorrect filter application");
  });

  it("fields given with the template override it; an unknown template is refused by name", async () => {
    const [t] = await seedTrajectories(ctx.db, 1);
    const c = await createCampaign(ctx.db, researcher, {
      name: "WV",
      template: "webvoyager",
      trajectoryIds: [t!],
      annotatorsPerItem: 2,
      instructions: "Our own words",
    });
    expect(c).toMatchObject({ templateId: "webvoyager", annotatorsPerItem: 2, instructions: "Our own words" });
    expect(
      (await errorOf(async () => await createCampaign(ctx.db, researcher, { name: "X", template: "mind2web" as never, trajectoryIds: [t!] }))).message,
    ).toMatch(/template: one of webvoyager/);
  });

  it("a custom question with a bad definition is refused naming the question", async () => {
    const [t] = await seedTrajectories(ctx.db, 1);
    const e = await errorOf(
      async () =>
        await createCampaign(ctx.db, researcher, {
          name: "C",
          template: "custom",
          trajectoryIds: [t!],
          labelSchema: { questions: [{ id: "effort", type: "number", prompt: "Effort", min: 9, max: 1 }] as never },
        }),
    );
    expect(e.message).toMatch(/labelSchema\.questions\[0\] \(effort\): min \(9\) is above max \(1\)/);
  });
});

describe("labels under a protocol", () => {
  it("accepts not executable and a failure with point, type and reasoning; refuses a failure without them", async () => {
    const [t1, t2] = await seedTrajectories(ctx.db, 2);
    const c = await om2wCampaign([t1!, t2!]);
    expect((await label(ann[0]!, c.id, t1!, { verdict: "not_executable" })).values.verdict).toBe("not_executable");
    expect((await label(ann[0]!, c.id, t2!, failure)).values).toMatchObject({ verdict: "failure", firstFailingStep: 1 });
    expect((await errorOf(async () => await label(ann[1]!, c.id, t2!, { ...failure, firstFailingStep: null }))).message).toMatch(
      /firstFailingStep: a failure needs its failure point/,
    );
    expect((await errorOf(async () => await label(ann[1]!, c.id, t2!, { ...failure, note: "" }))).message).toMatch(/note: a failure needs its reasoning/);
  });

  it("stores valid answers to custom questions with the label and its revision, refuses invalid ones by question", async () => {
    const [t] = await seedTrajectories(ctx.db, 1, { steps: 5 });
    const c = await createCampaign(ctx.db, researcher, {
      name: "Custom Q",
      template: "custom",
      trajectoryIds: [t!],
      annotatorIds: [ann[0]!.userId],
      annotatorsPerItem: 1,
      labelSchema: {
        questions: [
          { id: "blocker", type: "single_choice", prompt: "What blocked the agent?", options: ["captcha", "login", "none"], required: true },
          { id: "answer_step", type: "step_ref", prompt: "Where is the answer shown?" },
          { id: "useful", type: "multiple_choice", prompt: "Useful steps", options: ["search", "filter"], perStep: true },
        ] as never,
      },
    });
    const bad = await errorOf(async () => await label(ann[0]!, c.id, t!, { answers: { blocker: "rain" } }));
    expect(bad.code).toBe("BAD_REQUEST");
    expect(bad.message).toMatch(/answers\.blocker \("What blocked the agent\?"\): must be one of "captcha", "login", "none", got "rain"/);
    expect((await errorOf(async () => await label(ann[0]!, c.id, t!, { answers: {} }))).message).toMatch(/answers\.blocker .*an answer is required/);
    expect((await errorOf(async () => await label(ann[0]!, c.id, t!, { answers: { blocker: "none", answer_step: 5 } }))).message).toMatch(
      /answers\.answer_step .*from 0 to 4, got 5/,
    );

    const r = await label(ann[0]!, c.id, t!, { answers: { blocker: "none", answer_step: 3, useful: { "0": ["search"], "2": ["filter", "search"] } } });
    expect(r.values.answers).toEqual({ blocker: "none", answer_step: 3, useful: { "0": ["search"], "2": ["search", "filter"] } });
    const mine = await myItemLabel(ctx.db, ann[0]!, c.id, myItemNo(c.id, t!));
    expect(mine.label?.answers).toEqual(r.values.answers);
    const revision = (await ctx.db.select().from(labelRevisions).where(eq(labelRevisions.id, r.revisionId)))[0]!;
    expect(revision.values.answers).toEqual(r.values.answers);

    // Exports: a column per question in CSV (steps as step numbers), an answers object in JSONL.
    const csv = parseCsvTable((await exportCampaignLabels(ctx.db, researcher, c.id, "csv")).body, { source: "export.csv" });
    expect(csv.header.slice(-3)).toEqual(["answer_blocker", "answer_answer_step", "answer_useful"]);
    const row = csv.rows.find((x) => x[csv.header.indexOf("kind")] === "annotation")!;
    expect(row[csv.header.indexOf("answer_blocker")]).toBe("none");
    expect(row[csv.header.indexOf("answer_answer_step")]).toBe("4");
    expect(JSON.parse(row[csv.header.indexOf("answer_useful")]!)).toEqual({ "1": ["search"], "3": ["search", "filter"] });
    const jsonl = (await exportCampaignLabels(ctx.db, researcher, c.id, "jsonl")).body
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(jsonl.find((x) => x.kind === "annotation").answers).toEqual({
      blocker: "none",
      answer_step: 4,
      useful: { "1": ["search"], "3": ["search", "filter"] },
    });
  });

  it("editing the guidelines bumps their version, recorded on labels made afterwards", async () => {
    const [t1, t2] = await seedTrajectories(ctx.db, 2);
    const c = await om2wCampaign([t1!, t2!]);
    await label(ann[0]!, c.id, t1!, { verdict: "success" });
    const same = await updateCampaignSettings(ctx.db, researcher, c.id, { instructions: c.instructions });
    expect(same.guidelineVersion).toBe(1);
    const edited = await updateCampaignSettings(ctx.db, researcher, c.id, { instructions: c.instructions + "\n\nSold-out items count as success." });
    expect(edited.guidelineVersion).toBe(2);
    await label(ann[1]!, c.id, t1!, { verdict: "success" });
    await label(ann[0]!, c.id, t2!, { verdict: "success" });
    const compliance = (await campaignOverview(ctx.db, researcher, c.id)).compliance;
    expect(compliance.guidelineVersions).toEqual([
      { version: 1, labels: 1 },
      { version: 2, labels: 2 },
    ]);
    expect(compliance.labelsOnOlderGuidelines).toBe(1);
  });
});

function myItemNo(campaignId: number, trajectoryId: number): number {
  const row = sqliteClient(ctx.db).prepare("select item_no from campaign_items where campaign_id = ? and trajectory_id = ?").get(campaignId, trajectoryId) as {
    item_no: number;
  };
  return row.item_no;
}

describe("QA review stage", () => {
  it("opens once an item has its labels; confirms or corrects with a reason; freezes the labels", async () => {
    const [t1, t2, t3] = await seedTrajectories(ctx.db, 3);
    const c = await om2wCampaign([t1!, t2!, t3!]);
    // t1: unanimous success; t2: disputed; t3: one label only.
    for (const a of ann.slice(0, 3)) await label(a, c.id, t1!, { verdict: "success" });
    await label(ann[0]!, c.id, t2!, { verdict: "success" });
    await label(ann[1]!, c.id, t2!, failure);
    await label(ann[2]!, c.id, t2!, { verdict: "not_executable" });
    await label(ann[0]!, c.id, t3!, { verdict: "success" });

    const pending = await qaQueue(ctx.db, qaAnnotator, { campaignId: c.id });
    const itemNoOf = async (t: number) => (await getItemByTrajectory(ctx.db, c.id, t))!.itemNo;
    expect(pending.items.map((i) => i.itemNo).sort()).toEqual([await itemNoOf(t1!), await itemNoOf(t2!)].sort());
    // An annotator reviewing QA is not told which agent made the trajectory, nor its id (items go by number).
    expect(pending.items.every((i) => i.runName === null && i.model === null && i.trajectoryId === null)).toBe(true);
    const t2No = await itemNoOf(t2!);
    expect(pending.items.find((i) => i.itemNo === t2No)!.labels).toHaveLength(3);

    expect((await errorOf(async () => await qaItemReview(ctx.db, qaAnnotator, c.id, t3!))).message).toMatch(/still being labelled \(1 of 3 labels\)/);
    expect((await errorOf(async () => await qaQueue(ctx.db, ann[3]!, { campaignId: c.id }))).code).toBe("FORBIDDEN");
    expect(
      (await errorOf(async () => await submitQaReview(ctx.db, qaAnnotator, { campaignId: c.id, trajectoryId: t1!, decision: "confirmed", reason: " " })))
        .message,
    ).toMatch(/reason/);
    expect(
      (await errorOf(async () => await submitQaReview(ctx.db, qaAnnotator, { campaignId: c.id, trajectoryId: t2!, decision: "confirmed", reason: "ok" })))
        .message,
    ).toMatch(/no consolidated label to confirm/);

    const confirmed = await submitQaReview(ctx.db, qaAnnotator, {
      campaignId: c.id,
      trajectoryId: t1!,
      decision: "confirmed",
      reason: "all three right",
      confidence: "high",
    });
    expect(confirmed.consolidated).toMatchObject({
      verdict: "success",
      method: "unanimous",
      qaDecision: "confirmed",
      qaReviewerName: "Quinn QA",
      confidence: "high",
    });
    expect((await errorOf(async () => await label(ann[0]!, c.id, t1!, { verdict: "not_executable" }))).message).toMatch(/passed its QA review/);
    expect(
      (await errorOf(async () => await submitQaReview(ctx.db, researcher, { campaignId: c.id, trajectoryId: t1!, decision: "confirmed", reason: "again" })))
        .message,
    ).toMatch(/already had its QA review/);

    expect(
      (
        await errorOf(
          async () =>
            await submitQaReview(ctx.db, researcher, {
              campaignId: c.id,
              trajectoryId: t2!,
              decision: "corrected",
              verdict: "failure",
              category: "wrong navigation",
              firstFailingStep: 1,
              reason: "wrong city",
            }),
        )
      ).message,
    ).toMatch(/disagreementSource/);
    const corrected = await submitQaReview(ctx.db, researcher, {
      campaignId: c.id,
      trajectoryId: t2!,
      decision: "corrected",
      verdict: "failure",
      category: "wrong navigation",
      firstFailingStep: 1,
      reason: "the agent opened the wrong city at step 2",
      confidence: "medium",
      disagreementSource: "annotator_error",
    });
    expect(corrected.consolidated).toMatchObject({ verdict: "failure", method: "adjudicated", qaDecision: "corrected", disagreementSource: "annotator_error" });

    expect((await qaQueue(ctx.db, researcher, { campaignId: c.id })).items).toEqual([]);
    expect((await qaQueue(ctx.db, researcher, { campaignId: c.id, status: "done" })).items).toHaveLength(2);
    const compliance = (await campaignOverview(ctx.db, researcher, c.id)).compliance;
    expect(compliance.qa).toEqual({ required: true, done: 2, pending: 0, notReady: 1 });
    expect(compliance.itemsBelowTarget).toBe(1);
    expect(compliance.meetsProtocol).toBe(false);
  });

  it("the campaign meets its protocol once every item has 3 labels and its QA review", async () => {
    const [t1, t2] = await seedTrajectories(ctx.db, 2);
    const c = await om2wCampaign([t1!, t2!]);
    for (const t of [t1!, t2!]) for (const a of ann.slice(0, 3)) await label(a, c.id, t, { verdict: "success" });
    expect((await campaignOverview(ctx.db, researcher, c.id)).compliance.shortfalls).toEqual(["2 items without a QA review"]);
    for (const t of [t1!, t2!]) await submitQaReview(ctx.db, researcher, { campaignId: c.id, trajectoryId: t, decision: "confirmed", reason: "checked" });
    const compliance = (await campaignOverview(ctx.db, researcher, c.id)).compliance;
    expect(compliance).toMatchObject({
      meetsProtocol: true,
      itemsBelowTarget: 0,
      annotatorsPerItem: [{ labels: 3, items: 2 }],
      templateName: "Online-Mind2Web",
    });
    // Raising k later does not undo a confirmed QA review: the decision stands.
    await updateCampaignSettings(ctx.db, researcher, c.id, { annotatorsPerItem: 4 });
    expect((await qaQueue(ctx.db, researcher, { campaignId: c.id, status: "done" })).items.map((i) => i.state)).toEqual(["agreed", "agreed"]);
  });

  it("annotators stay blind to other labels before their own; the QA reviewer sees them only in the QA stage", async () => {
    const [t] = await seedTrajectories(ctx.db, 1);
    // The QA reviewer also labels in this campaign: before the item reaches its count, QA shows them nothing.
    const c = await om2wCampaign([t!], { annotatorIds: [...ann.slice(0, 3), qaAnnotator].map((a) => a.userId) });
    await label(ann[0]!, c.id, t!, failure);
    await label(ann[1]!, c.id, t!, { verdict: "success" });
    // Ann C has not labelled: other labels are hidden from her.
    const seenByC = await visibleLabelsOfTrajectory(ctx.db, ann[2]!, t!);
    expect(seenByC.hiddenByBlind).toBe(true);
    expect(seenByC.labels).toEqual([]);
    expect((await errorOf(async () => await qaItemReview(ctx.db, qaAnnotator, c.id, t!))).code).toBe("CONFLICT");
    expect((await qaQueue(ctx.db, qaAnnotator, { campaignId: c.id })).items).toEqual([]);
    await label(ann[2]!, c.id, t!, { verdict: "success" });
    // Now in the QA stage: the QA reviewer sees every label, which an ordinary annotator still cannot use QA for.
    const review = await qaItemReview(ctx.db, qaAnnotator, c.id, t!);
    expect(review.labels.map((l) => l.annotatorName).sort()).toEqual(["Ann A", "Ann B", "Ann C"]);
    expect((await errorOf(async () => await qaItemReview(ctx.db, ann[0]!, c.id, t!))).code).toBe("FORBIDDEN");
    // The researcher's review page is still closed to annotators.
    expect((await errorOf(async () => await itemReview(ctx.db, qaAnnotator, c.id, t!))).code).toBe("FORBIDDEN");
  });
});

describe("adjudication confidence and disagreement source", () => {
  it("are recorded and tallied in the human-agreement view", async () => {
    const ts = await seedTrajectories(ctx.db, 3);
    const c = await createCampaign(ctx.db, researcher, {
      name: "WV adj",
      template: "webvoyager",
      trajectoryIds: ts,
      annotatorIds: ann.slice(0, 2).map((a) => a.userId),
      annotatorsPerItem: 2,
    });
    for (const t of ts) {
      await label(ann[0]!, c.id, t, { verdict: "success" });
      await label(ann[1]!, c.id, t, { verdict: "failure", category: "hallucination" });
    }
    expect(
      (
        await errorOf(
          async () =>
            await adjudicate(ctx.db, researcher, { campaignId: c.id, trajectoryId: ts[0]!, verdict: "success", reason: "x", disagreementSource: "weather" }),
        )
      ).message,
    ).toMatch(/disagreementSource: one of guideline_gap, ambiguous_task, annotator_error, edge_case, got "weather"/);
    await adjudicate(ctx.db, researcher, {
      campaignId: c.id,
      trajectoryId: ts[0]!,
      verdict: "success",
      reason: "answer on screen",
      confidence: "high",
      disagreementSource: "annotator_error",
    });
    await adjudicate(ctx.db, researcher, {
      campaignId: c.id,
      trajectoryId: ts[1]!,
      verdict: "failure",
      category: "hallucination",
      reason: "made up",
      confidence: "low",
      disagreementSource: "guideline_gap",
    });
    await adjudicate(ctx.db, researcher, {
      campaignId: c.id,
      trajectoryId: ts[2]!,
      verdict: "failure",
      category: "hallucination",
      reason: "made up",
      confidence: "high",
      disagreementSource: "annotator_error",
    });
    const d = (await humanAgreement(ctx.db, c.id)).decisions;
    expect(d.decisions).toBe(3);
    expect(d.adjudicated).toBe(3);
    expect(d.bySource).toEqual([
      { source: "guideline_gap", n: 1 },
      { source: "ambiguous_task", n: 0 },
      { source: "annotator_error", n: 2 },
      { source: "edge_case", n: 0 },
      { source: "not recorded", n: 0 },
    ]);
    expect(d.byConfidence.filter((x) => x.n)).toEqual([
      { confidence: "low", n: 1 },
      { confidence: "high", n: 2 },
    ]);
    const csv = parseCsvTable((await exportCampaignLabels(ctx.db, researcher, c.id, "csv")).body, { source: "x.csv" });
    const consolidated = csv.rows.filter((r) => r[csv.header.indexOf("kind")] === "consolidated");
    expect(consolidated.map((r) => r[csv.header.indexOf("disagreement_source")]).sort()).toEqual(["annotator_error", "annotator_error", "guideline_gap"]);
  });
});

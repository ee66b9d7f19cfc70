/**
 * Gold answers in every protocol, on SQLite and PostgreSQL: a gold failure can be marked in a campaign of each
 * template, with and without a required question of its own, as long as it gives what the protocol asks (failure
 * point and reasoning for Online-Mind2Web, answers to required questions); what is missing is refused naming the
 * form field it belongs to; the answer is kept whole (failure point, answers) and settled items are promoted in
 * every protocol.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import type { Actor } from "../../server/domain/access/actor";
import { PROTOCOL_TEMPLATES, TEMPLATE_IDS, type TemplateId } from "../../server/domain/annotation/protocols";
import { ValidationError } from "../../server/errors";
import { campaignGold, createCampaign, goldChoices, markGold, promoteGold, submitLabel } from "../../server/services/annotation";
import { getConsolidated } from "../../db/repositories/annotation/labels";
import { getItemByTrajectory } from "../../db/repositories/annotation/campaigns";
import { makeActor, seedTrajectories } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";

const BLOCKER = {
  id: "blocker",
  type: "single_choice",
  prompt: "What blocked the agent?",
  options: ["captcha", "login", "none"],
  required: true,
  when: "failure",
};

/** The fields a failure must carry in each template, besides the verdict (category always optional for gold). */
function failureFor(template: TemplateId, withQuestion: boolean): { firstFailingStep?: number; note?: string; answers?: Record<string, unknown> } {
  const answers: Record<string, unknown> = {};
  if (template === "agentrewardbench")
    Object.assign(answers, { trajectory_side_effect: "No", trajectory_optimality: "1. Complete Failure", trajectory_looping: "No" });
  if (withQuestion) answers.blocker = "captcha";
  return {
    ...(template === "online-mind2web" ? { firstFailingStep: 2, note: "It searched the wrong city at step 3." } : {}),
    ...(Object.keys(answers).length ? { answers } : {}),
  };
}

async function refusal(fn: () => Promise<unknown>): Promise<ValidationError> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof ValidationError) return e;
    throw e;
  }
  throw new Error("expected the call to be refused");
}

describeEachBackend("gold in every protocol", (backend) => {
  let ctx: TestContext;
  let researcher: Actor;
  let annotators: Actor[];
  let seq = 0;
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-gold-protocols-");
    researcher = await makeActor(ctx, "Rita Researcher", "researcher");
    annotators = [await makeActor(ctx, "Ann One", "annotator"), await makeActor(ctx, "Ben Two", "annotator")];
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  async function campaignOf(template: TemplateId, withQuestion: boolean) {
    const ids = await seedTrajectories(ctx.db, 3, { taskSet: `Set ${++seq}`, steps: 5 });
    // Each template's own questions stay; the required one of the campaign's own comes after them.
    const questions = [...(PROTOCOL_TEMPLATES[template].labelSchema.questions ?? []), ...(withQuestion ? [BLOCKER] : [])];
    const c = await createCampaign(ctx.db, researcher, {
      name: `${template} ${withQuestion ? "with" : "without"} question ${seq}`,
      template,
      trajectoryIds: ids,
      annotatorIds: annotators.map((a) => a.userId),
      annotatorsPerItem: 2,
      labelSchema: { questions: questions as never },
    });
    return { c, ids };
  }

  for (const template of TEMPLATE_IDS) {
    for (const withQuestion of [false, true]) {
      it(`${template}, ${withQuestion ? "with" : "without"} a required question: a gold failure is marked with what the protocol asks, and refused beside the missing field`, async () => {
        const { c, ids } = await campaignOf(template, withQuestion);
        const fields = failureFor(template, withQuestion);
        if (fields.firstFailingStep !== undefined) {
          const e = await refusal(() =>
            markGold(ctx.db, researcher, { campaignId: c.id, trajectoryId: ids[0]!, verdict: "failure", ...fields, firstFailingStep: null }),
          );
          expect(e.field).toBe("firstFailingStep");
        }
        if (fields.note !== undefined) {
          const e = await refusal(() => markGold(ctx.db, researcher, { campaignId: c.id, trajectoryId: ids[0]!, verdict: "failure", ...fields, note: "  " }));
          expect(e.field).toBe("note");
        }
        if (withQuestion) {
          const e = await refusal(() =>
            markGold(ctx.db, researcher, {
              campaignId: c.id,
              trajectoryId: ids[0]!,
              verdict: "failure",
              ...fields,
              answers: { ...fields.answers, blocker: undefined },
            }),
          );
          expect(e.field).toBe("answers.blocker");
          expect(e.message).toContain("an answer is required");
        }
        const gold = await markGold(ctx.db, researcher, { campaignId: c.id, trajectoryId: ids[0]!, verdict: "failure", ...fields });
        expect(gold.verdict).toBe("failure");
        expect(gold.firstFailingStep).toBe(fields.firstFailingStep ?? null);
        expect(gold.answers ?? null).toEqual(fields.answers ?? null);
        const item = (await getItemByTrajectory(ctx.db, c.id, ids[0]!))!;
        expect(item.state).toBe("adjudicated");
        expect((await getConsolidated(ctx.db, item.id))!.firstFailingStep).toBe(fields.firstFailingStep ?? null);
        // A success needs no failure point or reasoning; questions asked only on failures are not asked.
        const success = await markGold(ctx.db, researcher, {
          campaignId: c.id,
          trajectoryId: ids[1]!,
          verdict: "success",
          answers: template === "agentrewardbench" ? fields.answers : undefined,
        });
        expect(success.verdict).toBe("success");
        const listed = await campaignGold(ctx.db, researcher, c.id);
        expect(listed.items.map((g) => [g.trajectoryId, g.verdict]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
          [ids[0], "failure"],
          [ids[1], "success"],
        ]);
        const choices = await goldChoices(ctx.db, researcher, ids[0]!);
        expect(choices.stepCount).toBe(5);
        expect(choices.campaigns).toEqual([
          expect.objectContaining({ id: c.id, gold: expect.objectContaining({ verdict: "failure", firstFailingStep: fields.firstFailingStep ?? null }) }),
        ]);
        expect(choices.campaigns[0]!.schema.requireFailureStep).toBe(template === "online-mind2web");
        expect(choices.campaigns[0]!.schema.questions.some((q) => q.id === "blocker")).toBe(withQuestion);
      });
    }
  }

  it("promotes a unanimous failure to gold in an Online-Mind2Web campaign with a required question", async () => {
    const { c, ids } = await campaignOf("online-mind2web", true);
    let key = 0;
    for (const a of annotators) {
      await submitLabel(ctx.db, a, {
        campaignId: c.id,
        trajectoryId: ids[2]!,
        verdict: "failure",
        category: c.labelSchema.categories[0]!,
        firstFailingStep: 1,
        note: "went wrong",
        answers: { blocker: "login" },
        idempotencyKey: `promote-${backend}-${++key}`,
      } as never);
    }
    expect((await getItemByTrajectory(ctx.db, c.id, ids[2]!))!.state).toBe("agreed");
    expect(await promoteGold(ctx.db, researcher, { campaignId: c.id, trajectoryIds: [ids[2]!] })).toEqual({ promoted: 1 });
    const [gold] = (await campaignGold(ctx.db, researcher, c.id)).items;
    expect(gold).toMatchObject({ trajectoryId: ids[2], verdict: "failure", firstFailingStep: 1, source: "unanimous" });
  });

  it("is for researchers only", async () => {
    const { c, ids } = await campaignOf("custom", false);
    await expect(goldChoices(ctx.db, annotators[0]!, ids[0]!)).rejects.toThrow();
    await expect(markGold(ctx.db, annotators[0]!, { campaignId: c.id, trajectoryId: ids[0]!, verdict: "success" })).rejects.toThrow();
  });
});

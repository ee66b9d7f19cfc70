/**
 * Automation rules (docs/guide/automation.md): researchers and admins list, write, pause and delete them and read
 * each rule's runs. A rule's runs count trajectories its filter matched, and a filter may name labels or verdicts,
 * so reading them is closed to a researcher still labelling blind, as the scanners' and judges' batch views are.
 */
import { z } from "zod";
import { createRule, deleteRule, editRule, listRuleViews, ruleRuns, setRuleEnabled } from "../../services/automation";
import { MAX_RULE_FILTER, MAX_RULE_NAME } from "../../domain/automation/rules";
import { createTRPCRouter, researcherProcedure, sightedResearcherProcedure } from "../trpc";

const id = z.number().int().positive();

/** The rule as the form sends it; the service checks each field and names the one it refuses. */
const draft = z.object({
  name: z.string().max(MAX_RULE_NAME),
  filterText: z.string().max(MAX_RULE_FILTER),
  triggers: z.array(z.string().max(20)).max(10),
  sharePercent: z.number(),
  seed: z.number().int(),
  action: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("campaign"), campaignId: id }),
    z.object({ kind: z.literal("judge"), judgeConfigId: id, k: z.string().max(20) }),
  ]),
  enabled: z.boolean().default(true),
});

export const automationRouter = createTRPCRouter({
  list: sightedResearcherProcedure.query(async ({ ctx }) => await listRuleViews(ctx.db, ctx.actor)),
  runs: sightedResearcherProcedure.input(z.object({ id })).query(async ({ ctx, input }) => await ruleRuns(ctx.db, ctx.actor, input.id)),
  create: researcherProcedure.input(draft).mutation(async ({ ctx, input }) => await createRule(ctx.db, ctx.actor, input)),
  update: researcherProcedure
    .input(draft.extend({ id }))
    .mutation(async ({ ctx, input: { id: ruleId, ...rest } }) => await editRule(ctx.db, ctx.actor, ruleId, rest)),
  setEnabled: researcherProcedure.input(z.object({ id, enabled: z.boolean() })).mutation(async ({ ctx, input }) => {
    await setRuleEnabled(ctx.db, ctx.actor, input.id, input.enabled);
    return { ok: true };
  }),
  remove: researcherProcedure.input(z.object({ id })).mutation(async ({ ctx, input }) => {
    await deleteRule(ctx.db, ctx.actor, input.id);
    return { ok: true };
  }),
});

/**
 * The JSON that `scripts/agentlab_to_json.py` writes beside an AgentLab / BrowserGym experiment
 * (`<experiment>/verdict_steps.json`): what the experiment's pickles hold that Verdict needs — the goal, each step's
 * action, thinking, URL and error, the Set-of-Marks element boxes, and the experiment's names and step limit.
 *
 * The user runs the script in their own BrowserGym environment, with their pickles and interpreter; Verdict reads
 * only this JSON and never unpickles anything. Every field but the format marker and the steps is optional, so an
 * older AgentLab that lacks one still converts.
 */
import { z } from "zod";

export const AGENTLAB_STEPS_FILE = "verdict_steps.json";
export const AGENTLAB_STEPS_FORMAT = "verdict.agentlab-steps";
export const AGENTLAB_STEPS_VERSION = 1;

const finite = z.number().refine(Number.isFinite, "must be a finite number");

export const agentLabElementSchema = z.object({
  bid: z.string().min(1),
  bbox: z.tuple([finite, finite, finite, finite]).nullable(),
  visibility: finite.nullish(),
  clickable: z.boolean().nullish(),
  set_of_marks: z.boolean().nullish(),
});

export const agentLabStepSchema = z.object({
  step: z.number().int().nonnegative(),
  action: z.string().nullish(),
  think: z.string().nullish(),
  url: z.string().nullish(),
  last_action_error: z.string().nullish(),
  reward: finite.nullish(),
  terminated: z.boolean().nullish(),
  truncated: z.boolean().nullish(),
  elements: z.array(agentLabElementSchema).nullish(),
});

export const agentLabStepsSchema = z.object({
  format: z.literal(AGENTLAB_STEPS_FORMAT),
  version: z.literal(AGENTLAB_STEPS_VERSION),
  exp_name: z.string().nullish(),
  agent_name: z.string().nullish(),
  model_name: z.string().nullish(),
  task_name: z.string().nullish(),
  task_seed: z.number().int().nullish(),
  max_steps: z.number().int().positive().nullish(),
  goal: z.string().nullish(),
  steps: z.array(agentLabStepSchema),
  /** What the script could not read (a damaged step pickle), for the import report. */
  errors: z.array(z.string()).nullish(),
});

export type AgentLabSteps = z.infer<typeof agentLabStepsSchema>;
export type AgentLabStep = z.infer<typeof agentLabStepSchema>;

/**
 * What a live run is started with: the policy, limits and safety settings. One zod schema serves the dashboard's
 * form (through tRPC), the CLI and the job payloads the worker reads, so all three agree on defaults and bounds.
 */
import { z } from "zod";
import { trajectoryListInput } from "../trajectory-list-input";
import type { DeploymentPlan } from "./deployment";

export const LIVE_RUN_DEFAULTS = {
  /** WebVoyager's step limit. */
  maxSteps: 15,
  concurrency: 2,
  stepTimeoutMs: 120_000,
  runTimeoutMs: 30 * 60_000,
  /** Marked screenshots the VLM policy is shown: the current one and the two before it, as WebVoyager keeps 3. */
  historyScreenshots: 3,
  infraRetries: 2,
  viewport: { width: 1024, height: 768 },
} as const;

export const PRIVATE_NETWORK_REFUSAL =
  "allowPrivateNetwork: a run cannot open the private network; an admin lists the private destinations runs may reach (VERDICT_RUNNER_ALLOWED_DESTINATIONS, host:port) or makes a deployment profile for the sites";

export const BLOCKED_TEXT_SUGGESTIONS = ["Place order", "Delete", "Sign in", "Log in", "Buy now", "Pay", "Unsubscribe"] as const;

export const liveRunSettingsSchema = z.object({
  maxSteps: z.number().int().min(1).max(100).default(LIVE_RUN_DEFAULTS.maxSteps),
  /** Tasks of this run that may run at once, across all workers. */
  concurrency: z.number().int().min(1).max(16).default(LIVE_RUN_DEFAULTS.concurrency),
  stepTimeoutMs: z.number().int().min(1_000).max(600_000).default(LIVE_RUN_DEFAULTS.stepTimeoutMs),
  runTimeoutMs: z
    .number()
    .int()
    .min(5_000)
    .max(6 * 3_600_000)
    .default(LIVE_RUN_DEFAULTS.runTimeoutMs),
  /** Host allowlist (see server/domain/live/safety.ts); empty = each task's start URL host. */
  allowedHosts: z.array(z.string().min(1).max(300)).max(100).default([]),
  /**
   * Earlier versions let a run open the whole private network. Where runs may go inside the network is an admin's
   * decision (VERDICT_RUNNER_ALLOWED_DESTINATIONS, deployment profiles; see EgressRules in ./safety.ts), so asking
   * for it is refused with what to do instead.
   */
  allowPrivateNetwork: z
    .boolean()
    .optional()
    .refine((v) => v !== true, PRIVATE_NETWORK_REFUSAL)
    .transform(() => undefined),
  /** Element texts the agent may not click or type into ("Place order", "Delete", …). */
  blockedTexts: z.array(z.string().min(1).max(200)).max(100).default([]),
  allowDownloads: z.boolean().default(false),
  viewport: z.object({ width: z.number().int().min(320).max(3840), height: z.number().int().min(240).max(2160) }).default({ ...LIVE_RUN_DEFAULTS.viewport }),
  historyScreenshots: z.number().int().min(1).max(10).default(LIVE_RUN_DEFAULTS.historyScreenshots),
  /**
   * A lab's deployment of the benchmark sites (admin-made, server/domain/live/deployment.ts): its placeholders are
   * substituted in the tasks, its sites' logins and resets are done, and its hosts are the only private ones allowed.
   */
  deploymentProfileId: z.number().int().positive().nullable().default(null),
  /** Times a task is tried again when the infrastructure failed (reset, login, a browser crash before step 0). */
  infraRetries: z.number().int().min(0).max(5).default(LIVE_RUN_DEFAULTS.infraRetries),
  /** Keep a HAR (network log) per trajectory. */
  recordHar: z.boolean().default(true),
  /** End a trajectory as `blocked` when the page is a CAPTCHA, a bot check or a consent wall (open-web sets). */
  detectBlocking: z.boolean().default(true),
  /** Tasks of this run that may be on one host at once in a worker (open-web sites throttle); null = no limit. */
  hostConcurrency: z.number().int().min(1).max(16).nullable().default(null),
});

export type LiveRunSettings = z.output<typeof liveRunSettingsSchema>;
export type LiveRunSettingsInput = z.input<typeof liveRunSettingsSchema>;

/**
 * Which policy decides the actions. `scripted` replays actions: the bundled demo scripts (for the demo tasks) or one
 * list given here, replayed on every task. `vlm` asks a model through a judge configuration's endpoint settings.
 */
export const policySpecSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("scripted"),
    source: z.enum(["demo", "actions"]),
    actions: z.array(z.string().min(1).max(2_000)).max(200).default([]),
  }),
  z.object({ kind: z.literal("vlm"), judgeConfigId: z.number().int().positive() }),
]);

export type PolicySpec = z.output<typeof policySpecSchema>;
export type PolicySpecInput = z.input<typeof policySpecSchema>;

/** Splits a pasted action list: one action per line, blank lines and `#` comments ignored. */
export function parseActionLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
}

/** The policy a job replays or asks, after the scripts were resolved per task. */
export type JobPolicy = { kind: "scripted"; label: string; script: { thought?: string; action: string }[] } | { kind: "vlm"; judgeConfigId: number };

/** The payload of one `runner.task` job. */
export interface LiveTaskPayload {
  /** agent_runs.id of the live run. */
  runId: number;
  taskId: number;
  /** Read by the queue's claim: at most this many jobs of the run's group run at once. */
  groupConcurrency: number;
  policy: JobPolicy;
  settings: LiveRunSettings;
  /** The deployment profile's URLs and destinations as they were when the run started (secrets stay in the profile). */
  deployment?: DeploymentPlan | null;
}

/** Most tasks one live run may hold. */
export const MAX_TASKS_PER_RUN = 500;

/** The trajectory list's filters (sort and paging dropped): "the tasks of these trajectories". */
export const trajectoryFilterSchema = trajectoryListInput.omit({ sort: true, dir: true, page: true, pageSize: true });

export const taskSelectionSchema = z.discriminatedUnion("from", [
  /** The bundled demo task set (created on the worker's demo port when missing). */
  z.object({ from: z.literal("demo"), limit: z.number().int().positive().max(MAX_TASKS_PER_RUN).optional() }),
  z.object({ from: z.literal("taskSet"), taskSetId: z.number().int().positive(), limit: z.number().int().positive().max(MAX_TASKS_PER_RUN).optional() }),
  z.object({ from: z.literal("trajectories"), filter: trajectoryFilterSchema, limit: z.number().int().positive().max(MAX_TASKS_PER_RUN).optional() }),
  z.object({ from: z.literal("tasks"), taskIds: z.array(z.number().int().positive()).min(1).max(MAX_TASKS_PER_RUN) }),
]);

export type TaskSelection = z.output<typeof taskSelectionSchema>;

export const liveRunRequestSchema = z.object({
  name: z.string().trim().max(120).optional(),
  tasks: taskSelectionSchema,
  policy: policySpecSchema,
  settings: liveRunSettingsSchema.default(liveRunSettingsSchema.parse({})),
});

export type LiveRunRequest = z.output<typeof liveRunRequestSchema>;
export type LiveRunRequestInput = z.input<typeof liveRunRequestSchema>;

/** The rule evaluator a live run applies on the live page when its task has a VisualWebArena evaluator config. */
export const LIVE_RULES_EVALUATOR_KEY = "rule:vwa:live";
export const LIVE_RULES_EVALUATOR_NAME = "VisualWebArena rules (live page)";

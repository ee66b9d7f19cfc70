/**
 * Verdict's native trajectory bundle, version 1.
 *
 * A bundle is a folder (or a .zip of that folder's contents) holding `manifest.json` and the image files the
 * manifest names, conventionally `images/<sha256>.<ext>`. One bundle carries one or more trajectories with
 * their task and run. Export then import gives the same trajectory with byte-identical images.
 * The JSON Schema published in docs/ is generated from these zod schemas (`npm run cli -- bundle-schema`).
 */
import { z } from "zod";
import { EVALUATOR_KINDS, VERDICT_VALUES } from "../evaluation/verdicts";
import { ACTION_TYPES, OUTCOMES } from "../types";

export const BUNDLE_FORMAT = "verdict.trajectory-bundle";
export const BUNDLE_VERSION = 1;
export const MANIFEST_NAME = "manifest.json";

const bbox = z.tuple([z.number(), z.number(), z.number(), z.number()]);

export const parsedActionSchema: z.ZodType<import("../types").ParsedAction> = z.lazy(() =>
  z.object({
    type: z.enum(ACTION_TYPES),
    target: z.string().nullish(),
    value: z.string().nullish(),
    direction: z.enum(["up", "down", "left", "right"]).nullish(),
    coords: z.tuple([z.number(), z.number()]).nullish(),
    to: z.tuple([z.number(), z.number()]).nullish(),
    delta: z.tuple([z.number(), z.number()]).nullish(),
    submit: z.boolean().optional(),
    calls: z.array(parsedActionSchema).optional(),
    parseError: z.string().optional(),
  }),
);

export const somElementSchema = z.object({
  label: z.string().min(1),
  bbox: bbox.nullable(),
  tag: z.string().nullish(),
  text: z.string().nullish(),
  xpath: z.string().nullish(),
});

/** A relative path inside the bundle: no absolute paths, no `..`, no backslashes. */
export const bundlePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith("/") && !p.includes("\\") && !p.split("/").includes("..") && !/^[a-zA-Z]:/.test(p), {
    message: "must be a relative path inside the bundle (no '..', no leading '/')",
  });

export const bundleImageSchema = z.object({
  file: bundlePath,
  /** sha256 of the file's bytes; checked on import. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
});

export const bundleStepSchema = z.object({
  index: z.number().int().nonnegative(),
  screenshot: bundleImageSchema.nullable(),
  rawScreenshot: bundleImageSchema.nullable().default(null),
  marksBurnedIn: z.boolean().default(false),
  url: z.string().nullable().default(null),
  thought: z.string().nullable().default(null),
  actionRaw: z.string().nullable().default(null),
  action: parsedActionSchema,
  elements: z.array(somElementSchema).nullable().default(null),
  error: z.string().nullable().default(null),
  durationMs: z.number().nonnegative().nullable().default(null),
});

export const bundleTaskSchema = z.object({
  taskSet: z.object({ name: z.string().min(1), benchmark: z.string().min(1), description: z.string().nullish() }),
  externalId: z.string().min(1),
  site: z.string().nullable().default(null),
  intent: z.string().min(1),
  startUrl: z.string().nullable().default(null),
  inputImages: z.array(z.string()).default([]),
  referenceAnswers: z.array(z.object({ kind: z.string(), text: z.string() })).default([]),
  evaluatorConfig: z.unknown().optional(),
  difficulty: z.object({ overall: z.string().nullish(), reasoning: z.string().nullish(), visual: z.string().nullish() }).nullable().default(null),
  tags: z.array(z.string()).default([]),
  extra: z.record(z.string(), z.unknown()).nullable().default(null),
  /** The source's own task fields (a fork's `ques_group`, `lang`…), as text: analytics split views by them. */
  attributes: z.record(z.string(), z.string()).nullish(),
});

export const bundleRunSchema = z.object({
  runKey: z.string().min(1),
  name: z.string().min(1),
  agentName: z.string().min(1),
  model: z.string().nullable().default(null),
  sourceSystem: z.string().min(1),
  config: z.record(z.string(), z.unknown()).nullable().default(null),
});

/**
 * A verdict an evaluator gave the trajectory where the bundle was made. Imported as another system's verdict:
 * under `evaluatorKey` when that is already an `import:` key, else under `import:<evaluator>`; the screenshot window
 * k and prompt version are kept, so a judge's per-k agreement survives the trip.
 */
export const bundleVerdictSchema = z.object({
  /** The key it had where the bundle was made ("judge:3", "rule:vwa", "import:webvoyager:auto_eval"). */
  evaluatorKey: z.string().min(1),
  /** Name shown to people. */
  evaluator: z.string().min(1),
  kind: z.enum(EVALUATOR_KINDS),
  k: z.string().default(""),
  promptVersion: z.string().default(""),
  verdict: z.enum(VERDICT_VALUES),
  score: z.number().nullable().default(null),
  rationale: z.string().nullable().default(null),
  /** The evaluator's reply or source record, as text. */
  raw: z.string().nullable().default(null),
  model: z.string().nullable().default(null),
  /** Steps whose screenshots the evaluator looked at, when it recorded them. */
  stepIndices: z.array(z.number().int().nonnegative()).optional(),
  /** What the evaluator recorded beyond its verdict (key points, per-screenshot scores). */
  details: z.record(z.string(), z.unknown()).optional(),
});

export const bundleTrajectorySchema = z.object({
  task: bundleTaskSchema,
  run: bundleRunSchema,
  attempt: z.number().int().nonnegative().default(0),
  finalAnswer: z.string().nullable().default(null),
  outcome: z.enum(OUTCOMES),
  outcomeDetail: z.string().nullable().default(null),
  steps: z.array(bundleStepSchema),
  verdicts: z.array(bundleVerdictSchema).default([]),
});

export const bundleManifestSchema = z.object({
  format: z.literal(BUNDLE_FORMAT),
  version: z.literal(BUNDLE_VERSION),
  createdAt: z.string().optional(),
  generator: z.string().optional(),
  /** Identity of the database the bundle was exported from (tells its own verdicts apart on a re-import). */
  sourceInstance: z.string().optional(),
  trajectories: z.array(bundleTrajectorySchema).min(1),
});

export type BundleManifest = z.infer<typeof bundleManifestSchema>;
export type BundleTrajectory = z.infer<typeof bundleTrajectorySchema>;
export type BundleStep = z.infer<typeof bundleStepSchema>;
export type BundleImage = z.infer<typeof bundleImageSchema>;
export type BundleVerdict = z.infer<typeof bundleVerdictSchema>;

/** Human-readable list of zod issues: "trajectories[0].steps[2].action.type: Invalid option …". */
export function describeZodIssues(error: z.ZodError, max = 5): string {
  const lines = error.issues.slice(0, max).map((i) => {
    const where = i.path.map((p, n) => (typeof p === "number" ? `[${p}]` : n === 0 ? String(p) : `.${String(p)}`)).join("");
    return `${where || "(root)"}: ${i.message}`;
  });
  if (error.issues.length > max) lines.push(`… and ${error.issues.length - max} more`);
  return lines.join("; ");
}

export function bundleJsonSchema(): unknown {
  return z.toJSONSchema(bundleManifestSchema, { io: "input", unrepresentable: "any" });
}

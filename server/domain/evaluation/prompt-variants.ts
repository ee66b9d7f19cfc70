/**
 * Variants of a judge configuration's prompt, for improving a judge and for testing how fragile it is:
 *
 * - a prompt version made in the alignment loop: the configuration's prompt with its criteria replaced by a rubric
 *   the researcher wrote or accepted, and few-shot examples people judged (server/domain/evaluation/alignment.ts);
 * - a perturbation of what the judge is shown (stress tests): the screenshots in a shuffled order, a random subset
 *   of k of them, the agent's final answer removed, the action history removed.
 *
 * A variant is written as text ("pv12", "shuffle-s7", "subset3-s7", "no-answer", "no-history", or a version with one
 * perturbation: "pv12+shuffle-s7"): it travels in judge batches and their jobs, and the verdicts a variant produces
 * record it in their prompt version ("verdict-judge-v1+pv12"), so they never replace the configuration's own
 * verdicts and every verdict says what the judge was shown. Per-item randomness is seeded by the variant's seed and
 * the trajectory, so a resumed or repeated run shows each trajectory the same screenshots in the same order.
 *
 * Pure: the judge service resolves a version's rubric and examples from the database and applies them here.
 */
import { ValidationError } from "../../errors";
import { createRng } from "../agreement/random";
import { streamSeed } from "../sampling";
import { buildJudgePrompt, type JudgeInput, type JudgePrompt, type JudgePromptVersion, type PromptPart } from "./judge-protocol";
import type { JudgeK, JudgeOptions } from "./verdicts";

export const PERTURBATION_KINDS = ["shuffle", "subset", "no-answer", "no-history"] as const;
export type PerturbationKind = (typeof PERTURBATION_KINDS)[number];

export type Perturbation = { kind: "shuffle"; seed: number } | { kind: "subset"; k: number; seed: number } | { kind: "no-answer" } | { kind: "no-history" };

export interface JudgeVariant {
  /** A stored prompt version (judge_prompt_versions.id); absent = the configuration's own prompt. */
  promptVersionId?: number;
  perturbation?: Perturbation;
}

export class VariantError extends ValidationError {
  constructor(message: string) {
    super(message);
    this.name = "VariantError";
  }
}

export const PERTURBATION_LABELS: Record<PerturbationKind, string> = {
  shuffle: "screenshots shuffled",
  subset: "random subset of k screenshots",
  "no-answer": "final answer removed",
  "no-history": "action history removed",
};

function perturbationText(p: Perturbation): string {
  switch (p.kind) {
    case "shuffle":
      return `shuffle-s${p.seed}`;
    case "subset":
      return `subset${p.k}-s${p.seed}`;
    default:
      return p.kind;
  }
}

/** The variant as text ("" for the configuration's own prompt, unchanged). */
export function formatVariant(v: JudgeVariant): string {
  const parts: string[] = [];
  if (v.promptVersionId !== undefined) parts.push(`pv${v.promptVersionId}`);
  if (v.perturbation) parts.push(perturbationText(v.perturbation));
  return parts.join("+");
}

const MAX_SEED = 4_294_967_295;

function checkSeed(seed: number, text: string): number {
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED)
    throw new VariantError(`variant ${JSON.stringify(text)}: the seed must be a whole number from 0 to ${MAX_SEED}`);
  return seed;
}

/** Parses variant text strictly; throws VariantError naming what is wrong. "" is the configuration's own prompt. */
export function parseVariant(text: string): JudgeVariant {
  if (text === "") return {};
  const out: JudgeVariant = {};
  for (const token of text.split("+")) {
    let m: RegExpExecArray | null;
    if ((m = /^pv(\d{1,12})$/.exec(token))) {
      if (out.promptVersionId !== undefined || out.perturbation)
        throw new VariantError(`variant ${JSON.stringify(text)}: a prompt version comes first and once`);
      out.promptVersionId = Number(m[1]);
      continue;
    }
    if (out.perturbation) throw new VariantError(`variant ${JSON.stringify(text)}: one perturbation at a time`);
    if ((m = /^shuffle-s(\d{1,10})$/.exec(token))) out.perturbation = { kind: "shuffle", seed: checkSeed(Number(m[1]), text) };
    else if ((m = /^subset(\d{1,4})-s(\d{1,10})$/.exec(token))) {
      const k = Number(m[1]);
      if (k < 1) throw new VariantError(`variant ${JSON.stringify(text)}: a subset keeps at least 1 screenshot`);
      out.perturbation = { kind: "subset", k, seed: checkSeed(Number(m[2]), text) };
    } else if (token === "no-answer" || token === "no-history") out.perturbation = { kind: token };
    else
      throw new VariantError(
        `variant ${JSON.stringify(text)}: ${JSON.stringify(token)} is not a prompt version (pvN) or a perturbation (shuffle-sN, subsetK-sN, no-answer, no-history)`,
      );
  }
  return out;
}

/**
 * Why a perturbation changes nothing for a configuration with these options (so a stress test must not spend calls
 * on it), or null when it applies.
 */
export function perturbationInapplicable(p: Perturbation, options: JudgeOptions, staged = false): string | null {
  if (p.kind === "no-answer" && options.withoutFinalAnswer) return "the configuration already leaves the final answer out";
  // The staged protocols (key points, rubric) always show the action history, whatever the option says.
  if (p.kind === "no-history" && !options.includeActionHistory && !staged) return "the configuration does not show the action history";
  return null;
}

/** The options a judge is asked with under a variant: the answer or the history left out when perturbed so. */
export function variantOptions(options: JudgeOptions, v: JudgeVariant): JudgeOptions {
  const p = v.perturbation;
  if (p?.kind === "no-answer") return { ...options, withoutFinalAnswer: true };
  if (p?.kind === "no-history") return { ...options, includeActionHistory: false, includeThoughts: false };
  return options;
}

/** The screenshot window the prompt is built with: a random subset draws from all screenshots. */
export function variantWindow(k: JudgeK, v: JudgeVariant): JudgeK {
  return v.perturbation?.kind === "subset" ? "full" : k;
}

/**
 * What a variant adds to the prompt version its verdicts record. The answer left out is already said by the
 * configuration's own "+no-answer"; everything else is named here.
 */
export function variantSuffix(v: JudgeVariant): string {
  const tokens: string[] = [];
  if (v.promptVersionId !== undefined) tokens.push(`pv${v.promptVersionId}`);
  if (v.perturbation && v.perturbation.kind !== "no-answer") tokens.push(perturbationText(v.perturbation));
  return tokens.map((t) => `+${t}`).join("");
}

// ---- screenshots: shuffled order and random subsets ----

/** An image part with its caption ("Step 3 of 9 (page: …):") when the text part just before it is one. */
interface ShotUnit {
  parts: PromptPart[];
  stepIndex: number;
}

function shotUnits(parts: PromptPart[]): { before: PromptPart[]; units: ShotUnit[]; after: PromptPart[] } | null {
  const imageAt = parts.flatMap((p, i) => (p.type === "image" ? [i] : []));
  if (imageAt.length === 0) return null;
  const units: ShotUnit[] = [];
  let start = -1;
  let end = -1;
  for (const i of imageAt) {
    // A caption is the text right before an image, unless that text is the prompt's opening (the task and answer).
    const captioned = i > 1 && parts[i - 1]!.type === "text" && (units.length === 0 || i - 1 > end);
    const first = captioned ? i - 1 : i;
    if (start < 0) start = first;
    if (units.length > 0 && first !== end + 1) return null; // text between screenshots: not a plain run of screenshots
    units.push({ parts: parts.slice(first, i + 1), stepIndex: (parts[i] as { stepIndex: number }).stepIndex });
    end = i;
  }
  return { before: parts.slice(0, start), units, after: parts.slice(end + 1) };
}

/** A generator for one trajectory under a variant's seed: the same pair always draws the same numbers. */
function itemRng(seed: number, trajectoryId: number) {
  return createRng(streamSeed(seed, `trajectory:${trajectoryId}`));
}

function shuffle<T>(items: T[], rng: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const WINDOW_LINE = /\nScreenshots of (all \d+ recorded steps|the last \d+ steps \(of \d+\)), oldest first:$/;

/**
 * The prompt with its screenshots perturbed: shuffled (each screenshot keeps its caption, so the step numbers it
 * is shown with stay true; only the order changes), or `k` of them drawn at random and kept in their order (the
 * line announcing the screenshots says so). Other perturbations change the options, not the screenshots.
 * `stepIndices` follows the order the screenshots are sent in.
 */
export function perturbScreenshots<P extends Pick<JudgePrompt, "parts" | "stepIndices">>(prompt: P, p: Perturbation | undefined, trajectoryId: number): P {
  if (!p || (p.kind !== "shuffle" && p.kind !== "subset")) return prompt;
  const split = shotUnits(prompt.parts);
  if (!split || split.units.length < 2) return prompt;
  const rng = itemRng(p.seed, trajectoryId);
  let units: ShotUnit[];
  let before = split.before;
  if (p.kind === "shuffle") units = shuffle(split.units, rng);
  else {
    if (p.k >= split.units.length) return prompt;
    const keep = new Set(
      shuffle(
        split.units.map((_, i) => i),
        rng,
      ).slice(0, p.k),
    );
    units = split.units.filter((_, i) => keep.has(i));
    const total = split.units.length;
    before = before.map((part, i) =>
      i === before.length - 1 && part.type === "text"
        ? { type: "text", text: part.text.replace(WINDOW_LINE, `\nScreenshots of ${p.k} of the ${total} recorded steps, chosen at random, oldest first:`) }
        : part,
    );
  }
  return {
    ...prompt,
    parts: [...before, ...units.flatMap((u) => u.parts), ...split.after],
    stepIndices: units.map((u) => u.stepIndex),
  };
}

/**
 * The steps a random subset keeps, in their order (the staged protocols pick them before asking: the key-point
 * protocol scores only these screenshots, the rubric grades with only these). Other perturbations keep every step.
 */
export function subsetOfSteps(stepIndices: number[], p: Perturbation | undefined, trajectoryId: number): number[] {
  if (p?.kind !== "subset" || p.k >= stepIndices.length) return stepIndices;
  const keep = new Set(
    shuffle(
      stepIndices.map((_, i) => i),
      itemRng(p.seed, trajectoryId),
    ).slice(0, p.k),
  );
  return stepIndices.filter((_, i) => keep.has(i));
}

// ---- prompt versions: a rubric and few-shot examples ----

/** A trajectory people judged, shown to the judge as a worked example. */
export interface FewShotExample {
  trajectoryId: number;
  taskId: number;
  /** The benchmark's task id, as people know the task. */
  taskExternalId: string;
  intent: string;
  finalAnswer: string | null;
  /** The consolidated human verdict. */
  humanVerdict: "success" | "failure";
  /** What the annotators and the adjudicator wrote about it (may be empty). */
  humanNotes: string[];
  /** What the judge said before (the disagreement the example comes from), when known. */
  judgeVerdict?: string | null;
}

export interface PromptVersionContent {
  /** Criteria replacing the protocol's own (bulleted lines); null keeps the protocol's. */
  rubric: string | null;
  examples: FewShotExample[];
}

const MAX_EXAMPLE_TEXT = 600;

function clip(text: string, max = MAX_EXAMPLE_TEXT): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/**
 * The criteria of a system prompt: its first run of lines that are bullets ("- …") or their indented
 * continuations. Null when the prompt has none.
 */
export function criteriaBlock(system: string): { start: number; end: number; text: string } | null {
  const lines = system.split("\n");
  let first = -1;
  let last = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^- /.test(line)) {
      if (first < 0) first = i;
      last = i;
    } else if (first >= 0 && /^ {2,}\S/.test(line)) last = i;
    else if (first >= 0) break;
  }
  if (first < 0) return null;
  const start = lines.slice(0, first).join("\n").length + (first > 0 ? 1 : 0);
  const text = lines.slice(first, last + 1).join("\n");
  return { start, end: start + text.length, text };
}

/** Rubric text as criteria lines: every non-empty line a bullet ("- "), continuation lines kept as written. */
export function normaliseRubric(rubric: string): string {
  return rubric
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((l) => l.replace(/\s+$/, ""))
    .filter((l) => l.trim() !== "")
    .map((l) => (/^ {2,}\S/.test(l) || /^- /.test(l) ? l : `- ${l.replace(/^[-*•]\s*/, "")}`))
    .join("\n");
}

function renderExamples(examples: FewShotExample[]): string {
  const lines = ["", "Examples people judged. Their verdict is the right one; a judge had got them wrong. Apply the same standard:"];
  // Each example in its own tags, so that a model tells the examples apart from the case it is asked about.
  for (const e of examples) {
    lines.push("<example>", `Task: ${clip(e.intent)}`);
    lines.push(`Final answer reported by the agent: ${e.finalAnswer && e.finalAnswer.trim() ? clip(e.finalAnswer) : "(none)"}`);
    lines.push(`Human verdict: ${e.humanVerdict === "success" ? "SUCCESS" : "FAILURE"}`);
    const notes = e.humanNotes.map((n) => clip(n, 300)).filter(Boolean);
    if (notes.length) lines.push(`Why: ${notes.join(" / ")}`);
    lines.push("</example>");
  }
  return `\n${lines.join("\n")}`;
}

/**
 * The system prompt of a version: its rubric in place of the protocol's criteria (appended as the criteria when
 * the protocol has no bulleted ones), then its examples right after the criteria.
 */
export function applyPromptVersion(system: string, version: PromptVersionContent): string {
  const block = criteriaBlock(system);
  const rubric = version.rubric !== null ? normaliseRubric(version.rubric) : null;
  const examples = version.examples.length ? renderExamples(version.examples) : "";
  if (!block) return `${system}${rubric ? `\n\nCriteria:\n${rubric}` : ""}${examples}`;
  const criteria = rubric ?? block.text;
  return system.slice(0, block.start) + criteria + examples + system.slice(block.end);
}

// ---- the prompt of a variant ----

/**
 * The prompt a judge is sent under a variant: built with the variant's options (answer or history left out) and
 * window (a random subset draws from every screenshot), its version's rubric and examples in the system prompt,
 * and its screenshots perturbed for this trajectory.
 */
export function buildVariantPrompt(
  input: JudgeInput,
  k: JudgeK,
  variant: JudgeVariant,
  options: JudgeOptions,
  version: PromptVersionContent | null,
  protocolVersion: JudgePromptVersion,
  trajectoryId: number,
): JudgePrompt {
  const base = buildJudgePrompt(input, variantWindow(k, variant), variantOptions(options, variant), protocolVersion);
  const versioned = version ? { ...base, system: applyPromptVersion(base.system, version) } : base;
  return perturbScreenshots(versioned, variant.perturbation, trajectoryId);
}

/**
 * The alignment loop's pure parts: the calibration / held-out split of a labelled campaign, the leakage guard
 * that keeps held-out tasks out of few-shot examples, the request asking the judge model to propose a rubric from
 * its disagreements with people (and the reading of its reply), and line diffs between prompt versions.
 *
 * Split: only items with a consolidated success or failure take part. The held-out part is a seeded sample
 * stratified by (human label, site) — each stratum gives its proportional share (server/domain/sampling.ts), so
 * both parts keep the campaign's balance of successes and failures on every site — and the calibration part is the
 * rest. The same items, share and seed always give the same split, whatever order the items were read in.
 *
 * Leakage: an example may not be a held-out item, share its task with a held-out item, or have a near-duplicate
 * task. Intents are normalised (Unicode NFKD without accents, lower case, anything but letters and digits one
 * space) and compared by the Dice coefficient of their character trigrams (the text padded with a space at each
 * end): 2·|A ∩ B| / (|A| + |B|). Near-duplicates have NEAR_DUPLICATE_SIMILARITY (0.8) or more. Rewordings of one
 * task reach it ("with more than 100 reviews" / "with over 100 reviews": 0.86; "the cart" / "the shopping cart":
 * 0.83); templated tasks about another entity mostly stay below ("vegetarian lasagna" / "chocolate cake": 0.67).
 * The guard errs on the side of refusing: the researcher picks another example.
 */
import { ValidationError } from "../../errors";
import { seededSample } from "../sampling";
import type { FewShotExample } from "./prompt-variants";

export const HUMAN_VERDICTS = ["success", "failure"] as const;
export type HumanVerdict = (typeof HUMAN_VERDICTS)[number];

export interface SplitCandidate {
  trajectoryId: number;
  human: HumanVerdict;
  site: string | null;
}

export interface SplitStratum {
  human: HumanVerdict;
  site: string | null;
  items: number;
  calibration: number;
  heldOut: number;
}

export interface AlignmentSplit {
  calibration: number[];
  heldOut: number[];
  strata: SplitStratum[];
}

export class AlignmentInputError extends ValidationError {
  constructor(message: string) {
    super(message);
    this.name = "AlignmentInputError";
  }
}

function stratumKey(c: Pick<SplitCandidate, "human" | "site">): string {
  // The label first: sites are grouped within a label. A missing site is its own stratum, never merged with "".
  return `${c.human}\u0000${c.site ?? "\u0001none"}`;
}

/** Splits labelled items into calibration and held-out parts; `heldOutShare` of the items (rounded) are held out. */
export function splitForAlignment(candidates: readonly SplitCandidate[], heldOutShare: number, seed: number): AlignmentSplit {
  if (!(heldOutShare > 0 && heldOutShare < 1)) throw new AlignmentInputError(`held-out share: a number between 0 and 1 (exclusive), got ${heldOutShare}`);
  if (!Number.isInteger(seed) || seed < 0 || seed > 4_294_967_295) throw new AlignmentInputError(`seed: a whole number from 0 to 4294967295, got ${seed}`);
  const byId = new Map<number, SplitCandidate>();
  for (const c of candidates) {
    const seen = byId.get(c.trajectoryId);
    if (seen && (seen.human !== c.human || seen.site !== c.site))
      throw new AlignmentInputError(`trajectory ${c.trajectoryId} appears twice with different labels or sites`);
    byId.set(c.trajectoryId, c);
  }
  const items = [...byId.values()];
  if (items.length < 2) throw new AlignmentInputError(`a split needs at least 2 labelled items (success or failure), got ${items.length}`);
  const want = Math.min(items.length - 1, Math.max(1, Math.round(items.length * heldOutShare)));
  const held = new Set(
    seededSample(
      items.map((c) => ({ id: c.trajectoryId, stratum: stratumKey(c) })),
      want,
      seed,
      { stratified: true },
    ),
  );
  const strata = new Map<string, SplitStratum>();
  for (const c of items) {
    const key = stratumKey(c);
    const s = strata.get(key) ?? { human: c.human, site: c.site, items: 0, calibration: 0, heldOut: 0 };
    s.items++;
    if (held.has(c.trajectoryId)) s.heldOut++;
    else s.calibration++;
    strata.set(key, s);
  }
  const ids = items.map((c) => c.trajectoryId).sort((a, b) => a - b);
  return {
    calibration: ids.filter((id) => !held.has(id)),
    heldOut: ids.filter((id) => held.has(id)),
    strata: [...strata.values()].sort((a, b) =>
      a.human !== b.human ? (a.human === "success" ? -1 : 1) : (a.site ?? "\uffff").localeCompare(b.site ?? "\uffff"),
    ),
  };
}

// ---- leakage ----

/** Character-trigram Dice similarity at or above which two tasks' intents are near-duplicates. */
export const NEAR_DUPLICATE_SIMILARITY = 0.8;

export function normaliseIntent(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** The character trigrams of the normalised intent, padded with a space at each end. */
function trigrams(text: string): Set<string> {
  const padded = ` ${normaliseIntent(text)} `;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  return out;
}

function dice(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let common = 0;
  for (const g of a) if (b.has(g)) common++;
  return (2 * common) / (a.size + b.size);
}

/** Dice coefficient of the normalised intents' character trigrams: 1 for the same text, 0 for nothing in common. */
export function intentSimilarity(a: string, b: string): number {
  return dice(trigrams(a), trigrams(b));
}

export interface TaskRef {
  trajectoryId: number;
  taskId: number;
  taskExternalId: string;
  intent: string;
}

export interface Leak {
  example: TaskRef;
  heldOut: TaskRef;
  reason: "held-out item" | "same task" | "near-duplicate task";
  /** Intent similarity for near-duplicates. */
  similarity: number | null;
}

/** Every example that would show the judge a held-out task (at most one finding per example: the strongest). */
export function findLeaks(examples: readonly TaskRef[], heldOut: readonly TaskRef[]): Leak[] {
  const leaks: Leak[] = [];
  const heldSets = heldOut.map((h) => ({ ref: h, grams: trigrams(h.intent) }));
  for (const e of examples) {
    const same = heldOut.find((h) => h.trajectoryId === e.trajectoryId);
    if (same) {
      leaks.push({ example: e, heldOut: same, reason: "held-out item", similarity: null });
      continue;
    }
    const task = heldOut.find((h) => h.taskId === e.taskId);
    if (task) {
      leaks.push({ example: e, heldOut: task, reason: "same task", similarity: null });
      continue;
    }
    const grams = trigrams(e.intent);
    let best: { ref: TaskRef; similarity: number } | null = null;
    for (const h of heldSets) {
      const similarity = dice(grams, h.grams);
      if (similarity >= NEAR_DUPLICATE_SIMILARITY && (!best || similarity > best.similarity)) best = { ref: h.ref, similarity };
    }
    if (best) leaks.push({ example: e, heldOut: best.ref, reason: "near-duplicate task", similarity: best.similarity });
  }
  return leaks;
}

/** One sentence per leak, naming the example's task and the held-out task it collides with. */
export function describeLeak(l: Leak): string {
  const ex = `example trajectory ${l.example.trajectoryId} (task ${JSON.stringify(l.example.taskExternalId)})`;
  switch (l.reason) {
    case "held-out item":
      return `${ex} is itself in the held-out part`;
    case "same task":
      return `${ex}: its task ${JSON.stringify(l.heldOut.taskExternalId)} is in the held-out part (trajectory ${l.heldOut.trajectoryId})`;
    default:
      return (
        `${ex}: its intent is a near-duplicate (similarity ${l.similarity!.toFixed(2)} ≥ ${NEAR_DUPLICATE_SIMILARITY}) of held-out task ` +
        `${JSON.stringify(l.heldOut.taskExternalId)} (trajectory ${l.heldOut.trajectoryId}): ${JSON.stringify(l.heldOut.intent)}`
      );
  }
}

// ---- the judge model's own rubric suggestion ----

/** A calibration item where the judge and people disagree, as the judge model is shown it. */
export interface Disagreement extends FewShotExample {
  judgeVerdict: string;
  judgeRationale: string | null;
}

export const RUBRIC_SUGGESTION_MARKER = "Revised criteria:";
/** Disagreements a suggestion request shows at most (the rest are counted). */
export const MAX_SUGGESTION_CASES = 40;

function clip(text: string, max: number): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** The chat messages asking the judge model to propose criteria that would settle its disagreements with people. */
export function rubricSuggestionMessages(currentCriteria: string, cases: readonly Disagreement[]): { system: string; user: string } {
  const system = [
    "You help researchers improve an automatic judge of web-browsing agents. The judge reads a task, the agent's final",
    "answer and screenshots, and decides whether the agent accomplished the task, following a list of criteria.",
    "People checked some of its verdicts and disagreed. Propose revised criteria that would make the judge decide these",
    "cases as people did, without fitting them one by one: state general rules a careful grader would follow.",
    "",
    `Answer with a line "${RUBRIC_SUGGESTION_MARKER}" followed by the full revised list of criteria, one per line, each`,
    'starting with "- ". Write nothing after the list.',
  ].join("\n");
  const shown = cases.slice(0, MAX_SUGGESTION_CASES);
  const lines = ["The judge's current criteria:", currentCriteria.trim(), "", `Cases where people disagreed with the judge (${cases.length}):`];
  shown.forEach((c, i) => {
    lines.push("", `Case ${i + 1}`, `Task: ${clip(c.intent, 600)}`);
    lines.push(`Final answer reported by the agent: ${c.finalAnswer && c.finalAnswer.trim() ? clip(c.finalAnswer, 600) : "(none)"}`);
    lines.push(`The judge said: ${c.judgeVerdict.toUpperCase()}${c.judgeRationale ? ` because: ${clip(c.judgeRationale, 600)}` : ""}`);
    lines.push(`People said: ${c.humanVerdict.toUpperCase()}`);
    const notes = c.humanNotes.map((n) => clip(n, 300)).filter(Boolean);
    if (notes.length) lines.push(`People's notes: ${notes.join(" / ")}`);
  });
  if (cases.length > shown.length) lines.push("", `(${cases.length - shown.length} more cases not shown.)`);
  return { system, user: lines.join("\n") };
}

export interface RubricSuggestion {
  /** The proposed criteria, ready to be edited and saved as a rubric. */
  rubric: string;
  /** Set when the reply was not in the asked form; the researcher sees the reply as it came. */
  warning: string | null;
}

/** Reads the criteria out of the judge model's reply; a reply without the marker is kept whole, with a warning. */
export function parseRubricSuggestion(reply: string | null | undefined): RubricSuggestion {
  const text = (reply ?? "").replace(/\r\n?/g, "\n").trim();
  if (!text) throw new AlignmentInputError("the judge model's reply was empty: no rubric to propose");
  const at = text.toLowerCase().lastIndexOf(RUBRIC_SUGGESTION_MARKER.toLowerCase());
  if (at < 0) return { rubric: text, warning: `the reply has no "${RUBRIC_SUGGESTION_MARKER}" line; it is shown whole` };
  const rubric = text.slice(at + RUBRIC_SUGGESTION_MARKER.length).trim();
  if (!rubric) throw new AlignmentInputError(`the judge model's reply has "${RUBRIC_SUGGESTION_MARKER}" but no criteria after it`);
  return { rubric, warning: null };
}

// ---- line diffs between prompt versions ----

export interface DiffLine {
  op: "same" | "added" | "removed";
  text: string;
}

/** A line diff (longest common subsequence) from `a` to `b`. Prompts are short, so the quadratic table is fine. */
export function diffLines(a: string, b: string): DiffLine[] {
  const x = a.split("\n");
  const y = b.split("\n");
  const n = x.length;
  const m = y.length;
  const lcs = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[at(i, j)] = x[i] === y[j] ? lcs[at(i + 1, j + 1)]! + 1 : Math.max(lcs[at(i + 1, j)]!, lcs[at(i, j + 1)]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      out.push({ op: "same", text: x[i]! });
      i++;
      j++;
    } else if (lcs[at(i + 1, j)]! >= lcs[at(i, j + 1)]!) out.push({ op: "removed", text: x[i++]! });
    else out.push({ op: "added", text: y[j++]! });
  }
  while (i < n) out.push({ op: "removed", text: x[i++]! });
  while (j < m) out.push({ op: "added", text: y[j++]! });
  return out;
}

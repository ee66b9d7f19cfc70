/**
 * The human reference a judge is measured against. Verdict consolidates a campaign's labels into one per trajectory
 * (adjudicated, or agreed), but a study may want another reference: an import consolidates only unanimous items, so
 * "the consolidated label" covers the easy ones; papers usually report the majority of their annotators on every
 * item; and each annotator alone shows how far the judge is from one careful human.
 *
 * - consolidated: the campaign's consolidated label (of the chosen campaign, else each trajectory's latest);
 * - majority: the majority of the annotators' success/failure labels on the trajectory ("unsure" is not a vote).
 *   A tie (1–1, 2–2 …) has no majority: the trajectory is counted apart as a tie, never broken by a guess. With
 *   only unsure labels the reference is unsure. A failure majority's error category is the most frequent category
 *   among its failure labels, when one is more frequent than every other;
 * - annotator:NAME: that annotator's own label (name as shown in Verdict, or the annotator key).
 *
 * No zod here (its schema is selection.ts's referenceSpecSchema): the analytics pages' filters run this in the browser.
 */
import { ValidationError } from "../../errors";

export type ReferenceSpec = { kind: "consolidated" } | { kind: "majority" } | { kind: "annotator"; annotator: string };

export const CONSOLIDATED: ReferenceSpec = { kind: "consolidated" };

export class ReferenceSpecError extends ValidationError {
  constructor(message: string) {
    super(message);
    this.name = "ReferenceSpecError";
  }
}

/** `consolidated`, `majority` or `annotator:NAME`, as the CLI's --reference and the pages' `ref` parameter write it. */
export function parseReferenceSpec(text: string): ReferenceSpec {
  const t = text.trim();
  if (t === "consolidated" || t === "") return CONSOLIDATED;
  if (t === "majority") return { kind: "majority" };
  if (t.startsWith("annotator:") && t.slice(10).trim()) return { kind: "annotator", annotator: t.slice(10).trim() };
  throw new ReferenceSpecError(`the reference must be consolidated, majority or annotator:NAME, not ${JSON.stringify(text)}`);
}

export function formatReferenceSpec(spec: ReferenceSpec): string {
  return spec.kind === "annotator" ? `annotator:${spec.annotator}` : spec.kind;
}

/** In words, for headings: "the consolidated label", "the majority of the annotators", "Ann's labels". */
export function describeReference(spec: ReferenceSpec, annotatorName?: string): string {
  if (spec.kind === "consolidated") return "the consolidated label";
  if (spec.kind === "majority") return "the majority of the annotators";
  return `${annotatorName ?? spec.annotator}'s labels`;
}

export type MajorityOutcome = "success" | "failure" | "tie" | "unsure" | null;

/** The majority of one trajectory's labels: success/failure by strict majority, a tie, unsure (only unsure labels) or none. */
export function majorityOutcome(successes: number, failures: number, unsure: number): MajorityOutcome {
  if (successes > failures) return "success";
  if (failures > successes) return "failure";
  if (successes > 0) return "tie";
  return unsure > 0 ? "unsure" : null;
}

/** The most frequent of the counted values (index), or -1 when none or when the most frequent is tied. */
export function plurality(counts: ArrayLike<number>): number {
  let best = -1;
  let bestCount = 0;
  let tied = false;
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i]!;
    if (c > bestCount) {
      best = i;
      bestCount = c;
      tied = false;
    } else if (c === bestCount && c > 0) tied = true;
  }
  return tied ? -1 : best;
}

/**
 * What an adjudicator (or QA reviewer) records beside a decision: how sure they are and why the annotators
 * disagreed. Zod-free, so the labelling surface (label-fields.tsx), which the labelling page loads, does not carry the
 * label schema's zod with it (./protocols.ts re-exports these for the server).
 */
/** How sure the adjudicator (or QA reviewer) is of the decision. */
export const DECISION_CONFIDENCES = ["low", "medium", "high"] as const;
export type DecisionConfidence = (typeof DECISION_CONFIDENCES)[number];

/** Why the annotators disagreed (or why QA corrected them), tallied to improve guidelines and training. */
export const DISAGREEMENT_SOURCES = ["guideline_gap", "ambiguous_task", "annotator_error", "edge_case"] as const;
export type DisagreementSource = (typeof DISAGREEMENT_SOURCES)[number];

export const DISAGREEMENT_SOURCE_NAMES: Record<DisagreementSource, string> = {
  guideline_gap: "guideline gap",
  ambiguous_task: "ambiguous task",
  annotator_error: "annotator error",
  edge_case: "edge case",
};

export function parseConfidence(v: unknown, field = "confidence"): DecisionConfidence {
  if (typeof v === "string" && (DECISION_CONFIDENCES as readonly string[]).includes(v)) return v as DecisionConfidence;
  throw new Error(`${field}: one of ${DECISION_CONFIDENCES.join(", ")}, got ${JSON.stringify(v)}`);
}

export function parseDisagreementSource(v: unknown, field = "disagreementSource"): DisagreementSource {
  if (typeof v === "string" && (DISAGREEMENT_SOURCES as readonly string[]).includes(v)) return v as DisagreementSource;
  throw new Error(`${field}: one of ${DISAGREEMENT_SOURCES.join(", ")}, got ${JSON.stringify(v)}`);
}

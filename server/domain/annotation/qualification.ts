/**
 * Where an annotator stands in a campaign's qualification phase (server/services/annotation/qualification.ts):
 * "off" without one, "in_progress" until every qualification item is answered, then "passed" or "failed" by the
 * share of right answers against the campaign's threshold.
 */
export type QualificationStatus = "off" | "in_progress" | "passed" | "failed";

export interface QualificationStanding {
  status: QualificationStatus;
  items: number;
  answered: number;
  correct: number;
  passAt: number | null;
}

/** Right answers needed to pass: a share compared in whole answers, so that 0.8 of 5 items is 4, not a float a hair above it. */
export function rightAnswersToPass(passAt: number, items: number): number {
  return Math.ceil(passAt * items - 1e-9);
}

export function qualificationStanding(items: number, answered: number, correct: number, passAt: number | null): QualificationStanding {
  if (passAt === null || items === 0) return { status: "off", items, answered, correct, passAt };
  if (answered < items) return { status: "in_progress", items, answered, correct, passAt };
  return { status: correct >= rightAnswersToPass(passAt, items) ? "passed" : "failed", items, answered, correct, passAt };
}

/** Whether an annotator's labels count in the campaign's statistics. */
export function labelsCount(s: QualificationStanding): boolean {
  return s.status === "off" || s.status === "passed";
}

/** Each annotator's standing from their answers on the qualification items (only annotators who answered any). */
export function qualificationStandingsOf(
  items: ReadonlySet<number>,
  answers: readonly { annotatorKey: string; annotatorName: string; itemId: number; correct: boolean }[],
  passAt: number | null,
): Map<string, QualificationStanding & { name: string }> {
  const by = new Map<string, { name: string; answered: number; correct: number }>();
  for (const a of answers) {
    if (!items.has(a.itemId)) continue;
    const e = by.get(a.annotatorKey) ?? { name: a.annotatorName, answered: 0, correct: 0 };
    e.answered++;
    if (a.correct) e.correct++;
    by.set(a.annotatorKey, e);
  }
  return new Map([...by].map(([key, e]) => [key, { name: e.name, ...qualificationStanding(items.size, e.answered, e.correct, passAt) }]));
}

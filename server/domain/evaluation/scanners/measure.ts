/**
 * How far a scanner can be trusted: its precision and recall against people's labels, with Wilson 95% intervals
 * (../../agreement/proportion.ts).
 *
 * - Per trajectory: among the trajectories that were scanned and that people labelled in a campaign offering the
 *   scanner's error category, a trajectory is positive when a consolidated label gave it that category, and the
 *   scanner "fired" when it matched any step (trajectoryLabelOf).
 *   Precision = fired and positive / fired; recall = fired and positive / positive.
 * - Per step, where people marked steps (a per-step question of the campaign offering the category as an answer):
 *   every step of such a trajectory is one item, positive when someone chose the category for that step.
 *
 * Below MIN_LABELLED items or MIN_POSITIVES positives the figures are shown with the state "not enough labels":
 * an interval over three trajectories says little, and the page says so rather than show a bare percentage.
 */
import { wilsonInterval, type ProportionInterval } from "../../agreement/proportion";
import type { LabelAnswers, Question } from "../../annotation/questions";

export const MIN_LABELLED = 10;
export const MIN_POSITIVES = 3;

export interface MeasuredItem {
  fired: boolean;
  positive: boolean;
}

export interface ScannerMeasure {
  /** Items (trajectories or steps) both scanned and labelled. */
  n: number;
  positives: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  trueNegatives: number;
  precision: ProportionInterval;
  recall: ProportionInterval;
  /** False while the labels are too few to judge the scanner by (MIN_LABELLED, MIN_POSITIVES). */
  enough: boolean;
}

export function measureScanner(items: readonly MeasuredItem[]): ScannerMeasure {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (const it of items) {
    if (it.fired && it.positive) tp++;
    else if (it.fired) fp++;
    else if (it.positive) fn++;
    else tn++;
  }
  const positives = tp + fn;
  return {
    n: items.length,
    positives,
    truePositives: tp,
    falsePositives: fp,
    falseNegatives: fn,
    trueNegatives: tn,
    precision: wilsonInterval(tp, tp + fp),
    recall: wilsonInterval(tp, positives),
    enough: items.length >= MIN_LABELLED && positives >= MIN_POSITIVES,
  };
}

/** Whether a label's category names the scanner's category: compared without case and surrounding spaces. */
export function sameCategory(a: string | null | undefined, b: string): boolean {
  return !!a && a.trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * What one consolidated label says of a trajectory for a category: positive when it names the category, negative
 * when its campaign offered the category and the label is a success or names another category, and nothing (null)
 * otherwise: a campaign that never offered the category could not have named it, and a failure, "unsure" or "not
 * executable" without a category does not say which fault it was.
 */
export function trajectoryLabelOf(label: { verdict: string; category: string | null; offered: readonly string[] }, category: string): boolean | null {
  if (!label.offered.some((o) => sameCategory(o, category))) return null;
  if (sameCategory(label.category, category)) return true;
  return label.verdict === "success" || !!label.category?.trim() ? false : null;
}

/** The page's note when no campaign's label schema offers the category, so there is nothing to measure against. */
export function notAskedNote(category: string): string {
  return `no campaign asks for "${category.trim()}": add it to a campaign's error categories to measure this scanner`;
}

/**
 * What one label says of a trajectory's steps for a category: `labelled` when its campaign asks a per-step choice
 * question that offers the category and the annotator answered it (for some step), and the steps they gave the
 * category. A label whose campaign offers no such question says nothing of the steps.
 */
export function stepLabelsOf(
  questions: readonly Question[] | undefined,
  answers: LabelAnswers | null,
  category: string,
): { labelled: boolean; positiveSteps: Set<number> } {
  const positiveSteps = new Set<number>();
  let labelled = false;
  for (const q of questions ?? []) {
    if (!q.perStep || (q.type !== "single_choice" && q.type !== "multiple_choice")) continue;
    if (!q.options.some((o) => sameCategory(o, category))) continue;
    const answer = answers?.[q.id];
    if (!answer || typeof answer !== "object" || Array.isArray(answer)) continue;
    labelled = true;
    for (const [step, value] of Object.entries(answer)) {
      const values = Array.isArray(value) ? value : [value];
      if (values.some((v) => typeof v === "string" && sameCategory(v, category))) positiveSteps.add(Number(step));
    }
  }
  return { labelled, positiveSteps };
}

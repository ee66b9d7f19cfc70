/**
 * Confusion matrix of a predicted labelling (e.g. an automatic judge) against a reference (e.g. the consolidated
 * human label), and precision / recall / F1 for one chosen positive class:
 *   precision = TP / (TP + FP),  recall = TP / (TP + FN),  F1 = 2TP / (2TP + FP + FN),  accuracy = (TP + TN) / n.
 * Each is null when its denominator is 0 (e.g. precision when nothing was predicted positive).
 * Items where either label is missing are dropped and counted.
 */
import { AgreementInputError, LabelCodec, MISSING, encodeLabels, type Label } from "./labels";

export interface ConfusionMatrix {
  /** Row and column order. */
  categories: string[];
  /** matrix[r][p] = items with reference categories[r] and prediction categories[p]. */
  matrix: number[][];
  n: number;
  missingPairs: number;
}

export interface BinaryMetrics {
  positive: string;
  truePositive: number;
  falsePositive: number;
  falseNegative: number;
  trueNegative: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
  accuracy: number | null;
}

export function confusionMatrix(reference: readonly Label[], predicted: readonly Label[], categories?: readonly string[]): ConfusionMatrix {
  if (!Array.isArray(reference) || !Array.isArray(predicted)) throw new AgreementInputError("reference and predicted labels must be arrays");
  if (reference.length !== predicted.length)
    throw new AgreementInputError(`reference and predicted labels differ in length (${reference.length} vs ${predicted.length})`);
  const codec = new LabelCodec(categories, { frozen: categories !== undefined });
  const ref = encodeLabels(reference, codec, "reference");
  const pred = encodeLabels(predicted, codec, "predicted");
  const k = codec.size;
  const matrix = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  let n = 0;
  for (let i = 0; i < ref.length; i++) {
    const r = ref[i]!;
    const p = pred[i]!;
    if (r === MISSING || p === MISSING) continue;
    matrix[r]![p]!++;
    n++;
  }
  return { categories: codec.labels.slice(), matrix, n, missingPairs: ref.length - n };
}

const ratio = (num: number, den: number): number | null => (den === 0 ? null : num / den);

export function binaryMetrics(confusion: ConfusionMatrix, positive: string): BinaryMetrics {
  const p = confusion.categories.indexOf(positive);
  const { matrix, n } = confusion;
  let tp = 0;
  let fp = 0;
  let fn = 0;
  if (p >= 0) {
    tp = matrix[p]![p]!;
    for (let i = 0; i < matrix.length; i++) {
      if (i === p) continue;
      fp += matrix[i]![p]!;
      fn += matrix[p]![i]!;
    }
  }
  const tn = n - tp - fp - fn;
  return {
    positive,
    truePositive: tp,
    falsePositive: fp,
    falseNegative: fn,
    trueNegative: tn,
    precision: ratio(tp, tp + fp),
    recall: ratio(tp, tp + fn),
    f1: ratio(2 * tp, 2 * tp + fp + fn),
    accuracy: ratio(tp + tn, n),
  };
}

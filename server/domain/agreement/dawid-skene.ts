/**
 * Dawid & Skene (1979), "Maximum likelihood estimation of observer error-rates using the EM algorithm".
 *
 * Model: each item has one true class k, drawn with probability p_k; annotator j, shown an item of class k, answers
 * class l with probability π_j[k][l] (a full confusion matrix per annotator), independently of the other annotators
 * and of their own other answers. Fitted by EM as in the paper:
 * - start: each item's class indicators T_ik are the shares of its labels in each class (a soft majority vote);
 * - M-step: p_k = Σ_i T_ik / (labelled items); π_j[k][l] = Σ_i T_ik n_ijl / Σ_i T_ik n_ij· (+ smoothing);
 * - E-step: T_ik ∝ p_k Π_j Π_l π_j[k][l]^n_ijl, and the log-likelihood Σ_i log Σ_k p_k Π π.
 * Repeated until the log-likelihood stops improving. Deterministic: no random restarts.
 *
 * An annotator's reliability is their estimated accuracy Σ_k p_k π_j[k][k]. Because the confusion matrix is full,
 * an annotator who systematically answers the opposite class is not noise to this model: their matrix comes out
 * inverted and their labels still count as evidence. A class nobody used gets prior 0 (plus smoothing) and, with no
 * evidence at all about it, a uniform confusion row.
 */
import {
  consensusFit,
  grouped,
  patternsEStep,
  resolveEmOptions,
  runEm,
  voteShares,
  type ConsensusFit,
  type ConsensusLabels,
  type EmOptions,
  type GroupedConsensusLabels,
} from "./consensus";

export interface DawidSkeneResult extends ConsensusFit {
  /** Estimated share of each true class among the labelled items. */
  classPrior: Float64Array;
  /** annotators × classes × classes: confusion[(j · K + true) · K + answered] = π_j[true][answered]. */
  confusion: Float64Array;
  /** Per annotator, estimated accuracy Σ_k p_k π_j[k][k]; null for an annotator with no labels. */
  accuracy: (number | null)[];
}

export function dawidSkene(labels: ConsensusLabels | GroupedConsensusLabels, options: EmOptions = {}): DawidSkeneResult {
  const input = grouped(labels);
  const { data, patterns } = input;
  const em = resolveEmOptions(options);
  const { smoothing } = em;
  const { annotators, classes: K } = data;
  const G = patterns.count;
  const { weight, start, codes } = patterns;

  // Starting class indicators: each pattern's share of labels per class.
  const T = voteShares(patterns, K);

  const prior = new Float64Array(K);
  const logPrior = new Float64Array(K);
  const confusion = new Float64Array(annotators * K * K);
  const logConfusion = new Float64Array(annotators * K * K);

  const run = runEm(em, () => {
    // M-step: class prior and confusion matrices from the current indicators.
    prior.fill(0);
    confusion.fill(0);
    for (let g = 0; g < G; g++) {
      const w = weight[g]!;
      for (let k = 0; k < K; k++) prior[k]! += w * T[g * K + k]!;
      for (let x = start[g]!; x < start[g + 1]!; x++) {
        const c = codes[x]!;
        const j = Math.floor(c / K);
        const l = c - j * K;
        const base = j * K * K + l;
        for (let k = 0; k < K; k++) confusion[base + k * K]! += w * T[g * K + k]!;
      }
    }
    const priorTotal = patterns.labelledItems + smoothing * K;
    for (let k = 0; k < K; k++) {
      prior[k] = priorTotal > 0 ? (prior[k]! + smoothing) / priorTotal : 1 / K;
      logPrior[k] = Math.log(prior[k]!);
    }
    for (let row = 0; row < annotators * K; row++) {
      let total = 0;
      for (let l = 0; l < K; l++) total += confusion[row * K + l]! + smoothing;
      for (let l = 0; l < K; l++) {
        // No evidence about this annotator on this true class: nothing to prefer, so a uniform row.
        const v = total > 0 ? (confusion[row * K + l]! + smoothing) / total : 1 / K;
        confusion[row * K + l] = v;
        logConfusion[row * K + l] = Math.log(v);
      }
    }

    // E-step: posterior class indicators and the log-likelihood of the parameters just estimated. A pattern with
    // every class impossible (only reachable with smoothing 0 and degenerate starts) keeps its old indicators.
    return patternsEStep(
      patterns,
      K,
      T,
      (logp) => logp.set(logPrior),
      (logp, c) => {
        const j = Math.floor(c / K);
        const base = j * K * K + (c - j * K);
        for (let k = 0; k < K; k++) logp[k]! += logConfusion[base + k * K]!;
      },
    );
  });

  const fit = consensusFit(input, T, prior, run);
  const accuracy: (number | null)[] = [];
  for (let j = 0; j < annotators; j++) {
    if (fit.labelsPerAnnotator[j] === 0) {
      accuracy.push(null);
      continue;
    }
    let a = 0;
    for (let k = 0; k < K; k++) a += prior[k]! * confusion[(j * K + k) * K + k]!;
    accuracy.push(a);
  }
  return { ...fit, classPrior: prior, confusion, accuracy };
}

/**
 * MACE, Multi-Annotator Competence Estimation (Hovy, Berg-Kirkpatrick, Vaswani & Hovy, NAACL 2013), fitted by EM.
 *
 * Model: each item's true class is equally likely a priori. For every label, annotator j either knows the answer
 * (probability θ_j, their *competence*) and gives the true class, or is spamming and draws a class from their own
 * spamming distribution ξ_j, whatever the truth. So P(answer l | true k) = θ_j·[l = k] + (1 − θ_j)·ξ_j[l].
 *
 * Compared with Dawid–Skene this has 1 + (K − 1) parameters per annotator instead of K(K − 1), which suits the
 * small campaigns Verdict sees, and it names the failure researchers worry about — someone clicking the same
 * button every time ends up with low θ and ξ concentrated on that button. It cannot use systematic confusions
 * (an annotator who always inverts the answer is just incompetent here).
 *
 * EM: the E-step gives each item's posterior over true classes; the M-step's expected count of spam labels for
 * annotator j answering l on an item is (1 − T_il) + T_il·(1 − θ_j)ξ_j[l] / (θ_j + (1 − θ_j)ξ_j[l]). The likelihood
 * has local optima, so the fit starts once from the majority vote and `restarts − 1` more times from seeded random
 * parameters, and keeps the run with the highest log-likelihood (same seed, same result).
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
  type EmRun,
  type GroupedConsensusLabels,
  type LabelPatterns,
} from "./consensus";
import { AgreementInputError } from "./labels";
import { createRng, type Rng } from "./random";

export interface MaceOptions extends EmOptions {
  /** Fits to run (the first from the majority vote, the rest from random parameters). Default 10. */
  restarts?: number;
  /** Seed of the random starting points. Default 1. */
  seed?: number;
}

export interface MaceResult extends ConsensusFit {
  /** Per annotator θ_j, the probability that a label reflects the truth rather than spam; null with no labels. */
  competence: (number | null)[];
  /** annotators × classes: spamming[j · K + l] = ξ_j[l], what annotator j answers when not paying attention. */
  spamming: Float64Array;
  /** Which run was kept (0 = the one started from the majority vote). */
  bestRestart: number;
  restarts: number;
}

interface Fit extends EmRun {
  T: Float64Array;
  theta: Float64Array;
  xi: Float64Array;
}

export function mace(labels: ConsensusLabels | GroupedConsensusLabels, options: MaceOptions = {}): MaceResult {
  const input = grouped(labels);
  const { data, patterns } = input;
  const em = resolveEmOptions(options);
  const restarts = options.restarts ?? 10;
  const seed = options.seed ?? 1;
  if (!Number.isInteger(restarts) || restarts < 1) throw new AgreementInputError(`restarts must be a positive integer, got ${restarts}`);
  if (!Number.isInteger(seed)) throw new AgreementInputError(`seed must be an integer, got ${seed}`);
  const { annotators, classes: K } = data;
  const rng = createRng(seed);

  let best: Fit | null = null;
  let bestRestart = 0;
  for (let r = 0; r < restarts; r++) {
    const fit = fitOnce(patterns, annotators, K, em, r === 0 ? null : rng);
    const ll = fit.trace[fit.trace.length - 1]!;
    if (!best || ll > best.trace[best.trace.length - 1]!) {
      best = fit;
      bestRestart = r;
    }
  }
  const fit = best!;
  const common = consensusFit(input, fit.T, new Float64Array(K).fill(1 / K), fit);
  return {
    ...common,
    competence: Array.from(fit.theta, (t, j) => (common.labelsPerAnnotator[j] ? t : null)),
    spamming: fit.xi,
    bestRestart,
    restarts,
  };
}

function fitOnce(patterns: LabelPatterns, annotators: number, K: number, em: Required<EmOptions>, rng: Rng | null): Fit {
  const { count: G, weight, start, codes } = patterns;
  const { smoothing } = em;
  const T = rng ? new Float64Array(G * K) : voteShares(patterns, K);
  const theta = new Float64Array(annotators);
  const xi = new Float64Array(annotators * K);
  const nonSpam = new Float64Array(annotators);
  const total = new Float64Array(annotators);
  const spam = new Float64Array(annotators * K);

  const mStep = () => {
    nonSpam.fill(0);
    total.fill(0);
    spam.fill(0);
    for (let g = 0; g < G; g++) {
      const w = weight[g]!;
      for (let x = start[g]!; x < start[g + 1]!; x++) {
        const c = codes[x]!;
        const j = Math.floor(c / K);
        const l = c - j * K;
        const tl = T[g * K + l]!;
        const spamIfTrue = (1 - theta[j]!) * xi[c]!;
        const denominator = theta[j]! + spamIfTrue;
        const s = 1 - tl + (denominator > 0 ? (tl * spamIfTrue) / denominator : 0);
        nonSpam[j]! += w * (1 - s);
        spam[c]! += w * s;
        total[j]! += w;
      }
    }
    for (let j = 0; j < annotators; j++) {
      const denominator = total[j]! + 2 * smoothing;
      theta[j] = denominator > 0 ? (nonSpam[j]! + smoothing) / denominator : 0.5;
      let spamTotal = 0;
      for (let l = 0; l < K; l++) spamTotal += spam[j * K + l]! + smoothing;
      for (let l = 0; l < K; l++) xi[j * K + l] = spamTotal > 0 ? (spam[j * K + l]! + smoothing) / spamTotal : 1 / K;
    }
  };

  if (rng) {
    for (let j = 0; j < annotators; j++) {
      theta[j] = rng();
      let sum = 0;
      for (let l = 0; l < K; l++) sum += xi[j * K + l] = rng() + 1e-3;
      for (let l = 0; l < K; l++) xi[j * K + l]! /= sum;
    }
  } else {
    // From the majority vote: indicators are each item's shares of labels per class (T above), and an even start
    // on competence, so that the first M-step weighs agreement with the vote.
    theta.fill(0.5);
    xi.fill(1 / K);
    mStep();
  }

  const logPrior = -Math.log(K);
  // Per code (annotator · K + answer), this iteration: log P(answer | true = answer) and log P(answer | true ≠ answer).
  const logSame = new Float64Array(annotators * K);
  const logOther = new Float64Array(annotators * K);
  const run = runEm(em, (iteration) => {
    // The M-step between two E-steps (not after the last, so that the parameters returned are the ones the
    // posteriors came from).
    if (iteration > 1) mStep();
    for (let c = 0; c < annotators * K; c++) {
      const j = Math.floor(c / K);
      const spamPart = (1 - theta[j]!) * xi[c]!;
      logSame[c] = Math.log(theta[j]! + spamPart);
      logOther[c] = Math.log(spamPart);
    }
    return patternsEStep(
      patterns,
      K,
      T,
      (logp) => logp.fill(logPrior),
      (logp, c) => {
        const l = c % K;
        const other = logOther[c]!;
        const same = logSame[c]!;
        for (let k = 0; k < K; k++) logp[k]! += k === l ? same : other;
      },
    );
  });
  return { ...run, T, theta, xi };
}

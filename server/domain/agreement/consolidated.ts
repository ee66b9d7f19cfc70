/**
 * The consolidated label of every item from a chosen consensus model — what a campaign would record as the
 * reference label if it trusted that model instead of (or before) adjudication:
 * - `majority`: the most frequent class, none on a tie (a tie is what adjudication is for);
 * - `dawid-skene` / `mace`: the most probable class under the fitted model.
 * Each label comes with its confidence: the winning share of the votes for the majority, the posterior for the
 * models, so a caller can leave low-confidence items to a human.
 */
import { grouped, majorityClasses, type ConsensusLabels, type GroupedConsensusLabels } from "./consensus";
import { dawidSkene } from "./dawid-skene";
import { AgreementInputError, MISSING } from "./labels";
import { mace, type MaceOptions } from "./mace";

export const CONSENSUS_MODELS = ["majority", "dawid-skene", "mace"] as const;
export type ConsensusModel = (typeof CONSENSUS_MODELS)[number];

export interface ConsolidatedLabels {
  model: ConsensusModel;
  /** Per item, the consolidated class, or MISSING (unlabelled item, or a tied majority). */
  label: Int32Array;
  /** Per item, the vote share (majority) or posterior (models) of that class; 0 where there is none. */
  confidence: Float64Array;
}

export function consolidatedLabels(labels: ConsensusLabels | GroupedConsensusLabels, model: ConsensusModel, options: MaceOptions = {}): ConsolidatedLabels {
  if (!CONSENSUS_MODELS.includes(model)) throw new AgreementInputError(`model must be one of ${CONSENSUS_MODELS.join(", ")}, got ${JSON.stringify(model)}`);
  const g = grouped(labels);
  const { items, classes: K } = g.data;
  const confidence = new Float64Array(items);
  if (model === "majority") {
    const label = majorityClasses(g);
    const votes = new Int32Array(items);
    const forWinner = new Int32Array(items);
    for (let t = 0; t < g.data.item.length; t++) {
      const i = g.data.item[t]!;
      votes[i]!++;
      if (g.data.label[t] === label[i]) forWinner[i]!++;
    }
    for (let i = 0; i < items; i++) confidence[i] = label[i] === MISSING ? 0 : forWinner[i]! / votes[i]!;
    return { model, label, confidence };
  }
  const fit = model === "dawid-skene" ? dawidSkene(g, options) : mace(g, options);
  for (let i = 0; i < items; i++) confidence[i] = fit.label[i] === MISSING ? 0 : fit.posterior[i * K + fit.label[i]!]!;
  return { model, label: fit.label, confidence };
}

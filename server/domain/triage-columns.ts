/**
 * What the trajectory list shows about each row for triage (researchers and admins): the human label, the item's
 * state, the chosen evaluator's verdict, the rule results and the heuristics' flags. Shared by the query that
 * reads them (db/repositories/triage.ts) and the table that renders them.
 */
export interface TriageColumns {
  /** Latest consolidated label, with the campaign it comes from. */
  human: { verdict: string; category: string | null; campaignId: number } | null;
  /** State of the item in the latest campaign that holds the trajectory. */
  state: { state: string; campaignId: number } | null;
  /** The chosen evaluator's verdict. */
  verdict: string | null;
  /** Every rule evaluator's verdict, by evaluator name. */
  rules: { name: string; verdict: string }[];
  /** Heuristics that found a problem (verdict failure), by name. */
  flags: string[];
}

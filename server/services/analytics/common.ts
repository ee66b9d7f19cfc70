/**
 * Pieces the analytics services share: evaluator names, rate cells with Wilson intervals, and the counting of
 * verdict codes per group of trajectories.
 */
import type { Db } from "../../../db/database";
import { evaluatorNames, judgeConfigNames, listRunNames, userNames } from "../../../db/repositories/analytics";
import { wilsonInterval } from "../../domain/agreement";
import { evaluatorId, evaluatorLabel, type UnparseablePolicy } from "../../domain/analytics/measures";
import type { EvaluatorIdentity, Selection } from "../../domain/analytics/selection";
import { evaluatorKindOf, type EvaluatorKind, type VerdictSet } from "./dataset";

export interface RunName {
  id: number;
  name: string;
  agentName: string;
  model: string | null;
}

export async function runNames(db: Db): Promise<RunName[]> {
  return listRunNames(db);
}

/** Display names of annotator keys: an account's name ("user:<id>"), an imported annotator's own name ("import:<name>"). */
export async function annotatorDisplayNames(db: Db, keys: string[]): Promise<string[]> {
  const userIds = keys.filter((k) => k.startsWith("user:")).map((k) => k.slice(5));
  const names = await userNames(db, userIds);
  return keys.map((k) => (k.startsWith("user:") ? (names.get(k.slice(5)) ?? k.slice(5)) : k.startsWith("import:") ? k.slice(7) : k));
}

/** Names of evaluator keys: a judge configuration's current name, else the name its verdicts carry. */
export async function evaluatorNameLookup(db: Db): Promise<(key: string) => string> {
  const [configs, carried] = await Promise.all([judgeConfigNames(db), evaluatorNames(db)]);
  return (key) => {
    const m = /^judge:(\d+)$/.exec(key);
    const config = m ? configs.get(Number(m[1])) : undefined;
    return config?.name ?? carried.get(key) ?? key;
  };
}

export interface EvaluatorInfo {
  /** evaluatorId() of the identity. */
  id: string;
  identity: EvaluatorIdentity;
  kind: EvaluatorKind;
  name: string;
  /** Name with k (and prompt version when one key has several). */
  label: string;
  verdicts: number;
}

/** Kinds in the order the views list them. */
export const KIND_ORDER: Record<EvaluatorKind, number> = { judge: 0, rule: 1, import: 2 };

// ---------------------------------------------------------------- rate cells

/** Counts of one group: V_* codes 0–3 and, for the human label, unsure at index 4. */
export const C_SUCCESS = 0;
export const C_FAILURE = 1;
export const C_UNPARSEABLE = 2;
export const C_NOT_EVALUABLE = 3;
export const C_UNSURE = 4;
export const COUNT_SLOTS = 5;

export interface RateCell {
  /** Trajectories in the denominator. */
  n: number;
  successes: number;
  rate: number | null;
  low: number | null;
  high: number | null;
  /** Replies that could not be parsed (in n as failures or left out, per the policy). */
  unparseable: number;
  /** Left out: the evaluator could not decide. */
  notEvaluable: number;
  /** Left out: consolidated human label "unsure". */
  unsure: number;
  /** Trajectories in n. */
  sel: Selection;
  /** Trajectories counted as successes. */
  successSel: Selection;
}

/**
 * A success rate with its 95% Wilson interval from the counts of one group. Unparseable replies count as failures
 * or are left out according to the policy; not-evaluable verdicts and unsure labels are always left out.
 */
export function rateCell(counts: ArrayLike<number>, offset: number, policy: UnparseablePolicy, sel: Selection, successSel: Selection): RateCell {
  const successes = counts[offset + C_SUCCESS]!;
  const failures = counts[offset + C_FAILURE]!;
  const unparseable = counts[offset + C_UNPARSEABLE]!;
  const n = successes + failures + (policy === "failure" ? unparseable : 0);
  const w = wilsonInterval(successes, n);
  return {
    n,
    successes,
    rate: w.estimate,
    low: w.low,
    high: w.high,
    unparseable,
    notEvaluable: counts[offset + C_NOT_EVALUABLE]!,
    unsure: counts[offset + C_UNSURE]!,
    sel,
    successSel,
  };
}

/** Adds the verdicts of `set` into `counts` (groups × COUNT_SLOTS) by each row's group (-1 = not counted). */
export function countVerdictsByGroup(set: VerdictSet, group: Int32Array, counts: Float64Array): void {
  const { rows, verdict } = set;
  for (let i = 0; i < rows.length; i++) {
    const g = group[rows[i]!]!;
    if (g >= 0) counts[g * COUNT_SLOTS + verdict[i]!]!++;
  }
}

/**
 * The evaluator settings with verdicts inside the scope `mask`, described for display (a setting's label names its
 * prompt version only when its evaluator has several), judges first, then rules, then imports.
 */
export async function evaluatorsInScope(db: Db, sets: VerdictSet[], mask: Uint8Array): Promise<{ set: VerdictSet; info: EvaluatorInfo }[]> {
  const nameOf = await evaluatorNameLookup(db);
  const versions = new Map<string, Set<string>>();
  for (const s of sets) versions.set(s.identity.key, (versions.get(s.identity.key) ?? new Set()).add(s.identity.pv));
  return sets
    .map((set) => {
      let inside = 0;
      for (const r of set.rows) if (mask[r]) inside++;
      const name = nameOf(set.identity.key);
      return {
        set,
        info: {
          id: evaluatorId(set.identity),
          identity: set.identity,
          kind: evaluatorKindOf(set.identity.key),
          name,
          label: evaluatorLabel(name, set.identity, (versions.get(set.identity.key)?.size ?? 0) > 1),
          verdicts: inside,
        },
      };
    })
    .filter((x) => x.info.verdicts > 0)
    .sort((a, b) => KIND_ORDER[a.info.kind] - KIND_ORDER[b.info.kind]);
}

/**
 * A trajectory-list filter as people read it, for a campaign's selection and the New campaign page's preview:
 * "task set “demo”, at least 2 steps, human label failure". Ids whose names were not looked up stay ids
 * ("task set 2"); an unknown key is shown as it is stored rather than dropped, so nothing is hidden.
 */
import { parseEvaluatorRef } from "../trajectory-list-query";

/** The names of the task set, run and task a filter names by id, where they exist. */
export interface FilterNames {
  taskSetId?: string;
  runId?: string;
  taskId?: string;
}

/** The filter's fields read by name here; the others are read as entries (an unknown one as `key = value`). */
export interface DescribedFilter {
  sample?: number;
  seed?: number;
  strata?: string;
  minSteps?: number;
  maxSteps?: number;
}

const NAMED: Record<keyof FilterNames, string> = { taskSetId: "task set", runId: "run", taskId: "task" };

const STATES: Record<string, string> = {
  open: "campaign item open",
  agreed: "annotators agreed",
  disputed: "annotators disputed",
  adjudicated: "adjudicated",
  none: "in no campaign",
};
const AGREEMENT: Record<string, string> = {
  agree: "judge agrees with the human label",
  disagree: "judge disagrees with the human label",
  no_human: "no human label to compare",
};
const FLAGGED: Record<string, string> = { exclude: "flagged tasks left out", include: "flagged tasks kept", only: "flagged tasks only" };

const words = (v: unknown) => String(v).replace(/_/g, " ");
const labelOrNone = (what: string, v: unknown) => (v === "none" ? `no ${what}` : `${what} ${words(v)}`);

function stepRange(min: number | undefined, max: number | undefined): string | null {
  const steps = (n: number) => `${n} step${n === 1 ? "" : "s"}`;
  if (min !== undefined && max !== undefined) return min === max ? `exactly ${steps(min)}` : `${min}–${steps(max)}`;
  if (min !== undefined) return `at least ${steps(min)}`;
  if (max !== undefined) return `at most ${steps(max)}`;
  return null;
}

function evaluatorText(ref: unknown): string {
  const parsed = typeof ref === "string" ? parseEvaluatorRef(ref) : undefined;
  if (!parsed) return `evaluator ${String(ref)}`;
  return [`evaluator ${parsed.key}`, parsed.k ? `k=${parsed.k}` : "", parsed.pv].filter(Boolean).join(" · ");
}

/** One filter field as words, or null when the field is part of another's phrase (maxSteps with minSteps). */
function part(key: string, v: unknown, names: FilterNames): string | null {
  const name = names[key as keyof FilterNames];
  if (name !== undefined) return `${NAMED[key as keyof FilterNames]} “${name}”`;
  switch (key) {
    case "taskSetId":
    case "runId":
    case "taskId":
      return `${NAMED[key]} ${String(v)}`;
    case "ids":
      return `${(v as unknown[]).length} chosen trajectories`;
    case "q":
      return `text contains ${JSON.stringify(v)}`;
    case "search":
      return `behaviour search ${JSON.stringify(v)}`;
    case "site":
      return `site ${String(v)}`;
    case "model":
      return `model ${String(v)}`;
    case "outcome":
      return `agent outcome ${words(v)}`;
    case "hasAnswer":
      return v ? "with a final answer" : "without a final answer";
    case "human":
      return labelOrNone("human label", v);
    case "category":
      return `failure category “${String(v)}”`;
    case "state":
      return STATES[String(v)] ?? `state ${String(v)}`;
    case "evaluator":
      return evaluatorText(v);
    case "verdict":
      return labelOrNone("judge verdict", v);
    case "rule":
      return labelOrNone("rule verdict", v);
    case "agreement":
      return AGREEMENT[String(v)] ?? `agreement ${String(v)}`;
    case "flagged":
      return FLAGGED[String(v)] ?? `flagged ${String(v)}`;
    default:
      return `${key} = ${typeof v === "object" ? JSON.stringify(v) : String(v)}`;
  }
}

export function describeFilter(f: DescribedFilter, names: FilterNames = {}, defaultSeed = 1): string {
  const parts: string[] = [];
  const { sample, seed, strata, minSteps, maxSteps, ...rest } = f;
  for (const [k, v] of Object.entries(rest as Record<string, unknown>)) {
    if (v === undefined || v === null || v === "") continue;
    const text = part(k, v, names);
    if (text) parts.push(text);
  }
  const steps = stepRange(minSteps, maxSteps);
  if (steps) parts.push(steps);
  const what = parts.length ? parts.join(", ") : "all trajectories";
  if (sample === undefined) return what;
  return `random sample of ${sample}${strata ? ` by ${strata}` : ""} (seed ${seed ?? defaultSeed}) of ${what}`;
}

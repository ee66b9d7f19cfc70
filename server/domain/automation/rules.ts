/**
 * Automation rules: when trajectories arrive (an import from the dashboard, a push through the HTTP API, a live run
 * that ended), the ones that match a rule's filter are considered, a seeded share of them is taken, and the rule's
 * action runs on that share: add them to a campaign, or start a judge batch on them.
 *
 * Everything here is pure: reading the filter text (the trajectory list's own query language, with readable errors
 * instead of the list's forgiving drop of a bad value), checking a rule as someone wrote it, and deciding which
 * arrived trajectories a run acts on. The share is drawn per trajectory from the seed and the trajectory's id
 * alone, so the same trajectory is always in or out whatever else arrived with it, and a rule run again acts on the
 * same trajectories.
 */
import { ValidationError } from "../../errors";
import { createRng } from "../agreement/random";
import { parseK } from "../evaluation/verdicts";
import { listFilterFromText, MAX_SEED, URL_KEYS, type TrajectoryListQuery, type filterOf } from "../trajectory-list-query";

/** How trajectories reach Verdict: the Import page, the push API (`POST /api/v1/imports`), a live run's end. */
export const RULE_TRIGGERS = ["import", "push", "live"] as const;
export type RuleTrigger = (typeof RULE_TRIGGERS)[number];

export const RULE_TRIGGER_LABELS: Record<RuleTrigger, string> = {
  import: "Import page",
  push: "Push API",
  live: "Live runs",
};

export type RuleAction = { kind: "campaign"; campaignId: number } | { kind: "judge"; judgeConfigId: number; k: string };

export const MAX_RULE_NAME = 200;
export const MAX_RULE_FILTER = 4000;

/** A rule as a researcher wrote it (the page's form, the tRPC input). */
export interface RuleDraft {
  name: string;
  filterText: string;
  triggers: string[];
  /** Percent of the matching arrivals acted on, more than 0 and at most 100. */
  sharePercent: number;
  seed: number;
  action: RuleAction;
  enabled: boolean;
}

export type RuleFilter = Omit<ReturnType<typeof filterOf>, "ids" | "sample" | "seed" | "strata">;

/** Order and paging say nothing about which trajectories match: a pasted list address keeps them, the rule drops them. */
const ORDER_KEYS = new Set<string>([URL_KEYS.sort, URL_KEYS.dir, URL_KEYS.page, URL_KEYS.pageSize]);

const REFUSED_KEYS: Record<string, string> = {
  [URL_KEYS.ids]: "ids names trajectories that are already here; a rule looks at trajectories as they arrive, so filter by what they are instead",
  [URL_KEYS.sample]: "a rule takes its own share of what matches (Share); leave sample out of the filter",
  [URL_KEYS.seed]: "a rule draws its share with its own seed (Seed); leave seed out of the filter",
  [URL_KEYS.strata]: "a rule's share is drawn per trajectory, not by strata; leave strata out of the filter",
};

const PARAM_TO_FIELD = new Map<string, keyof TrajectoryListQuery>(
  (Object.entries(URL_KEYS) as [keyof TrajectoryListQuery, string][]).map(([field, key]) => [key, field]),
);

/** The filter keys a rule accepts, for the error that names an unknown one. */
export function ruleFilterKeys(): string[] {
  return [...PARAM_TO_FIELD.keys()].filter((k) => !ORDER_KEYS.has(k) && !(k in REFUSED_KEYS));
}

/**
 * Reads a rule's filter: the trajectory list's query ("site=shop&rule=failure", or a whole list address). Empty
 * text matches every arrival. A key the list does not know, a value it would drop, or a key that makes no sense for
 * arrivals is an error naming it; sort and page are dropped.
 */
export function parseRuleFilter(text: string): { filter: RuleFilter; search: string } {
  if (text.length > MAX_RULE_FILTER) throw new ValidationError(`filter: at most ${MAX_RULE_FILTER} characters`, "filter");
  const trimmed = text.trim();
  const query = trimmed.includes("?") ? trimmed.slice(trimmed.indexOf("?") + 1) : trimmed;
  const params = new URLSearchParams(query);
  const problems: string[] = [];
  for (const key of new Set(params.keys())) {
    if (ORDER_KEYS.has(key)) continue;
    if (key in REFUSED_KEYS) problems.push(REFUSED_KEYS[key]!);
    else if (!PARAM_TO_FIELD.has(key)) problems.push(`“${key}” is not a filter of the trajectory list (it knows ${ruleFilterKeys().join(", ")})`);
  }
  if (problems.length) throw new ValidationError(`filter: ${problems.join("; ")}`, "filter");
  const kept = new URLSearchParams([...params].filter(([key]) => !ORDER_KEYS.has(key)));
  const parsed = kept.size ? listFilterFromText(kept.toString()) : null;
  const filter = (parsed?.filter ?? {}) as RuleFilter;
  for (const key of new Set(kept.keys())) {
    const field = PARAM_TO_FIELD.get(key)!;
    if (filter[field as keyof RuleFilter] !== undefined) continue;
    const value = kept.get(key) ?? "";
    if ((field === "verdict" || field === "agreement") && !filter.evaluator) {
      problems.push(`${key}=${value} needs the evaluator it is about (ev=<evaluator key>|<k>|<prompt version>)`);
    } else problems.push(`${key}=${JSON.stringify(value)} is not a value the trajectory list accepts for ${key}`);
  }
  if (problems.length) throw new ValidationError(`filter: ${problems.join("; ")}`, "filter");
  return { filter, search: parsed?.search ?? "" };
}

function checkAction(action: RuleAction): RuleAction {
  if (action.kind === "campaign") {
    if (!Number.isInteger(action.campaignId) || action.campaignId < 1)
      throw new ValidationError("campaign: choose the campaign to add trajectories to", "campaign");
    return { kind: "campaign", campaignId: action.campaignId };
  }
  if (action.kind === "judge") {
    if (!Number.isInteger(action.judgeConfigId) || action.judgeConfigId < 1) throw new ValidationError("judge: choose the judge configuration to run", "judge");
    let k: string;
    try {
      k = String(parseK(action.k));
    } catch {
      throw new ValidationError(`k: a positive whole number of screenshots or "full", got ${JSON.stringify(action.k)}`, "k");
    }
    return { kind: "judge", judgeConfigId: action.judgeConfigId, k };
  }
  throw new ValidationError(`action: add to a campaign or start a judge batch`, "action");
}

/** A draft checked field by field; the error names the field and what it takes. */
export function checkRuleDraft(draft: RuleDraft): RuleDraft & { triggers: RuleTrigger[] } {
  const name = draft.name.trim();
  if (!name) throw new ValidationError("name: give the rule a name", "name");
  if (name.length > MAX_RULE_NAME) throw new ValidationError(`name: at most ${MAX_RULE_NAME} characters`, "name");
  parseRuleFilter(draft.filterText);
  const triggers = RULE_TRIGGERS.filter((t) => draft.triggers.includes(t));
  const unknown = draft.triggers.filter((t) => !(RULE_TRIGGERS as readonly string[]).includes(t));
  if (unknown.length)
    throw new ValidationError(`triggers: ${unknown.map((t) => JSON.stringify(t)).join(", ")} unknown; choose from ${RULE_TRIGGERS.join(", ")}`, "triggers");
  if (!triggers.length) throw new ValidationError("triggers: choose when the rule runs (import, push, live)", "triggers");
  if (!Number.isFinite(draft.sharePercent) || draft.sharePercent <= 0 || draft.sharePercent > 100) {
    throw new ValidationError(`share: a percentage more than 0 and at most 100, got ${draft.sharePercent}`, "share");
  }
  if (!Number.isInteger(draft.seed) || draft.seed < 0 || draft.seed > MAX_SEED)
    throw new ValidationError(`seed: a whole number from 0 to ${MAX_SEED}, got ${draft.seed}`, "seed");
  return { ...draft, name, filterText: draft.filterText.trim(), triggers, action: checkAction(draft.action) };
}

/** A trajectory's draw in [0, 1) under a seed: a generator seeded by both, so neighbouring ids draw independently. */
export function shareDraw(seed: number, trajectoryId: number): number {
  const mixed = Math.imul((seed >>> 0) ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(trajectoryId >>> 0, 0xc2b2ae35);
  const rng = createRng(mixed >>> 0);
  rng();
  return rng();
}

/** Whether the seeded share takes this trajectory (every one at 100 %). */
export function inShare(trajectoryId: number, sharePercent: number, seed: number): boolean {
  return sharePercent >= 100 || shareDraw(seed, trajectoryId) * 100 < sharePercent;
}

export interface RulePlan {
  /** Arrived trajectories the filter matched, ascending. */
  matched: number[];
  /** Of those, the ones the seeded share takes. */
  sampled: number[];
  /** Of those, the ones this rule has not acted on before: what this run acts on. */
  fresh: number[];
  /** Sampled trajectories this rule already acted on (a re-run of the same arrival, a re-import). */
  alreadyDone: number[];
}

/**
 * Which arrived trajectories a rule run acts on. `matched` may hold ids that did not arrive (a filter read over a
 * wider set): only arrivals count.
 */
export function planRuleRun(input: {
  arrived: readonly number[];
  matched: readonly number[];
  done: ReadonlySet<number>;
  sharePercent: number;
  seed: number;
}): RulePlan {
  const arrived = new Set(input.arrived);
  const matched = [...new Set(input.matched)].filter((id) => arrived.has(id)).sort((a, b) => a - b);
  const sampled = matched.filter((id) => inShare(id, input.sharePercent, input.seed));
  return { matched, sampled, fresh: sampled.filter((id) => !input.done.has(id)), alreadyDone: sampled.filter((id) => input.done.has(id)) };
}

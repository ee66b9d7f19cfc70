/**
 * Split keys: what any analytics view can be broken down by. The built-in keys (site, agent run, task set, each
 * difficulty dimension) and every task attribute a source carried (a WebVoyager fork's `ques_group`, `lang`…).
 *
 * A key is written `site`, `run`, `task-set`, `difficulty` (= overall), `difficulty:reasoning`, or an attribute's
 * name (`lang`; `attr:lang` when an attribute shares a built-in key's name). Every group carries the selection
 * condition that lists its trajectories, so a split figure links to them like any other.
 */
import type { Db } from "../../../db/database";
import { listTaskSetNames } from "../../../db/repositories/analytics";
import { DIFFICULTY_DIMENSIONS, type DifficultyDimension, type Selection } from "../../domain/analytics/selection";
import { ValidationError } from "../../errors";
import { runNames } from "./common";
import type { TrajectoryFacts } from "./dataset";

export interface SplitGroup {
  key: string;
  label: string;
  /** The condition that picks this group's trajectories (added to the view's own selection). */
  sel: Selection;
}

export interface Split {
  /** The key as resolved (`site`, `run`, `task-set`, `difficulty:overall`, `attr:lang`). */
  by: string;
  /** What the groups are, for titles: "site", "agent run", "overall difficulty", "lang". */
  title: string;
  groups: SplitGroup[];
  /** Group index per facts row; -1 when the row is in no group. */
  group: Int32Array;
}

export interface SplitKeyOption {
  key: string;
  label: string;
  /** Distinct values among the trajectories (a "not given" group included). */
  values: number;
}

const NOT_GIVEN = "(not given)";

/**
 * Every key a view can be split by, with the number of groups each gives among `rows` (facts rows; all of them when
 * not given). A view of one campaign counts its own trajectories: a "not given" group that only other campaigns'
 * trajectories have would be a split the view cannot show.
 */
export function splitKeyOptions(facts: TrajectoryFacts, rows?: Int32Array): SplitKeyOption[] {
  const distinct = (code: Int32Array) => {
    const seen = new Set<number>();
    if (rows) for (const r of rows) seen.add(code[r]!);
    else for (let r = 0; r < facts.n; r++) seen.add(code[r]!);
    return seen.size;
  };
  const out: SplitKeyOption[] = [
    { key: "site", label: "site", values: distinct(facts.site) },
    { key: "run", label: "agent run", values: distinct(facts.runId) },
    { key: "task-set", label: "task set", values: distinct(facts.taskSetId) },
    ...DIFFICULTY_DIMENSIONS.map((d) => ({ key: `difficulty:${d}`, label: `${d} difficulty`, values: distinct(facts.difficulty[d]) })),
  ];
  for (const [name, a] of facts.attributes) out.push({ key: `attr:${name}`, label: name, values: distinct(a.code) });
  return out;
}

/** The resolved key of what a user typed (`lang`, `attr:lang`, `difficulty`, `site`…), or a ValidationError naming the keys there are. */
export function resolveSplitKey(facts: TrajectoryFacts, text: string): string {
  const t = text.trim();
  if (t === "site" || t === "run" || t === "task-set") return t;
  if (t === "difficulty") return "difficulty:overall";
  if (t.startsWith("difficulty:") && (DIFFICULTY_DIMENSIONS as readonly string[]).includes(t.slice(11))) return t;
  const name = t.startsWith("attr:") ? t.slice(5) : t;
  if (facts.attributes.has(name)) return `attr:${name}`;
  const attributes = [...facts.attributes.keys()];
  throw new ValidationError(
    `cannot split by ${JSON.stringify(text)}: the keys are site, run, task-set, difficulty, difficulty:reasoning, difficulty:visual${attributes.length ? ` and the task attributes ${attributes.join(", ")}` : " (no task carries attributes)"}`,
  );
}

/** Groups of a code column (−1 = not given), labelled by `label`, in label order with "not given" last. */
function codeSplit(by: string, title: string, code: Int32Array, n: number, label: (c: number) => string, sel: (c: number) => Selection): Split {
  const used = new Set<number>();
  for (let r = 0; r < n; r++) used.add(code[r]!);
  const codes = [...used].sort((a, b) => (a < 0 ? 1 : b < 0 ? -1 : label(a).localeCompare(label(b))));
  const index = new Map(codes.map((c, g) => [c, g]));
  const group = new Int32Array(n);
  for (let r = 0; r < n; r++) group[r] = index.get(code[r]!)!;
  return { by, title, groups: codes.map((c) => ({ key: `${by}=${c < 0 ? "" : label(c)}`, label: c < 0 ? NOT_GIVEN : label(c), sel: sel(c) })), group };
}

/** The split of the facts rows by a resolved key (resolveSplitKey). */
export async function splitFacts(db: Db, facts: TrajectoryFacts, by: string): Promise<Split> {
  if (by === "site") {
    return codeSplit(
      by,
      "site",
      facts.site,
      facts.n,
      (c) => facts.sites[c]!,
      (c) => ({ site: c < 0 ? null : facts.sites[c]! }),
    );
  }
  if (by === "run") {
    const names = new Map((await runNames(db)).map((r) => [r.id, r.name]));
    return codeSplit(
      by,
      "agent run",
      facts.runId,
      facts.n,
      (id) => names.get(id) ?? `run ${id}`,
      (id) => ({ runId: id }),
    );
  }
  if (by === "task-set") {
    const names = new Map((await listTaskSetNames(db)).map((s) => [s.id, s.name]));
    return codeSplit(
      by,
      "task set",
      facts.taskSetId,
      facts.n,
      (id) => names.get(id) ?? `task set ${id}`,
      (id) => (id < 0 ? {} : { taskSetId: id }),
    );
  }
  if (by.startsWith("difficulty:")) {
    const dim = by.slice(11) as DifficultyDimension;
    const values = facts.difficultyValues[dim];
    return codeSplit(
      by,
      `${dim} difficulty`,
      facts.difficulty[dim],
      facts.n,
      (c) => values[c]!,
      (c) => ({ difficulty: { dim, value: c < 0 ? null : values[c]! } }),
    );
  }
  if (by.startsWith("attr:")) {
    const name = by.slice(5);
    const a = facts.attributes.get(name);
    if (!a) throw new ValidationError(`no task carries the attribute ${JSON.stringify(name)}`);
    return codeSplit(
      by,
      name,
      a.code,
      facts.n,
      (c) => a.values[c]!,
      (c) => ({ attribute: { name, value: c < 0 ? null : a.values[c]! } }),
    );
  }
  throw new ValidationError(`unknown split key ${JSON.stringify(by)}`);
}

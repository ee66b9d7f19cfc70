/**
 * Scoring a staged protocol's criteria against people. People label the outcome, not each key point or criterion,
 * so the criteria are scored through it: the verdict against the human outcome (κ, FPR/FNR as for any judge), and
 * per kind of criterion (key points, outcome criteria, process criteria) whether "every criterion of that kind met"
 * agrees with the human outcome, with how often criteria of the kind were met. Disagreements list the criteria the
 * judge graded not met, which is where a reviewer looks first. Pure.
 */
import { wilsonInterval, type ProportionInterval } from "../agreement/proportion";
import { judgeOnItems, type JudgeOnItems } from "./judge-comparison";
import type { CriterionKind, CriterionResult } from "./verdicts";

export interface CriterionRow {
  trajectoryId: number;
  kind: CriterionKind;
  text: string;
  result: CriterionResult;
}

export interface LabelledVerdict {
  trajectoryId: number;
  taskId: number;
  /** The task's id in its benchmark, to name it by; the numeric id when absent. */
  taskExternalId?: string;
  human: "success" | "failure";
  /** The judge's verdict; null when it has none for the item yet. */
  verdict: string | null;
  /** Rubric: the process graded as a whole. */
  process: CriterionResult | null;
}

export interface KindScore {
  kind: CriterionKind;
  /** Items with at least one criterion of the kind. */
  items: number;
  criteria: number;
  met: number;
  notMet: number;
  unparseable: number;
  /** "Every criterion of the kind met" (an unreadable grade counts as not met) against the human outcome. */
  againstHuman: JudgeOnItems;
}

/**
 * One criterion of one task (the judge writes a task's criteria again for each trajectory of it; the same text under
 * the same task counts as the same criterion) against the people's outcome on that task's trajectories: it agrees
 * when it is met where people said success or not met where they said failure. An unreadable grade counts as not met.
 */
export interface CriterionScore {
  taskId: number;
  task: string;
  kind: CriterionKind;
  text: string;
  /** Labelled trajectories of the task graded on the criterion. */
  items: number;
  met: number;
  notMet: number;
  unparseable: number;
  /** Of those, how many people labelled success. */
  humanSuccess: number;
  /** Graded not met (or unreadable) where people said success: the criterion is stricter than people. */
  notMetButSuccess: number;
  /** Graded met where people said failure: the criterion misses what people failed the attempt for. */
  metButFailure: number;
  /** Share of the items where the criterion agrees with the people's outcome, with a 95 % Wilson interval. */
  agreement: ProportionInterval;
}

export interface CriteriaAgreement {
  /** The verdict (the outcome) against the human outcome. */
  outcome: JudgeOnItems;
  byKind: KindScore[];
  /** Rubric: the process as a whole (met = success) against the human outcome; null without process grades. */
  process: JudgeOnItems | null;
  /** Items where verdict and people disagree, with the criteria the judge graded not met (or could not read). */
  /** Each criterion of each task, the ones most often against people first. */
  byCriterion: CriterionScore[];
  disagreements: {
    trajectoryId: number;
    human: "success" | "failure";
    verdict: string;
    notMet: { kind: CriterionKind; text: string; result: CriterionResult }[];
  }[];
}

export function criteriaAgreement(items: LabelledVerdict[], rows: CriterionRow[]): CriteriaAgreement {
  const byItem = new Map<number, CriterionRow[]>();
  for (const r of rows) (byItem.get(r.trajectoryId) ?? byItem.set(r.trajectoryId, []).get(r.trajectoryId)!).push(r);
  const outcome = judgeOnItems(items.map((it) => ({ trajectoryId: it.trajectoryId, taskId: it.taskId, human: it.human, verdict: it.verdict })));
  const kinds = [...new Set(rows.map((r) => r.kind))];
  const byKind = kinds.map((kind): KindScore => {
    const judged = items.flatMap((it) => {
      const own = (byItem.get(it.trajectoryId) ?? []).filter((r) => r.kind === kind);
      return own.length ? [{ it, own }] : [];
    });
    const all = judged.flatMap((j) => j.own);
    return {
      kind,
      items: judged.length,
      criteria: all.length,
      met: all.filter((r) => r.result === "met").length,
      notMet: all.filter((r) => r.result === "not_met").length,
      unparseable: all.filter((r) => r.result === "unparseable").length,
      againstHuman: judgeOnItems(
        judged.map(({ it, own }) => ({
          trajectoryId: it.trajectoryId,
          taskId: it.taskId,
          human: it.human,
          verdict: own.every((r) => r.result === "met") ? "success" : "failure",
        })),
      ),
    };
  });
  const withProcess = items.filter((it) => it.process !== null);
  const process = withProcess.length
    ? judgeOnItems(
        withProcess.map((it) => ({
          trajectoryId: it.trajectoryId,
          taskId: it.taskId,
          human: it.human,
          verdict: it.process === "met" ? "success" : it.process === "not_met" ? "failure" : "unparseable",
        })),
      )
    : null;
  const disagreements = items
    .filter((it) => (it.verdict === "success" || it.verdict === "failure") && it.verdict !== it.human)
    .map((it) => ({
      trajectoryId: it.trajectoryId,
      human: it.human,
      verdict: it.verdict!,
      notMet: (byItem.get(it.trajectoryId) ?? []).filter((r) => r.result !== "met").map((r) => ({ kind: r.kind, text: r.text, result: r.result })),
    }));
  return { outcome, byKind, process, byCriterion: criterionScores(items, rows), disagreements };
}

function criterionScores(items: LabelledVerdict[], rows: CriterionRow[]): CriterionScore[] {
  const itemOf = new Map(items.map((it) => [it.trajectoryId, it]));
  const scores = new Map<string, CriterionScore & { agrees: number }>();
  for (const r of rows) {
    const it = itemOf.get(r.trajectoryId);
    if (!it) continue;
    const key = `${it.taskId}\u0000${r.kind}\u0000${r.text.trim().toLowerCase()}`;
    let s = scores.get(key);
    if (!s) {
      s = {
        taskId: it.taskId,
        task: it.taskExternalId ?? String(it.taskId),
        kind: r.kind,
        text: r.text,
        items: 0,
        met: 0,
        notMet: 0,
        unparseable: 0,
        humanSuccess: 0,
        notMetButSuccess: 0,
        metButFailure: 0,
        agrees: 0,
        agreement: wilsonInterval(0, 0),
      };
      scores.set(key, s);
    }
    const met = r.result === "met";
    s.items++;
    if (met) s.met++;
    else if (r.result === "not_met") s.notMet++;
    else s.unparseable++;
    if (it.human === "success") s.humanSuccess++;
    if (met === (it.human === "success")) s.agrees++;
    else if (met) s.metButFailure++;
    else s.notMetButSuccess++;
  }
  return [...scores.values()]
    .map(({ agrees, ...s }) => ({ ...s, agreement: wilsonInterval(agrees, s.items) }))
    .sort((a, b) => a.agreement.estimate! - b.agreement.estimate! || b.items - a.items || a.taskId - b.taskId || a.text.localeCompare(b.text));
}

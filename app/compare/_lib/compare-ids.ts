/**
 * The side-by-side page's address: `/compare?ids=12,34` (two to four trajectories of one task). Pure, so each
 * wrong link gets its own clear message (tests/unit/compare-ids.test.ts).
 */
export const MIN_COMPARED = 2;
export const MAX_COMPARED = 4;

export type ParsedIds = { ok: true; ids: number[] } | { ok: false; problem: string };

const EXAMPLE = "/compare?ids=12,34";

/** Parses the `ids` parameter: comma-separated trajectory ids, repeats dropped, 2 to 4 of them. */
export function parseCompareIds(raw: string | string[] | undefined): ParsedIds {
  const text = (Array.isArray(raw) ? raw.join(",") : (raw ?? "")).trim();
  if (!text) return { ok: false, problem: `Choose ${MIN_COMPARED} to ${MAX_COMPARED} trajectories to compare, e.g. ${EXAMPLE}.` };
  const ids: number[] = [];
  for (const part of text.split(",").map((p) => p.trim())) {
    if (!part) continue;
    if (!/^\d{1,12}$/.test(part) || Number(part) <= 0) return { ok: false, problem: `"ids": "${part}" is not a trajectory id (a whole number above 0).` };
    const id = Number(part);
    if (!ids.includes(id)) ids.push(id);
  }
  if (ids.length < MIN_COMPARED) {
    return { ok: false, problem: `Only one trajectory given (#${ids[0]}): side by side needs ${MIN_COMPARED} to ${MAX_COMPARED} attempts at the same task.` };
  }
  if (ids.length > MAX_COMPARED) {
    return {
      ok: false,
      problem: `${ids.length} trajectories given (${ids.map((i) => `#${i}`).join(", ")}): side by side shows at most ${MAX_COMPARED}. Drop ${ids.length - MAX_COMPARED}.`,
    };
  }
  return { ok: true, ids };
}

export function compareHref(ids: readonly number[], extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({ ids: ids.join(","), ...extra });
  return `/compare?${q.toString().replace(/%2C/g, ",")}`;
}

/**
 * The trajectories a "Compare attempts" link opens: the one it starts from (when given) first, then the task's
 * other attempts in the order listed, at most MAX_COMPARED.
 */
export function attemptsToCompare(taskTrajectoryIds: readonly number[], first?: number): number[] {
  const rest = taskTrajectoryIds.filter((id) => id !== first);
  return (first !== undefined ? [first, ...rest] : rest).slice(0, MAX_COMPARED);
}

/** Why trajectories of several tasks cannot be compared, naming which trajectory belongs to which task. */
export function differentTasksProblem(items: readonly { id: number; taskId: number; taskName: string }[]): string | null {
  const byTask = new Map<number, { name: string; ids: number[] }>();
  for (const it of items) {
    const g = byTask.get(it.taskId) ?? { name: it.taskName, ids: [] };
    g.ids.push(it.id);
    byTask.set(it.taskId, g);
  }
  if (byTask.size <= 1) return null;
  const parts = [...byTask.values()].map((g) => `${g.ids.map((i) => `#${i}`).join(", ")} ${g.ids.length === 1 ? "is" : "are"} task ${g.name}`);
  return `These trajectories are of different tasks: ${parts.join("; ")}. Side by side compares attempts at one task.`;
}

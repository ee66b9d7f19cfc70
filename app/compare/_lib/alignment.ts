/**
 * How the side-by-side page lines up two to four trajectories of one task. Pure, so the alignment a researcher
 * reads divergences from is unit-tested (tests/unit/compare-alignment.test.ts).
 *
 * The result is a list of rows; each row holds, per trajectory, the 0-based position of the step shown in that
 * row, or null for a gap (the trajectory has no counterpart there). Stepping through the page moves from row to
 * row, so all columns move together.
 *
 * - By step: row i shows step i of every trajectory (a trajectory that has ended shows a gap).
 * - By URL: consecutive steps on the same page form a visit; visits are matched across trajectories on their URL
 *   (longest common subsequence, trajectory by trajectory against the rows built so far), so the attempts that
 *   reach the same page line up there even if one took detours. Within a matched visit steps pair up in order;
 *   the longer visit's extra steps face gaps. Unmatched visits face gaps everywhere else.
 */

/** What a step contributes to the comparison: the page it was on and what it did. */
export interface StepSignature {
  url: string | null;
  /** The action as text (verb, target, value); equal texts mean the same action. */
  action: string;
}

export type SyncMode = "step" | "url";

export type AlignmentRow = (number | null)[];

export interface Alignment {
  mode: SyncMode;
  rows: AlignmentRow[];
  /** Index of the first row where the trajectories differ (a gap, another URL or another action), or null. */
  divergence: number | null;
  /** True when the URL alignment fell back to step order (too many visits to match exactly). */
  approximate: boolean;
}

/**
 * A URL as compared for alignment: scheme and host lower-cased, the fragment and a trailing slash dropped, query
 * kept (a search for other words is another page). Text that is not a URL is compared as it is, trimmed.
 */
export function urlKey(url: string | null): string | null {
  if (url === null) return null;
  const text = url.trim();
  if (!text) return null;
  try {
    const u = new URL(text);
    if (u.protocol !== "http:" && u.protocol !== "https:") return text.replace(/#.*$/, "");
    const path = u.pathname.length > 1 ? u.pathname.replace(/\/+$/, "") : "";
    return `${u.protocol}//${u.host.toLowerCase()}${path}${u.search}`;
  } catch {
    return text;
  }
}

export function alignBySteps(counts: readonly number[]): AlignmentRow[] {
  const longest = Math.max(0, ...counts);
  return Array.from({ length: longest }, (_, i) => counts.map((n) => (i < n ? i : null)));
}

interface Visit {
  url: string | null;
  start: number;
  length: number;
}

function visitsOf(steps: readonly StepSignature[]): Visit[] {
  const out: Visit[] = [];
  steps.forEach((s, i) => {
    const url = urlKey(s.url);
    const last = out[out.length - 1];
    // A step without a recorded URL stays in the visit before it: it did not leave the page as far as we know.
    if (last && (url === null || url === last.url)) last.length++;
    else out.push({ url, start: i, length: 1 });
  });
  return out;
}

/** A column of the growing URL alignment: the URLs its members were on and, per trajectory, its visit or none. */
interface Column {
  urls: Set<string>;
  visits: (Visit | null)[];
}

/** Above this many cells (visits × columns) the exact match would be slow on the page: fall back to step order. */
export const MAX_MATCH_CELLS = 4_000_000;

/** Longest common subsequence of `columns` and `visits`, matching a visit to a column that was on its URL. */
function matchVisits(columns: Column[], visits: Visit[]): [number, number][] {
  const n = columns.length;
  const m = visits.length;
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  const same = (c: Column, v: Visit) => v.url !== null && c.urls.has(v.url);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] = same(columns[i]!, visits[j]!)
        ? table[(i + 1) * width + j + 1]! + 1
        : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  const pairs: [number, number][] = [];
  for (let i = 0, j = 0; i < n && j < m;) {
    if (same(columns[i]!, visits[j]!)) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (table[(i + 1) * width + j]! >= table[i * width + j + 1]!) i++;
    else j++;
  }
  return pairs;
}

export function alignByUrl(trajectories: readonly (readonly StepSignature[])[]): { rows: AlignmentRow[]; approximate: boolean } {
  const k = trajectories.length;
  const allVisits = trajectories.map(visitsOf);
  let columns: Column[] = [];
  for (let t = 0; t < k; t++) {
    const visits = allVisits[t]!;
    if (columns.length * visits.length > MAX_MATCH_CELLS) return { rows: alignBySteps(trajectories.map((s) => s.length)), approximate: true };
    const pairs = matchVisits(columns, visits);
    const merged: Column[] = [];
    const own = (v: Visit): Column => ({ urls: new Set(v.url === null ? [] : [v.url]), visits: Array.from({ length: k }, (_, x) => (x === t ? v : null)) });
    let i = 0;
    let j = 0;
    for (const [ci, vj] of [...pairs, [columns.length, visits.length] as [number, number]]) {
      // Unmatched columns and visits between two matches: the earlier trajectories' first, then this one's.
      while (i < ci) merged.push(columns[i++]!);
      while (j < vj) merged.push(own(visits[j++]!));
      if (ci < columns.length && vj < visits.length) {
        const c = columns[ci]!;
        const v = visits[vj]!;
        c.visits[t] = v;
        if (v.url !== null) c.urls.add(v.url);
        merged.push(c);
        i++;
        j++;
      }
    }
    columns = merged;
  }
  const rows: AlignmentRow[] = [];
  for (const c of columns) {
    const height = Math.max(...c.visits.map((v) => v?.length ?? 0));
    for (let r = 0; r < height; r++) rows.push(c.visits.map((v) => (v && r < v.length ? v.start + r : null)));
  }
  return { rows, approximate: false };
}

/** The first row where the trajectories part: one has a gap, or two are on different pages or act differently. */
export function firstDivergence(rows: readonly AlignmentRow[], trajectories: readonly (readonly StepSignature[])[]): number | null {
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    if (row.some((p) => p === null)) return r;
    const [first, ...rest] = row.map((p, t) => trajectories[t]![p!]!);
    const url = urlKey(first!.url);
    if (rest.some((s) => urlKey(s.url) !== url || s.action !== first!.action)) return r;
  }
  return null;
}

export function align(mode: SyncMode, trajectories: readonly (readonly StepSignature[])[]): Alignment {
  const { rows, approximate } = mode === "url" ? alignByUrl(trajectories) : { rows: alignBySteps(trajectories.map((s) => s.length)), approximate: false };
  return { mode, rows, divergence: firstDivergence(rows, trajectories), approximate };
}

/**
 * The row to show after switching alignment: the one where the trajectory `anchor` shows the step it showed
 * before (or the nearest earlier step it has a row for), so switching keeps the reader's place.
 */
export function rowForStep(rows: readonly AlignmentRow[], anchor: number, step: number): number {
  let best = 0;
  let bestStep = -1;
  rows.forEach((row, r) => {
    const p = row[anchor];
    if (p !== null && p !== undefined && p <= step && p > bestStep) {
      best = r;
      bestStep = p;
    }
  });
  return best;
}

const COLUMN_LETTERS = ["A", "B", "C", "D"];

/**
 * Attempts that recorded no page URL at any step (WebVoyager keeps none): aligning by URL would make each of their
 * steps a visit of its own, so the page says so, and with no URL at all the mode is off.
 */
export function missingUrls(
  signatures: readonly (readonly StepSignature[])[],
  names: readonly string[] = COLUMN_LETTERS,
): { text: string; none: boolean } | null {
  const without = signatures.flatMap((list, t) => (list.some((s) => s.url) ? [] : [names[t] ?? String(t + 1)]));
  if (!without.length) return null;
  if (without.length === signatures.length) return { text: "No URLs were recorded for these attempts: By URL has nothing to align by.", none: true };
  return {
    text: `${without.length === 1 ? "Attempt" : "Attempts"} ${without.join(", ")} recorded no URLs: By URL aligns only the pages of the others.`,
    none: false,
  };
}

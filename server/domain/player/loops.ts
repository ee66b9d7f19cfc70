/**
 * Loop hints for the timeline. Looping ("navigation stuck") is the most common failure in WebVoyager's and
 * AgentRewardBench's error analyses, and it shows in three cheap signals:
 *  - the same action as the step before (same kind, target, value and direction);
 *  - a URL the agent had already left and came back to;
 *  - the same screenshot as the step before (identical bytes, or near-identical perceptual hashes when known: the
 *    page did not change).
 * Pure; the player draws a marker per step from the result, and the loop heuristic evaluator
 * (server/domain/evaluation/heuristics/loop.ts) judges from the same markers, so both speak of the same loops.
 */
import { nearIdenticalScreens } from "../evaluation/heuristics/dhash";
import type { ParsedAction } from "../types";

export interface LoopStepInput {
  action: ParsedAction;
  url: string | null;
  screenshotHash: string | null;
  /** Difference hash of the screenshot (see dhash.ts), when computed; absent = compare bytes only. */
  screenshotDhash?: string | null;
}

export interface LoopMarks {
  /** This step repeats the previous step's action; `repeatRun` counts how many in a row (2 = second time). */
  repeatedAction: boolean;
  repeatRun: number;
  /** This step's URL was visited before, then left, then returned to; `firstSeenAt` is that earlier step. */
  revisitedUrl: boolean;
  firstSeenAt: number | null;
  /** The screenshot is byte-identical to the previous step's, or near-identical by perceptual hash. */
  sameScreen: boolean;
  /** The step's URL as compared (normaliseUrl), or null when it has none. */
  url: string | null;
}

/** A canonical string for comparing actions: kind + target + value + direction + coordinates. */
export function actionKey(a: ParsedAction): string {
  if (a.calls && a.calls.length > 1) return a.calls.map(actionKey).join(" ; ");
  return JSON.stringify([a.type, a.target?.trim() ?? null, a.value?.trim() ?? null, a.direction ?? null, a.coords ?? null]);
}

/** Whether two actions are the same by actionKey, compared field by field (no key strings built per step). */
export function sameAction(a: ParsedAction, b: ParsedAction): boolean {
  if ((a.calls && a.calls.length > 1) || (b.calls && b.calls.length > 1)) return actionKey(a) === actionKey(b);
  const ac = a.coords ?? null;
  const bc = b.coords ?? null;
  return (
    a.type === b.type &&
    (a.target?.trim() ?? null) === (b.target?.trim() ?? null) &&
    (a.value?.trim() ?? null) === (b.value?.trim() ?? null) &&
    (a.direction ?? null) === (b.direction ?? null) &&
    (ac === bc || (ac !== null && bc !== null && ac[0] === bc[0] && ac[1] === bc[1]))
  );
}

/**
 * Normalises a URL for revisit detection: drops the fragment and a trailing slash, lowercases the host.
 * Query strings are kept (a different search is a different page). Non-URLs are compared as trimmed text.
 */
export function normaliseUrl(url: string): string {
  const t = url.trim();
  try {
    const u = new URL(t);
    u.hash = "";
    let s = `${u.protocol}//${u.host.toLowerCase()}${u.pathname}${u.search}`;
    if (s.endsWith("/") && u.pathname !== "/") s = s.slice(0, -1);
    if (u.pathname === "/" && !u.search) s = s.slice(0, -1);
    return s;
  } catch {
    return t;
  }
}

/** Actions that naturally repeat while reading a page are not loops on their own until they repeat a lot. */
export const PATIENT_ACTIONS: ReadonlySet<ParsedAction["type"]> = new Set<ParsedAction["type"]>(["scroll", "wait", "noop"]);
const PATIENT_THRESHOLD = 3;

export function detectLoops(steps: readonly LoopStepInput[]): LoopMarks[] {
  const detector = createLoopDetector();
  return steps.map((s) => detector.next(s));
}

/**
 * detectLoops one step at a time, for callers that read a long trajectory in slices (the player's step index):
 * `next` takes the steps in order and returns each one's marks, the same as detectLoops would.
 */
export function createLoopDetector(): { next(step: LoopStepInput): LoopMarks } {
  const firstVisit = new Map<string, number>();
  let prevAction: ParsedAction | null = null;
  let prevUrl: string | null = null;
  let prev: LoopStepInput | null = null;
  let run = 1;
  let i = 0;
  // Agents stay on a page for several steps: parse each distinct URL once.
  const normalised = new Map<string, string>();
  const normalise = (raw: string) => {
    let n = normalised.get(raw);
    if (n === undefined) normalised.set(raw, (n = normaliseUrl(raw)));
    return n;
  };
  return {
    next(s) {
      const action = s.action.type === "unparsed" ? null : s.action;
      run = action !== null && prevAction !== null && sameAction(action, prevAction) ? run + 1 : 1;
      const patient = PATIENT_ACTIONS.has(s.action.type);
      const repeatedAction = run >= (patient ? PATIENT_THRESHOLD : 2);

      const url = s.url ? normalise(s.url) : null;
      let revisitedUrl = false;
      let firstSeenAt: number | null = null;
      if (url !== null) {
        const seen = firstVisit.get(url);
        if (seen !== undefined && prevUrl !== url) {
          revisitedUrl = true;
          firstSeenAt = seen;
        }
        if (seen === undefined) firstVisit.set(url, i);
      }

      const sameScreen = !!(
        prev &&
        ((s.screenshotHash && prev.screenshotHash === s.screenshotHash) || nearIdenticalScreens(prev.screenshotDhash, s.screenshotDhash))
      );

      prevAction = action;
      // A step without a URL keeps the last known one: missing data is not a navigation.
      if (url !== null) prevUrl = url;
      prev = s;
      i++;
      return { repeatedAction, repeatRun: run, revisitedUrl, firstSeenAt, sameScreen, url };
    },
  };
}

/** True when any marker applies (for a compact "loop" badge). */
export function isLoopish(m: LoopMarks): boolean {
  return m.repeatedAction || m.revisitedUrl || m.sameScreen;
}

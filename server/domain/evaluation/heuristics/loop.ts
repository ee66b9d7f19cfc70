/**
 * heuristic:loop — the agent is stuck. Built on the player's loop markers (server/domain/player/loops.ts), so a
 * researcher who opens a flagged trajectory sees the markers where the verdict says. It fires at the earliest step
 * where one of these holds:
 *  - repeated action: the same action on the same target STUCK_REPEAT times in a row (the player marks the second
 *    time; scrolling, waiting and no-ops, which repeat naturally while reading, need STUCK_REPEAT_PATIENT);
 *  - URL cycle: a navigation from one page to another that the agent already made once (A → B → A → B);
 *  - same screen: two actions in a row left the screenshot the same (byte-identical or near-identical by
 *    perceptual hash); typing and choosing options only change a field, so they do not count as having no effect.
 */
import { detectLoops, PATIENT_ACTIONS } from "../../player/loops";
import type { ParsedAction } from "../../types";
import { stepName, type HeuristicEvaluator, type HeuristicTrajectory, type HeuristicVerdict } from "./types";

export const STUCK_REPEAT = 3;
export const STUCK_REPEAT_PATIENT = 5;
export const STUCK_SAME_SCREEN = 2;

/** Actions whose visible effect is a field's content, which a screenshot hash barely sees. */
const FIELD_ACTIONS = new Set<ParsedAction["type"]>(["type", "select", "clear", "upload", "press"]);

export type LoopSignal = "repeated-action" | "url-cycle" | "same-screen";

interface Hit {
  signal: LoopSignal;
  /** Position in the steps array. */
  at: number;
  detail: string;
}

export function evaluateLoop(t: HeuristicTrajectory): HeuristicVerdict {
  const { steps } = t;
  const marks = detectLoops(steps);
  const hits: Hit[] = [];
  /** Navigations made so far: from URL → the URLs gone to from it. */
  const seenTransitions = new Map<string, Set<string>>();
  let lastUrl: string | null = null;
  let noEffectRun = 0;
  let repeatHit = false;
  let cycleHit = false;
  let screenHit = false;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    const m = marks[i]!;
    if (!repeatHit && m.repeatedAction && m.repeatRun >= (PATIENT_ACTIONS.has(s.action.type) ? STUCK_REPEAT_PATIENT : STUCK_REPEAT)) {
      repeatHit = true;
      hits.push({ signal: "repeated-action", at: i, detail: `the same ${s.action.type} action ${m.repeatRun} times in a row` });
    }
    const url = m.url;
    if (url !== null) {
      if (lastUrl !== null && url !== lastUrl) {
        let targets = seenTransitions.get(lastUrl);
        if (!targets) seenTransitions.set(lastUrl, (targets = new Set()));
        if (!cycleHit && targets.has(url) && m.revisitedUrl) {
          cycleHit = true;
          hits.push({ signal: "url-cycle", at: i, detail: `went from ${lastUrl} to ${url} a second time` });
        }
        targets.add(url);
      }
      lastUrl = url;
    }
    const noEffect = i > 0 && m.sameScreen && !FIELD_ACTIONS.has(steps[i - 1]!.action.type);
    noEffectRun = noEffect ? noEffectRun + 1 : 0;
    if (!screenHit && noEffectRun >= STUCK_SAME_SCREEN) {
      screenHit = true;
      hits.push({ signal: "same-screen", at: i, detail: `the screen stayed the same after ${noEffectRun} actions in a row` });
    }
  }
  if (!hits.length) return { verdict: "success", step: null, reason: "No repeated actions, navigation cycles or unchanged screens." };
  hits.sort((a, b) => a.at - b.at);
  const first = hits[0]!;
  const step = steps[first.at]!.index;
  return {
    verdict: "failure",
    step,
    reason: `Loop at ${stepName(step)}: ${first.detail}.`,
    facts: { signal: first.signal, signals: hits.map((h) => ({ signal: h.signal, step: steps[h.at]!.index })) },
  };
}

export const LOOP_HEURISTIC: HeuristicEvaluator = {
  key: "heuristic:loop",
  name: "Heuristic: loop",
  version: "1",
  evaluate: evaluateLoop,
};

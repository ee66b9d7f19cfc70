/**
 * A step's grounding flag (its action's target missing from the elements, or a click outside the target's box),
 * computed once per step object: it does not depend on the display size. Shared by the player, the filmstrip and
 * the side-by-side page.
 */
import { layoutOverlay, type GroundingFlag } from "@/server/domain/player/overlay";
import type { StepIndexEntry } from "@/server/domain/player/paging";
import type { PlayerStepData, StepAnalysis } from "./player";

const cache = new WeakMap<PlayerStepData, GroundingFlag | null>();

export function groundingOf(s: PlayerStepData): GroundingFlag | null {
  let g = cache.get(s);
  if (g === undefined) {
    const img = s.screenshot ?? s.rawScreenshot;
    const natural = img ? { width: img.width, height: img.height } : { width: 1, height: 1 };
    g = layoutOverlay({ natural, display: natural, elements: s.elements, action: s.action }).grounding;
    cache.set(s, g);
  }
  return g;
}

/**
 * What the overlay and the details say about a step beyond its own record: loop marks from the index (computed on the
 * server like the loop heuristic's) and grounding, known once the step's details (its elements) have arrived.
 */
export function analysisOf(entry: StepIndexEntry, step: PlayerStepData | undefined): StepAnalysis {
  return { loops: entry.loops, grounding: step ? groundingOf(step) : null };
}

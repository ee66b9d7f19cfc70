/**
 * A step's grounding flag (its action's target missing from the elements, or a click outside the target's box),
 * computed once per step object: it does not depend on the display size. Shared by the player and the filmstrip.
 */
import { layoutOverlay, type GroundingFlag } from "@/server/domain/player/overlay";
import type { PlayerStepData } from "./player";

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

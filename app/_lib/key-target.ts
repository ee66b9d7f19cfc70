/**
 * What the key maps (server/domain/player/keyboard.ts and the ones built on it) need to know of the element a key was
 * pressed in, to leave typing in a field alone: its tag, whether it is editable, an input's type and its ARIA role.
 */
import type { TargetLike } from "@/server/domain/player/keyboard";

export function keyTargetOf(t: EventTarget | null): TargetLike | null {
  if (!(t instanceof HTMLElement)) return null;
  return { tagName: t.tagName, isContentEditable: t.isContentEditable, type: (t as HTMLInputElement).type, role: t.getAttribute("role") };
}

"use client";
/**
 * The switches the side-by-side pages (compare, pairwise labelling) share with the player: Set-of-Marks boxes, the
 * action drawn on the screenshot, the key help. `flip` runs the player command that switches one of them.
 */
import { useCallback, useState } from "react";

export type SwitchCommand = "toggleOverlay" | "toggleAction" | "toggleHelp";

export function useViewSwitches() {
  const [showSom, setShowSom] = useState(true);
  const [showAction, setShowAction] = useState(true);
  const [help, setHelp] = useState(false);
  const flip = useCallback((command: SwitchCommand) => {
    const set = command === "toggleOverlay" ? setShowSom : command === "toggleAction" ? setShowAction : setHelp;
    set((v) => !v);
  }, []);
  return { showSom, showAction, help, setHelp, flip };
}

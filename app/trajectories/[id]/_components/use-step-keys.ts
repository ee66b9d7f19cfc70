"use client";
/**
 * Key handling for the views that step through trajectories (the player, the side-by-side page): one listener on the
 * window that reads a key press through the view's key map (built on server/domain/player/keyboard.ts) and runs the
 * command. A key another listener already took (a label form's) is left alone; while a dialog of the view is open
 * (the help, a zoom) only closing it does anything, so a stray key cannot change the step underneath.
 */
import { useEffect } from "react";
import type { KeyLike, TargetLike } from "@/server/domain/player/keyboard";
import { keyTargetOf } from "../../../_lib/key-target";

/** The commands that close what is open over the view. */
type Closing = "toggleHelp" | "close";

export function useStepKeys<C extends string>(commandFor: (e: KeyLike, target: TargetLike | null) => C | null, run: (command: C) => void, dialogOpen: boolean) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const cmd = commandFor(e, keyTargetOf(e.target));
      if (!cmd) return;
      if (dialogOpen && !isClosing(cmd)) return;
      e.preventDefault();
      run(cmd);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [commandFor, run, dialogOpen]);
}

function isClosing(cmd: string): cmd is Closing {
  return cmd === "toggleHelp" || cmd === "close";
}

"use client";
/**
 * The steps a view has in hand: the windows of full step details fetched so far (server/domain/player/paging.ts), and
 * a placeholder for a step whose details have not arrived (its screenshot from the index, so it shows at once). The
 * player fetches the windows its playhead needs; the side-by-side page fetches every window and shows steps the same way.
 */
import { useCallback, useEffect, useState } from "react";
import { fromJsonText, windowsToFetch, windowStart, STEP_WINDOW, type StepIndexEntry } from "@/server/domain/player/paging";
import type { LoadStepWindow, PlayerStepData, StepWindowData } from "./player";

/** One placeholder per index entry, so a step shown before its details keeps its identity across renders. */
const placeholders = new WeakMap<StepIndexEntry, PlayerStepData>();

/** A step whose details have not arrived yet: its screenshot from the index, nothing else. */
export function placeholderStep(e: StepIndexEntry): PlayerStepData {
  let p = placeholders.get(e);
  if (!p) {
    p = {
      index: e.position,
      url: null,
      thought: null,
      actionRaw: null,
      action: { type: "noop" },
      elements: null,
      error: null,
      durationMs: null,
      marksBurnedIn: false,
      screenshot: e.shot ? { ...e.shot, dhash: null } : null,
      rawScreenshot: null,
    };
    placeholders.set(e, p);
  }
  return p;
}

/** The step as far as it is known: its details once loaded, else its placeholder; none past the end. */
export function stepOrPlaceholder(loaded: PlayerStepData | undefined, entry: StepIndexEntry | undefined): PlayerStepData | undefined {
  return loaded ?? (entry ? placeholderStep(entry) : undefined);
}

/** The positions whose screenshots are fetched and decoded ahead of `current`: next, previous, the one after next. */
export function neighbourPositions(current: number): number[] {
  return [current + 1, current - 1, current + 2];
}

/**
 * The windows of full step details fetched so far, and fetching the ones the playhead needs next (the current
 * step's window at once, the neighbouring one when the playhead comes within PREFETCH_MARGIN of it).
 */
export function useStepWindows(first: StepWindowData, index: StepIndexEntry[], current: number, loadWindow?: LoadStepWindow, also?: StepWindowData) {
  const [windows, setWindows] = useState(() => {
    const m = new Map<number, PlayerStepData[]>([[first.from, fromJsonText(first.steps)]]);
    if (also) m.set(also.from, fromJsonText(also.steps));
    return m;
  });
  const [windowError, setWindowError] = useState<string | null>(null);
  // A new payload (a live trajectory's next step) replaces the first window.
  const [firstSeen, setFirstSeen] = useState(first);
  if (firstSeen !== first) {
    setFirstSeen(first);
    setWindows((w) => new Map(w).set(first.from, fromJsonText(first.steps)));
  }
  const n = index.length;
  useEffect(() => {
    if (!loadWindow) return;
    const wanted = windowsToFetch(current, n, new Set(windows.keys()));
    let live = true;
    for (const from of wanted) {
      loadWindow(from).then(
        (w) => {
          if (!live) return;
          setWindowError(null);
          setWindows((m) => (m.has(w.from) ? m : new Map(m).set(w.from, fromJsonText(w.steps))));
        },
        (e: unknown) => {
          if (live) setWindowError(e instanceof Error ? e.message : String(e));
        },
      );
    }
    return () => {
      live = false;
    };
  }, [current, n, windows, loadWindow]);
  const stepAt = useCallback(
    (i: number): PlayerStepData | undefined => {
      const from = windowStart(i, STEP_WINDOW);
      return windows.get(from)?.[i - from];
    },
    [windows],
  );
  return { stepAt, windowError };
}

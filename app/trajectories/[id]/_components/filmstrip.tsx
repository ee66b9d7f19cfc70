"use client";
/**
 * The timeline: one thumbnail per step with its action, and markers for loops (repeated action, revisited URL,
 * identical screen), grounding flags and step errors. The current step stays scrolled into view.
 *
 * With the evaluations panel open, steps whose screenshots a judge saw carry an eye mark (how many evaluators saw
 * it, named in the tooltip), and those of the verdict chosen in the panel are underlined in violet. Steps a scanner
 * matched carry an orange ⚠, its name and matched text in the tooltip.
 */
import { memo, useEffect, useRef, useState } from "react";
import { screenshotUrl, THUMBNAIL_WIDTH } from "@/server/domain/image-variants";
import type { GroundingFlag } from "@/server/domain/player/overlay";
import type { StepIndexEntry } from "@/server/domain/player/paging";
import type { EvaluationMark } from "./evaluations-panel";
import type { PlayerStepData } from "./player";
import { groundingOf } from "./step-grounding";
import { scannerMarkTitle, useScannerMarks, type ScannerMark } from "./scanner-marks";

const THUMB_WIDTH = 112;
/** One cell's width plus the gap (w-[116px], gap-1.5), and the list's left padding (px-3). */
const CELL_STRIDE = 122;
const LIST_PADDING = 12;
/** Above this many steps only the cells in view (and a margin) are rendered: 10,000 cells would make every step switch slow. */
const RENDER_ALL_UP_TO = 200;
const OVERSCAN = 20;

/**
 * Memoised per cell: a step change re-renders the two cells whose "current" changed, not the whole strip.
 * Cells render from the step index; a step's error text and grounding flag show once its details are loaded.
 */
export const Filmstrip = memo(function Filmstrip({
  index,
  stepAt,
  current,
  showThumbnails,
  evaluationMarks,
  openComments,
  trajectoryId,
  onSelect,
}: {
  index: StepIndexEntry[];
  stepAt: (i: number) => PlayerStepData | undefined;
  current: number;
  showThumbnails: boolean;
  evaluationMarks?: EvaluationMark[];
  /** Open comment threads per step (0-based), shown as a count on the step's cell. */
  openComments?: ReadonlyMap<number, number>;
  /** Whose scanners' matches to mark (./scanner-marks.tsx). */
  trajectoryId: number;
  onSelect: (i: number) => void;
}) {
  const listRef = useRef<HTMLOListElement>(null);
  const scannerMarks = useScannerMarks(trajectoryId);
  const n = index.length;
  const virtual = n > RENDER_ALL_UP_TO;
  const [view, setView] = useState({ left: 0, width: 1600 });
  useEffect(() => {
    // Keep the current step centred so its neighbours are visible on both sides (never scrolls the page).
    const list = listRef.current;
    if (!list) return;
    list.scrollLeft = LIST_PADDING + current * CELL_STRIDE - (list.clientWidth - (CELL_STRIDE - 6)) / 2;
    if (virtual) setView({ left: list.scrollLeft, width: list.clientWidth });
  }, [current, virtual]);
  useEffect(() => {
    const list = listRef.current;
    if (!list || !virtual) return;
    let frame = 0;
    const onScroll = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => setView({ left: list.scrollLeft, width: list.clientWidth }));
    };
    list.addEventListener("scroll", onScroll, { passive: true });
    window.addEventListener("resize", onScroll);
    return () => {
      cancelAnimationFrame(frame);
      list.removeEventListener("scroll", onScroll);
      window.removeEventListener("resize", onScroll);
    };
  }, [virtual]);

  const first = virtual ? Math.max(0, Math.floor((view.left - LIST_PADDING) / CELL_STRIDE) - OVERSCAN) : 0;
  const last = virtual ? Math.min(n - 1, Math.ceil((view.left + view.width) / CELL_STRIDE) + OVERSCAN) : n - 1;
  const cells = [];
  for (let i = first; i <= last; i++) {
    const full = stepAt(i);
    cells.push(
      <FilmstripCell
        key={i}
        entry={index[i]!}
        error={full?.error ?? null}
        grounding={full ? groundingOf(full) : null}
        isCurrent={i === current}
        showThumbnails={showThumbnails}
        mark={evaluationMarks?.[i]}
        scanner={scannerMarks.get(i)}
        comments={openComments?.get(i) ?? 0}
        onSelect={onSelect}
      />,
    );
  }
  return (
    <nav aria-label="Steps" className="shrink-0 border-t border-zinc-200 bg-white">
      <ol ref={listRef} className="relative flex gap-1.5 overflow-x-auto px-3 py-2" data-testid="filmstrip">
        {/* Spacers keep the scroll range of the whole strip when only part of it is rendered. */}
        {first > 0 && <li aria-hidden className="shrink-0" style={{ width: first * CELL_STRIDE - 6 }} />}
        {cells}
        {last < n - 1 && <li aria-hidden className="shrink-0" style={{ width: (n - 1 - last) * CELL_STRIDE - 6 }} />}
      </ol>
    </nav>
  );
});

const FilmstripCell = memo(function FilmstripCell({
  entry,
  error,
  grounding,
  isCurrent,
  showThumbnails,
  mark: seen,
  scanner,
  comments,
  onSelect,
}: {
  entry: StepIndexEntry;
  error: string | null;
  grounding: GroundingFlag | null;
  isCurrent: boolean;
  showThumbnails: boolean;
  mark?: EvaluationMark;
  scanner?: ScannerMark[];
  comments: number;
  onSelect: (i: number) => void;
}) {
  const i = entry.position;
  const img = entry.shot;
  const h = img ? Math.round((THUMB_WIDTH * img.height) / img.width) : Math.round(THUMB_WIDTH * 0.75);
  const loops = entry.loops;
  const loop = loops.repeatedAction || loops.revisitedUrl || loops.sameScreen;
  const loopWhy = [
    loops.repeatedAction && `same action as step ${i} (×${loops.repeatRun})`,
    loops.revisitedUrl && `revisits the URL of step ${(loops.firstSeenAt ?? 0) + 1}`,
    loops.sameScreen && "same screenshot as the previous step",
  ]
    .filter(Boolean)
    .join("; ");
  const seenBy = seen?.seenBy.length ? `\nSeen by ${seen.seenBy.join(", ")}` : "";
  const hasError = entry.hasError || !!error;
  return (
    <li className="shrink-0">
      <button
        type="button"
        onMouseDown={(e) => e.preventDefault()}
        onClick={() => onSelect(i)}
        aria-current={isCurrent ? "step" : undefined}
        aria-label={`Step ${i + 1}: ${entry.action}${loop ? ` (loop: ${loopWhy})` : ""}${grounding ? " (grounding flag)" : ""}${seen?.seenBy.length ? ` (screenshot seen by ${seen.seenBy.length} evaluators)` : ""}${scanner?.length ? ` (scanner: ${scanner.map((m) => m.scannerName).join(", ")})` : ""}${comments ? ` (${comments} open comment thread${comments === 1 ? "" : "s"})` : ""}`}
        title={`${i + 1}. ${entry.action}${loop ? `\n↻ ${loopWhy}` : ""}${grounding ? `\n⚑ ${grounding.message}` : ""}${error ? `\n✖ ${error}` : hasError ? "\n✖ step error" : ""}${scanner?.length ? `\n${scannerMarkTitle(scanner)}` : ""}${seenBy}${comments ? `\n${comments} open comment thread${comments === 1 ? "" : "s"}` : ""}`}
        data-testid="filmstrip-step"
        data-position={i}
        data-loop={loop || undefined}
        data-grounding={grounding ? true : undefined}
        data-judge-seen={seen?.seenBy.length || undefined}
        data-judge-chosen={seen?.chosen || undefined}
        data-scanner={scanner?.map((m) => m.scannerKey).join(" ") || undefined}
        className={`group flex w-[116px] flex-col gap-0.5 rounded-md p-0.5 text-left ${
          isCurrent ? "bg-indigo-50 ring-2 ring-indigo-500" : "ring-1 ring-zinc-200 hover:ring-zinc-400"
        }`}
      >
        <span className="relative block overflow-hidden rounded-sm bg-zinc-100" style={{ width: THUMB_WIDTH, height: Math.min(h, 84) }}>
          {img && showThumbnails && (
            <img
              src={screenshotUrl(img.hash, { width: THUMBNAIL_WIDTH, format: "webp" })}
              alt=""
              width={THUMB_WIDTH}
              height={h}
              loading="lazy"
              decoding="async"
              fetchPriority="low"
              draggable={false}
              className="block w-full object-cover object-top"
            />
          )}
          <span className="absolute top-0.5 left-0.5 rounded-sm bg-zinc-900/75 px-1 font-mono text-[10px] leading-3.5 text-white tabular-nums">{i + 1}</span>
          <span className="absolute top-0.5 right-0.5 flex gap-0.5">
            {loop && (
              <span className="rounded-sm bg-amber-400 px-1 text-[10px] leading-3.5 font-bold text-amber-950" data-testid="loop-marker">
                ↻
              </span>
            )}
            {grounding && <span className="rounded-sm bg-rose-600 px-1 text-[10px] leading-3.5 font-bold text-white">⚑</span>}
            {hasError && <span className="rounded-sm bg-rose-900 px-1 text-[10px] leading-3.5 font-bold text-white">✖</span>}
            {scanner && scanner.length > 0 && (
              <span className="rounded-sm bg-orange-500 px-1 text-[10px] leading-3.5 font-bold text-white" data-testid="scanner-mark">
                ⚠
              </span>
            )}
          </span>
          {seen && seen.seenBy.length > 0 && (
            <span
              className="absolute bottom-0.5 left-0.5 flex items-center gap-0.5 rounded-sm bg-violet-700/90 px-1 text-[10px] leading-3.5 font-semibold text-white tabular-nums"
              data-testid="judge-seen-mark"
            >
              <svg viewBox="0 0 16 16" className="size-2.5" aria-hidden fill="none" stroke="currentColor" strokeWidth={1.6}>
                <path d="M1 8s2.6-5 7-5 7 5 7 5-2.6 5-7 5-7-5-7-5z" />
                <circle cx="8" cy="8" r="2" fill="currentColor" />
              </svg>
              {seen.seenBy.length}
            </span>
          )}
          {comments > 0 && (
            <span
              className="absolute right-0.5 bottom-0.5 rounded-sm bg-sky-600 px-1 text-[10px] leading-3.5 font-semibold text-white tabular-nums"
              data-testid="comment-count"
            >
              <svg viewBox="0 0 16 16" className="mr-0.5 inline size-2.5 align-[-1px]" aria-hidden fill="currentColor">
                <path d="M2 3.5A1.5 1.5 0 0 1 3.5 2h9A1.5 1.5 0 0 1 14 3.5v6a1.5 1.5 0 0 1-1.5 1.5H7l-3 3v-3h-.5A1.5 1.5 0 0 1 2 9.5z" />
              </svg>
              {comments}
            </span>
          )}
          {seen?.chosen && <span className="absolute inset-x-0 bottom-0 h-[3px] bg-violet-500" data-testid="judge-chosen-mark" />}
        </span>
        <span className={`truncate px-0.5 font-mono text-[10.5px] leading-4 ${isCurrent ? "text-indigo-800" : "text-zinc-600"}`}>{entry.action}</span>
      </button>
    </li>
  );
});

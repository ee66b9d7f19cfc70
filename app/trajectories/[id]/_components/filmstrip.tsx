"use client";
/**
 * The timeline: one thumbnail per step with its action, and markers for loops (repeated action, revisited URL,
 * identical screen), grounding flags and step errors. The current step stays scrolled into view.
 *
 * With the evaluations panel open, steps whose screenshots a judge saw carry an eye mark (how many evaluators saw
 * it, named in the tooltip), and those of the verdict chosen in the panel are underlined in violet.
 */
import { useEffect, useRef } from "react";
import { screenshotUrl } from "@/server/domain/image-variants";
import { describeAction, shortAction } from "@/server/domain/player/action-text";
import type { EvaluationMark } from "./evaluations-panel";
import type { PlayerStepData, StepAnalysis } from "./player";

const THUMB_WIDTH = 112;

export function Filmstrip({
  steps,
  analysis,
  current,
  showThumbnails,
  evaluationMarks,
  onSelect,
}: {
  steps: PlayerStepData[];
  analysis: StepAnalysis[];
  current: number;
  showThumbnails: boolean;
  evaluationMarks?: EvaluationMark[];
  onSelect: (i: number) => void;
}) {
  const listRef = useRef<HTMLOListElement>(null);
  useEffect(() => {
    // Keep the current step centred so its neighbours are visible on both sides (never scrolls the page).
    const list = listRef.current;
    const el = list?.children[current] as HTMLElement | undefined;
    if (!list || !el) return;
    list.scrollLeft = el.offsetLeft - (list.clientWidth - el.offsetWidth) / 2;
  }, [current]);

  return (
    <nav aria-label="Steps" className="shrink-0 border-t border-zinc-200 bg-white">
      <ol ref={listRef} className="relative flex gap-1.5 overflow-x-auto px-3 py-2" data-testid="filmstrip">
        {steps.map((s, i) => {
          const a = analysis[i]!;
          const img = s.screenshot ?? s.rawScreenshot;
          const h = img ? Math.round((THUMB_WIDTH * img.height) / img.width) : Math.round(THUMB_WIDTH * 0.75);
          const isCurrent = i === current;
          const loop = a.loops.repeatedAction || a.loops.revisitedUrl || a.loops.sameScreen;
          const loopWhy = [
            a.loops.repeatedAction && `same action as step ${i} (×${a.loops.repeatRun})`,
            a.loops.revisitedUrl && `revisits the URL of step ${(a.loops.firstSeenAt ?? 0) + 1}`,
            a.loops.sameScreen && "same screenshot as the previous step",
          ]
            .filter(Boolean)
            .join("; ");
          const seen = evaluationMarks?.[i];
          const seenBy = seen?.seenBy.length ? `\nSeen by ${seen.seenBy.join(", ")}` : "";
          return (
            <li key={s.index} className="shrink-0">
              <button
                type="button"
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => onSelect(i)}
                aria-current={isCurrent ? "step" : undefined}
                aria-label={`Step ${i + 1}: ${describeAction(s.action, 40)}${loop ? ` (loop: ${loopWhy})` : ""}${a.grounding ? " (grounding flag)" : ""}${seen?.seenBy.length ? ` (screenshot seen by ${seen.seenBy.length} evaluators)` : ""}`}
                title={`${i + 1}. ${describeAction(s.action, 120)}${loop ? `\n↻ ${loopWhy}` : ""}${a.grounding ? `\n⚑ ${a.grounding.message}` : ""}${s.error ? `\n✖ ${s.error}` : ""}${seenBy}`}
                data-testid="filmstrip-step"
                data-loop={loop || undefined}
                data-grounding={a.grounding ? true : undefined}
                data-judge-seen={seen?.seenBy.length || undefined}
                data-judge-chosen={seen?.chosen || undefined}
                className={`group flex w-[116px] flex-col gap-0.5 rounded-md p-0.5 text-left ${
                  isCurrent ? "bg-indigo-50 ring-2 ring-indigo-500" : "ring-1 ring-zinc-200 hover:ring-zinc-400"
                }`}
              >
                <span className="relative block overflow-hidden rounded-sm bg-zinc-100" style={{ width: THUMB_WIDTH, height: Math.min(h, 84) }}>
                  {img && showThumbnails && (
                    <img
                      src={screenshotUrl(img.hash, { width: 160, format: "webp" })}
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
                  <span className="absolute top-0.5 left-0.5 rounded-sm bg-zinc-900/75 px-1 font-mono text-[10px] leading-3.5 text-white tabular-nums">
                    {i + 1}
                  </span>
                  <span className="absolute top-0.5 right-0.5 flex gap-0.5">
                    {loop && (
                      <span className="rounded-sm bg-amber-400 px-1 text-[10px] leading-3.5 font-bold text-amber-950" data-testid="loop-marker">
                        ↻
                      </span>
                    )}
                    {a.grounding && <span className="rounded-sm bg-rose-600 px-1 text-[10px] leading-3.5 font-bold text-white">⚑</span>}
                    {s.error && <span className="rounded-sm bg-rose-900 px-1 text-[10px] leading-3.5 font-bold text-white">✖</span>}
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
                  {seen?.chosen && <span className="absolute inset-x-0 bottom-0 h-[3px] bg-violet-500" data-testid="judge-chosen-mark" />}
                </span>
                <span className={`truncate px-0.5 font-mono text-[10.5px] leading-4 ${isCurrent ? "text-indigo-800" : "text-zinc-600"}`}>
                  {shortAction(s.action)}
                </span>
              </button>
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

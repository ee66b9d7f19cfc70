"use client";
/**
 * Full-resolution view of the current step: the original screenshot at 100% (or 200%), panned by dragging or
 * scrolling, with the same overlay drawn at that scale. Opens centred on the action's target when there is one.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { screenshotUrl } from "@/server/domain/image-variants";
import { useDialogFocus } from "../../../_lib/use-dialog-focus";
import { actionFocus, layoutOverlay } from "@/server/domain/player/overlay";
import type { PlayerStepData } from "./player";
import { shownImage } from "./step-stage";
import { StepOverlay } from "./step-overlay";

export function ZoomView({
  step,
  showRaw,
  showSom,
  showAction,
  position,
  count,
  onClose,
}: {
  step: PlayerStepData;
  showRaw: boolean;
  showSom: boolean;
  showAction: boolean;
  position: number;
  count: number;
  onClose: () => void;
}) {
  const [factor, setFactor] = useState(1);
  const scrollRef = useRef<HTMLDivElement>(null);
  const dialogRef = useRef<HTMLDivElement>(null);
  useDialogFocus(dialogRef);
  const drag = useRef<{ x: number; y: number; left: number; top: number; moved: boolean } | null>(null);
  const img = shownImage(step, showRaw);
  const natural = img ? { width: img.width, height: img.height } : { width: 0, height: 0 };
  const display = { width: natural.width * factor, height: natural.height * factor };
  const layout = useMemo(
    () => layoutOverlay({ natural, display, elements: step.elements, action: step.action }),
    // The sizes are rebuilt each render; their numbers are the real dependencies.
    [natural.width, natural.height, display.width, display.height, step.elements, step.action],
  );

  // Centre on the action (its target box or point) when opening and when the step changes.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const focus = actionFocus(layout);
    if (focus) {
      el.scrollLeft = focus.x - el.clientWidth / 2;
      el.scrollTop = focus.y - el.clientHeight / 2;
    } else {
      el.scrollLeft = 0;
      el.scrollTop = 0;
    }
  }, [layout, step.index]);

  useEffect(() => {
    scrollRef.current?.focus();
  }, []);

  return (
    <div
      ref={dialogRef}
      role="dialog"
      aria-modal="true"
      aria-label="Zoomed screenshot"
      className="fixed inset-0 z-50 flex flex-col bg-zinc-950/95 outline-none"
      data-testid="zoom-view"
    >
      <div className="flex h-10 shrink-0 items-center gap-3 border-b border-zinc-800 px-4 text-[12px] text-zinc-300">
        <span className="font-medium text-white">
          Step {position} of {count}
        </span>
        {img && (
          <span className="tabular-nums">
            {img.width}×{img.height} px · {Math.round(factor * 100)}%
          </span>
        )}
        <span className="text-zinc-500">Drag or scroll to pan · ←/→ step · z or Esc to close</span>
        <div className="ml-auto flex items-center gap-1.5">
          {[1, 2].map((f) => (
            <button
              key={f}
              type="button"
              onClick={() => setFactor(f)}
              className={`h-7 rounded-md px-2.5 text-[12px] font-medium ${factor === f ? "bg-white text-zinc-900" : "bg-zinc-800 text-zinc-200 hover:bg-zinc-700"}`}
            >
              {f * 100}%
            </button>
          ))}
          <a
            href={img ? screenshotUrl(img.hash) : undefined}
            target="_blank"
            rel="noreferrer"
            className="h-7 rounded-md bg-zinc-800 px-2.5 text-[12px] leading-7 font-medium text-zinc-200 hover:bg-zinc-700"
          >
            Original ↗
          </a>
          <button
            type="button"
            onClick={onClose}
            className="h-7 rounded-md bg-zinc-800 px-2.5 text-[12px] font-medium text-zinc-200 hover:bg-zinc-700"
            aria-label="Close zoom"
          >
            Close ✕
          </button>
        </div>
      </div>
      <div
        ref={scrollRef}
        tabIndex={-1}
        className="min-h-0 flex-1 cursor-grab overflow-auto outline-none active:cursor-grabbing"
        data-testid="zoom-scroll"
        onPointerDown={(e) => {
          if (e.button !== 0) return;
          const el = scrollRef.current!;
          drag.current = { x: e.clientX, y: e.clientY, left: el.scrollLeft, top: el.scrollTop, moved: false };
          el.setPointerCapture(e.pointerId);
        }}
        onPointerMove={(e) => {
          const d = drag.current;
          if (!d) return;
          const el = scrollRef.current!;
          el.scrollLeft = d.left - (e.clientX - d.x);
          el.scrollTop = d.top - (e.clientY - d.y);
          d.moved = true;
        }}
        onPointerUp={() => {
          drag.current = null;
        }}
      >
        {img ? (
          <div className="relative m-6" style={{ width: display.width, height: display.height }}>
            <img
              src={screenshotUrl(img.hash)}
              alt={`Step ${position} at full resolution`}
              width={display.width}
              height={display.height}
              draggable={false}
              className="block max-w-none select-none"
              style={{ width: display.width, height: display.height, imageRendering: factor > 1 ? "pixelated" : "auto" }}
              data-testid="zoom-image"
            />
            <StepOverlay layout={layout} display={display} showSom={showSom} showAction={showAction} labels={!(step.marksBurnedIn && !showRaw)} />
          </div>
        ) : (
          <p className="p-8 text-zinc-400">No screenshot for this step.</p>
        )}
      </div>
    </div>
  );
}

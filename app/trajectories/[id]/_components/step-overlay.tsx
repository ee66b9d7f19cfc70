"use client";
/**
 * Draws a computed OverlayLayout over the screenshot: Set-of-Marks boxes (hover for label, tag and text),
 * the targeted element, and the action marks. Geometry comes from server/domain/player/overlay.ts.
 */
import { useState } from "react";
import type { ActionMark, OverlayBox, OverlayLayout, Size } from "@/server/domain/player/overlay";

const ARROW_ROTATION = { up: 0, right: 90, down: 180, left: 270 } as const;

export function StepOverlay({
  layout,
  display,
  showSom,
  showAction,
  labels = true,
}: {
  layout: OverlayLayout;
  display: Size;
  showSom: boolean;
  showAction: boolean;
  /** False when the image already shows the labels (burned-in marks): boxes only, labels on hover. */
  labels?: boolean;
}) {
  const [hovered, setHovered] = useState<OverlayBox | null>(null);
  const hoveredVisible = hovered && layout.boxes.includes(hovered) ? hovered : null;
  const badges = layout.marks.filter((m): m is Extract<ActionMark, { kind: "navigate" | "unlocated" }> => m.kind === "navigate" || m.kind === "unlocated");
  return (
    <div className="pointer-events-none absolute inset-0 overflow-hidden" data-testid="step-overlay">
      {showSom &&
        layout.boxes.map((b, i) => (
          <div
            key={`${b.label}-${i}`}
            data-testid="som-box"
            data-label={b.label}
            data-targeted={b.targeted || undefined}
            onMouseEnter={() => setHovered(b)}
            onMouseLeave={() => setHovered((h) => (h === b ? null : h))}
            className={`pointer-events-auto absolute ${
              b.targeted
                ? "z-20 border-2 border-rose-500 bg-rose-500/10"
                : "z-10 border border-sky-500/80 hover:border-2 hover:border-sky-600 hover:bg-sky-500/10"
            } ${b.clipped ? "border-dashed" : ""}`}
            style={{ left: b.rect.x, top: b.rect.y, width: b.rect.width, height: b.rect.height }}
          >
            {(labels || b.targeted) && (
              <span
                className={`absolute -top-px -left-px px-0.5 font-mono text-[10px] leading-[12px] font-semibold text-white ${
                  b.targeted ? "bg-rose-500" : "bg-sky-600/90"
                }`}
              >
                {b.label}
              </span>
            )}
          </div>
        ))}
      {showSom && hoveredVisible && <BoxTooltip box={hoveredVisible} display={display} />}
      {showAction && layout.marks.map((m, i) => <Mark key={i} mark={m} display={display} drawTargetBox={!showSom} />)}
      {showAction && badges.length > 0 && (
        <div className="absolute top-2 left-2 z-30 flex max-w-[80%] flex-col items-start gap-1">
          {badges.map((b, i) => (
            <div
              key={i}
              data-testid={b.kind === "navigate" ? "action-nav-badge" : "action-unlocated-badge"}
              className={`max-w-full truncate rounded-md px-2 py-1 text-[12px] font-medium text-white shadow-md ${
                b.kind === "navigate" ? "bg-zinc-900/85" : "bg-rose-600/90 font-mono"
              }`}
              title={b.kind === "unlocated" ? `${b.text} (no box recorded: find the mark in the image)` : b.text}
            >
              {b.text}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}

function BoxTooltip({ box, display }: { box: OverlayBox; display: Size }) {
  const r = box.rect;
  const below = r.y + r.height + 4;
  const placeAbove = below + 60 > display.height;
  const alignRight = r.x > display.width / 2;
  return (
    <div
      role="tooltip"
      data-testid="som-tooltip"
      className="absolute z-40 max-w-72 rounded-md bg-zinc-900/95 px-2 py-1 text-[11px] leading-4 text-white shadow-lg"
      style={{
        ...(placeAbove ? { bottom: display.height - r.y + 4 } : { top: below }),
        ...(alignRight ? { right: Math.max(0, display.width - (r.x + r.width)) } : { left: Math.max(0, r.x) }),
      }}
    >
      <div className="font-mono font-semibold">
        [{box.label}] {box.tag ? <span className="font-normal text-zinc-300">&lt;{box.tag}&gt;</span> : null}
        {box.targeted && <span className="ml-1 text-rose-300">action target</span>}
      </div>
      {box.text && <div className="line-clamp-3 break-words text-zinc-200">{box.text}</div>}
      {box.clipped && <div className="text-amber-300">partly outside the screenshot</div>}
    </div>
  );
}

function Mark({ mark, display, drawTargetBox }: { mark: ActionMark; display: Size; drawTargetBox: boolean }) {
  switch (mark.kind) {
    case "click":
      return (
        <>
          {mark.rect && drawTargetBox && (
            <div
              data-testid="action-target-box"
              className="absolute z-20 border-2 border-dashed border-rose-500"
              style={{ left: mark.rect.x, top: mark.rect.y, width: mark.rect.width, height: mark.rect.height }}
            />
          )}
          {mark.point && (
            <svg
              data-testid="action-crosshair"
              className="absolute z-30 overflow-visible"
              style={{ left: mark.point.x, top: mark.point.y, width: 1, height: 1 }}
              aria-hidden
            >
              <circle r="9" fill="none" stroke="white" strokeWidth="4" />
              <circle r="9" fill="none" stroke="#f43f5e" strokeWidth="2" />
              <path d="M-16 0H-5M5 0H16M0 -16V-5M0 5V16" stroke="white" strokeWidth="4" />
              <path d="M-16 0H-5M5 0H16M0 -16V-5M0 5V16" stroke="#f43f5e" strokeWidth="2" />
              <circle r="1.8" fill="#f43f5e" />
            </svg>
          )}
          {mark.variant !== "click" && mark.point && (
            <span
              className="absolute z-30 rounded bg-rose-500 px-1 text-[10px] font-semibold text-white"
              style={{ left: mark.point.x + 14, top: mark.point.y + 8 }}
            >
              {mark.variant}
            </span>
          )}
        </>
      );
    case "type": {
      const alignRight = mark.anchor.x > display.width * 0.6;
      const placeAbove = mark.anchor.y + 30 > display.height;
      const top = placeAbove ? undefined : mark.anchor.y + 3;
      const bottom = placeAbove ? display.height - (mark.rect ? mark.rect.y : mark.anchor.y) + 3 : undefined;
      return (
        <>
          {mark.rect && drawTargetBox && (
            <div
              className="absolute z-20 border-2 border-dashed border-rose-500"
              style={{ left: mark.rect.x, top: mark.rect.y, width: mark.rect.width, height: mark.rect.height }}
            />
          )}
          <div
            data-testid="action-typed-text"
            className="absolute z-30 max-w-[60%] truncate rounded-md bg-rose-600 px-1.5 py-0.5 font-mono text-[11px] text-white shadow-md"
            style={{
              top,
              bottom,
              ...(alignRight ? { right: Math.max(4, display.width - (mark.rect ? mark.rect.x + mark.rect.width : mark.anchor.x)) } : { left: Math.max(4, mark.anchor.x) }),
            }}
            title={mark.text}
          >
            ⌨ {mark.text || <span className="italic opacity-80">(empty)</span>}
            {mark.submit && <span className="ml-1 opacity-80">⏎</span>}
          </div>
        </>
      );
    }
    case "scroll":
      return (
        <svg
          data-testid="action-scroll"
          data-direction={mark.direction}
          className="absolute z-30 overflow-visible"
          style={{ left: mark.anchor.x, top: mark.anchor.y, width: 1, height: 1 }}
          aria-label={`Scroll ${mark.direction}`}
        >
          <g transform={`rotate(${ARROW_ROTATION[mark.direction]})`}>
            <path d="M0 -34 L18 -10 H7 V30 H-7 V-10 H-18 Z" fill="#f43f5e" fillOpacity="0.9" stroke="white" strokeWidth="2.5" strokeLinejoin="round" />
          </g>
        </svg>
      );
    case "navigate":
    case "unlocated":
      // Drawn together as a stack of badges (see StepOverlay).
      return null;
    case "answer":
      return (
        <div
          data-testid="action-answer"
          className={`absolute inset-x-2 bottom-2 z-30 rounded-md px-3 py-2 text-[12px] text-white shadow-lg ${
            // Neutral: the banner shows what the agent answered, not whether it is right.
            mark.infeasible ? "bg-amber-700/90" : "bg-zinc-800/90"
          }`}
        >
          <div className="text-2xs font-semibold tracking-wider uppercase opacity-80">{mark.infeasible ? "Reported infeasible" : "Answer"}</div>
          <div className="line-clamp-3 break-words">{mark.text || <span className="italic opacity-80">(empty)</span>}</div>
        </div>
      );
  }
}

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
      {box.xpath && (
        <div className="truncate font-mono text-[10px] text-zinc-400" title={box.xpath}>
          {box.xpath}
        </div>
      )}
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
              ...(alignRight
                ? { right: Math.max(4, display.width - (mark.rect ? mark.rect.x + mark.rect.width : mark.anchor.x)) }
                : { left: Math.max(4, mark.anchor.x) }),
            }}
            title={mark.text}
          >
            ⌨ {mark.text || <span className="italic opacity-80">(empty)</span>}
            {mark.submit && <span className="ml-1 opacity-80">⏎</span>}
          </div>
        </>
      );
    }
    case "drag":
      return <DragMark from={mark.from} to={mark.to} display={display} />;
    case "scroll":
      if (mark.distance !== undefined)
        return <ScrollPath anchor={mark.anchor} direction={mark.direction} distance={mark.distance} label={mark.label ?? null} />;
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
          {mark.label && (
            <text x="24" y="4" className="text-[11px] font-semibold" fill="#be123c" stroke="white" strokeWidth="3" paintOrder="stroke">
              {mark.label}
            </text>
          )}
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

const UNIT = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] } as const;

/** A drag's path: a ring where the button went down, a dashed line, an arrowhead where it was released. */
function DragMark({ from, to, display }: { from: { x: number; y: number }; to: { x: number; y: number }; display: Size }) {
  const angle = (Math.atan2(to.y - from.y, to.x - from.x) * 180) / Math.PI;
  return (
    <svg
      data-testid="action-drag"
      data-from={`${Math.round(from.x)},${Math.round(from.y)}`}
      data-to={`${Math.round(to.x)},${Math.round(to.y)}`}
      className="absolute inset-0 z-30 overflow-visible"
      width={display.width}
      height={display.height}
      aria-label="Drag"
    >
      <line x1={from.x} y1={from.y} x2={to.x} y2={to.y} stroke="white" strokeWidth="5" strokeLinecap="round" />
      <line x1={from.x} y1={from.y} x2={to.x} y2={to.y} stroke="#f43f5e" strokeWidth="2.5" strokeDasharray="7 5" strokeLinecap="round" />
      <circle cx={from.x} cy={from.y} r="8" fill="none" stroke="white" strokeWidth="4" />
      <circle cx={from.x} cy={from.y} r="8" fill="#f43f5e" fillOpacity="0.35" stroke="#f43f5e" strokeWidth="2" />
      <g transform={`translate(${to.x} ${to.y}) rotate(${angle})`}>
        <path d="M0 0 L-14 -8 L-14 8 Z" fill="#f43f5e" stroke="white" strokeWidth="2" strokeLinejoin="round" />
      </g>
    </svg>
  );
}

/** A scroll whose distance is known: an arrow from where it happened, as long as the page moved, and the amount. */
function ScrollPath({
  anchor,
  direction,
  distance,
  label,
}: {
  anchor: { x: number; y: number };
  direction: keyof typeof UNIT;
  distance: number;
  label: string | null;
}) {
  // Very short scrolls still get a visible arrow; the label tells the real amount.
  const length = Math.max(28, distance);
  const [ux, uy] = UNIT[direction];
  const end = { x: ux * length, y: uy * length };
  return (
    <svg
      data-testid="action-scroll"
      data-direction={direction}
      data-distance={Math.round(distance)}
      className="absolute z-30 overflow-visible"
      style={{ left: anchor.x, top: anchor.y, width: 1, height: 1 }}
      aria-label={`Scroll ${direction}${label ? ` ${label}` : ""}`}
    >
      <line x1="0" y1="0" x2={end.x} y2={end.y} stroke="white" strokeWidth="9" strokeLinecap="round" />
      <line x1="0" y1="0" x2={end.x} y2={end.y} stroke="#f43f5e" strokeWidth="5" strokeLinecap="round" />
      <circle r="6" fill="#f43f5e" stroke="white" strokeWidth="2.5" />
      <g transform={`translate(${end.x} ${end.y}) rotate(${ARROW_ROTATION[direction]})`}>
        <path d="M0 -8 L13 10 H-13 Z" transform="translate(0 -4)" fill="#f43f5e" stroke="white" strokeWidth="2.5" strokeLinejoin="round" />
      </g>
      {label && (
        <text
          x={uy !== 0 ? 12 : 0}
          y={uy !== 0 ? end.y / 2 : -14}
          className="text-[11px] font-semibold"
          fill="#be123c"
          stroke="white"
          strokeWidth="3"
          paintOrder="stroke"
        >
          {label}
        </text>
      )}
    </svg>
  );
}

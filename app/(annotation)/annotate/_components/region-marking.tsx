"use client";
/**
 * Drawing region marks on the labelling page. `m` (or the Draw button) turns the mark mode on: a press-drag-release
 * on the step's screenshot draws a box, a click a point, with the mark label chosen in the label panel. Marks are
 * kept in the screenshot's own pixels (server/domain/annotation/region-marks.ts turns the drag into a mark), belong
 * to the label draft and are sent with the submit.
 *
 * The label panel owns the marks (they are part of its draft); the screenshot is drawn by the player, so the panel
 * hands a MarkingView up to the workspace, which gives it to the player's stage layer.
 */
import { useCallback, useEffect, useState, type PointerEvent } from "react";
import { MAX_MARKS_PER_LABEL, shapeFromDrag, type DrawnShape, type PixelPoint, type RegionMark } from "@/server/domain/annotation/region-marks";
import { MarkShapes } from "../../_components/region-marks";

interface Size {
  width: number;
  height: number;
}

/** What the screenshot layer needs from the label panel. */
export interface MarkingView {
  marks: readonly RegionMark[];
  /** The mark mode is on: the screenshot takes the pointer. */
  drawing: boolean;
  add: (shape: DrawnShape, stepIndex: number) => void;
  refuse: (message: string) => void;
}

/** The annotator's own marks' colour. */
const OWN_COLOUR = "#e11d48";
/** A press that moves no further than this many display pixels is a click (a point). */
const CLICK_SLACK_PX = 3;

/** The number a mark is listed by: its place among its step's marks, from 1. */
function numberOnStep(marks: readonly RegionMark[], m: RegionMark): number {
  return marks.filter((x) => x.step === m.step).indexOf(m) + 1;
}

/**
 * The mark mode and the chosen mark label of the label panel, and the panel's Region marks section. `setMarks`
 * changes the draft's marks.
 */
export function useRegionMarking({
  marks,
  setMarks,
  markLabels,
  locked,
  onMarking,
}: {
  marks: readonly RegionMark[];
  setMarks: (update: (marks: readonly RegionMark[]) => RegionMark[]) => void;
  markLabels: readonly string[];
  locked: boolean;
  onMarking?: (view: MarkingView | null) => void;
}) {
  const [drawing, setDrawing] = useState(false);
  const [label, setLabel] = useState(markLabels[0] ?? "");
  const [notice, setNotice] = useState<string | null>(null);
  const on = drawing && !locked;

  const add = useCallback(
    (shape: DrawnShape, stepIndex: number) => {
      if (marks.length >= MAX_MARKS_PER_LABEL) {
        setNotice(`A label holds at most ${MAX_MARKS_PER_LABEL} marks: delete one first.`);
        return;
      }
      setNotice(null);
      setMarks((list) => [...list, { ...shape, step: stepIndex, label } as RegionMark]);
    },
    [marks.length, setMarks, label],
  );

  useEffect(() => {
    onMarking?.({ marks, drawing: on, add, refuse: setNotice });
  }, [onMarking, marks, on, add]);
  useEffect(() => () => onMarking?.(null), [onMarking]);

  // Esc leaves the mark mode (outside text fields, where it belongs to the field).
  useEffect(() => {
    if (!on) return;
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (e.key !== "Escape" || t?.closest?.("input, textarea, select, [contenteditable]")) return;
      setDrawing(false);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [on]);

  const toggle = useCallback(() => {
    if (!locked) setDrawing((v) => !v);
  }, [locked]);

  const section = (stepIndex: number) => (
    <MarksSection
      marks={marks}
      stepIndex={stepIndex}
      drawing={on}
      locked={locked}
      label={label}
      markLabels={markLabels}
      notice={notice}
      onToggle={toggle}
      onLabel={setLabel}
      onDelete={(m) => setMarks((list) => list.filter((x) => x !== m))}
    />
  );
  return { toggle, section };
}

function MarksSection(props: {
  marks: readonly RegionMark[];
  stepIndex: number;
  drawing: boolean;
  locked: boolean;
  label: string;
  markLabels: readonly string[];
  notice: string | null;
  onToggle: () => void;
  onLabel: (label: string) => void;
  onDelete: (m: RegionMark) => void;
}) {
  const { marks, stepIndex, drawing, locked } = props;
  const here = marks.filter((m) => m.step === stepIndex);
  const elsewhere = [...new Set(marks.filter((m) => m.step !== stepIndex).map((m) => m.step + 1))].sort((a, b) => a - b);
  return (
    <div className="flex flex-col gap-1" data-testid="marks-section">
      <div className="flex items-center justify-between gap-2 text-[12px]">
        <span className="font-medium text-zinc-700">Region marks</span>
        <button
          type="button"
          className={`btn h-7 text-[12px] ${drawing ? "btn-on" : ""}`}
          aria-pressed={drawing}
          disabled={locked}
          onClick={props.onToggle}
          data-testid="mark-mode"
          title="Draw on the screenshot: drag for a box, click for a point"
        >
          {drawing ? "Drawing: stop" : "Draw"} <kbd className="kbd">m</kbd>
        </button>
      </div>
      <label className="flex items-center gap-2 text-[12px] text-zinc-700">
        <span className="shrink-0">Mark label</span>
        <select
          className="min-w-0 flex-1 rounded-md border border-zinc-300 bg-white px-1.5 py-0.5 text-[12px]"
          value={props.label}
          disabled={locked}
          onChange={(e) => props.onLabel(e.target.value)}
          data-testid="mark-label"
        >
          {props.markLabels.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
      </label>
      {drawing && (
        <p className="text-2xs text-indigo-700" data-testid="mark-mode-hint">
          Drag on the screenshot for a box, click for a point. <kbd className="kbd">m</kbd> or <kbd className="kbd">Esc</kbd> stops.
        </p>
      )}
      {here.length > 0 ? (
        <ol className="flex flex-col gap-0.5" data-testid="step-marks">
          {here.map((m, i) => (
            <li key={i} className="flex items-center gap-1.5 text-[12px] text-zinc-700" data-testid="step-mark">
              <span className="w-4 shrink-0 text-right font-semibold tabular-nums" style={{ color: OWN_COLOUR }}>
                {i + 1}
              </span>
              <span className="min-w-0 flex-1 truncate" title={`${m.label}: ${m.kind === "box" ? `${m.width}×${m.height} at ${m.x},${m.y}` : `${m.x},${m.y}`}`}>
                {m.kind === "box" ? "Box" : "Point"} · {m.label}
              </span>
              {!locked && (
                <button type="button" className="btn h-6 px-1.5 text-[11px]" onClick={() => props.onDelete(m)} aria-label={`Delete mark ${i + 1} (${m.label})`}>
                  Delete
                </button>
              )}
            </li>
          ))}
        </ol>
      ) : (
        <p className="text-2xs text-zinc-500">No marks on this step.</p>
      )}
      {elsewhere.length > 0 && (
        <p className="text-2xs text-zinc-500" data-testid="marks-elsewhere">
          Also marked: step{elsewhere.length === 1 ? "" : "s"} {elsewhere.join(", ")}
        </p>
      )}
      {props.notice && (
        <p role="alert" className="text-[12px] text-rose-700">
          {props.notice}
        </p>
      )}
    </div>
  );
}

/** The labelling page's layer over the screenshot: the annotator's marks on this step and, in mark mode, the drawing. */
export function MarkingLayer({ view, stepIndex, natural, display }: { view: MarkingView; stepIndex: number; natural: Size; display: Size }) {
  const [drag, setDrag] = useState<{ start: PixelPoint; end: PixelPoint } | null>(null);
  const toPixels = (e: PointerEvent<HTMLDivElement>): PixelPoint => {
    const r = e.currentTarget.getBoundingClientRect();
    return { x: ((e.clientX - r.left) * natural.width) / r.width, y: ((e.clientY - r.top) * natural.height) / r.height };
  };
  const fx = display.width / natural.width;
  const fy = display.height / natural.height;
  const here = view.marks.filter((m) => m.step === stepIndex);
  const preview = drag && shapeFromDrag(drag.start, drag.end, natural, CLICK_SLACK_PX / fx);
  return (
    <div
      className={`absolute inset-0 z-40 ${view.drawing ? "cursor-crosshair touch-none" : "pointer-events-none"}`}
      data-testid="marking-layer"
      data-drawing={view.drawing || undefined}
      onPointerDown={(e) => {
        if (!view.drawing || e.button !== 0) return;
        e.preventDefault();
        e.currentTarget.setPointerCapture(e.pointerId);
        const p = toPixels(e);
        setDrag({ start: p, end: p });
      }}
      onPointerMove={(e) => drag && setDrag({ start: drag.start, end: toPixels(e) })}
      onPointerUp={(e) => {
        if (!drag) return;
        const shape = shapeFromDrag(drag.start, toPixels(e), natural, CLICK_SLACK_PX / fx);
        setDrag(null);
        if (shape) view.add(shape, stepIndex);
        else view.refuse("That box is too thin to be a region: drag a larger box, or click for a point.");
      }}
      onPointerCancel={() => setDrag(null)}
      // In mark mode a click draws; it does not open the zoom beneath.
      onClick={(e) => view.drawing && e.stopPropagation()}
    >
      <MarkShapes marks={here} natural={natural} display={display} colour={OWN_COLOUR} numberOf={(m) => numberOnStep(view.marks, m)} />
      {preview?.kind === "box" && (
        <div
          className="pointer-events-none absolute border-2 border-dashed"
          style={{ left: preview.x * fx, top: preview.y * fy, width: preview.width * fx, height: preview.height * fy, borderColor: OWN_COLOUR }}
          data-testid="mark-preview"
        />
      )}
    </div>
  );
}

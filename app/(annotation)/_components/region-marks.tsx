"use client";
/**
 * Region marks drawn over a step's screenshot: boxes and points in the screenshot's own pixels, scaled to the size
 * it is shown at. The labelling page draws the annotator's own marks with it; adjudication and QA review draw every
 * annotator's, one colour each, with a legend on each label card.
 */
import type { RegionMark } from "@/server/domain/annotation/region-marks";

interface Size {
  width: number;
  height: number;
}

/** One colour per annotator, in the order their labels are listed (distinct on white and on screenshots). */
export const ANNOTATOR_COLOURS = ["#4f46e5", "#db2777", "#059669", "#d97706", "#0891b2", "#7c3aed", "#dc2626", "#65a30d"] as const;

export function annotatorColour(i: number): string {
  return ANNOTATOR_COLOURS[i % ANNOTATOR_COLOURS.length]!;
}

/** A point's dot, in display pixels. */
const DOT = 12;

/**
 * Marks of one step over the screenshot. `numberOf` gives each mark the number the page lists it by; `who` names the
 * annotator in the tooltip (adjudication).
 */
export function MarkShapes({
  marks,
  natural,
  display,
  colour,
  who,
  numberOf,
}: {
  marks: readonly RegionMark[];
  natural: Size;
  display: Size;
  colour: string;
  who?: string;
  numberOf?: (m: RegionMark) => number;
}) {
  const fx = display.width / natural.width;
  const fy = display.height / natural.height;
  return (
    <>
      {marks.map((m, i) => {
        const n = numberOf?.(m);
        const tag = `${n !== undefined ? `${n} · ` : ""}${m.label}`;
        const title = `${who ? `${who}: ` : ""}${m.label} (${m.kind === "box" ? `box ${m.width}×${m.height} at ${m.x},${m.y}` : `point at ${m.x},${m.y}`})`;
        const common = {
          "data-testid": "region-mark",
          "data-kind": m.kind,
          "data-label": m.label,
          "data-annotator": who,
          "data-mark": m.kind === "box" ? `${m.x},${m.y},${m.width},${m.height}` : `${m.x},${m.y}`,
          title,
        };
        return m.kind === "box" ? (
          <div
            key={i}
            {...common}
            className="pointer-events-none absolute z-30 border-2 shadow-[0_0_0_1px_rgba(255,255,255,0.85)]"
            style={{ left: m.x * fx, top: m.y * fy, width: m.width * fx, height: m.height * fy, borderColor: colour, backgroundColor: `${colour}1a` }}
          >
            <MarkTag text={tag} colour={colour} place="-top-4 left-[-2px]" />
          </div>
        ) : (
          <div
            key={i}
            {...common}
            className="pointer-events-none absolute z-30"
            style={{ left: m.x * fx - DOT / 2, top: m.y * fy - DOT / 2, width: DOT, height: DOT }}
          >
            <span className="absolute inset-0 rounded-full border-2 border-white shadow" style={{ backgroundColor: colour }} />
            <MarkTag text={tag} colour={colour} place="top-[-3px] left-[14px] whitespace-nowrap" />
          </div>
        );
      })}
    </>
  );
}

/** A mark's name on a strip of its colour, placed by `place` (above a box, beside a point). */
function MarkTag({ text, colour, place }: { text: string; colour: string; place: string }) {
  return (
    <span className={`absolute ${place} max-w-56 truncate px-1 text-[10.5px] leading-4 font-semibold text-white`} style={{ backgroundColor: colour }}>
      {text}
    </span>
  );
}

/** Every annotator's marks on one step, each in their colour (adjudication, QA review). */
export function AnnotatorMarksLayer({
  labels,
  stepIndex,
  natural,
  display,
}: {
  labels: readonly { annotatorName: string; marks?: readonly RegionMark[] | null }[];
  stepIndex: number;
  natural: Size;
  display: Size;
}) {
  return (
    <div className="pointer-events-none absolute inset-0" data-testid="annotator-marks">
      {labels.map((l, i) => (
        <MarkShapes
          key={i}
          marks={(l.marks ?? []).filter((m) => m.step === stepIndex)}
          natural={natural}
          display={display}
          colour={annotatorColour(i)}
          who={l.annotatorName}
        />
      ))}
    </div>
  );
}

/** A label card's line about its marks: the annotator's colour, how many and on which steps. */
export function MarksSummary({ marks, colour }: { marks?: readonly RegionMark[] | null; colour: string }) {
  const list = marks ?? [];
  if (list.length === 0) return <span className="text-zinc-500">no marks</span>;
  const steps = [...new Set(list.map((m) => m.step + 1))].sort((a, b) => a - b);
  return (
    <span
      className="inline-flex items-center gap-1"
      data-testid="marks-summary"
      title={list.map((m) => `step ${m.step + 1}: ${m.label} (${m.kind})`).join("\n")}
    >
      <span className="inline-block size-2.5 rounded-full" style={{ backgroundColor: colour }} aria-hidden />
      {list.length} mark{list.length === 1 ? "" : "s"} on step{steps.length === 1 ? "" : "s"} {steps.join(", ")}
    </span>
  );
}

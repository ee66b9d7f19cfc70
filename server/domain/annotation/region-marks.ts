/**
 * Region marks: boxes and points an annotator draws on a step's screenshot ("should have clicked", "the answer was
 * here"), each with one of the campaign's mark labels. Marks belong to a label (one annotator, one campaign item)
 * and are kept in the screenshot's own pixels, so they mean the same place at every display size.
 *
 * Pure: the services read the screenshots' sizes and the campaign's mark labels; this checks marks against them,
 * and measures how far annotators agree on where things are.
 */

/** The mark labels a campaign offers when its template names none. */
export const DEFAULT_MARK_LABELS: readonly string[] = ["should have clicked", "the answer was here", "wrong element"];

/** At most this many marks on one label (all steps together). */
export const MAX_MARKS_PER_LABEL = 50;
/** At most this many mark labels in a campaign's list, each at most this long. */
export const MAX_MARK_LABELS = 12;
export const MAX_MARK_LABEL_LENGTH = 60;
/** A box narrower or lower than this many screenshot pixels is a slip of the mouse, not a region. */
export const MIN_BOX_SIDE = 4;
/** A point counts as agreeing with another annotator's point within this many screenshot pixels. */
export const POINT_MATCH_RADIUS = 24;
/** Boxes overlapping at least this much (intersection over union) count as marking the same region. */
export const IOU_MATCH_THRESHOLD = 0.5;

interface MarkBase {
  /** 0-based step index, as labels store the first failing step. */
  step: number;
  /** One of the campaign's mark labels. */
  label: string;
}

export interface BoxMark extends MarkBase {
  kind: "box";
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PointMark extends MarkBase {
  kind: "point";
  x: number;
  y: number;
}

export type RegionMark = BoxMark | PointMark;

/** A screenshot's size in its own pixels. */
export interface ImageSize {
  width: number;
  height: number;
}

/** What marks are checked against: each step's screenshot size (steps without a screenshot are absent) and the labels. */
export interface MarkContext {
  screenshotSizes: ReadonlyMap<number, ImageSize>;
  markLabels: readonly string[];
}

export type MarksCheck = { ok: true; marks: RegionMark[] } | { ok: false; problems: string[] };

/** The campaign's mark labels: its template's own list when it has one (trimmed, without repeats), else the default. */
export function markLabelsOf(templateList: readonly unknown[] | null | undefined): string[] {
  const seen = new Set<string>();
  for (const entry of templateList ?? []) {
    if (typeof entry !== "string") continue;
    const text = entry.trim();
    if (text && text.length <= MAX_MARK_LABEL_LENGTH) seen.add(text);
  }
  const list = [...seen].slice(0, MAX_MARK_LABELS);
  return list.length > 0 ? list : [...DEFAULT_MARK_LABELS];
}

function isWhole(n: unknown): n is number {
  return typeof n === "number" && Number.isInteger(n);
}

/** The problem with one mark, or null when it is sound (`where` names it in the message: "mark 3"). */
function markProblem(raw: unknown, where: string, context: MarkContext): string | null {
  if (typeof raw !== "object" || raw === null) return `${where} is not a mark`;
  const m = raw as Record<string, unknown>;
  if (m.kind !== "box" && m.kind !== "point") return `${where} must be a box or a point`;
  if (!isWhole(m.step) || m.step < 0) return `${where} names no step`;
  const size = context.screenshotSizes.get(m.step);
  if (!size) return `${where} is on step ${m.step + 1}, which has no screenshot`;
  if (typeof m.label !== "string" || !context.markLabels.includes(m.label))
    return `${where} has the label "${String(m.label)}", which this campaign does not offer`;
  if (!isWhole(m.x) || !isWhole(m.y)) return `${where} needs whole pixel coordinates`;
  if (m.kind === "point") {
    return m.x >= 0 && m.y >= 0 && m.x < size.width && m.y < size.height ? null : `${where} lies outside the ${size.width}×${size.height} screenshot`;
  }
  if (!isWhole(m.width) || !isWhole(m.height)) return `${where} needs a whole width and height`;
  if (m.width < MIN_BOX_SIDE || m.height < MIN_BOX_SIDE) return `${where} is smaller than ${MIN_BOX_SIDE}×${MIN_BOX_SIDE} pixels`;
  if (m.x < 0 || m.y < 0 || m.x + m.width > size.width || m.y + m.height > size.height)
    return `${where} reaches outside the ${size.width}×${size.height} screenshot`;
  return null;
}

/** Only the fields a mark has, in a fixed order, so stored marks carry nothing a client slipped in. */
function cleanMark(m: RegionMark): RegionMark {
  return m.kind === "box"
    ? { kind: "box", step: m.step, label: m.label, x: m.x, y: m.y, width: m.width, height: m.height }
    : { kind: "point", step: m.step, label: m.label, x: m.x, y: m.y };
}

/** Checks a label's marks as a client sent them; every problem is named with the mark's number (1-based). */
export function checkRegionMarks(raw: unknown, context: MarkContext): MarksCheck {
  if (raw === undefined || raw === null) return { ok: true, marks: [] };
  if (!Array.isArray(raw)) return { ok: false, problems: ["marks must be a list"] };
  if (raw.length > MAX_MARKS_PER_LABEL) return { ok: false, problems: [`a label holds at most ${MAX_MARKS_PER_LABEL} marks (got ${raw.length})`] };
  const problems = raw.map((m, i) => markProblem(m, `mark ${i + 1}`, context)).filter((p): p is string => p !== null);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, marks: (raw as RegionMark[]).map(cleanMark) };
}

/** A place on a screenshot, in its own pixels. */
export interface PixelPoint {
  x: number;
  y: number;
}

export type DrawnShape = Pick<BoxMark, "kind" | "x" | "y" | "width" | "height"> | Pick<PointMark, "kind" | "x" | "y">;

/**
 * The mark a press-drag-release on a screenshot draws, in the screenshot's pixels: a point where the pointer went down
 * when it moved no further than `clickSlack` pixels (a click), else the box between the two places, kept inside the
 * image; null for a drag too thin to be a box (under MIN_BOX_SIDE on a side).
 */
export function shapeFromDrag(start: PixelPoint, end: PixelPoint, size: ImageSize, clickSlack: number): DrawnShape | null {
  const clampX = (v: number) => Math.min(Math.max(Math.round(v), 0), size.width);
  const clampY = (v: number) => Math.min(Math.max(Math.round(v), 0), size.height);
  if (Math.abs(end.x - start.x) <= clickSlack && Math.abs(end.y - start.y) <= clickSlack) {
    return { kind: "point", x: Math.min(clampX(start.x), size.width - 1), y: Math.min(clampY(start.y), size.height - 1) };
  }
  const [x1, x2] = [clampX(Math.min(start.x, end.x)), clampX(Math.max(start.x, end.x))];
  const [y1, y2] = [clampY(Math.min(start.y, end.y)), clampY(Math.max(start.y, end.y))];
  if (x2 - x1 < MIN_BOX_SIDE || y2 - y1 < MIN_BOX_SIDE) return null;
  return { kind: "box", x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
}

/**
 * Marks as a draft kept in the browser holds them: only entries shaped like marks (whole coordinates, a label) are
 * kept; whether they fit the screenshot and the campaign's labels is the server's check on submit.
 */
export function marksFromDraft(raw: unknown): RegionMark[] {
  if (!Array.isArray(raw)) return [];
  const whole = (...v: unknown[]) => v.every(isWhole);
  return raw
    .filter((m): m is RegionMark => {
      if (typeof m !== "object" || m === null) return false;
      const r = m as Record<string, unknown>;
      if (typeof r.label !== "string" || !whole(r.step, r.x, r.y)) return false;
      return r.kind === "point" || (r.kind === "box" && whole(r.width, r.height));
    })
    .slice(0, MAX_MARKS_PER_LABEL)
    .map(cleanMark);
}

/** Intersection over union of two boxes (0 when they do not overlap). */
export function boxIoU(a: Pick<BoxMark, "x" | "y" | "width" | "height">, b: Pick<BoxMark, "x" | "y" | "width" | "height">): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / (a.width * a.height + b.width * b.height - inter);
}

/** Whether a point falls inside a box (its edges included). */
export function pointInBox(p: Pick<PointMark, "x" | "y">, box: Pick<BoxMark, "x" | "y" | "width" | "height">): boolean {
  return p.x >= box.x && p.y >= box.y && p.x <= box.x + box.width && p.y <= box.y + box.height;
}

/**
 * Pairs two annotators' boxes one to one, best overlap first (greedy): the IoU of each pair, and a 0 for every box
 * left without a partner on either side (a region only one of them marked).
 */
export function matchBoxes(a: readonly BoxMark[], b: readonly BoxMark[]): number[] {
  const candidates: { i: number; j: number; iou: number }[] = [];
  a.forEach((boxA, i) => b.forEach((boxB, j) => candidates.push({ i, j, iou: boxIoU(boxA, boxB) })));
  candidates.sort((p, q) => q.iou - p.iou || p.i - q.i || p.j - q.j);
  const usedA = new Set<number>();
  const usedB = new Set<number>();
  const ious: number[] = [];
  for (const c of candidates) {
    if (c.iou <= 0 || usedA.has(c.i) || usedB.has(c.j)) continue;
    usedA.add(c.i);
    usedB.add(c.j);
    ious.push(c.iou);
  }
  const unmatched = a.length - usedA.size + (b.length - usedB.size);
  return [...ious, ...Array<number>(unmatched).fill(0)];
}

/** Whether a point agrees with the other annotator's marks: inside one of their boxes or near one of their points. */
export function pointHits(p: PointMark, other: readonly RegionMark[], radius = POINT_MATCH_RADIUS): boolean {
  return other.some((m) => (m.kind === "box" ? pointInBox(p, m) : Math.hypot(m.x - p.x, m.y - p.y) <= radius));
}

/** One annotator's marks on one campaign item (a label, with or without marks). */
export interface MarkedLabel {
  item: string | number;
  annotator: string;
  marks: readonly RegionMark[];
}

export interface RegionAgreement {
  /** Box comparisons: matched pairs plus boxes only one annotator of a pair drew. */
  boxComparisons: number;
  /** Mean IoU over those comparisons (null when there are none). */
  meanIoU: number | null;
  /** Share of comparisons at IoU ≥ 0.5 (null when there are none). */
  matchedShare: number | null;
  /** Points whose annotator's partner had marks with the same label on that step. */
  points: number;
  /** Share of those points inside the partner's box or within the radius of the partner's point (null when none). */
  pointHitShare: number | null;
  /** Annotator pairs who labelled the same item and, between them, drew at least one mark. */
  pairs: number;
}

function groupKey(m: RegionMark): string {
  return `${m.step}\u0000${m.label}`;
}

function byGroup(marks: readonly RegionMark[]): Map<string, RegionMark[]> {
  const out = new Map<string, RegionMark[]>();
  for (const m of marks) out.set(groupKey(m), [...(out.get(groupKey(m)) ?? []), m]);
  return out;
}

interface Tally {
  ious: number[];
  points: number;
  hits: number;
  pairs: number;
}

/** Adds one pair of labels on the same item, compared step by step and mark label by mark label. */
function tallyPair(a: readonly RegionMark[], b: readonly RegionMark[], tally: Tally): void {
  if (a.length === 0 && b.length === 0) return;
  tally.pairs += 1;
  const groupsA = byGroup(a);
  const groupsB = byGroup(b);
  for (const key of new Set([...groupsA.keys(), ...groupsB.keys()])) {
    const ga = groupsA.get(key) ?? [];
    const gb = groupsB.get(key) ?? [];
    tally.ious.push(
      ...matchBoxes(
        ga.filter((m) => m.kind === "box"),
        gb.filter((m) => m.kind === "box"),
      ),
    );
    for (const [mine, theirs] of [
      [ga, gb],
      [gb, ga],
    ] as const) {
      if (theirs.length === 0) continue;
      for (const p of mine) {
        if (p.kind !== "point") continue;
        tally.points += 1;
        if (pointHits(p, theirs)) tally.hits += 1;
      }
    }
  }
}

/**
 * Agreement on regions between annotators who labelled the same items. Every pair of annotators on an item is
 * compared on each step and mark label: boxes are paired one to one by best IoU and a box only one of them drew
 * counts as IoU 0; a point counts when the other annotator marked that step with that label, and agrees when it lies
 * inside one of their boxes or within `POINT_MATCH_RADIUS` pixels of one of their points.
 */
export function regionAgreement(labels: readonly MarkedLabel[]): RegionAgreement {
  const byItem = new Map<string, MarkedLabel[]>();
  for (const l of labels) byItem.set(String(l.item), [...(byItem.get(String(l.item)) ?? []), l]);
  const tally: Tally = { ious: [], points: 0, hits: 0, pairs: 0 };
  for (const group of byItem.values()) {
    const sorted = [...group].sort((p, q) => (p.annotator < q.annotator ? -1 : p.annotator > q.annotator ? 1 : 0));
    for (let i = 0; i < sorted.length; i++) for (let j = i + 1; j < sorted.length; j++) tallyPair(sorted[i]!.marks, sorted[j]!.marks, tally);
  }
  const n = tally.ious.length;
  return {
    boxComparisons: n,
    meanIoU: n > 0 ? tally.ious.reduce((s, v) => s + v, 0) / n : null,
    matchedShare: n > 0 ? tally.ious.filter((v) => v >= IOU_MATCH_THRESHOLD).length / n : null,
    points: tally.points,
    pointHitShare: tally.points > 0 ? tally.hits / tally.points : null,
    pairs: tally.pairs,
  };
}

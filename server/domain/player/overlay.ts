/**
 * Overlay geometry for the trajectory player: where the Set-of-Marks boxes and the action marks go on a
 * screenshot shown at some display size, and whether the action's target is grounded in the step's elements.
 *
 * Pure: everything is computed from the stored boxes (screenshot pixels) and the displayed size (CSS pixels);
 * React only draws the result. Boxes are clipped to the image, boxes entirely outside it or with unusable
 * geometry are reported instead of drawn, and a target label missing from the element list is a grounding flag.
 */
import type { ParsedAction, ScrollDirection, SomElement } from "../types";

export interface Size {
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface OverlayBox {
  label: string;
  tag: string | null;
  text: string | null;
  /** Display coordinates, clipped to the image. */
  rect: Rect;
  /** Part of the box lies outside the screenshot (the page extends beyond the viewport). */
  clipped: boolean;
  /** The element the step's action targets. */
  targeted: boolean;
  /** Where the element sits in the page, when the source recorded it. */
  xpath?: string;
}

export interface HiddenBox {
  label: string;
  reason: "offscreen" | "invalid";
}

export type TargetStatus =
  /** The action names no element (scroll the window, go back, answer…). */
  | "none"
  /** The step has no element list at all, so the label cannot be checked. */
  | "unknown"
  /** The label is in the list and its box is on the image. */
  | "found"
  /** The label is in the list but the source recorded no box for it (marks burned into the image). */
  | "no-box"
  /** The label is in the list but its box lies outside the screenshot. */
  | "offscreen"
  /** The label is not among the step's elements: a grounding red flag. */
  | "missing";

export type ActionMark =
  | { kind: "click"; point: Point | null; rect: Rect | null; variant: "click" | "dblclick" | "hover" | "select" | "clear" | "upload" | "press" | "drag" }
  | { kind: "type"; text: string; submit: boolean; rect: Rect | null; anchor: Point }
  /**
   * A scroll. `distance` is the recorded scroll delta at display scale (the arrow's length) and `label` says how far
   * ("400 px", "2 pages"); both are absent when the source did not record how far it scrolled.
   */
  | { kind: "scroll"; direction: ScrollDirection; anchor: Point; rect: Rect | null; distance?: number; label?: string }
  /** A drag with its path, from its start point (on the screenshot) to its end point (possibly beyond it). */
  | { kind: "drag"; from: Point; to: Point; rect: Rect | null }
  | { kind: "navigate"; text: string }
  /** An element action whose element has no box and no point (marks burned in): shown as a badge. */
  | { kind: "unlocated"; text: string }
  | { kind: "answer"; text: string; infeasible: boolean };

export interface GroundingFlag {
  kind: "missing-label" | "point-outside-target";
  message: string;
}

export interface OverlayLayout {
  scale: { x: number; y: number };
  boxes: OverlayBox[];
  hidden: HiddenBox[];
  /** Labels the source listed without a box (text-only element lists). */
  withoutBox: string[];
  target: { label: string | null; status: TargetStatus; rect: Rect | null };
  marks: ActionMark[];
  grounding: GroundingFlag | null;
}

export interface OverlayInput {
  /** The screenshot's pixel size. */
  natural: Size;
  /** The size it is drawn at. */
  display: Size;
  elements: SomElement[] | null;
  action: ParsedAction;
}

const finite = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n);

/** Scale factors from screenshot pixels to display pixels; 0 when either size is unusable. */
export function scaleFactors(natural: Size, display: Size): { x: number; y: number } {
  if (!(natural.width > 0 && natural.height > 0 && display.width > 0 && display.height > 0)) return { x: 0, y: 0 };
  return { x: display.width / natural.width, y: display.height / natural.height };
}

/**
 * Intersects a [x, y, w, h] box (screenshot pixels) with the screenshot and scales it to display pixels.
 * Returns null for boxes that are entirely outside, have non-positive size or non-finite numbers.
 */
export function projectBox(
  bbox: readonly [number, number, number, number],
  natural: Size,
  display: Size,
): { rect: Rect; clipped: boolean } | "offscreen" | "invalid" {
  const [x, y, w, h] = bbox;
  if (![x, y, w, h].every(finite) || w <= 0 || h <= 0) return "invalid";
  const x0 = Math.max(0, x);
  const y0 = Math.max(0, y);
  const x1 = Math.min(natural.width, x + w);
  const y1 = Math.min(natural.height, y + h);
  if (x1 <= x0 || y1 <= y0) return "offscreen";
  const s = scaleFactors(natural, display);
  return {
    rect: { x: x0 * s.x, y: y0 * s.y, width: (x1 - x0) * s.x, height: (y1 - y0) * s.y },
    clipped: x0 !== x || y0 !== y || x1 !== x + w || y1 !== y + h,
  };
}

/** A point in screenshot pixels, scaled, wherever it lies (a drag may end outside the screenshot); null when not numbers. */
function projectAnyPoint(p: readonly [number, number], natural: Size, display: Size): Point | null {
  const [x, y] = p;
  if (!finite(x) || !finite(y)) return null;
  const s = scaleFactors(natural, display);
  return { x: x * s.x, y: y * s.y };
}

/** A point in screenshot pixels, scaled; null when it lies outside the screenshot or is not a number. */
export function projectPoint(p: readonly [number, number], natural: Size, display: Size): Point | null {
  const [x, y] = p;
  if (!finite(x) || !finite(y) || x < 0 || y < 0 || x > natural.width || y > natural.height) return null;
  const s = scaleFactors(natural, display);
  return { x: x * s.x, y: y * s.y };
}

export function rectContains(r: Rect, p: Point): boolean {
  return p.x >= r.x && p.x <= r.x + r.width && p.y >= r.y && p.y <= r.y + r.height;
}

export function rectCenter(r: Rect): Point {
  return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
}

/** Labels compare as trimmed strings: "12" and " 12" are the same mark; "a51" stays case-sensitive. */
function sameLabel(a: string, b: string): boolean {
  return a.trim() === b.trim();
}

const NAVIGATION_TEXT: Partial<Record<ParsedAction["type"], (a: ParsedAction) => string>> = {
  go_back: () => "← Back",
  go_forward: () => "Forward →",
  goto: (a) => `Go to ${a.value ?? "URL"}`,
  search_engine: (a) => (a.value ? `Search engine (${a.value})` : "Search engine"),
  new_tab: () => "New tab",
  tab_focus: (a) => `Switch to tab ${a.value ?? a.target ?? ""}`.trim(),
  close_tab: () => "Close tab",
  wait: () => "Wait",
  noop: () => "No operation",
};

export function layoutOverlay(input: OverlayInput): OverlayLayout {
  const { natural, display, elements, action } = input;
  const scale = scaleFactors(natural, display);
  const targetLabel = action.target != null && action.target.trim() !== "" ? action.target.trim() : null;

  const boxes: OverlayBox[] = [];
  const hidden: HiddenBox[] = [];
  const withoutBox: string[] = [];
  let targetStatus: TargetStatus = targetLabel === null ? "none" : elements === null ? "unknown" : "missing";
  let targetRect: Rect | null = null;

  for (const el of elements ?? []) {
    const isTarget = targetLabel !== null && sameLabel(el.label, targetLabel);
    if (!el.bbox) {
      withoutBox.push(el.label);
      if (isTarget && targetStatus === "missing") targetStatus = "no-box";
      continue;
    }
    const projected = projectBox(el.bbox, natural, display);
    if (projected === "offscreen" || projected === "invalid") {
      hidden.push({ label: el.label, reason: projected });
      if (isTarget && targetStatus === "missing") targetStatus = "offscreen";
      continue;
    }
    boxes.push({
      label: el.label,
      tag: el.tag ?? null,
      text: el.text ?? null,
      rect: projected.rect,
      clipped: projected.clipped,
      targeted: isTarget,
      ...(el.xpath ? { xpath: el.xpath } : {}),
    });
    if (isTarget && targetRect === null) {
      targetStatus = "found";
      targetRect = projected.rect;
    }
  }

  const point = action.coords ? projectPoint(action.coords, natural, display) : null;
  const grounding = groundingFlag(targetLabel, targetStatus, elements?.length ?? 0, targetRect && point ? rectContains(targetRect, point) : null);

  return {
    scale,
    boxes,
    hidden,
    withoutBox,
    target: { label: targetLabel, status: targetStatus, rect: targetRect },
    marks: actionMarks(action, {
      display,
      scale,
      rectFor: (label) => (label == null ? null : (boxes.find((b) => sameLabel(b.label, label))?.rect ?? null)),
      project: (coords) => (coords ? projectPoint(coords, natural, display) : null),
      projectAny: (coords) => (coords ? projectAnyPoint(coords, natural, display) : null),
    }),
    grounding,
  };
}

/**
 * The grounding red flag from where the target was found: a label missing from the step's elements, or a point
 * (when the action has one on the screenshot) outside its target's box. `pointInside` is null when either is unknown.
 */
function groundingFlag(targetLabel: string | null, status: TargetStatus, elementCount: number, pointInside: boolean | null): GroundingFlag | null {
  if (status === "missing" && targetLabel !== null) {
    return {
      kind: "missing-label",
      message: `Target [${targetLabel}] is not among the ${elementCount} element${elementCount === 1 ? "" : "s"} recorded for this step`,
    };
  }
  if (pointInside === false) {
    return { kind: "point-outside-target", message: `The action's point lies outside the box of its target [${targetLabel}]` };
  }
  return null;
}

/**
 * Only the grounding red flag of a step, as layoutOverlay reports it, without laying out boxes and marks: what the
 * grounding heuristic evaluator judges from, so the player's flag and the evaluator's verdict always agree.
 */
export function stepGrounding(input: { natural: Size; elements: SomElement[] | null; action: ParsedAction }): GroundingFlag | null {
  const { natural, elements, action } = input;
  const targetLabel = action.target != null && action.target.trim() !== "" ? action.target.trim() : null;
  if (targetLabel === null || elements === null) return null;
  let status: TargetStatus = "missing";
  let targetRect: Rect | null = null;
  for (const el of elements) {
    if (!sameLabel(el.label, targetLabel)) continue;
    if (!el.bbox) {
      if (status === "missing") status = "no-box";
      continue;
    }
    const projected = projectBox(el.bbox, natural, natural);
    if (projected === "offscreen" || projected === "invalid") {
      if (status === "missing") status = "offscreen";
      continue;
    }
    status = "found";
    targetRect = projected.rect;
    break;
  }
  const point = targetRect && action.coords ? projectPoint(action.coords, natural, natural) : null;
  return groundingFlag(targetLabel, status, elements.length, targetRect && point ? rectContains(targetRect, point) : null);
}

const VERBS: Partial<Record<ParsedAction["type"], string>> = {
  click: "Click",
  dblclick: "Double-click",
  hover: "Hover",
  select: "Select",
  clear: "Clear",
  upload: "Upload to",
  drag: "Drag",
  type: "Type into",
};

/** Badge text for an element action that cannot be placed: names the mark so it can be found in the image. */
function unlocatedText(a: ParsedAction): string {
  const verb = VERBS[a.type] ?? a.type;
  const where = a.target ? ` [${a.target}]` : "";
  const value = a.value ? (a.type === "type" ? `: "${a.value}"${a.submit ? " ⏎" : ""}` : ` ${a.value}`) : "";
  return `${verb}${where}${value}`;
}

interface MarkContext {
  display: Size;
  scale: { x: number; y: number };
  /** Display rect of an element label, or null when it has no drawable box. */
  rectFor(label: string | null | undefined): Rect | null;
  project(coords: readonly [number, number] | null | undefined): Point | null;
  projectAny(coords: readonly [number, number] | null | undefined): Point | null;
}

/** "400 px", "300 × 120 px": how far a scroll moved, as recorded. */
function deltaLabel(d: readonly [number, number]): string {
  const [dx, dy] = d.map((n) => Math.round(Math.abs(n)));
  if (dx && dy) return `${dx} × ${dy} px`;
  return `${dx || dy} px`;
}

function actionMarks(action: ParsedAction, ctx: MarkContext): ActionMark[] {
  // Multi-action strings (BrowserGym) draw every call, each with its own target and coordinates.
  if (action.calls && action.calls.length > 1) {
    return action.calls.flatMap((c) => actionMarks({ ...c, calls: undefined }, ctx));
  }
  const targetRect = ctx.rectFor(action.target);
  const point = ctx.project(action.coords);
  const atTarget = point ?? (targetRect ? rectCenter(targetRect) : null);
  switch (action.type) {
    case "drag": {
      // A drag between two points draws its path; one given by elements only is marked like a click on its source.
      const to = ctx.projectAny(action.to);
      if (point && to) return [{ kind: "drag", from: point, to, rect: targetRect }];
      if (!atTarget && !targetRect) return [{ kind: "unlocated", text: unlocatedText(action) }];
      return [{ kind: "click", point: atTarget, rect: targetRect, variant: "drag" }];
    }
    case "click":
    case "dblclick":
    case "hover":
    case "select":
    case "clear":
    case "upload":
      if (!atTarget && !targetRect) return [{ kind: "unlocated", text: unlocatedText(action) }];
      return [{ kind: "click", point: atTarget, rect: targetRect, variant: action.type }];
    case "press":
      return atTarget
        ? [{ kind: "click", point: atTarget, rect: targetRect, variant: "press" }]
        : [{ kind: "navigate", text: `Press ${action.value ?? "key"}` }];
    case "type": {
      const anchor = targetRect ? { x: targetRect.x, y: targetRect.y + targetRect.height } : point;
      if (!anchor) return [{ kind: "unlocated", text: unlocatedText(action) }];
      return [{ kind: "type", text: action.value ?? "", submit: !!action.submit, rect: targetRect, anchor }];
    }
    case "scroll": {
      const d = action.delta && action.delta.every(Number.isFinite) && (action.delta[0] || action.delta[1]) ? action.delta : null;
      const mark: ActionMark = {
        kind: "scroll",
        direction: action.direction ?? (d ? (Math.abs(d[1]) >= Math.abs(d[0]) ? (d[1] > 0 ? "down" : "up") : d[0] > 0 ? "right" : "left") : "down"),
        anchor: atTarget ?? { x: ctx.display.width / 2, y: ctx.display.height / 2 },
        rect: targetRect,
      };
      if (d) {
        mark.distance = Math.hypot(d[0] * ctx.scale.x, d[1] * ctx.scale.y);
        mark.label = deltaLabel(d);
      } else if (action.value && /\bpages?\b/.test(action.value)) mark.label = action.value;
      return [mark];
    }
    case "answer":
      return [{ kind: "answer", text: action.value ?? "", infeasible: false }];
    case "report_infeasible":
      return [{ kind: "answer", text: action.value ?? "", infeasible: true }];
    case "unparsed":
      return [];
    default: {
      const text = NAVIGATION_TEXT[action.type]?.(action);
      return text ? [{ kind: "navigate", text }] : [];
    }
  }
}

/**
 * Where the step's action happened on the displayed image (its target box's centre, the click or drag point, the
 * typed text's anchor, a scroll's point): what a scrolled or zoomed view brings into sight. Null for actions that
 * happen nowhere in particular (navigation, answers, a window scroll).
 */
export function actionFocus(layout: OverlayLayout): Point | null {
  if (layout.target.rect) return rectCenter(layout.target.rect);
  for (const m of layout.marks) {
    if (m.kind === "click" && m.point) return m.point;
    if (m.kind === "drag") return m.from;
    if (m.kind === "type") return m.anchor;
    if (m.kind === "scroll" && m.rect) return rectCenter(m.rect);
  }
  return null;
}

/**
 * The size a screenshot is shown at in the player's free area. It fits whole (never upscaled), except a full-page
 * screenshot (much taller than wide) that would shrink to a sliver: that one fits the area's width and scrolls, so
 * its marks keep a readable scale. `scrollbar` is the width a vertical scrollbar takes.
 */
export function stageSize(natural: Size, area: Size, scrollbar = 0): { size: Size; scrolls: boolean } {
  if (!(area.width > 0 && area.height > 0 && natural.width > 0 && natural.height > 0)) return { size: { width: 0, height: 0 }, scrolls: false };
  const whole = Math.min(area.width / natural.width, area.height / natural.height, 1);
  const byWidth = Math.min(Math.max(0, area.width - scrollbar) / natural.width, 1);
  const scrolls = natural.height > natural.width * 1.5 && whole < byWidth * 0.5;
  const scale = scrolls ? byWidth : whole;
  return { size: { width: Math.floor(natural.width * scale), height: Math.floor(natural.height * scale) }, scrolls };
}

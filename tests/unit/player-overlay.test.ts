import { describe, expect, it } from "vitest";
import { actionFocus, layoutOverlay, projectBox, projectPoint, scaleFactors, stageSize } from "../../server/domain/player/overlay";
import type { ParsedAction, SomElement } from "../../server/domain/types";

const natural = { width: 1000, height: 800 };
const half = { width: 500, height: 400 };

describe("scaleFactors", () => {
  it.each([
    [natural, half, { x: 0.5, y: 0.5 }],
    [natural, { width: 1000, height: 800 }, { x: 1, y: 1 }],
    [
      { width: 1024, height: 768 },
      { width: 2048, height: 1536 },
      { x: 2, y: 2 },
    ],
    // Non-uniform display (a stretched image) still maps each axis independently.
    [natural, { width: 250, height: 800 }, { x: 0.25, y: 1 }],
    [{ width: 0, height: 800 }, half, { x: 0, y: 0 }],
    [natural, { width: 0, height: 0 }, { x: 0, y: 0 }],
  ])("%o shown at %o scales by %o", (n, d, want) => {
    expect(scaleFactors(n, d)).toEqual(want);
  });
});

describe("projectBox", () => {
  it.each<[string, [number, number, number, number], ReturnType<typeof projectBox>]>([
    ["inside", [100, 200, 50, 40], { rect: { x: 50, y: 100, width: 25, height: 20 }, clipped: false }],
    ["touching the right edge", [950, 0, 50, 10], { rect: { x: 475, y: 0, width: 25, height: 5 }, clipped: false }],
    ["crossing the left edge", [-20, 10, 60, 20], { rect: { x: 0, y: 5, width: 20, height: 10 }, clipped: true }],
    ["crossing the bottom edge", [10, 780, 20, 100], { rect: { x: 5, y: 390, width: 10, height: 10 }, clipped: true }],
    ["below the viewport (page scrolled)", [10, 900, 20, 20], "offscreen"],
    ["left of the viewport", [-100, 10, 50, 20], "offscreen"],
    ["starting exactly at the right edge", [1000, 10, 20, 20], "offscreen"],
    ["zero width", [10, 10, 0, 20], "invalid"],
    ["negative height", [10, 10, 20, -5], "invalid"],
    ["NaN", [Number.NaN, 10, 20, 20], "invalid"],
  ])("box %s", (_name, bbox, want) => {
    expect(projectBox(bbox, natural, half)).toEqual(want);
  });
});

describe("projectPoint", () => {
  it("scales points inside the screenshot and rejects points outside it", () => {
    expect(projectPoint([500, 400], natural, half)).toEqual({ x: 250, y: 200 });
    expect(projectPoint([0, 0], natural, half)).toEqual({ x: 0, y: 0 });
    expect(projectPoint([1001, 10], natural, half)).toBeNull();
    expect(projectPoint([10, -1], natural, half)).toBeNull();
  });
});

const elements: SomElement[] = [
  { label: "0", bbox: [0, 0, 100, 50], tag: "a", text: "Home" },
  { label: "1", bbox: [200, 100, 300, 40], tag: "input", text: "Search" },
  { label: "2", bbox: [10, 2000, 10, 10], tag: "a", text: "Footer" },
  { label: "3", bbox: null, tag: "button", text: "Go" },
];

function lay(action: ParsedAction, els: SomElement[] | null = elements) {
  return layoutOverlay({ natural, display: half, elements: els, action });
}

describe("layoutOverlay: boxes and target", () => {
  it("draws on-screen boxes scaled, hides off-screen ones and lists text-only labels", () => {
    const l = lay({ type: "click", target: "1" });
    expect(l.boxes.map((b) => b.label)).toEqual(["0", "1"]);
    expect(l.boxes[1]).toMatchObject({ rect: { x: 100, y: 50, width: 150, height: 20 }, targeted: true, tag: "input" });
    expect(l.boxes[0]!.targeted).toBe(false);
    expect(l.hidden).toEqual([{ label: "2", reason: "offscreen" }]);
    expect(l.withoutBox).toEqual(["3"]);
    expect(l.target).toEqual({ label: "1", status: "found", rect: { x: 100, y: 50, width: 150, height: 20 } });
    expect(l.grounding).toBeNull();
  });

  it.each<[string, ParsedAction, SomElement[] | null, string, string | null]>([
    ["label not in the list", { type: "click", target: "33" }, elements, "missing", "missing-label"],
    ["label with no box (burned-in marks)", { type: "click", target: "3" }, elements, "no-box", null],
    ["label whose box is off-screen", { type: "click", target: "2" }, elements, "offscreen", null],
    ["no element list recorded", { type: "click", target: "33" }, null, "unknown", null],
    ["empty element list", { type: "click", target: "0" }, [], "missing", "missing-label"],
    ["action without target", { type: "go_back" }, elements, "none", null],
    ["label with surrounding spaces", { type: "click", target: " 1 " }, elements, "found", null],
    ["click point outside its target box", { type: "click", target: "0", coords: [900, 700] }, elements, "found", "point-outside-target"],
    ["click point inside its target box", { type: "click", target: "0", coords: [50, 25] }, elements, "found", null],
  ])("%s", (_name, action, els, status, flag) => {
    const l = lay(action, els);
    expect(l.target.status).toBe(status);
    expect(l.grounding?.kind ?? null).toBe(flag);
  });

  it("names the label and the element count in the grounding message", () => {
    expect(lay({ type: "type", target: "9", value: "x" }).grounding?.message).toBe("Target [9] is not among the 4 elements recorded for this step");
  });
});

describe("layoutOverlay: action marks", () => {
  it("click on a boxed element: box plus crosshair at its centre", () => {
    expect(lay({ type: "click", target: "0" }).marks).toEqual([
      { kind: "click", point: { x: 25, y: 12.5 }, rect: { x: 0, y: 0, width: 50, height: 25 }, variant: "click" },
    ]);
  });

  it("coordinate click: crosshair at the scaled point, no box", () => {
    expect(lay({ type: "click", coords: [400, 300] }, null).marks).toEqual([{ kind: "click", point: { x: 200, y: 150 }, rect: null, variant: "click" }]);
  });

  it("click whose target has no box and no coordinates: a badge naming the mark", () => {
    expect(lay({ type: "click", target: "3" }).marks).toEqual([{ kind: "unlocated", text: "Click [3]" }]);
  });

  it("typing into a field without a box: a badge with the text", () => {
    expect(lay({ type: "type", target: "3", value: "hello", submit: true }).marks).toEqual([{ kind: "unlocated", text: 'Type into [3]: "hello" ⏎' }]);
  });

  it("typing at a coordinate anchors the text at the point", () => {
    expect(lay({ type: "type", coords: [100, 100], value: "x" }, null).marks).toEqual([
      { kind: "type", text: "x", submit: false, rect: null, anchor: { x: 50, y: 50 } },
    ]);
  });

  it("typed text is anchored under its field", () => {
    expect(lay({ type: "type", target: "1", value: "green controller", submit: true }).marks).toEqual([
      { kind: "type", text: "green controller", submit: true, rect: { x: 100, y: 50, width: 150, height: 20 }, anchor: { x: 100, y: 70 } },
    ]);
  });

  it("window scroll points from the centre of the image", () => {
    expect(lay({ type: "scroll", direction: "up" }).marks).toEqual([{ kind: "scroll", direction: "up", anchor: { x: 250, y: 200 }, rect: null }]);
  });

  it("a scroll with a recorded delta draws an arrow as long as the delta at display scale, from its point", () => {
    expect(lay({ type: "scroll", direction: "down", delta: [0, 400] }, null).marks).toEqual([
      { kind: "scroll", direction: "down", anchor: { x: 250, y: 200 }, rect: null, distance: 200, label: "400 px" },
    ]);
    expect(lay({ type: "scroll", coords: [100, 600], delta: [-300, 0] }, null).marks).toEqual([
      { kind: "scroll", direction: "left", anchor: { x: 50, y: 300 }, rect: null, distance: 150, label: "300 px" },
    ]);
    expect(lay({ type: "scroll", direction: "up", value: "2 pages" }, null).marks[0]).toMatchObject({ label: "2 pages" });
  });

  it("a drag between two points draws its path, also when it ends beyond the screenshot", () => {
    expect(lay({ type: "drag", coords: [900, 500], to: [200, 500] }, null).marks).toEqual([
      { kind: "drag", from: { x: 450, y: 250 }, to: { x: 100, y: 250 }, rect: null },
    ]);
    expect(lay({ type: "drag", coords: [900, 500], to: [1200, 500] }, null).marks).toEqual([
      { kind: "drag", from: { x: 450, y: 250 }, to: { x: 600, y: 250 }, rect: null },
    ]);
    // Without an end point (BrowserGym's drag_and_drop between elements) it stays a mark on the source.
    expect(lay({ type: "drag", coords: [900, 500] }, null).marks).toEqual([{ kind: "click", point: { x: 450, y: 250 }, rect: null, variant: "drag" }]);
  });

  it("scroll inside an element starts at the element", () => {
    const [m] = lay({ type: "scroll", target: "1", direction: "down" }).marks;
    expect(m).toMatchObject({ kind: "scroll", direction: "down", anchor: { x: 175, y: 60 } });
  });

  it.each<[ParsedAction, string]>([
    [{ type: "go_back" }, "← Back"],
    [{ type: "goto", value: "https://example.com/a" }, "Go to https://example.com/a"],
    [{ type: "search_engine", value: "https://www.google.com/" }, "Search engine (https://www.google.com/)"],
    [{ type: "press", value: "Enter" }, "Press Enter"],
    [{ type: "wait" }, "Wait"],
  ])("navigation badge for %o", (action, text) => {
    expect(lay(action).marks).toEqual([{ kind: "navigate", text }]);
  });

  it("answer and infeasible report become an answer banner", () => {
    expect(lay({ type: "answer", value: "6 out of 6" }).marks).toEqual([{ kind: "answer", text: "6 out of 6", infeasible: false }]);
    expect(lay({ type: "report_infeasible", value: "no such item" }).marks).toEqual([{ kind: "answer", text: "no such item", infeasible: true }]);
  });

  it("unparsed actions draw nothing", () => {
    expect(lay({ type: "unparsed", value: "Clik [3]", parseError: "x" }).marks).toEqual([]);
  });

  it("multi-action steps draw each call with its own target", () => {
    const marks = lay({
      type: "type",
      target: "1",
      value: "a",
      calls: [
        { type: "type", target: "1", value: "a" },
        { type: "click", target: "0" },
      ],
    }).marks;
    expect(marks.map((m) => m.kind)).toEqual(["type", "click"]);
    expect(marks[1]).toMatchObject({ rect: { x: 0, y: 0, width: 50, height: 25 } });
  });
});

describe("stageSize: how big the player shows a screenshot", () => {
  const area = { width: 1000, height: 700 };
  it("a viewport screenshot fits whole, never upscaled", () => {
    expect(stageSize({ width: 1280, height: 800 }, area, 16)).toEqual({ size: { width: 1000, height: 625 }, scrolls: false });
    expect(stageSize({ width: 640, height: 400 }, area, 16)).toEqual({ size: { width: 640, height: 400 }, scrolls: false });
  });
  it("a phone screenshot (tall, but not a sliver when whole) still fits whole", () => {
    expect(stageSize({ width: 390, height: 844 }, area, 16)).toEqual({ size: { width: 323, height: 700 }, scrolls: false });
  });
  it("a full-page screenshot fits the width (less the scrollbar) and scrolls, one scale for both axes", () => {
    const { size, scrolls } = stageSize({ width: 1280, height: 6000 }, area, 16);
    expect(scrolls).toBe(true);
    expect(size).toEqual({ width: 984, height: 4612 });
    const layout = layoutOverlay({ natural: { width: 1280, height: 6000 }, display: size, elements: null, action: { type: "click", coords: [640, 4800] } });
    expect(layout.scale.x).toBeCloseTo(layout.scale.y, 3);
    const focus = actionFocus(layout)!;
    expect([focus.x, focus.y].map((n) => Math.round(n))).toEqual([492, 3690]);
  });
});

describe("actionFocus: where the action happened", () => {
  const lay = (action: ParsedAction, elements: SomElement[] | null = null) => layoutOverlay({ natural, display: half, elements, action });
  it("is the target's centre, the point, a drag's start, the typed text's anchor; nothing for navigation", () => {
    expect(actionFocus(lay({ type: "click", target: "1" }, [{ label: "1", bbox: [100, 100, 200, 100] }]))).toEqual({ x: 100, y: 75 });
    expect(actionFocus(lay({ type: "click", coords: [600, 200] }))).toEqual({ x: 300, y: 100 });
    expect(actionFocus(lay({ type: "drag", coords: [100, 100], to: [300, 100] }))).toEqual({ x: 50, y: 50 });
    expect(actionFocus(lay({ type: "type", coords: [10, 20], value: "x" }))).toEqual({ x: 5, y: 10 });
    expect(actionFocus(lay({ type: "goto", value: "https://a.test/" }))).toBeNull();
    expect(actionFocus(lay({ type: "scroll", direction: "down", delta: [0, 300] }))).toBeNull();
  });
});

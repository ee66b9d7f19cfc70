import { describe, expect, it } from "vitest";
import {
  boxIoU,
  checkRegionMarks,
  DEFAULT_MARK_LABELS,
  markLabelsOf,
  marksFromDraft,
  matchBoxes,
  pointHits,
  regionAgreement,
  shapeFromDrag,
  type BoxMark,
  type PointMark,
} from "../../server/domain/annotation/region-marks";

const context = { screenshotSizes: new Map([[0, { width: 1280, height: 800 }]]), markLabels: ["should have clicked", "the answer was here"] };
const box = (x: number, y: number, width: number, height: number, step = 0, label = "should have clicked"): BoxMark => ({
  kind: "box",
  step,
  label,
  x,
  y,
  width,
  height,
});
const point = (x: number, y: number, step = 0, label = "should have clicked"): PointMark => ({ kind: "point", step, label, x, y });

describe("region marks: checking what a client sends", () => {
  it("accepts marks inside the screenshot and keeps only a mark's own fields", () => {
    const sent = [{ ...box(1180, 700, 100, 100), colour: "red" }, point(0, 799, 0, "the answer was here")];
    expect(checkRegionMarks(sent, context)).toEqual({ ok: true, marks: [box(1180, 700, 100, 100), point(0, 799, 0, "the answer was here")] });
    expect(checkRegionMarks(undefined, context)).toEqual({ ok: true, marks: [] });
  });

  it("refuses marks outside the image, too small, on a step without a screenshot or with a label the campaign lacks", () => {
    const sent = [
      box(1181, 700, 100, 100),
      point(1280, 10),
      box(10, 10, 3, 50),
      point(5, 5, 3),
      point(5, 5, 0, "somewhere"),
      { kind: "circle", step: 0 },
      point(1.5, 2),
    ];
    expect(checkRegionMarks(sent, context)).toEqual({
      ok: false,
      problems: [
        "mark 1 reaches outside the 1280×800 screenshot",
        "mark 2 lies outside the 1280×800 screenshot",
        "mark 3 is smaller than 4×4 pixels",
        "mark 4 is on step 4, which has no screenshot",
        'mark 5 has the label "somewhere", which this campaign does not offer',
        "mark 6 must be a box or a point",
        "mark 7 needs whole pixel coordinates",
      ],
    });
    expect(checkRegionMarks(box(-1, 0, 10, 10), context)).toEqual({ ok: false, problems: ["marks must be a list"] });
    expect(checkRegionMarks([box(-1, 0, 10, 10)], context)).toEqual({ ok: false, problems: ["mark 1 reaches outside the 1280×800 screenshot"] });
  });

  it("holds at most 50 marks on a label", () => {
    expect(
      checkRegionMarks(
        Array.from({ length: 50 }, () => point(1, 1)),
        context,
      ).ok,
    ).toBe(true);
    expect(
      checkRegionMarks(
        Array.from({ length: 51 }, () => point(1, 1)),
        context,
      ),
    ).toEqual({ ok: false, problems: ["a label holds at most 50 marks (got 51)"] });
  });

  it("offers the template's own mark labels, trimmed and without repeats, or the default list", () => {
    expect(markLabelsOf([" wrong field ", "wrong field", "", 7, "x".repeat(61), "menu"])).toEqual(["wrong field", "menu"]);
    expect(markLabelsOf(undefined)).toEqual(DEFAULT_MARK_LABELS);
    expect(markLabelsOf([])).toEqual(["should have clicked", "the answer was here", "wrong element"]);
  });
});

describe("region marks: geometry", () => {
  it("measures intersection over union", () => {
    expect(boxIoU(box(0, 0, 10, 10), box(5, 5, 10, 10))).toBeCloseTo(1 / 7, 12);
    expect(boxIoU(box(0, 0, 10, 10), box(0, 0, 10, 20))).toBe(0.5);
    expect(boxIoU(box(0, 0, 10, 10), box(0, 0, 10, 10))).toBe(1);
    expect(boxIoU(box(0, 0, 10, 10), box(10, 0, 10, 10))).toBe(0);
  });

  it("pairs boxes one to one, best overlap first, and counts a box without a partner as 0", () => {
    expect(matchBoxes([box(0, 0, 10, 10), box(100, 100, 20, 20)], [box(0, 0, 10, 20)])).toEqual([0.5, 0]);
    // The second box of B would fit A's first box best too, but it is taken by the better pair.
    expect(matchBoxes([box(0, 0, 10, 10)], [box(0, 0, 10, 20), box(0, 0, 10, 10)])).toEqual([1, 0]);
    expect(matchBoxes([], [])).toEqual([]);
  });

  it("counts a point as agreeing inside the other's box (edges included) or within 24 px of the other's point", () => {
    expect(pointHits(point(10, 10), [box(0, 0, 10, 10)])).toBe(true);
    expect(pointHits(point(11, 10), [box(0, 0, 10, 10)])).toBe(false);
    expect(pointHits(point(50, 50), [point(74, 50)])).toBe(true);
    expect(pointHits(point(50, 50), [point(75, 50)])).toBe(false);
  });
});

describe("region marks: agreement between annotators", () => {
  it("compares every pair on an item by step and mark label", () => {
    const result = regionAgreement([
      { item: 1, annotator: "ana", marks: [box(0, 0, 10, 10, 2), point(50, 50, 2)] },
      { item: 1, annotator: "ben", marks: [box(0, 0, 10, 20, 2), point(60, 55, 2)] },
      { item: 2, annotator: "ana", marks: [box(0, 0, 10, 10)] },
      { item: 2, annotator: "ben", marks: [box(5, 5, 10, 10), point(200, 200, 0, "the answer was here")] },
      { item: 2, annotator: "cara", marks: [] },
      { item: 3, annotator: "ana", marks: [] },
      { item: 3, annotator: "ben", marks: [] },
    ]);
    // Boxes: 0.5 (item 1), 1/7 (ana and ben on item 2), 0 and 0 (cara drew none beside ana's and ben's box).
    expect(result.boxComparisons).toBe(4);
    expect(result.meanIoU).toBeCloseTo(9 / 56, 12);
    expect(result.matchedShare).toBe(0.25);
    // Both points of item 1 are 11.2 px apart; ben's point on item 2 has no mark with its label to meet.
    expect(result.points).toBe(2);
    expect(result.pointHitShare).toBe(1);
    // Item 1: one pair; item 2: three; item 3: nobody drew anything.
    expect(result.pairs).toBe(4);
  });

  it("has no figures when nobody drew a mark", () => {
    expect(regionAgreement([{ item: 1, annotator: "ana", marks: [] }])).toEqual({
      boxComparisons: 0,
      meanIoU: null,
      matchedShare: null,
      points: 0,
      pointHitShare: null,
      pairs: 0,
    });
  });
});

describe("region marks: drawing", () => {
  const size = { width: 1280, height: 800 };
  it("a press released where it started (within the slack) is a point at the press", () => {
    expect(shapeFromDrag({ x: 100.4, y: 50.6 }, { x: 102, y: 49 }, size, 3)).toEqual({ kind: "point", x: 100, y: 51 });
    expect(shapeFromDrag({ x: 1280, y: 800 }, { x: 1280, y: 800 }, size, 3)).toEqual({ kind: "point", x: 1279, y: 799 });
  });

  it("a drag is the box between its ends, whichever way it went, kept inside the screenshot", () => {
    expect(shapeFromDrag({ x: 300, y: 200 }, { x: 100.2, y: 50 }, size, 3)).toEqual({ kind: "box", x: 100, y: 50, width: 200, height: 150 });
    expect(shapeFromDrag({ x: 1200, y: 700 }, { x: 1400, y: 900 }, size, 3)).toEqual({ kind: "box", x: 1200, y: 700, width: 80, height: 100 });
    expect(shapeFromDrag({ x: -20, y: -5 }, { x: 40, y: 30 }, size, 3)).toEqual({ kind: "box", x: 0, y: 0, width: 40, height: 30 });
  });

  it("a drag too thin for a box draws nothing, and every box drawn passes the server's check", () => {
    expect(shapeFromDrag({ x: 10, y: 10 }, { x: 200, y: 12 }, size, 1)).toBeNull();
    const drawn = shapeFromDrag({ x: 1270, y: 790 }, { x: 1300, y: 820 }, size, 1)!;
    expect(checkRegionMarks([{ ...drawn, step: 0, label: "should have clicked" }], context)).toMatchObject({ ok: true });
  });

  it("reads marks from a stored draft, keeping only mark-shaped entries", () => {
    expect(marksFromDraft("marks")).toEqual([]);
    expect(marksFromDraft([box(1, 2, 30, 40), { kind: "box", step: 0, label: "a", x: 1, y: 1 }, point(3, 4), null, { ...point(1, 1), label: 7 }])).toEqual([
      box(1, 2, 30, 40),
      point(3, 4),
    ]);
  });
});

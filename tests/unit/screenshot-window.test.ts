import { describe, expect, it } from "vitest";
import { describeK, screenshotWindow } from "../../server/domain/evaluation/screenshot-window";

/** Steps as stored: indices need not start at 0 or be contiguous; some have no screenshot. */
const steps = [
  { index: 3, hasScreenshot: true },
  { index: 4, hasScreenshot: true },
  { index: 6, hasScreenshot: false },
  { index: 7, hasScreenshot: true },
  { index: 9, hasScreenshot: true },
];

describe("which steps' screenshots an evaluator saw", () => {
  it("maps k to the last k steps that have a screenshot, as player positions", () => {
    expect(screenshotWindow({ k: "1", stepIndices: null }, steps)).toEqual({ kind: "steps", positions: [4], source: "from-k" });
    // The step without a screenshot is skipped, so k = 3 reaches back to position 1, not 2.
    expect(screenshotWindow({ k: "3", stepIndices: null }, steps)).toEqual({ kind: "steps", positions: [1, 3, 4], source: "from-k" });
    expect(screenshotWindow({ k: "full", stepIndices: null }, steps)).toEqual({ kind: "steps", positions: [0, 1, 3, 4], source: "from-k" });
  });

  it("caps k at the screenshots there are", () => {
    expect(screenshotWindow({ k: "40", stepIndices: null }, steps)).toMatchObject({ positions: [0, 1, 3, 4] });
    expect(screenshotWindow({ k: "2", stepIndices: null }, [])).toEqual({ kind: "steps", positions: [], source: "from-k" });
  });

  it("believes the step indices a verdict recorded over its k", () => {
    expect(screenshotWindow({ k: "3", stepIndices: [4, 9] }, steps)).toEqual({ kind: "steps", positions: [1, 4], source: "recorded" });
  });

  it("has no window without k (rules) or with a k it cannot read", () => {
    expect(screenshotWindow({ k: "", stepIndices: null }, steps)).toEqual({ kind: "none" });
    expect(screenshotWindow({ k: "last", stepIndices: null }, steps)).toEqual({ kind: "none" });
  });

  it("says k in words", () => {
    expect(describeK("1")).toBe("last 1 screenshot (k = 1)");
    expect(describeK("3")).toBe("last 3 screenshots (k = 3)");
    expect(describeK("full")).toBe("all screenshots (k = full)");
  });
});

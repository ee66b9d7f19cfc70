import { describe, expect, it } from "vitest";
import { categoryUse, quantile, rollingAgreement, timeHistogram } from "../../server/domain/annotation/quality";

describe("annotator quality figures", () => {
  it("quantiles interpolate between closest ranks", () => {
    expect(quantile([], 0.5)).toBeNull();
    expect(quantile([5, 8, 20, 30, 40], 0.5)).toBe(20);
    expect(quantile([5, 8, 20, 30], 0.5)).toBe(14);
    // (4 − 1) × 0.25 = 0.75 → 5 + 0.75 × (8 − 5).
    expect(quantile([5, 8, 20, 30], 0.25)).toBe(7.25);
  });

  it("bins times per item, the last bin open-ended", () => {
    const h = timeHistogram([1_000, 9_999, 10_000, 59_000, 60_000, 3_600_000]);
    expect(h.map((b) => b.label)).toEqual(["< 10 s", "10 s–30 s", "30 s–1 min", "1 min–2 min", "2 min–5 min", "5 min–10 min", "≥ 10 min"]);
    expect(h.map((b) => b.count)).toEqual([2, 1, 1, 1, 0, 0, 1]);
  });

  it("rolling agreement over the last N outcomes shows a late fall", () => {
    expect(rollingAgreement([1, 1, 1, 0, 0, 0], 3).map((p) => p.rate)).toEqual([1, 1, 1, 2 / 3, 1 / 3, 0]);
    expect(rollingAgreement([], 5)).toEqual([]);
  });

  it("category use against the pooled use, with the total variation distance", () => {
    const r = categoryUse(
      new Map([
        ["a", 3],
        ["b", 1],
      ]),
      new Map([
        ["a", 2],
        ["b", 6],
      ]),
    );
    expect(r.rows).toEqual([
      { category: "a", own: 0.75, pooled: 0.25 },
      { category: "b", own: 0.25, pooled: 0.75 },
    ]);
    expect(r.distance).toBeCloseTo(0.5, 12);
    expect(categoryUse(new Map(), new Map([["a", 1]])).distance).toBeNull();
  });
});

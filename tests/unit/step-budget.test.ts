import { describe, expect, it } from "vitest";
import { budgetCurve, budgetCurves, budgetsFor, BudgetInputError, type BudgetItem } from "../../server/domain/analytics/step-budget";

/*
 * Worked by hand. Run A: successes in 3, 5 and 10 steps, a failure in 8, one trajectory without an outcome (4 steps).
 *   counted n = 4; at k = 1–2: 0/4; k = 3–4: 1/4; k = 5–9: 2/4; k = 10: 3/4 (the run's rate)
 *   steps per success = (3 + 5 + 8 + 10) / 3 = 26/3; mean steps of the successes = 18/3 = 6; saturates at 10
 *   Wilson 95% for 1/4: centre (0.25 + z²/8)/(1 + z²/4) = 0.37247, half-width 0.32689 → [0.04559, 0.69936]
 * Run B: two failures (2 and 6 steps): 0/2 everywhere, no steps per success.
 */
const A: BudgetItem[] = [
  { group: "A", steps: 3, success: true },
  { group: "A", steps: 5, success: true },
  { group: "A", steps: 8, success: false },
  { group: "A", steps: 10, success: true },
  { group: "A", steps: 4, success: null },
];
const B: BudgetItem[] = [
  { group: "B", steps: 6, success: false },
  { group: "B", steps: 2, success: false },
];

describe("step-budget curves", () => {
  it("counts a success at k only when it took at most k steps", () => {
    const [a, b] = budgetCurves([...B, ...A]);
    expect(a!.group).toBe("A");
    expect(a!.points.map((p) => p.k)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(a!.points.map((p) => `${p.successes}/${p.n}`)).toEqual(["0/4", "0/4", "1/4", "1/4", "2/4", "2/4", "2/4", "2/4", "2/4", "3/4"]);
    expect(a!.points[2]!.low).toBeCloseTo(0.04559, 4);
    expect(a!.points[2]!.high).toBeCloseTo(0.69936, 4);
    expect(a!.points[0]!).toMatchObject({ estimate: 0, low: 0 });
    expect(a).toMatchObject({ n: 4, successes: 3, meanStepsOfSuccesses: 6, saturatesAt: 10 });
    expect(a!.stepsPerSuccess).toBeCloseTo(26 / 3, 10);
    expect(b).toMatchObject({ group: "B", n: 2, successes: 0, stepsPerSuccess: null, meanStepsOfSuccesses: null, saturatesAt: null });
    expect(b!.points.every((p) => p.successes === 0 && p.n === 2)).toBe(true);
  });

  it("takes the budgets asked for, sorted once each, and refuses others", () => {
    expect(budgetsFor(A, [10, 5, 5])).toEqual([5, 10]);
    expect(budgetCurve("A", A, [5, 10]).points.map((p) => p.estimate)).toEqual([0.5, 0.75]);
    expect(() => budgetsFor(A, [0])).toThrow(BudgetInputError);
    expect(() => budgetsFor(A, [2.5])).toThrow("a step budget is a positive whole number of steps, got 2.5");
  });

  it("has no points without a counted trajectory", () => {
    expect(budgetCurves([{ group: "C", steps: 7, success: null }])).toEqual([
      { group: "C", n: 0, successes: 0, points: [], stepsPerSuccess: null, meanStepsOfSuccesses: null, saturatesAt: null },
    ]);
  });
});

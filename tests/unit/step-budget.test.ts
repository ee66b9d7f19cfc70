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
      {
        group: "C",
        n: 0,
        successes: 0,
        points: [],
        stepsPerSuccess: null,
        meanStepsOfSuccesses: null,
        saturatesAt: null,
        timed: 0,
        secondsPerSuccess: null,
        versusHuman: null,
      },
    ]);
  });

  /*
   * Time and a person's steps, by hand. Run T: successes of 3 steps (30 s, a person took 2) and 5 steps (50 s, person
   * unknown), a failure of 8 steps (20 s, person 4: not a success, so not compared), an unlabelled one (untimed: not
   * counted, so it does not spoil the timing). Seconds per success = (30 + 50 + 20) / 2 = 50; versus a person: one
   * success, 3 against 2 steps, ratio 1.5.
   * Run U: the same outcomes with the failure untimed: 2 of 3 counted items timed, so no seconds per success.
   */
  it("prices a success in recorded seconds when every counted trajectory was timed, and compares its steps with a person's", () => {
    const T: BudgetItem[] = [
      { group: "T", steps: 3, success: true, seconds: 30, humanSteps: 2 },
      { group: "T", steps: 5, success: true, seconds: 50, humanSteps: null },
      { group: "T", steps: 8, success: false, seconds: 20, humanSteps: 4 },
      { group: "T", steps: 9, success: null, seconds: null },
    ];
    const U: BudgetItem[] = T.map((i) => ({ ...i, group: "U", seconds: i.success === false ? null : i.seconds }));
    const [t, u] = budgetCurves([...T, ...U]);
    expect(t).toMatchObject({ timed: 3, secondsPerSuccess: 50, versusHuman: { n: 1, meanAgentSteps: 3, meanHumanSteps: 2, ratio: 1.5 } });
    expect(u).toMatchObject({ timed: 2, secondsPerSuccess: null, versusHuman: { n: 1, ratio: 1.5 } });
    // Two successes against people: the ratio is of the sums (3 + 6) / (2 + 2) = 9/4, not the mean of 1.5 and 3.
    const two = budgetCurve(
      "V",
      [
        { group: "V", steps: 3, success: true, humanSteps: 2 },
        { group: "V", steps: 6, success: true, humanSteps: 2 },
      ],
      [6],
    );
    expect(two.versusHuman).toEqual({ n: 2, meanAgentSteps: 4.5, meanHumanSteps: 2, ratio: 9 / 4 });
  });

  it("refuses a negative time and a person's step count that is not a positive whole number", () => {
    expect(() => budgetCurve("X", [{ group: "X", steps: 3, success: true, seconds: -1 }], [3])).toThrow(
      "a trajectory's time must be a non-negative number of seconds, got -1",
    );
    expect(() => budgetCurve("X", [{ group: "X", steps: 3, success: true, humanSteps: 0 }], [3])).toThrow(BudgetInputError);
  });
});

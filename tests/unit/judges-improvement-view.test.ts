/**
 * The stress-test and alignment pages' figures and charts (app/(evaluation)/judges/_lib/improvement.ts), from the
 * same domain functions the services use, on the hand-worked example of improving-a-judge.spec.ts: ten items,
 * people success ×6 / failure ×4; the judge's own prompt ss 4, sf 2, fs 2, ff 2 (κ 1/6); without the answer every
 * verdict a failure (κ 0, six flips: two now right, four now wrong).
 */
import { describe, expect, it } from "vitest";
import { compareOnItems, judgeOnItems } from "../../server/domain/evaluation/judge-comparison";
import {
  kappaChangeNote,
  kappaChangeText,
  kappaText,
  rateText,
  stressFlipChart,
  stressKappaChart,
  versionSummary,
  type StressReport,
} from "../../app/(evaluation)/judges/_lib/improvement";

const human = ["success", "success", "success", "success", "success", "success", "failure", "failure", "failure", "failure"] as const;
const before = ["success", "success", "success", "success", "failure", "failure", "success", "success", "failure", "failure"];
const items = human.map((h, i) => ({ trajectoryId: i + 1, taskId: i + 1, human: h }));

function report(): StressReport {
  const base = judgeOnItems(items.map((it, i) => ({ ...it, verdict: before[i]! })));
  const after = judgeOnItems(items.map((it) => ({ ...it, verdict: "failure" })));
  const { flips, ...comparison } = compareOnItems(items.map((it, i) => ({ ...it, a: before[i]!, b: "failure" })));
  return {
    base: { variant: "", promptVersion: "v1", measures: base },
    perturbations: [
      {
        perturbation: "no-answer",
        label: "final answer removed",
        variant: "no-answer",
        promptVersion: "v1+no-answer",
        measures: after,
        comparison,
        flipped: flips.map(() => ({})),
      },
    ],
  } as unknown as StressReport;
}

describe("figures with their intervals", () => {
  it("writes κ with its interval, or why it has none", () => {
    const r = report();
    expect(kappaText(r.base.measures.kappa)).toMatch(/^0\.167 \[-0\.\d{3}, 0\.\d{3}\]$/);
    expect(kappaText(r.perturbations[0]!.measures.kappa)).toMatch(/^0\.000 /);
    const undefinedKappa = judgeOnItems(items.slice(0, 6).map((it) => ({ ...it, verdict: "success" }))).kappa;
    expect(undefinedKappa.kappa).toBeNull();
    expect(kappaText(undefinedKappa)).toBe(`– (${undefinedKappa.reason})`);
  });

  it("writes rates as percentages with Wilson bounds, and the change in κ with its sign", () => {
    const c = report().perturbations[0]!.comparison;
    expect(rateText(c.flipRate)).toMatch(/^60\.0% \[31\.3, 83\.2\]$/);
    expect(rateText({ estimate: null, low: null, high: null })).toBe("–");
    expect(kappaChangeText(c.kappaChange)).toMatch(/^−0\.167 \[-0\.\d{3}, 0\.\d{3}\]$/);
    const none = { ...c.kappaChange, estimate: 0, low: null, high: null, note: "no interval (n = 5)" };
    expect(kappaChangeText(none)).toBe("±0.000 (no interval)");
    expect(kappaChangeNote(none)).toBe("no interval (n = 5)");
    expect(kappaChangeText({ ...none, estimate: 5 / 6 })).toBe("+0.833 (no interval)");
  });
});

describe("charts", () => {
  it("draws κ unperturbed beside perturbed, with error distances inside the interval", () => {
    const r = report();
    const chart = stressKappaChart(r);
    expect(chart.series.map((s) => s.label)).toEqual(["κ unperturbed", "κ perturbed"]);
    const d = chart.data[0]!;
    expect(d.label).toBe("final answer removed");
    expect(d.s0).toBeCloseTo(1 / 6, 12);
    expect(d.s1).toBe(0);
    const i = r.base.measures.kappa.interval;
    expect(d.s0_err).toEqual([1 / 6 - i.low!, i.high! - 1 / 6]);
  });

  it("draws the flip rate with its count", () => {
    const d = stressFlipChart(report()).data[0]!;
    expect(d.s0).toBeCloseTo(0.6, 12);
    expect(d.s0_text).toBe("60.0% [31.3, 83.2] (6 of 10)");
  });
});

describe("versions in a few words", () => {
  it("says what a version asks with", () => {
    const v = { number: 2, rubric: "- a", rubricSource: "judge-model", examples: [{}] } as unknown as Parameters<typeof versionSummary>[0];
    expect(versionSummary(v)).toBe("rubric by the judge model · 1 example");
    expect(versionSummary({ ...v, rubric: null, examples: [] })).toBe("protocol's criteria · 0 examples");
    expect(versionSummary({ ...v, number: 1 })).toBe("the configuration's own prompt");
  });
});

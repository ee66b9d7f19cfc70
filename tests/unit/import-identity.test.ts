import { describe, expect, it } from "vitest";
import { identityStep, runSourceName, trajectoryContentHash } from "../../server/domain/imports/identity";
import { judgeRunConsistency } from "../../server/domain/evaluation/run-consistency";

describe("a run's own name in its key", () => {
  it("is the last folder of the key, whether the key holds a path from the imported folder or an absolute one", () => {
    expect(runSourceName("webvoyager:results/20250414_14_44_45")).toBe("webvoyager:20250414_14_44_45");
    expect(runSourceName("webvoyager:/home/a/fork/results/20250414_14_44_45")).toBe("webvoyager:20250414_14_44_45");
    expect(runSourceName("webvoyager:C:\\Users\\a\\results\\20250414_14_44_45")).toBe("webvoyager:20250414_14_44_45");
    expect(runSourceName("browsergym:/data/studies/2024-12-30_runs#GenericAgent-gpt-4o")).toBe("browsergym:2024-12-30_runs#GenericAgent-gpt-4o");
    expect(runSourceName("browsergym:studies/2024-12-30_runs#GenericAgent-gpt-4o")).toBe("browsergym:2024-12-30_runs#GenericAgent-gpt-4o");
    expect(runSourceName("verdict-demo:atlas-vl")).toBe("verdict-demo:atlas-vl");
  });

  it("makes the content hash the same wherever the run folder sat, and different for another run folder", () => {
    const t = (runKey: string) =>
      trajectoryContentHash({
        runKey,
        taskSet: "WebVoyager",
        externalTaskId: "Amazon--1",
        attempt: 0,
        finalAnswer: "ok",
        outcome: "answered",
        outcomeDetail: null,
        steps: [identityStep({ index: 0, screenshotHash: "a".repeat(64), actionRaw: "Click [0]", action: { type: "click", target: 0 } })],
      });
    expect(t("webvoyager:/old/place/results/run1")).toBe(t("webvoyager:results/run1"));
    expect(t("webvoyager:results/run1")).not.toBe(t("webvoyager:results/run2"));
    expect(t("webvoyager:results/run1").startsWith("v2:")).toBe(true);
  });
});

describe("a judge's consistency with itself", () => {
  it("counts flips only where every run decided, and leaves the rest out with a count", () => {
    const run = (name: string, v: Record<number, string>) => ({ run: name, verdicts: new Map(Object.entries(v).map(([k, x]) => [Number(k), x])) });
    const c = judgeRunConsistency([
      run("run:a", { 1: "success", 2: "failure", 3: "unparseable", 4: "success" }),
      run("run:b", { 1: "success", 2: "success", 3: "success", 4: "success" }),
      run("run:c", { 1: "success", 2: "failure", 4: "success" }),
    ]);
    expect(c).toMatchObject({ items: 3, flips: 1, leftOut: 1 });
    expect(c.flipRate).toBeCloseTo(1 / 3, 12);
    expect(c.pairs.map((p) => [p.a, p.b, p.n, p.flips])).toEqual([
      ["run:a", "run:b", 3, 1],
      ["run:a", "run:c", 3, 0],
      ["run:b", "run:c", 3, 1],
    ]);
  });
});

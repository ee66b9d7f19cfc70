import { describe, expect, it } from "vitest";
import { describeFilter as describeTyped, type DescribedFilter, type FilterNames } from "@/server/domain/annotation/selection-description";

/** Filters as stored (any trajectory-list field, or one this version does not know). */
const describeFilter = (f: object, names?: FilterNames, defaultSeed?: number) => describeTyped(f as DescribedFilter, names, defaultSeed);

describe("a campaign's selection as people read it", () => {
  it("writes step bounds as words, not as the stored field", () => {
    expect(describeFilter({ minSteps: 2 })).toBe("at least 2 steps");
    expect(describeFilter({ maxSteps: 1 })).toBe("at most 1 step");
    expect(describeFilter({ minSteps: 2, maxSteps: 5 })).toBe("2–5 steps");
    expect(describeFilter({ minSteps: 3, maxSteps: 3 })).toBe("exactly 3 steps");
  });

  it("names the task set, run and task when their names are known, and says what an id is when not", () => {
    expect(describeFilter({ taskSetId: 2, runId: 4 }, { taskSetId: "demo task set" })).toBe("task set “demo task set”, run 4");
    expect(describeFilter({ taskId: 9 })).toBe("task 9");
  });

  it("reads triage fields as phrases", () => {
    expect(describeFilter({ human: "failure", site: "Allrecipes", hasAnswer: false })).toBe("human label failure, site Allrecipes, without a final answer");
    expect(describeFilter({ evaluator: "judge:3|1|v2", verdict: "not_evaluable", agreement: "disagree" })).toBe(
      "evaluator judge:3 · k=1 · v2, judge verdict not evaluable, judge disagrees with the human label",
    );
    expect(describeFilter({ human: "none", state: "disputed", flagged: "exclude" })).toBe("no human label, annotators disputed, flagged tasks left out");
  });

  it("keeps an unknown field visible rather than dropping it, and leaves out empty ones", () => {
    expect(describeFilter({ colour: "red", site: "", model: undefined })).toBe("colour = red");
    expect(describeFilter({})).toBe("all trajectories");
  });

  it("describes a sample with its seed (the default when the filter names none)", () => {
    expect(describeFilter({ sample: 20, strata: "site", minSteps: 2 }, {}, 1)).toBe("random sample of 20 by site (seed 1) of at least 2 steps");
    expect(describeFilter({ sample: 5, seed: 7, ids: [1, 2, 3] })).toBe("random sample of 5 (seed 7) of 3 chosen trajectories");
  });
});

import { describe, expect, it } from "vitest";
import {
  activeFilterCount,
  filterOf,
  formatEvaluatorRef,
  MAX_SAMPLE,
  parseEvaluatorRef,
  parseTrajectoryListParams,
  usesTriage,
  trajectoryListSearch,
} from "../../server/domain/trajectory-list-query";
import { trajectoryListInput } from "../../server/domain/trajectory-list-input";

describe("parseTrajectoryListParams", () => {
  it("reads every filter from its URL key", () => {
    const q = parseTrajectoryListParams(
      new URLSearchParams(
        "set=2&run=3&task=9&site=Amazon&model=gpt-4o&outcome=answered&minSteps=2&maxSteps=10&answer=yes&q=salmon&sort=steps&dir=asc&page=4&size=100",
      ),
    );
    expect(q).toEqual({
      taskSetId: 2,
      runId: 3,
      taskId: 9,
      site: "Amazon",
      model: "gpt-4o",
      outcome: "answered",
      minSteps: 2,
      maxSteps: 10,
      hasAnswer: true,
      q: "salmon",
      sort: "steps",
      dir: "asc",
      page: 4,
      pageSize: 100,
    });
  });

  it("drops malformed values instead of failing", () => {
    const q = parseTrajectoryListParams({ run: "abc", page: "-1", sort: "drop table", size: "7", answer: "maybe", minSteps: "1.5", q: "   " });
    expect(q).toEqual({
      taskSetId: undefined,
      runId: undefined,
      taskId: undefined,
      site: undefined,
      model: undefined,
      outcome: undefined,
      minSteps: undefined,
      maxSteps: undefined,
      hasAnswer: undefined,
      q: undefined,
      sort: "id",
      dir: "desc",
      page: 1,
      pageSize: 50,
    });
  });

  it("takes the first of repeated parameters (Next passes arrays)", () => {
    expect(parseTrajectoryListParams({ site: ["A", "B"] }).site).toBe("A");
  });

  it("accepts answer=no as 'has no final answer'", () => {
    expect(parseTrajectoryListParams({ answer: "no" }).hasAnswer).toBe(false);
  });
});

describe("trajectoryListSearch", () => {
  it("round-trips through the parser and omits defaults", () => {
    const q = parseTrajectoryListParams(new URLSearchParams("run=3&q=green tea&answer=no&sort=steps"));
    const s = trajectoryListSearch(q);
    expect(s).toBe("?run=3&answer=no&q=green+tea&sort=steps");
    expect(parseTrajectoryListParams(new URLSearchParams(s.slice(1)))).toEqual(q);
  });

  it("is empty for the default query", () => {
    expect(trajectoryListSearch(parseTrajectoryListParams({}))).toBe("");
  });

  it("produces a valid tRPC input", () => {
    const q = parseTrajectoryListParams({ run: "3", page: "2" });
    expect(trajectoryListInput.parse(q)).toMatchObject({ runId: 3, page: 2, sort: "id", dir: "desc", pageSize: 50 });
    expect(activeFilterCount(q)).toBe(1);
  });
});

describe("triage parameters", () => {
  it("reads labels, states, the chosen evaluator, its verdict, agreement, rule and a sample", () => {
    const q = parseTrajectoryListParams(
      new URLSearchParams(
        "human=failure&state=disputed&category=hallucination&ev=judge:3|1|v2&verdict=success&agree=disagree&rule=none&sample=5&seed=42&strata=run&sort=verdict",
      ),
    );
    expect(q).toMatchObject({
      human: "failure",
      state: "disputed",
      category: "hallucination",
      evaluator: "judge:3|1|v2",
      verdict: "success",
      agreement: "disagree",
      rule: "none",
      sample: 5,
      seed: 42,
      strata: "run",
      sort: "verdict",
    });
    expect(activeFilterCount(q)).toBe(7);
    expect(usesTriage(q)).toBe(true);
    expect(trajectoryListInput.parse(q)).toMatchObject({ evaluator: "judge:3|1|v2", sample: 5 });
    expect(parseTrajectoryListParams(new URLSearchParams(trajectoryListSearch(q).slice(1)))).toEqual(q);
  });

  it("drops a verdict, an agreement or a verdict sort that names no evaluator, and unknown values", () => {
    const q = parseTrajectoryListParams({ verdict: "success", agree: "agree", sort: "verdict", human: "maybe", state: "closed", rule: "pass", ev: "judge:3" });
    expect(q).toMatchObject({
      evaluator: undefined,
      verdict: undefined,
      agreement: undefined,
      sort: "id",
      human: undefined,
      state: undefined,
      rule: undefined,
    });
    expect(usesTriage(q)).toBe(false);
  });

  it("keeps a seed and strata only with a sample, and refuses samples above the maximum", () => {
    expect(parseTrajectoryListParams({ seed: "4", strata: "site" })).toMatchObject({ seed: undefined, strata: undefined, sample: undefined });
    expect(parseTrajectoryListParams({ sample: String(MAX_SAMPLE + 1), seed: "4" })).toMatchObject({ sample: undefined, seed: undefined });
    expect(parseTrajectoryListParams({ sample: "3", seed: "4294967296" })).toMatchObject({ sample: 3, seed: undefined });
  });

  it("splits an evaluator identity from the right, so keys may hold '|'", () => {
    expect(parseEvaluatorRef("import:arb|gpt|full|v1")).toEqual({ key: "import:arb|gpt", k: "full", pv: "v1" });
    expect(parseEvaluatorRef("heuristic:loop||1")).toEqual({ key: "heuristic:loop", k: "", pv: "1" });
    expect(parseEvaluatorRef("judge:3|1")).toBeUndefined();
    expect(formatEvaluatorRef({ key: "rule:vwa", k: "", pv: "1" })).toBe("rule:vwa||1");
    expect(() => trajectoryListInput.parse({ evaluator: "judge:3" })).toThrow(/evaluator: write it as/);
  });

  it("the plain filters are not triage; the filter leaves sort and paging out", () => {
    const q = parseTrajectoryListParams({ run: "2", sort: "human", page: "3" });
    expect(usesTriage({ runId: 2 })).toBe(false);
    expect(usesTriage(q)).toBe(true);
    expect(filterOf(q)).not.toHaveProperty("page");
    expect(filterOf(q)).toMatchObject({ runId: 2 });
  });
});

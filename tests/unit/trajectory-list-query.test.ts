import { describe, expect, it } from "vitest";
import {
  activeFilterCount,
  parseTrajectoryListParams,
  trajectoryListInput,
  trajectoryListSearch,
} from "../../server/domain/trajectory-list-query";

describe("parseTrajectoryListParams", () => {
  it("reads every filter from its URL key", () => {
    const q = parseTrajectoryListParams(
      new URLSearchParams("set=2&run=3&task=9&site=Amazon&model=gpt-4o&outcome=answered&minSteps=2&maxSteps=10&answer=yes&q=salmon&sort=steps&dir=asc&page=4&size=100"),
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

import { describe, expect, it } from "vitest";
import { clusterSliceHref, clusterSliceOfParams, memberLinks } from "../../app/analytics/_lib/clusters";
import { failureFilter } from "../../server/domain/analytics/cluster-slice";

describe("a failure-cluster slice", () => {
  it("adds its basis to the list filter and refuses a filter that contradicts it", () => {
    expect(failureFilter({ filter: { runId: 3 }, basis: "human" })).toEqual({ runId: 3, human: "failure" });
    expect(failureFilter({ filter: { evaluator: "judge:1|1|v1" }, basis: "judge" })).toEqual({ evaluator: "judge:1|1|v1", verdict: "failure" });
    expect(failureFilter({ filter: { evaluator: "judge:1|1|v1", agreement: "disagree" }, basis: "disputed" })).toEqual({
      evaluator: "judge:1|1|v1",
      agreement: "disagree",
    });
    expect(() => failureFilter({ filter: {}, basis: "disputed" })).toThrow("basis disputed: choose the evaluator (ev)");
    expect(() => failureFilter({ filter: { evaluator: "judge:1|1|v1", verdict: "success" }, basis: "judge" })).toThrow(
      "the slice asks for verdict success; failures by judge need verdict failure",
    );
  });

  it("travels in the page's address with the list's own parameter names", () => {
    const slice = clusterSliceOfParams(new URLSearchParams("run=3&search=captcha&ev=judge%3A1%7C1%7Cv1&basis=disputed&k=4&page=2&sort=steps"));
    expect(slice).toEqual({ filter: { runId: 3, search: "captcha", evaluator: "judge:1|1|v1" }, basis: "disputed", k: 4 });
    expect(clusterSliceHref(slice)).toBe("/analytics/clusters?run=3&search=captcha&ev=judge%3A1%7C1%7Cv1&basis=disputed&k=4");
    expect(clusterSliceOfParams(new URLSearchParams("basis=everything&k=40"))).toEqual({ filter: {}, basis: "human", k: undefined });
  });

  it("links a cluster's members as a list and a campaign, up to what one address carries", () => {
    expect(memberLinks([5, 3, 4, 9])).toEqual({ list: "/trajectories?ids=3-5,9&flagged=include", campaign: "/campaigns/new?ids=3-5,9&flagged=include" });
    expect(memberLinks(Array.from({ length: 1001 }, (_, i) => i * 2 + 1))).toBeNull();
    expect(memberLinks([])).toBeNull();
  });
});

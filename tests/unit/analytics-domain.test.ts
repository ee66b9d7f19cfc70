/**
 * Pure analytics pieces: selections (links to the trajectories behind a figure), verdict policies, length buckets,
 * first-failing-step deciles, count-based agreement measures, and the trajectory list's ids filter.
 */
import { describe, expect, it } from "vitest";
import { createRng, meanPairwiseAgreement, type Label } from "../../server/domain/agreement";
import {
  combinedLabel,
  CountAgreement,
  countedVerdicts,
  evaluatorId,
  evaluatorLabel,
  lengthBucket,
  lengthBucketLabel,
  lengthBucketRange,
  lengthBucketWidth,
  parseEvaluatorId,
  positionDecile,
  positionDecileLabel,
  verdictOutcome,
} from "../../server/domain/analytics/measures";
import { decodeSelection, describeSelection, encodeSelection, selectionHref, SelectionError, type Selection } from "../../server/domain/analytics/selection";
import { formatIdList, MAX_IDS, parseIdList, parseTrajectoryListParams, trajectoryListSearch } from "../../server/domain/trajectory-list-query";

describe("selections", () => {
  const cases: [string, Selection][] = [
    ["empty", {}],
    ["scope", { taskSetId: 3, runId: 7, site: "Amazon" }],
    ["no site", { site: null }],
    ["evaluator", { evaluator: { key: "judge:12", k: "full", pv: "webvoyager-v1", verdicts: ["success", "unparseable"] } }],
    ["reference", { reference: { campaignId: 2, verdicts: ["failure"], category: null, step: { min: 0, max: 3 }, position: 10 } }],
    [
      "campaign",
      {
        campaign: {
          campaignId: 5,
          annotators: ["user:abc", "import:Ann Lee"],
          label: "failure: hallucination",
          minLabels: 2,
          disagree: true,
          level: "verdict",
        },
      },
    ],
    ["unicode", { site: "Café — ünïcödé ☕", difficulty: { dim: "visual", value: "hard" } }],
  ];
  it.each(cases)("round-trips through a link (%s)", (_, sel) => {
    const text = encodeSelection(sel);
    expect(text).toMatch(/^[A-Za-z0-9_-]*$/);
    expect(decodeSelection(text)).toEqual(sel);
    expect(selectionHref(sel)).toBe(`/analytics/trajectories?sel=${text}`);
  });

  it("encodes equal selections to equal text, whatever undefined fields they carry", () => {
    expect(encodeSelection({ site: "A", runId: undefined })).toBe(encodeSelection({ site: "A" }));
  });

  it.each([
    ["not base64", "%%%", /sel: not a selection link/],
    ["not JSON", encodeURIComponent(btoa("{nope")), /sel: not a selection link/],
    ["unknown field", btoa(JSON.stringify({ colour: "red" })).replace(/=+$/, ""), /sel\.\(root\)|colour/],
    ["bad verdict", btoa(JSON.stringify({ evaluator: { key: "j", k: "1", pv: "", verdicts: ["maybe"] } })).replace(/=+$/, ""), /sel\.evaluator\.verdicts\.0/],
    ["bad decile", btoa(JSON.stringify({ reference: { position: 11 } })).replace(/=+$/, ""), /sel\.reference\.position/],
  ])("rejects %s with the field named", (_, text, message) => {
    expect(() => decodeSelection(text)).toThrow(SelectionError);
    expect(() => decodeSelection(text)).toThrow(message);
  });

  it("describes each condition for the drill-down heading", () => {
    const lines = describeSelection(
      {
        runId: 4,
        site: null,
        steps: { min: 6, max: 10 },
        evaluator: { key: "judge:1", k: "3", pv: "v1", verdicts: ["success", "failure"] },
        reference: { verdicts: ["failure"], category: "hallucination" },
      },
      { run: (id) => (id === 4 ? "gpt-4v run" : undefined), evaluator: () => "GPT judge · k = 3" },
    );
    expect(lines).toEqual([
      "run gpt-4v run",
      "tasks without a site",
      "6–10 steps",
      "GPT judge · k = 3 said success or failure",
      "consolidated human label: failure, category hallucination",
    ]);
    expect(describeSelection({})).toEqual(["all trajectories"]);
  });
});

describe("verdict policies and evaluator ids", () => {
  it.each([
    ["success", "exclude", "success"],
    ["failure", "exclude", "failure"],
    ["unparseable", "exclude", null],
    ["unparseable", "failure", "failure"],
    ["not_evaluable", "failure", null],
    ["something else", "failure", null],
  ] as const)("%s under %s counts as %s", (verdict, policy, outcome) => {
    expect(verdictOutcome(verdict, policy)).toBe(outcome);
  });

  it("lists the verdicts in a success rate's denominator", () => {
    expect(countedVerdicts("exclude")).toEqual(["success", "failure"]);
    expect(countedVerdicts("failure")).toEqual(["success", "failure", "unparseable"]);
  });

  it("round-trips evaluator ids, even with separators in the parts", () => {
    const e = { key: "import:agentrewardbench:gpt|4o", k: "", pv: "v 1%" };
    expect(parseEvaluatorId(evaluatorId(e))).toEqual(e);
    expect(parseEvaluatorId("a|b")).toBeNull();
    expect(parseEvaluatorId("%E0%A4%A|1|")).toBeNull();
    expect(evaluatorLabel("Judge", { key: "judge:1", k: "3", pv: "v2" }, true)).toBe("Judge · k = 3 · v2");
    expect(evaluatorLabel("Rules", { key: "rule:vwa", k: "", pv: "1" })).toBe("Rules");
  });
});

describe("trajectory length buckets and first-failing-step deciles", () => {
  it.each([
    [0, 1],
    [7, 1],
    [10, 1],
    [11, 2],
    [25, 5],
    [30, 5],
    [51, 10],
    [240, 25],
    [5000, 500],
  ])("max %i steps → width %i", (max, width) => expect(lengthBucketWidth(max)).toBe(width));

  it("puts every step count in exactly one bucket whose range holds it", () => {
    for (const width of [1, 2, 5, 25]) {
      for (let steps = 0; steps <= 120; steps++) {
        const b = lengthBucket(steps, width);
        const { min, max } = lengthBucketRange(b, width);
        expect(steps >= min && steps <= max, `${steps} in bucket ${b} of width ${width}`).toBe(true);
      }
    }
    expect(lengthBucketLabel(0, 5)).toBe("0–5");
    expect(lengthBucketLabel(2, 5)).toBe("11–15");
    expect(lengthBucketLabel(3, 1)).toBe("4");
  });

  it.each([
    [0, 10, 1],
    [4, 10, 5],
    [9, 10, 10],
    [0, 11, 1],
    [10, 22, 5],
    [0, 1, 10],
    [2, 5, 6],
    [12, 5, 10],
  ])("step %i of %i lies in decile %i", (step, count, decile) => expect(positionDecile(step, count)).toBe(decile));

  it("labels deciles", () => expect([positionDecileLabel(1), positionDecileLabel(10)]).toEqual(["0–10%", "90–100%"]));
});

describe("agreement from per-item counts", () => {
  it("gives specific agreement worked out by hand", () => {
    const acc = new CountAgreement(2);
    acc.add([3, 0]); // all agree on category 0
    acc.add([2, 1]);
    acc.add([1, 1]);
    acc.add([1, 0]); // one rating: skipped
    const [c0, c1] = acc.specific();
    // category 0: agree 6 + 2 + 0 = 8 over 3·2 + 2·2 + 1·1 = 11; category 1: 0 over 1·2 + 1·1 = 3.
    expect(c0!.value).toBeCloseTo(8 / 11, 12);
    expect(c1!.value).toBe(0);
    expect([c0!.ratings, c0!.items, c1!.ratings, c1!.items]).toEqual([6, 3, 2, 2]);
    expect(acc.meanPairwise().items).toBe(3);
    expect(acc.meanPairwise().value).toBeCloseTo((1 + 1 / 3 + 0) / 3, 12);
  });

  it("reports undefined, not 0, when nothing is pairable", () => {
    const acc = new CountAgreement(3);
    acc.add([1, 0, 0]);
    expect(acc.meanPairwise()).toEqual({ value: null, items: 0 });
    expect(acc.specific().map((s) => s.value)).toEqual([null, null, null]);
  });

  it("matches the library's mean pairwise agreement on random ratings", () => {
    const rng = createRng(11);
    const labels = ["a", "b", "c"];
    const items: Label[][] = Array.from({ length: 400 }, () =>
      Array.from({ length: 1 + Math.floor(rng() * 5) }, () => (rng() < 0.1 ? null : labels[Math.floor(rng() * 3)]!)),
    );
    const acc = new CountAgreement(3);
    for (const item of items) acc.add(labels.map((l) => item.filter((v) => v === l).length));
    expect(acc.meanPairwise().value).toBeCloseTo(meanPairwiseAgreement(items).value!, 12);
    expect(acc.meanPairwise().items).toBe(meanPairwiseAgreement(items).items);
  });

  it("writes combined labels", () => {
    expect([combinedLabel("success", null), combinedLabel("failure", null), combinedLabel("failure", "hallucination"), combinedLabel("unsure", null)]).toEqual([
      "success",
      "failure (no category)",
      "failure: hallucination",
      "unsure",
    ]);
  });
});

describe("ids filter of the trajectory list", () => {
  it("writes runs of ids as ranges and reads them back", () => {
    expect(formatIdList([9, 3, 4, 5, 12, 4, 13])).toBe("3-5,9,12-13");
    expect(parseIdList("3-5,9,12-13")).toEqual([3, 4, 5, 9, 12, 13]);
    expect(formatIdList([])).toBe("");
  });

  it.each(["", "a", "3-", "-3", "5-3", "0", "1,,2", "1 2"])("drops malformed text %j", (text) => expect(parseIdList(text)).toBeUndefined());

  it(`drops more than ${MAX_IDS} ids`, () => {
    expect(parseIdList(`1-${MAX_IDS}`)).toHaveLength(MAX_IDS);
    expect(parseIdList(`1-${MAX_IDS + 1}`)).toBeUndefined();
  });

  it("travels in the list URL", () => {
    const q = parseTrajectoryListParams(new URLSearchParams("ids=4-6,10&site=Amazon"));
    expect(q.ids).toEqual([4, 5, 6, 10]);
    expect(trajectoryListSearch(q)).toBe("?site=Amazon&ids=4-6%2C10");
  });
});

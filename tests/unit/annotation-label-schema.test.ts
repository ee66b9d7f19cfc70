import { describe, expect, it } from "vitest";
import {
  buildLabelSchema,
  consolidate,
  defaultLabelSchema,
  diffLabelValues,
  LabelValidationError,
  mergeStepsViewed,
  queueOrderSalt,
  validateLabel,
  type LabelSchema,
  type LabelValues,
} from "../../server/domain/annotation/label-schema";

const schema = defaultLabelSchema();
const L = (verdict: LabelValues["verdict"], category: string | null = null, firstFailingStep: number | null = null): LabelValues => ({
  verdict,
  category,
  firstFailingStep,
  note: null,
});

describe("buildLabelSchema", () => {
  it("defaults to WebVoyager's four categories plus other, failures needing one", () => {
    expect(buildLabelSchema()).toEqual({
      categories: ["navigation stuck", "visual grounding issue", "hallucination", "prompt misalignment", "other"],
      requireCategory: true,
      allowUnsure: false,
      firstFailingStep: true,
      note: true,
      agreementOn: "verdict_and_category",
      allowNotExecutable: false,
      requireFailureStep: false,
      requireReasoning: false,
      questions: [],
      qaReview: false,
    });
  });

  it.each([
    [{ categories: Array.from({ length: 10 }, (_, i) => `c${i}`) }, /labelSchema\.categories: at most 9/],
    [{ categories: ["a", "A"] }, /"A" is listed twice/],
    [{ categories: [] }, /cannot be empty/],
    [{ categories: ["  "] }, /labelSchema\.categories\.0: a category cannot be empty/],
    [{ agreementOn: "majority" }, /labelSchema\.agreementOn/],
    [{ colour: "red" }, /labelSchema/],
  ])("rejects %j", (input, message) => {
    expect(() => buildLabelSchema(input as never)).toThrow(message);
  });

  it("accepts an empty list when failures need no category, and trims names", () => {
    expect(buildLabelSchema({ categories: [], requireCategory: false }).categories).toEqual([]);
    expect(buildLabelSchema({ categories: [" looping "] }).categories).toEqual(["looping"]);
  });
});

describe("validateLabel", () => {
  const ok: [string, Parameters<typeof validateLabel>[1], LabelValues][] = [
    ["plain success", { verdict: "success" }, L("success")],
    ["success drops category and step", { verdict: "success", category: "other", firstFailingStep: 1 }, L("success")],
    ["failure with category and step", { verdict: "failure", category: "hallucination", firstFailingStep: 3 }, L("failure", "hallucination", 3)],
    ["blank note becomes null", { verdict: "failure", category: "other", note: "   " }, L("failure", "other")],
  ];
  it.each(ok)("%s", (_, input, expected) => {
    expect(validateLabel(schema, input, 4)).toEqual(expected);
  });

  const bad: [string, LabelSchema, Parameters<typeof validateLabel>[1], string][] = [
    ["unknown verdict", schema, { verdict: "yes" }, "verdict"],
    ["unsure not allowed", schema, { verdict: "unsure" }, "verdict"],
    ["failure without category", schema, { verdict: "failure" }, "category"],
    ["unknown category", schema, { verdict: "failure", category: "Hallucination" }, "category"],
    ["step past the end", schema, { verdict: "failure", category: "other", firstFailingStep: 4 }, "firstFailingStep"],
    ["negative step", schema, { verdict: "failure", category: "other", firstFailingStep: -1 }, "firstFailingStep"],
    ["fractional step", schema, { verdict: "failure", category: "other", firstFailingStep: 1.5 }, "firstFailingStep"],
    ["step when not asked", { ...schema, firstFailingStep: false }, { verdict: "failure", category: "other", firstFailingStep: 0 }, "firstFailingStep"],
    ["note too long", schema, { verdict: "success", note: "x".repeat(10_001) }, "note"],
  ];
  it.each(bad)("rejects %s, naming the field", (_, s, input, field) => {
    try {
      validateLabel(s, input, 4);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(LabelValidationError);
      expect((e as LabelValidationError).field).toBe(field);
    }
  });

  it("accepts not_executable (Online-Mind2Web's 2) only when the schema allows it, without category or step", () => {
    expect(() => validateLabel(schema, { verdict: "not_executable" }, 2)).toThrow(/does not accept "not_executable"/);
    expect(validateLabel({ ...schema, allowNotExecutable: true }, { verdict: "not_executable", category: "other", firstFailingStep: 1 }, 2)).toEqual({
      verdict: "not_executable",
      category: null,
      firstFailingStep: null,
      note: null,
    });
    expect(consolidate([L("not_executable"), L("not_executable")], 2, schema)).toEqual({ state: "agreed", values: L("not_executable") });
  });

  it("accepts unsure when the schema allows it, and failures without category when not required", () => {
    expect(validateLabel({ ...schema, allowUnsure: true }, { verdict: "unsure" }, 2).verdict).toBe("unsure");
    expect(validateLabel({ ...schema, requireCategory: false }, { verdict: "failure" }, 2)).toEqual(L("failure"));
  });
});

describe("diffLabelValues", () => {
  it.each([
    [null, L("success"), [{ field: "verdict", from: null, to: "success" }]],
    [L("success"), L("success"), []],
    [L("failure", "other", 2), L("failure", "hallucination", 2), [{ field: "category", from: "other", to: "hallucination" }]],
    [
      L("failure", "other", 2),
      null,
      [
        { field: "verdict", from: "failure", to: null },
        { field: "category", from: "other", to: null },
        { field: "firstFailingStep", from: 2, to: null },
      ],
    ],
  ])("%j → %j", (a, b, expected) => {
    expect(diffLabelValues(a, b)).toEqual(expected);
  });

  const box = { kind: "box" as const, step: 1, label: "should have clicked", x: 10, y: 20, width: 30, height: 40 };
  const point = { kind: "point" as const, step: 0, label: "the answer was here", x: 5, y: 6 };
  it("shows a marks change as the whole list before and after", () => {
    expect(diffLabelValues(L("success"), { ...L("success"), marks: [box] })).toEqual([{ field: "marks", from: [], to: [box] }]);
    expect(diffLabelValues({ ...L("success"), marks: [box, point] }, { ...L("success"), marks: [{ ...box, x: 11 }, point] })).toEqual([
      { field: "marks", from: [box, point], to: [{ ...box, x: 11 }, point] },
    ]);
    expect(diffLabelValues({ ...L("success"), marks: [box] }, null)).toContainEqual({ field: "marks", from: [box], to: [] });
  });

  it("sees no marks change when the marks are the same or absent on both sides", () => {
    expect(diffLabelValues({ ...L("success"), marks: [box] }, { ...L("success"), marks: [box] })).toEqual([]);
    expect(diffLabelValues({ ...L("success"), marks: [] }, L("success"))).toEqual([]);
  });
});

describe("consolidate", () => {
  const verdictOnly = { ...schema, agreementOn: "verdict" as const };
  it.each([
    ["too few labels", [L("success"), L("success")], 3, schema, { state: "open", labelled: 2, needed: 3 }],
    ["no labels with k=1", [], 1, schema, { state: "open", labelled: 0, needed: 1 }],
    ["unanimous success", [L("success"), L("success"), L("success")], 3, schema, { state: "agreed", values: L("success") }],
    ["verdicts differ", [L("success"), L("failure", "other")], 2, schema, { state: "disputed", reason: "verdicts differ" }],
    ["an unsure label", [L("failure", "other"), L("unsure")], 2, schema, { state: "disputed", reason: "an annotator was unsure" }],
    ["categories differ", [L("failure", "other"), L("failure", "hallucination")], 2, schema, { state: "disputed", reason: "error categories differ" }],
    [
      "same failure: earliest first failing step",
      [L("failure", "hallucination", 5), L("failure", "hallucination", 2), L("failure", "hallucination")],
      3,
      schema,
      { state: "agreed", values: L("failure", "hallucination", 2) },
    ],
    [
      "verdict-only agreement: majority category",
      [L("failure", "other"), L("failure", "other"), L("failure", "hallucination")],
      3,
      verdictOnly,
      { state: "agreed", values: L("failure", "other") },
    ],
    ["verdict-only agreement: no majority", [L("failure", "other"), L("failure", "hallucination")], 2, verdictOnly, { state: "agreed", values: L("failure") }],
    ["more labels than needed still count", [L("success"), L("success"), L("failure", "other")], 2, schema, { state: "disputed", reason: "verdicts differ" }],
  ])("%s", (_, values, k, s, expected) => {
    expect(consolidate(values as LabelValues[], k as number, s as LabelSchema)).toEqual(expected);
  });
});

describe("queue order and steps viewed", () => {
  it("gives different users different salts that fit in 30 bits", () => {
    const salts = ["a", "b", "user-1", "user-2", "x".repeat(64)].map(queueOrderSalt);
    expect(new Set(salts).size).toBe(salts.length);
    for (const s of salts) {
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThan(2 ** 30);
    }
    expect(queueOrderSalt("user-1")).toBe(queueOrderSalt("user-1"));
  });

  it.each([
    [null, null, null],
    [[], null, []],
    [
      [3, 1],
      [2, 3],
      [1, 2, 3],
    ],
    [null, [4, 0], [0, 4]],
  ])("merges %j and %j", (a, b, expected) => {
    expect(mergeStepsViewed(a, b)).toEqual(expected);
  });
});

import { describe, expect, it } from "vitest";
import { buildLabelSchema, consolidate, diffLabelValues, validateLabel, type LabelValues } from "../../server/domain/annotation/label-schema";
import {
  getTemplate,
  onlineMind2WebCode,
  PROTOCOL_TEMPLATES,
  protocolCompliance,
  qaStatusOf,
  requirementsOf,
  tallyDecisions,
  TEMPLATE_IDS,
  verdictFromOnlineMind2WebCode,
} from "../../server/domain/annotation/protocols";
import { answerCell, buildQuestions, validateAnswers, type Question } from "../../server/domain/annotation/questions";

const questions: Question[] = buildQuestions([
  { id: "site_state", type: "single_choice", prompt: "Site state", options: ["normal", "captcha", "down"], required: true },
  { id: "problems", type: "multiple_choice", prompt: "Problems seen", options: ["popup", "login wall", "slow"] },
  { id: "effort", type: "number", prompt: "Steps a human needs", min: 1, max: 50, integer: true },
  { id: "comment", type: "text", prompt: "Anything else", maxLength: 20 },
  { id: "answer_step", type: "step_ref", prompt: "Step showing the answer", when: "success" },
  { id: "step_quality", type: "single_choice", prompt: "Was this step useful?", options: ["useful", "wasted"], perStep: true },
]);

describe("buildQuestions", () => {
  it("fills defaults: optional, whole-trajectory, always asked", () => {
    expect(questions[0]).toMatchObject({ required: true, perStep: false, when: "always" });
    expect(questions[1]).toMatchObject({ required: false, perStep: false, when: "always" });
    expect(questions[5]).toMatchObject({ perStep: true });
  });

  it.each([
    [[{ id: "Bad Id", type: "text", prompt: "x" }], /\[0\] \(Bad Id\)\.id: an id is 1–40 lower-case/],
    [[{ id: "a", type: "colour", prompt: "x" }], /\[0\] \(a\).*type must be one of single_choice/],
    [[{ id: "a", type: "single_choice", prompt: "x", options: ["only"] }], /\(a\)\.options: a choice question needs at least 2 options/],
    [[{ id: "a", type: "single_choice", prompt: "x", options: ["Yes", "yes"] }], /\(a\)\.options: "yes" is listed twice/],
    [[{ id: "a", type: "number", prompt: "x", min: 5, max: 1 }], /\(a\): min \(5\) is above max \(1\)/],
    [[{ id: "a", type: "text", prompt: "" }], /\(a\)\.prompt: a question needs a prompt/],
    [
      [
        { id: "a", type: "text", prompt: "x" },
        { id: "a", type: "step_ref", prompt: "y" },
      ],
      /\[1\] \(a\): the id "a" is used by another question/,
    ],
    [[{ id: "a", type: "text", prompt: "x", colour: 1 }], /\(a\)/],
    ["not a list", /must be a list of questions/],
  ])("rejects %j naming the question", (input, message) => {
    expect(() => buildQuestions(input)).toThrow(message);
  });
});

describe("validateAnswers", () => {
  const ok = { site_state: "captcha" };

  it("accepts good answers of every type and normalises them", () => {
    expect(
      validateAnswers(
        questions,
        {
          site_state: "normal",
          problems: ["slow", "popup", "slow"],
          effort: 7,
          comment: "  fine  ",
          answer_step: 2,
          step_quality: { "0": "useful", "3": "wasted" },
        },
        "success",
        4,
      ),
    ).toEqual({
      site_state: "normal",
      problems: ["popup", "slow"],
      effort: 7,
      comment: "fine",
      answer_step: 2,
      step_quality: { "0": "useful", "3": "wasted" },
    });
  });

  it("drops questions not asked for the verdict and empty answers", () => {
    expect(validateAnswers(questions, { ...ok, answer_step: 1, problems: [], comment: "" }, "failure", 4)).toEqual(ok);
  });

  it.each([
    [{}, /answers\.site_state \("Site state"\): an answer is required/],
    [{ site_state: "slow" }, /answers\.site_state .*must be one of "normal", "captcha", "down", got "slow"/],
    [{ ...ok, problems: "popup" }, /answers\.problems .*must be a list of options/],
    [{ ...ok, problems: ["popup", "rain"] }, /answers\.problems .*"rain" is not one of/],
    [{ ...ok, effort: "7" }, /answers\.effort .*must be a number, got "7"/],
    [{ ...ok, effort: 2.5 }, /answers\.effort .*must be a whole number, got 2.5/],
    [{ ...ok, effort: 0 }, /answers\.effort .*must be at least 1, got 0/],
    [{ ...ok, effort: 51 }, /answers\.effort .*must be at most 50, got 51/],
    [{ ...ok, comment: 5 }, /answers\.comment .*must be text/],
    [{ ...ok, comment: "x".repeat(21) }, /answers\.comment .*is 21 characters; the limit is 20/],
    [{ ...ok, answer_step: 4 }, /answers\.answer_step .*must be a step index from 0 to 3, got 4/],
    [{ ...ok, answer_step: 1.5 }, /answers\.answer_step .*must be a step index/],
    [{ ...ok, step_quality: "useful" }, /answers\.step_quality .*per-step question's answer is an object/],
    [{ ...ok, step_quality: { "9": "useful" } }, /answers\.step_quality .*\[9\]: is not a step of this trajectory \(0 to 3\)/],
    [{ ...ok, step_quality: { "1": "meh" } }, /answers\.step_quality .*\[step 1\]: must be one of "useful", "wasted"/],
    [{ ...ok, mood: "happy" }, /answers\.mood: this campaign has no question with id "mood"/],
    [["captcha"], /answers: must be an object keyed by question id/],
  ])("rejects %j naming the question", (input, message) => {
    expect(() => validateAnswers(questions, input, "success", 4)).toThrow(message);
  });

  it("a required per-step question needs at least one step", () => {
    const [q] = buildQuestions([{ id: "s", type: "text", prompt: "Why", perStep: true, required: true }]);
    expect(() => validateAnswers([q!], { s: {} }, "failure", 3)).toThrow(/answers\.s .*answer it for at least one step/);
    expect(validateAnswers([q!], { s: { "2": "here" } }, "failure", 3)).toEqual({ s: { "2": "here" } });
  });

  it("exports answers as CSV cells", () => {
    expect(answerCell(["a", "b"])).toBe("a; b");
    expect(answerCell(3)).toBe("3");
    expect(answerCell({ "1": "x" })).toBe('{"1":"x"}');
    expect(answerCell(undefined)).toBe("");
  });
});

describe("labels with questions and protocol rules", () => {
  const om2w = PROTOCOL_TEMPLATES["online-mind2web"].labelSchema;

  it("Online-Mind2Web: not executable is accepted and carries no failure details", () => {
    expect(validateLabel(om2w, { verdict: "not_executable", category: "hallucination", firstFailingStep: 2, note: "captcha" }, 5)).toEqual({
      verdict: "not_executable",
      category: null,
      firstFailingStep: null,
      note: "captcha",
    });
  });

  it("Online-Mind2Web: a failure needs its failure point, type and reasoning", () => {
    const good = { verdict: "failure", category: "wrong navigation", firstFailingStep: 1, note: "went to the wrong city" };
    expect(validateLabel(om2w, good, 5)).toMatchObject({ verdict: "failure", category: "wrong navigation", firstFailingStep: 1 });
    expect(() => validateLabel(om2w, { ...good, firstFailingStep: null }, 5)).toThrow(/firstFailingStep: a failure needs its failure point/);
    expect(() => validateLabel(om2w, { ...good, category: null }, 5)).toThrow(/category: a failure needs an error category/);
    expect(() => validateLabel(om2w, { ...good, note: "  " }, 5)).toThrow(/note: a failure needs its reasoning/);
  });

  it("a campaign without not executable refuses it", () => {
    expect(() => validateLabel(buildLabelSchema(), { verdict: "not_executable" }, 3)).toThrow(/verdict: this campaign does not accept "not_executable"/);
  });

  it("answers are validated with the label and refused where no questions are asked", () => {
    const schema = buildLabelSchema({ questions: [{ id: "effort", type: "number", prompt: "Effort", required: true }] });
    expect(validateLabel(schema, { verdict: "success", answers: { effort: 3 } }, 3)).toEqual({
      verdict: "success",
      category: null,
      firstFailingStep: null,
      note: null,
      answers: { effort: 3 },
    });
    expect(() => validateLabel(schema, { verdict: "success" }, 3)).toThrow(/answers\.effort \("Effort"\): an answer is required/);
    expect(() => validateLabel(buildLabelSchema(), { verdict: "success", answers: { effort: 3 } }, 3)).toThrow(/answers: this campaign asks no questions/);
  });

  it("schema errors in questions name the question", () => {
    expect(() => buildLabelSchema({ questions: [{ id: "x", type: "number", prompt: "p", min: 3, max: 1 }] })).toThrow(
      /labelSchema\.questions\[0\] \(x\): min \(3\) is above max \(1\)/,
    );
    expect(() => buildLabelSchema({ requireFailureStep: true, firstFailingStep: false })).toThrow(/labelSchema\.requireFailureStep/);
  });

  it("revisions list the answers that changed", () => {
    const a: LabelValues = { verdict: "success", category: null, firstFailingStep: null, note: null, answers: { effort: 3, tags: ["a"] } };
    const b: LabelValues = { ...a, answers: { effort: 4, tags: ["a"] } };
    expect(diffLabelValues(a, b)).toEqual([{ field: "answers.effort", from: 3, to: 4 }]);
  });

  it("unanimous not executable consolidates as not executable", () => {
    const v: LabelValues = { verdict: "not_executable", category: null, firstFailingStep: null, note: null };
    expect(consolidate([v, v, v], 3, om2w)).toEqual({ state: "agreed", values: v });
    expect(consolidate([v, v, { ...v, verdict: "failure", category: "other", firstFailingStep: 0 }], 3, om2w)).toMatchObject({ state: "disputed" });
  });
});

describe("templates", () => {
  it("every template has a version, guidelines and a valid schema", () => {
    for (const id of TEMPLATE_IDS) {
      const t = getTemplate(id);
      expect(t.id).toBe(id);
      expect(t.version).toBeGreaterThanOrEqual(1);
      expect(t.guidelines.length).toBeGreaterThan(40);
      expect(buildLabelSchema(t.labelSchema)).toEqual(t.labelSchema);
    }
    expect(() => getTemplate("mind2web")).toThrow(/template: one of webvoyager, online-mind2web, agentrewardbench, custom/);
  });

  it("Online-Mind2Web needs 3 annotators and a QA review; WebVoyager is a binary verdict", () => {
    expect(PROTOCOL_TEMPLATES["online-mind2web"].requirements).toEqual({ minAnnotatorsPerItem: 3, qaReview: true });
    expect(PROTOCOL_TEMPLATES["online-mind2web"].labelSchema).toMatchObject({
      allowNotExecutable: true,
      qaReview: true,
      requireReasoning: true,
      requireFailureStep: true,
    });
    expect(PROTOCOL_TEMPLATES.webvoyager.labelSchema).toMatchObject({ allowUnsure: false, allowNotExecutable: false });
  });

  it("AgentRewardBench asks side effects, optimality and looping in its own answer values", () => {
    const qs = PROTOCOL_TEMPLATES.agentrewardbench.labelSchema.questions!;
    expect(qs.map((q) => q.id)).toEqual(["trajectory_side_effect", "trajectory_optimality", "trajectory_looping"]);
    expect(qs[2]).toMatchObject({ type: "single_choice", options: ["Yes", "No"] });
  });

  it("Online-Mind2Web codes: failure 0, success 1, not executable 2, both ways", () => {
    expect(onlineMind2WebCode("failure")).toBe(0);
    expect(onlineMind2WebCode("success")).toBe(1);
    expect(onlineMind2WebCode("not_executable")).toBe(2);
    expect(onlineMind2WebCode("unsure")).toBeNull();
    for (const v of ["failure", "success", "not_executable"] as const) expect(verdictFromOnlineMind2WebCode(onlineMind2WebCode(v))).toBe(v);
    expect(verdictFromOnlineMind2WebCode(3)).toBeNull();
  });

  it("custom campaigns are held to their own k and QA setting", () => {
    expect(requirementsOf("custom", 2, true)).toEqual({ minAnnotatorsPerItem: 2, qaReview: true });
    expect(requirementsOf(null, 1, false)).toEqual({ minAnnotatorsPerItem: 1, qaReview: false });
    expect(requirementsOf("online-mind2web", 1, false)).toEqual({ minAnnotatorsPerItem: 3, qaReview: true });
  });
});

describe("protocolCompliance", () => {
  const req = { minAnnotatorsPerItem: 3, qaReview: true };

  it("tallies a hand-worked campaign", () => {
    // Four items: 3 labels + QA done, 3 labels awaiting QA, 4 labels + QA done, 1 label (still open).
    const c = protocolCompliance({
      requirements: req,
      items: [
        { labelCount: 3, state: "adjudicated", qaDone: true },
        { labelCount: 3, state: "agreed", qaDone: false },
        { labelCount: 4, state: "agreed", qaDone: true },
        { labelCount: 1, state: "open", qaDone: false },
      ],
      labelGuidelineVersions: [
        { version: 2, labels: 5 },
        { version: 1, labels: 4 },
        { version: 1, labels: 2 },
      ],
      guidelineVersion: 2,
    });
    expect(c).toEqual({
      items: 4,
      annotatorsPerItem: [
        { labels: 1, items: 1 },
        { labels: 3, items: 2 },
        { labels: 4, items: 1 },
      ],
      itemsBelowTarget: 1,
      qa: { required: true, done: 2, pending: 1, notReady: 1 },
      guidelineVersions: [
        { version: 1, labels: 6 },
        { version: 2, labels: 5 },
      ],
      labelsOnOlderGuidelines: 6,
      meetsProtocol: false,
      shortfalls: ["1 item below 3 annotators", "2 items without a QA review"],
    });
  });

  it("meets the protocol when every item has its labels and QA", () => {
    const c = protocolCompliance({
      requirements: req,
      items: [{ labelCount: 3, state: "agreed", qaDone: true }],
      labelGuidelineVersions: [
        { version: 1, labels: 2 },
        { version: null, labels: 1 },
      ],
      guidelineVersion: 1,
    });
    expect(c.meetsProtocol).toBe(true);
    expect(c.shortfalls).toEqual([]);
    expect(c.guidelineVersions).toEqual([
      { version: 1, labels: 2 },
      { version: null, labels: 1 },
    ]);
    expect(qaStatusOf("disputed", false)).toBe("pending");
  });

  it("without a QA requirement, QA does not count against the protocol", () => {
    const c = protocolCompliance({
      requirements: { minAnnotatorsPerItem: 1, qaReview: false },
      items: [{ labelCount: 1, state: "agreed", qaDone: false }],
      labelGuidelineVersions: [{ version: 1, labels: 1 }],
      guidelineVersion: 1,
    });
    expect(c.meetsProtocol).toBe(true);
  });
});

describe("tallyDecisions", () => {
  it("counts adjudications and QA reviews by source and confidence", () => {
    const t = tallyDecisions([
      { method: "adjudicated", qaDecision: null, confidence: "high", disagreementSource: "guideline_gap", n: 2 },
      { method: "adjudicated", qaDecision: "corrected", confidence: "low", disagreementSource: "annotator_error", n: 1 },
      { method: "unanimous", qaDecision: "confirmed", confidence: "high", disagreementSource: null, n: 3 },
    ]);
    expect(t).toEqual({
      decisions: 6,
      adjudicated: 3,
      qaConfirmed: 3,
      qaCorrected: 1,
      bySource: [
        { source: "guideline_gap", n: 2 },
        { source: "ambiguous_task", n: 0 },
        { source: "annotator_error", n: 1 },
        { source: "edge_case", n: 0 },
        { source: "not recorded", n: 3 },
      ],
      byConfidence: [
        { confidence: "low", n: 1 },
        { confidence: "medium", n: 0 },
        { confidence: "high", n: 5 },
        { confidence: "not recorded", n: 0 },
      ],
    });
  });
});

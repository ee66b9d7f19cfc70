/**
 * Judge prompt options for measuring judges: the first failing step (asked for, parsed strictly, unparseable kept
 * apart) and judging without the agent's final answer; both change the recorded prompt version.
 */
import { describe, expect, it } from "vitest";
import {
  buildJudgePrompt,
  effectivePromptVersion,
  parseEffectivePromptVersion,
  parseFailureStep,
  type JudgeInput,
} from "../../server/domain/evaluation/judge-protocol";

const steps = [10, 11, 12, 13];
const input: JudgeInput = {
  intent: "Find the cheapest flight",
  finalAnswer: "The cheapest flight costs $99",
  steps: steps.map((index) => ({ index, url: null, thought: null, actionRaw: `act ${index}`, action: { type: "click" as const }, hasScreenshot: true })),
};

describe("first failing step", () => {
  it("maps the position the prompt gave back to the step's stored index", () => {
    expect(parseFailureStep("Reasoning: wrong date.\nFirst failing step: 2\nVerdict: FAILURE", "failure", steps)).toEqual({
      status: "given",
      stepIndex: 11,
      position: 2,
    });
    expect(parseFailureStep("**First failing step:** 4.\nVerdict: FAILURE", "failure", steps)).toEqual({ status: "given", stepIndex: 13, position: 4 });
  });

  it("keeps a failure without a usable step apart instead of guessing", () => {
    expect(parseFailureStep("It went wrong at step 2.\nVerdict: FAILURE", "failure", steps)).toMatchObject({
      status: "unparseable",
      problem: expect.stringMatching(/no 'First failing step:' line/),
    });
    expect(parseFailureStep("First failing step: 7\nVerdict: FAILURE", "failure", steps)).toMatchObject({
      status: "unparseable",
      problem: expect.stringMatching(/outside 1–4/),
    });
    expect(parseFailureStep("First failing step: two\nVerdict: FAILURE", "failure", steps)).toMatchObject({
      status: "unparseable",
      problem: expect.stringMatching(/not a step number/),
    });
    expect(parseFailureStep("First failing step: 0\nVerdict: FAILURE", "failure", steps)).toMatchObject({ status: "unparseable" });
    expect(parseFailureStep("First failing step: 1\nFirst failing step: 3\nVerdict: FAILURE", "failure", steps)).toMatchObject({
      status: "unparseable",
      problem: expect.stringMatching(/conflicting/),
    });
  });

  it("is not asked of a success", () => {
    expect(parseFailureStep("First failing step: 2\nVerdict: SUCCESS", "success", steps)).toEqual({ status: "not-applicable" });
  });

  it("is asked for in the prompt only when the option is on", () => {
    const asked = buildJudgePrompt(input, 2, { includeActionHistory: true, includeThoughts: false, askFirstFailingStep: true });
    expect(asked.system).toContain("First failing step: <number>");
    expect(asked.parts.at(-1)).toMatchObject({ text: expect.stringMatching(/first failing step \(1 to 4\)/) });
    const plain = buildJudgePrompt(input, 2, { includeActionHistory: true, includeThoughts: false });
    expect(plain.system).not.toContain("First failing step");
  });
});

describe("judging without the final answer", () => {
  it("leaves the answer out of the prompt and says so", () => {
    const without = buildJudgePrompt(input, 2, { includeActionHistory: true, includeThoughts: false, withoutFinalAnswer: true });
    const text = without.parts.map((p) => (p.type === "text" ? p.text : "")).join("\n");
    expect(text).not.toContain("$99");
    expect(text).toContain("final answer is not shown");
    expect(without.system).not.toContain("final answer the agent reported");
    const withAnswer = buildJudgePrompt(input, 2, { includeActionHistory: true, includeThoughts: false });
    expect(withAnswer.parts[0]).toMatchObject({ text: expect.stringContaining("$99") });
  });

  it("does not let the answer back in through the action that reported it", () => {
    const answered: JudgeInput = {
      ...input,
      steps: [
        ...input.steps.slice(0, -1),
        {
          index: 13,
          url: null,
          thought: null,
          actionRaw: "ANSWER; The cheapest flight costs $99",
          action: { type: "answer", value: "The cheapest flight costs $99" },
          hasScreenshot: true,
        },
      ],
    };
    const head = (p: ReturnType<typeof buildJudgePrompt>) => (p.parts[0] as { text: string }).text;
    const without = head(buildJudgePrompt(answered, 2, { includeActionHistory: true, includeThoughts: false, withoutFinalAnswer: true }));
    expect(without).not.toContain("$99");
    expect(without).toContain("Step 4: ANSWER (not shown)");
    expect(head(buildJudgePrompt(answered, 2, { includeActionHistory: true, includeThoughts: false }))).toContain(
      "Step 4: ANSWER; The cheapest flight costs $99",
    );
  });
});

describe("effective prompt version", () => {
  it("adds a suffix per prompt-changing option and reads it back", () => {
    expect(effectivePromptVersion("verdict-judge-v1", {})).toBe("verdict-judge-v1");
    expect(effectivePromptVersion("verdict-judge-v1", { askFirstFailingStep: true, withoutFinalAnswer: true })).toBe("verdict-judge-v1+first-step+no-answer");
    expect(parseEffectivePromptVersion("verdict-judge-v1+no-answer")).toEqual({
      version: "verdict-judge-v1",
      askFirstFailingStep: false,
      withoutFinalAnswer: true,
      askCitations: false,
    });
    expect(parseEffectivePromptVersion("v1+other")).toBeNull();
  });
});

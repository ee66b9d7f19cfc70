import { describe, expect, it } from "vitest";
import { checkCitations, parseCitations, unverifiableCount } from "../../server/domain/evaluation/citations";
import { effectivePromptVersion, promptVersionOfProtocol, protocolOfVersion, type JudgeInput } from "../../server/domain/evaluation/judge-protocol";
import {
  buildKeyPointOutcomePrompt,
  buildRelevancePrompt,
  buildRubricOutcomePrompt,
  keptScreenshots,
  parseCriteriaList,
  parseKeyPointOutcome,
  parseRelevanceScore,
  parseRubricOutcome,
  stagedCallCount,
} from "../../server/domain/evaluation/staged-protocols";

const input: JudgeInput = {
  intent: "Find a hotel in Lyon under $100",
  finalAnswer: "Hotel Rhône",
  steps: [0, 1, 2].map((i) => ({
    index: i * 2,
    url: `https://x.test/${i}`,
    thought: null,
    actionRaw: i === 2 ? "ANSWER; Hotel Rhône" : `Click [${i}]`,
    action: { type: i === 2 ? "answer" : "click" } as never,
    hasScreenshot: i !== 1,
  })),
};

describe("protocols", () => {
  it("names each protocol by id or prompt version, and older versions belong to the WebVoyager one", () => {
    expect(promptVersionOfProtocol("key-points")).toBe("verdict-keypoints-v1");
    expect(promptVersionOfProtocol("verdict-rubric-v1")).toBe("verdict-rubric-v1");
    expect(() => promptVersionOfProtocol("webjudge")).toThrow(/known: webvoyager, key-points, rubric/);
    expect(protocolOfVersion("verdict-rubric-v1")).toBe("rubric");
    expect(protocolOfVersion("verdict-judge-v1")).toBe("webvoyager");
    // The staged protocols always cite: only the WebVoyager prompt gets "+cite".
    expect(effectivePromptVersion("verdict-judge-v1", { askCitations: true })).toBe("verdict-judge-v1+cite");
    expect(effectivePromptVersion("verdict-keypoints-v1", { askCitations: true })).toBe("verdict-keypoints-v1");
  });

  it("counts the calls: key points 2 + one per screenshot, rubric 2", () => {
    expect(stagedCallCount("verdict-keypoints-v1", 5)).toBe(7);
    expect(stagedCallCount("verdict-rubric-v1", 5)).toBe(2);
  });
});

describe("listing key points and criteria", () => {
  it("reads numbered and bulleted lines, and leaves untagged rubric lines out with a reason", () => {
    expect(parseCriteriaList("Key points:\n1. Hotel in Lyon\n2) **under $100**\n- free parking", "key_point")).toEqual({
      items: [
        { kind: "key_point", text: "Hotel in Lyon" },
        { kind: "key_point", text: "under $100" },
        { kind: "key_point", text: "free parking" },
      ],
      problem: null,
    });
    const rubric = parseCriteriaList("Criteria:\n1. [outcome] Lyon\n2. [Process] no repeats\n3. price", "rubric");
    expect(rubric.items).toEqual([
      { kind: "outcome", text: "Lyon" },
      { kind: "process", text: "no repeats" },
    ]);
    expect(rubric.problem).toBe("1 criterion without an [outcome] or [process] tag left out");
    expect(parseCriteriaList("I cannot tell.", "key_point").problem).toBe("no key points listed");
    expect(parseCriteriaList("1. [process] be quick", "rubric").problem).toBe("no outcome criterion listed");
    const many = Array.from({ length: 14 }, (_, i) => `${i + 1}. point ${i}`).join("\n");
    expect(parseCriteriaList(many, "key_point")).toMatchObject({ problem: "14 key points listed, the first 12 kept" });
  });
});

describe("relevance scores and the threshold", () => {
  it("parses exactly one score from 1 to 5", () => {
    expect(parseRelevanceScore("Reasoning: a list.\nScore: 4")).toEqual({ score: 4, problem: null });
    expect(parseRelevanceScore("**Score:** 3/5")).toEqual({ score: 3, problem: null });
    expect(parseRelevanceScore("Score: 6").problem).toBe('score "6" is not a whole number from 1 to 5');
    expect(parseRelevanceScore("Score: 2\nScore: 4").problem).toBe("conflicting scores: 2, 4");
    expect(parseRelevanceScore("very relevant").problem).toBe("no 'Score:' line");
  });

  it("keeps screenshots scored at or above the threshold, in trajectory order; unscored ones never", () => {
    const scores = [
      { stepIndex: 0, score: 3, problem: null },
      { stepIndex: 2, score: 2, problem: null },
      { stepIndex: 4, score: null, problem: "no 'Score:' line" },
      { stepIndex: 6, score: 5, problem: null },
    ];
    expect(keptScreenshots(scores, 3)).toEqual([0, 6]);
    expect(keptScreenshots(scores, 2)).toEqual([0, 2, 6]);
    expect(keptScreenshots(scores, 5)).toEqual([6]);
  });

  it("asks about one screenshot, captioned with its step number", () => {
    const p = buildRelevancePrompt(input, [{ kind: "key_point", text: "Lyon" }], 4);
    expect(p.parts).toEqual([
      { type: "text", text: "Task: Find a hotel in Lyon under $100\n\nKey points:\n1. Lyon\n" },
      { type: "text", text: "Step 3 of 3 (page: https://x.test/2):" },
      { type: "image", stepIndex: 4 },
    ]);
  });
});

describe("the outcome call", () => {
  const kp = [
    { kind: "key_point" as const, text: "hotel in Lyon" },
    { kind: "key_point" as const, text: "under $100" },
  ];
  it("shows the key points, the action history and only the kept screenshots, or says none was kept", () => {
    const p = buildKeyPointOutcomePrompt(input, kp, [4], 3, 2, {});
    expect(p.stepIndices).toEqual([4]);
    const head = (p.parts[0] as { text: string }).text;
    expect(head).toContain("Key points:\n1. hotel in Lyon\n2. under $100");
    expect(head).toContain("Step 3: ANSWER; Hotel Rhône");
    expect(head).toContain("The 1 of 2 screenshots scored 3 or more for relevance");
    expect(p.system).toContain("Evidence: step <number>");
    const none = buildKeyPointOutcomePrompt(input, kp, [], 3, 2, { withoutFinalAnswer: true });
    expect((none.parts[0] as { text: string }).text).toContain("None of the 2 screenshots scored 3 or more");
    expect(none.system).not.toContain("final answer the agent reported");
  });

  it("grades key points strictly: a missing or conflicting grade is unparseable and said so", () => {
    const r = parseKeyPointOutcome("Reasoning: price not shown.\nKey point 1: MET\nKey point 2: NOT MET\nEvidence: step 3 — list\nVerdict: FAILURE", kp);
    expect(r.verdict).toBe("failure");
    expect(r.rationale).toBe("price not shown.");
    expect(r.criteria.map((c) => c.result)).toEqual(["met", "not_met"]);
    expect(r.problems).toEqual([]);
    const bad = parseKeyPointOutcome("Key point 1: MET\nKey point 1: NOT MET\nVerdict: SUCCESS", kp);
    expect(bad.criteria.map((c) => c.result)).toEqual(["unparseable", "unparseable"]);
    expect(bad.problems).toEqual(["conflicting grades for key point 1", "no grade for key point 2"]);
  });

  it("grades rubric criteria, the process and the failure cause", () => {
    const criteria = [
      { kind: "outcome" as const, text: "in Lyon" },
      { kind: "process" as const, text: "no repeats" },
    ];
    const prompt = buildRubricOutcomePrompt(input, criteria, 1, {});
    expect((prompt.parts[0] as { text: string }).text).toContain("Criteria:\n1. [outcome] in Lyon\n2. [process] no repeats");
    expect(prompt.stepIndices).toEqual([4]);
    const r = parseRubricOutcome(
      "Reasoning: x\nCriterion 1: FAIL\nCriterion 2: PASS\nProcess: PASS\nFailure cause: UNCONTROLLABLE\nVerdict: FAILURE",
      criteria,
    );
    expect(r).toMatchObject({ verdict: "failure", process: "met", failureCause: "uncontrollable", problems: [] });
    expect(r.criteria.map((c) => [c.kind, c.result])).toEqual([
      ["outcome", "not_met"],
      ["process", "met"],
    ]);
    expect(parseRubricOutcome("Verdict: SUCCESS", criteria).problems).toEqual([
      "no grade for criterion 1",
      "no grade for criterion 2",
      "no 'Process:' line",
      "no 'Failure cause:' line",
    ]);
  });
});

describe("citations", () => {
  const steps = [
    { index: 0, sent: null, stored: { width: 1280, height: 800 } },
    { index: 1, sent: { width: 640, height: 400 }, stored: { width: 1280, height: 800 } },
    { index: 2, sent: null, stored: null },
  ];
  it("reads steps, optional boxes and notes from Evidence lines", () => {
    expect(
      parseCitations(
        "Reasoning: x\nEvidence: step 2 [10, 20, 110, 60] — the price\n**Evidence:** Step 1 — search\nEvidence: the end\nEvidence: step 2 [1, 2] — half a box",
      ),
    ).toEqual([
      { position: 1, stepNumber: 2, box: [10, 20, 110, 60], note: "the price", problem: null },
      { position: 2, stepNumber: 1, box: null, note: "search", problem: null },
      { position: 3, stepNumber: null, box: null, note: "the end", problem: "no step number" },
      { position: 4, stepNumber: 2, box: null, note: "half a box", problem: "box [1, 2] is not four numbers x1, y1, x2, y2" },
    ]);
  });

  it("flags steps that do not exist and boxes that cannot be checked; scales good boxes to the stored screenshot", () => {
    const checked = checkCitations(
      parseCitations(
        "Evidence: step 2 [10, 20, 110, 60]\nEvidence: step 4\nEvidence: step 0\nEvidence: step 2 [600, 0, 700, 10]\nEvidence: step 1 [0, 0, 5, 5]\nEvidence: step 2 [50, 50, 40, 60]",
      ),
      steps,
    );
    expect(checked.map((c) => [c.stepIndex, c.storedBox, c.problem])).toEqual([
      [1, [20, 40, 220, 120], null],
      [null, null, "step 4 does not exist (the trajectory has 3 steps)"],
      [null, null, "step 0 does not exist (the trajectory has 3 steps)"],
      [1, null, "box [600, 0, 700, 10] lies outside the 640×400 screenshot of step 2"],
      [0, null, "box [0, 0, 5, 5] on step 1, whose screenshot the judge was not sent"],
      [1, null, "box [50, 50, 40, 60] is empty or reversed"],
    ]);
    expect(unverifiableCount(checked)).toBe(5);
  });
});

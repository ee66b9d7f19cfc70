import { describe, expect, it } from "vitest";
import {
  buildJudgePrompt,
  costUsd,
  describeAction,
  estimateImageTokens,
  parseJudgeReply,
  scaledSize,
  selectScreenshotSteps,
  type JudgeStep,
} from "../../server/domain/evaluation/judge-protocol";
import { formatK, parseK, parseKList } from "../../server/domain/evaluation/verdicts";

function steps(n: number, missing: number[] = []): JudgeStep[] {
  return Array.from({ length: n }, (_, i) => ({
    index: i + 10,
    url: `https://s.test/${i}`,
    thought: `thinking ${i}`,
    actionRaw: i === n - 1 ? "ANSWER; 42" : `Click [${i}]`,
    action: { type: i === n - 1 ? "answer" : "click" },
    hasScreenshot: !missing.includes(i),
  }));
}

describe("selectScreenshotSteps", () => {
  it.each([
    { n: 5, missing: [], k: 1 as const, want: [14] },
    { n: 5, missing: [], k: 3 as const, want: [12, 13, 14] },
    { n: 5, missing: [], k: "full" as const, want: [10, 11, 12, 13, 14] },
    { n: 2, missing: [], k: 3 as const, want: [10, 11] },
    { n: 5, missing: [4], k: 2 as const, want: [12, 13] },
    { n: 5, missing: [1, 3], k: 3 as const, want: [10, 12, 14] },
    { n: 3, missing: [0, 1, 2], k: 1 as const, want: [] },
  ])("n=$n missing=$missing k=$k → $want", ({ n, missing, k, want }) => {
    expect(selectScreenshotSteps(steps(n, missing), k)).toEqual(want);
  });
});

describe("buildJudgePrompt", () => {
  const input = { intent: "Find the cheapest kettle", finalAnswer: "$19", steps: steps(4) };

  it("puts task and answer first, then one labelled image per selected step, oldest first", () => {
    const p = buildJudgePrompt(input, 2, { includeActionHistory: false, includeThoughts: false });
    expect(p.stepIndices).toEqual([12, 13]);
    expect(p.parts.filter((x) => x.type === "image")).toEqual([
      { type: "image", stepIndex: 12 },
      { type: "image", stepIndex: 13 },
    ]);
    const text = p.parts
      .filter((x) => x.type === "text")
      .map((x) => (x as { text: string }).text)
      .join("\n");
    expect(text).toMatch(/^Task: Find the cheapest kettle\n\nFinal answer reported by the agent: \$19/);
    expect(text).toContain("Screenshots of the last 2 steps (of 4), oldest first:");
    expect(text).toContain("Step 3 of 4 (page: https://s.test/2):");
    expect(text).not.toContain("Actions the agent took");
    expect(p.system).toContain("Verdict: SUCCESS");
    expect(p.system).toContain("Verdict: FAILURE");
  });

  it("says when there is no answer, when all screenshots are shown, and when there are none", () => {
    const none = buildJudgePrompt({ ...input, finalAnswer: "  " }, "full", { includeActionHistory: false, includeThoughts: false });
    const text = (none.parts[0] as { text: string }).text;
    expect(text).toContain("(none; the agent stopped without reporting an answer)");
    expect(text).toContain("Screenshots of all 4 recorded steps");
    const blind = buildJudgePrompt({ ...input, steps: steps(2, [0, 1]) }, 1, { includeActionHistory: false, includeThoughts: false });
    expect(blind.stepIndices).toEqual([]);
    expect((blind.parts[0] as { text: string }).text).toContain("No screenshots were recorded");
  });

  it("adds the action history, with thoughts only when asked", () => {
    const history = buildJudgePrompt(input, 1, { includeActionHistory: true, includeThoughts: false });
    const h = (history.parts[0] as { text: string }).text;
    expect(h).toContain("Actions the agent took (4 steps):\nStep 1: Click [0]  (page: https://s.test/0)\n");
    expect(h).toContain("Step 4: ANSWER; 42");
    expect(h).not.toContain("Thought:");
    const thoughts = buildJudgePrompt(input, 1, { includeActionHistory: true, includeThoughts: true });
    expect((thoughts.parts[0] as { text: string }).text).toContain("Step 2: Click [1]  (page: https://s.test/1)\n  Thought: thinking 1\n");
  });

  it("describes actions without raw text from their parsed form", () => {
    expect(describeAction({ type: "type", target: "5", value: "kettle" }, null)).toBe('type [5] "kettle"');
    expect(describeAction({ type: "scroll", direction: "down" }, "")).toBe("scroll down");
    expect(describeAction({ type: "click", coords: [10, 20] }, null)).toBe("click at (10, 20)");
    expect(describeAction({ type: "click" }, "x".repeat(400))).toHaveLength(300);
  });
});

describe("parseJudgeReply", () => {
  it.each([
    ["Reasoning: It worked.\nVerdict: SUCCESS", "success", "It worked."],
    ["Reasoning: Wrong city.\nVerdict: FAILURE", "failure", "Wrong city."],
    ["The page shows it.\n\n**Verdict: SUCCESS**", "success", "The page shows it."],
    ["Thoughts...\n**Verdict:** failure.", "failure", "Thoughts..."],
    ["verdict:success", "success", ""],
    ["Reasoning: fine\nVerdict: SUCCESS\n\nVerdict: SUCCESS", "success", "fine"],
    ["Reasoning: long\nVerdict: SUCCESS\n(I am fairly confident.)", "success", "long\n(I am fairly confident.)"],
  ])("%j → %s", (reply, verdict, rationale) => {
    const r = parseJudgeReply(reply);
    expect(r.verdict).toBe(verdict);
    expect(r.rationale).toBe(rationale);
  });

  it.each([
    ["", "empty reply"],
    ["The task was a SUCCESS overall.", "no verdict line"],
    ["Verdict: NOT SUCCESS", "no verdict line"],
    ["Verdict: SUCCESS or FAILURE", "no verdict line"],
    ["Final verdict: the agent succeeded", "no verdict line"],
    ["Verdict: SUCCESS\nVerdict: FAILURE", "conflicting verdict lines"],
  ])("%j is unparseable (%s)", (reply, problem) => {
    const r = parseJudgeReply(reply);
    expect(r.verdict).toBe("unparseable");
    expect(r.problem).toBe(problem);
    expect(r.rationale).toBe(reply.trim());
  });
});

describe("k values", () => {
  it("parses and formats k", () => {
    expect(parseKList("1, 3,full,3")).toEqual([1, 3, "full"]);
    expect(parseK("ALL")).toBe("full");
    expect(formatK(2)).toBe("2");
    expect(() => parseK("0")).toThrow(/positive whole number/);
    expect(() => parseK("2.5")).toThrow(/"2.5"/);
    expect(() => parseKList(" , ")).toThrow(/empty/);
  });
});

describe("estimates", () => {
  it.each([
    { w: 1024, h: 768, detail: "auto" as const, want: 765 },
    { w: 48, h: 36, detail: "high" as const, want: 255 },
    { w: 4096, h: 2048, detail: "auto" as const, want: 1105 },
    { w: 1280, h: 2048, detail: "auto" as const, want: 1105 },
    { w: 1280, h: 2048, detail: "low" as const, want: 85 },
  ])("image $w×$h detail $detail ≈ $want tokens", ({ w, h, detail, want }) => {
    expect(estimateImageTokens(w, h, detail)).toBe(want);
  });

  it("scales to a maximum side and prices tokens", () => {
    expect(scaledSize(1280, 720, 640)).toEqual({ width: 640, height: 360 });
    expect(scaledSize(300, 200, 640)).toEqual({ width: 300, height: 200 });
    expect(scaledSize(300, 200, null)).toEqual({ width: 300, height: 200 });
    expect(costUsd({ input: 1_000_000, output: 500_000 }, { inputPerMTok: 2.5, outputPerMTok: 10 })).toBeCloseTo(7.5);
    expect(costUsd({ input: 10, output: 1 }, { inputPerMTok: null, outputPerMTok: 10 })).toBeNull();
    expect(costUsd({ input: null, output: null }, { inputPerMTok: 1, outputPerMTok: 1 })).toBeNull();
  });
});

/**
 * The alignment loop's and the stress tests' pure parts: variants as text, perturbed screenshots, prompt versions,
 * the stratified split, the leakage guard with its near-duplicate rule, the rubric-suggestion exchange, line diffs,
 * and the comparison statistics (κ per way of asking, flips, the paired change in κ), figures worked by hand.
 */
import { describe, expect, it } from "vitest";
import { buildJudgePrompt, type JudgeStep } from "../../server/domain/evaluation/judge-protocol";
import {
  applyPromptVersion,
  criteriaBlock,
  formatVariant,
  normaliseRubric,
  parseVariant,
  perturbationInapplicable,
  perturbScreenshots,
  variantOptions,
  variantSuffix,
  variantWindow,
  VariantError,
  type FewShotExample,
} from "../../server/domain/evaluation/prompt-variants";
import {
  AlignmentInputError,
  describeLeak,
  diffLines,
  findLeaks,
  intentSimilarity,
  NEAR_DUPLICATE_SIMILARITY,
  normaliseIntent,
  parseRubricSuggestion,
  rubricSuggestionMessages,
  splitForAlignment,
  type SplitCandidate,
} from "../../server/domain/evaluation/alignment";
import { compareOnItems, judgeOnItems, type PairedItem } from "../../server/domain/evaluation/judge-comparison";
import { DEFAULT_JUDGE_OPTIONS } from "../../server/domain/evaluation/verdicts";

function steps(n: number): JudgeStep[] {
  return Array.from({ length: n }, (_, i) => ({
    index: i,
    url: `https://shop.test/${i}`,
    thought: null,
    actionRaw: i === n - 1 ? "ANSWER; 42" : `Click [${i}]`,
    action: i === n - 1 ? { type: "answer", value: "42" } : { type: "click", target: String(i) },
    hasScreenshot: true,
  }));
}

const input = { intent: "Find the answer", finalAnswer: "42", steps: steps(6) };
const options = { ...DEFAULT_JUDGE_OPTIONS, includeActionHistory: true };

describe("variants as text", () => {
  it("round-trips every kind and names what the verdicts record", () => {
    for (const text of ["", "pv12", "shuffle-s7", "subset3-s0", "no-answer", "no-history", "pv4+shuffle-s9", "pv4+no-answer"]) {
      expect(formatVariant(parseVariant(text))).toBe(text);
    }
    expect(variantSuffix(parseVariant("pv4+subset2-s9"))).toBe("+pv4+subset2-s9");
    // The answer left out is said by the configuration's own "+no-answer" (effectivePromptVersion).
    expect(variantSuffix(parseVariant("no-answer"))).toBe("");
    expect(variantSuffix(parseVariant(""))).toBe("");
  });

  it("refuses what it cannot read, saying why", () => {
    expect(() => parseVariant("shuffle")).toThrow(VariantError);
    expect(() => parseVariant("shuffle-s1+no-answer")).toThrow(/one perturbation/);
    expect(() => parseVariant("no-answer+pv3")).toThrow(/prompt version comes first/);
    expect(() => parseVariant("subset0-s1")).toThrow(/at least 1/);
    expect(() => parseVariant("shuffle-s9999999999")).toThrow(/seed/);
  });

  it("changes the options for the answer and the history, and knows when that changes nothing", () => {
    expect(variantOptions(options, parseVariant("no-answer")).withoutFinalAnswer).toBe(true);
    expect(variantOptions(options, parseVariant("no-history"))).toMatchObject({ includeActionHistory: false, includeThoughts: false });
    expect(perturbationInapplicable({ kind: "no-history" }, DEFAULT_JUDGE_OPTIONS)).toMatch(/does not show the action history/);
    expect(perturbationInapplicable({ kind: "no-history" }, options)).toBeNull();
    expect(perturbationInapplicable({ kind: "no-answer" }, { ...options, withoutFinalAnswer: true })).toMatch(/already leaves/);
    expect(variantWindow(3, parseVariant("subset2-s1"))).toBe("full");
    expect(variantWindow(3, parseVariant("shuffle-s1"))).toBe(3);
  });
});

describe("perturbed screenshots", () => {
  const full = buildJudgePrompt(input, "full", options);
  const captions = (p: typeof full) => p.parts.flatMap((part, i) => (part.type === "image" ? [(p.parts[i - 1] as { text: string }).text.split(" (")[0]] : []));

  it("shuffles screenshots with their captions, the same way for the same seed and trajectory", () => {
    const a = perturbScreenshots(full, { kind: "shuffle", seed: 7 }, 101);
    expect(a.stepIndices).not.toEqual([0, 1, 2, 3, 4, 5]);
    expect([...a.stepIndices].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    // Every image still follows its own caption: the step numbers shown stay true.
    expect(captions(a)).toEqual(a.stepIndices.map((i) => `Step ${i + 1} of 6`));
    expect(a.parts[0]).toEqual(full.parts[0]);
    expect(a.parts.at(-1)).toEqual(full.parts.at(-1));
    expect(perturbScreenshots(full, { kind: "shuffle", seed: 7 }, 101).stepIndices).toEqual(a.stepIndices);
    const others = [102, 103, 104, 105].map((t) => perturbScreenshots(full, { kind: "shuffle", seed: 7 }, t).stepIndices.join());
    expect(new Set([a.stepIndices.join(), ...others]).size).toBeGreaterThan(1);
  });

  it("keeps a random subset of k in order and says so in the prompt", () => {
    const s = perturbScreenshots(full, { kind: "subset", k: 2, seed: 3 }, 55);
    expect(s.stepIndices).toHaveLength(2);
    expect(s.stepIndices).toEqual([...s.stepIndices].sort());
    expect(captions(s)).toEqual(s.stepIndices.map((i) => `Step ${i + 1} of 6`));
    expect((s.parts[0] as { text: string }).text).toMatch(/Screenshots of 2 of the 6 recorded steps, chosen at random, oldest first:$/);
    expect(s.parts.filter((p) => p.type === "image")).toHaveLength(2);
    // A subset as large as what there is changes nothing.
    expect(perturbScreenshots(full, { kind: "subset", k: 6, seed: 3 }, 55)).toBe(full);
    expect(perturbScreenshots(full, { kind: "no-answer" }, 55)).toBe(full);
  });
});

describe("prompt versions", () => {
  const system = buildJudgePrompt(input, "full", options).system;
  const example: FewShotExample = {
    trajectoryId: 9,
    taskId: 3,
    taskExternalId: "Shop--3",
    intent: "Find the price of the red kettle",
    finalAnswer: "About $20",
    humanVerdict: "failure",
    humanNotes: ["The answer is a guess: no page shows the price"],
    judgeVerdict: "success",
  };

  it("finds the protocol's criteria", () => {
    const block = criteriaBlock(system)!;
    expect(block.text.startsWith("- The screenshots are your evidence.")).toBe(true);
    expect(block.text.endsWith("do not hold a long but successful route against the agent.")).toBe(true);
    expect(system.slice(block.start, block.end)).toBe(block.text);
  });

  it("replaces the criteria with the rubric and puts the examples right after them", () => {
    const v = applyPromptVersion(system, {
      rubric: "An estimate ('about', 'around') is not an answer.\n- Prices must be shown on a page.",
      examples: [example],
    });
    expect(v).not.toContain("The screenshots are your evidence");
    expect(v).toContain("- An estimate ('about', 'around') is not an answer.\n- Prices must be shown on a page.\n\nExamples people judged.");
    expect(v).toContain(
      "<example>\nTask: Find the price of the red kettle\nFinal answer reported by the agent: About $20\nHuman verdict: FAILURE\nWhy: The answer is a guess: no page shows the price\n</example>",
    );
    // The answer format stays at the end.
    expect(v.trimEnd().endsWith("The verdict line comes last and holds exactly one of the two words.")).toBe(true);
    // No rubric: the protocol's criteria stay; no examples: the prompt is unchanged.
    expect(applyPromptVersion(system, { rubric: null, examples: [] })).toBe(system);
    expect(applyPromptVersion(system, { rubric: null, examples: [example] })).toContain("- The screenshots are your evidence.");
  });

  it("writes rubric lines as bullets", () => {
    expect(normaliseRubric("* one\n\n  continued\ntwo\r\n- three  ")).toBe("- one\n  continued\n- two\n- three");
  });
});

describe("the calibration / held-out split", () => {
  const items: SplitCandidate[] = [
    ...Array.from({ length: 8 }, (_, i) => ({ trajectoryId: 100 + i, human: "success" as const, site: "shop" })),
    ...Array.from({ length: 12 }, (_, i) => ({ trajectoryId: 200 + i, human: "failure" as const, site: "shop" })),
    ...Array.from({ length: 4 }, (_, i) => ({ trajectoryId: 300 + i, human: "failure" as const, site: "wiki" })),
    ...Array.from({ length: 6 }, (_, i) => ({ trajectoryId: 400 + i, human: "success" as const, site: null })),
  ];

  it("holds out a share of every (label, site) stratum, seeded and independent of input order", () => {
    const s = splitForAlignment(items, 0.5, 11);
    // 30 items, 15 held out: success/shop 4 of 8, failure/shop 6 of 12, failure/wiki 2 of 4, success/no site 3 of 6.
    expect(s.heldOut).toHaveLength(15);
    expect(s.calibration).toHaveLength(15);
    expect(s.strata).toEqual([
      { human: "success", site: "shop", items: 8, calibration: 4, heldOut: 4 },
      { human: "success", site: null, items: 6, calibration: 3, heldOut: 3 },
      { human: "failure", site: "shop", items: 12, calibration: 6, heldOut: 6 },
      { human: "failure", site: "wiki", items: 4, calibration: 2, heldOut: 2 },
    ]);
    expect(new Set([...s.heldOut, ...s.calibration]).size).toBe(30);
    expect(splitForAlignment([...items].reverse(), 0.5, 11)).toEqual(s);
    expect(splitForAlignment(items, 0.5, 12).heldOut).not.toEqual(s.heldOut);
  });

  it("rounds the share per stratum by largest remainders and refuses what cannot be split", () => {
    // 30 × 0.3 = 9: quotas 2.4, 1.8, 3.6, 1.2 → 2, 1, 3, 1 (7) + the two largest remainders (1.8, 3.6) → 2, 2, 4, 1.
    const s = splitForAlignment(items, 0.3, 5);
    expect(s.heldOut).toHaveLength(9);
    expect(s.strata.map((x) => x.heldOut)).toEqual([2, 2, 4, 1]);
    expect(() => splitForAlignment(items.slice(0, 1), 0.5, 1)).toThrow(AlignmentInputError);
    expect(() => splitForAlignment(items, 1, 1)).toThrow(/held-out share/);
    expect(() => splitForAlignment([...items, { trajectoryId: 100, human: "failure", site: "shop" }], 0.5, 1)).toThrow(/twice/);
  });
});

describe("the leakage guard", () => {
  it("normalises intents and compares their character trigrams", () => {
    expect(normaliseIntent("  Find a CRÈME brûlée recipe—with 4.5 stars! ")).toBe("find a creme brulee recipe with 4 5 stars");
    // " abcd " has the trigrams " ab", "abc", "bcd", "cd "; " abce " shares the first two of its four: 2·2 / 8.
    expect(intentSimilarity("ABCD", "abce")).toBe(0.5);
    expect(intentSimilarity("Add a red kettle!", "add a red kettle")).toBe(1);
    const reworded = intentSimilarity(
      "Find a recipe for vegetarian lasagna with more than 100 reviews",
      "Find a recipe for vegetarian lasagna with over 100 reviews",
    );
    const otherDish = intentSimilarity("Find a recipe for vegetarian lasagna with over 100 reviews", "Find a recipe for chocolate cake with over 100 reviews");
    expect(reworded).toBeGreaterThanOrEqual(NEAR_DUPLICATE_SIMILARITY);
    expect(otherDish).toBeLessThan(NEAR_DUPLICATE_SIMILARITY);
    expect(NEAR_DUPLICATE_SIMILARITY).toBe(0.8);
  });

  it("refuses held-out items, held-out tasks and near-duplicates, naming the held-out task", () => {
    const held = [
      { trajectoryId: 1, taskId: 10, taskExternalId: "Allrecipes--4", intent: "Find a recipe for vegetarian lasagna with more than 100 reviews" },
      { trajectoryId: 2, taskId: 20, taskExternalId: "Amazon--7", intent: "Add a red kettle to the cart" },
    ];
    const leaks = findLeaks(
      [
        { trajectoryId: 2, taskId: 20, taskExternalId: "Amazon--7", intent: "Add a red kettle to the cart" },
        { trajectoryId: 3, taskId: 20, taskExternalId: "Amazon--7", intent: "Add a red kettle to the cart" },
        { trajectoryId: 4, taskId: 40, taskExternalId: "Allrecipes--9", intent: "Find a recipe for vegetarian lasagna with over 100 reviews" },
        { trajectoryId: 5, taskId: 50, taskExternalId: "Allrecipes--5", intent: "Find a recipe for chocolate cake with over 100 reviews" },
      ],
      held,
    );
    expect(leaks.map((l) => [l.example.trajectoryId, l.reason, l.heldOut.taskExternalId])).toEqual([
      [2, "held-out item", "Amazon--7"],
      [3, "same task", "Amazon--7"],
      [4, "near-duplicate task", "Allrecipes--4"],
    ]);
    expect(describeLeak(leaks[1]!)).toBe('example trajectory 3 (task "Amazon--7"): its task "Amazon--7" is in the held-out part (trajectory 2)');
    expect(describeLeak(leaks[2]!)).toMatch(
      /^example trajectory 4 \(task "Allrecipes--9"\): its intent is a near-duplicate \(similarity 0\.86 ≥ 0\.8\) of held-out task "Allrecipes--4" \(trajectory 1\)/,
    );
  });
});

describe("the judge model's rubric suggestion", () => {
  it("shows the criteria and every disagreement with people's notes", () => {
    const m = rubricSuggestionMessages("- Believe the screenshots.", [
      {
        trajectoryId: 1,
        taskId: 1,
        taskExternalId: "t1",
        intent: "Find the kettle price",
        finalAnswer: "about $20",
        humanVerdict: "failure",
        humanNotes: ["a guess"],
        judgeVerdict: "success",
        judgeRationale: "It answered.",
      },
    ]);
    expect(m.system).toContain('Answer with a line "Revised criteria:"');
    expect(m.user).toContain("The judge's current criteria:\n- Believe the screenshots.");
    expect(m.user).toContain(
      "Case 1\nTask: Find the kettle price\nFinal answer reported by the agent: about $20\nThe judge said: SUCCESS because: It answered.\nPeople said: FAILURE\nPeople's notes: a guess",
    );
  });

  it("reads the criteria after the marker, keeps an unmarked reply whole with a warning, refuses an empty one", () => {
    expect(parseRubricSuggestion("Thinking...\nRevised criteria:\n- One\n- Two\n")).toEqual({ rubric: "- One\n- Two", warning: null });
    expect(parseRubricSuggestion("- Only this")).toMatchObject({ rubric: "- Only this", warning: expect.stringContaining('no "Revised criteria:" line') });
    expect(() => parseRubricSuggestion("  ")).toThrow(/empty/);
    expect(() => parseRubricSuggestion("Revised criteria:")).toThrow(/no criteria after it/);
  });
});

describe("line diffs", () => {
  it("keeps common lines and marks the rest", () => {
    expect(diffLines("a\nb\nc\nd", "a\nc\nx\nd")).toEqual([
      { op: "same", text: "a" },
      { op: "removed", text: "b" },
      { op: "same", text: "c" },
      { op: "added", text: "x" },
      { op: "same", text: "d" },
    ]);
    expect(diffLines("same", "same")).toEqual([{ op: "same", text: "same" }]);
  });
});

describe("comparing two ways of asking", () => {
  // 6 human successes (tasks 1–6) and 6 human failures (tasks 7–12). a says success on every success and on
  // failures 7–9 (3 false positives); b says failure on 7 and 8 but now also on success 6.
  const items: PairedItem[] = Array.from({ length: 12 }, (_, i) => {
    const id = i + 1;
    const human = id <= 6 ? ("success" as const) : ("failure" as const);
    const a = id <= 9 ? "success" : "failure";
    const b = id === 6 || id === 7 || id === 8 ? (id === 6 ? "failure" : "failure") : a;
    return { trajectoryId: id, taskId: id, human, a, b };
  });

  it("counts flips by direction and the change in κ", () => {
    const c = compareOnItems(items, { seed: 3 });
    // a: [[6, 0], [3, 3]] → P_o 9/12, P_e (6·9 + 6·3)/144 = 1/2, κ 0.5.
    expect(c.kappaA.kappa).toBeCloseTo(0.5, 12);
    // b: [[5, 1], [1, 5]] → P_o 10/12, P_e 1/2, κ 2/3.
    expect(c.kappaB.kappa).toBeCloseTo(2 / 3, 12);
    expect(c.kappaChange.estimate).toBeCloseTo(1 / 6, 12);
    expect(c.n).toBe(12);
    expect(c.flips.map((f) => [f.trajectoryId, f.direction])).toEqual([
      [6, "now wrong"],
      [7, "now right"],
      [8, "now right"],
    ]);
    expect([c.nowRight, c.nowWrong]).toEqual([2, 1]);
    expect(c.flipRate).toMatchObject({ successes: 3, n: 12, estimate: 0.25 });
    expect(c.kappaChange.low!).toBeLessThan(1 / 6);
    expect(c.kappaChange.high!).toBeGreaterThan(1 / 6);
    expect(c.kappaChange.note).toBeNull();
    // Seeded: the same seed gives the same bounds, another seed others.
    expect(compareOnItems(items, { seed: 3 }).kappaChange).toEqual(c.kappaChange);
    expect(compareOnItems(items, { seed: 4 }).kappaChange.low).not.toBe(c.kappaChange.low);
  });

  it("gives no interval when nothing flipped or too few items are compared, and leaves out items without both verdicts", () => {
    const same = compareOnItems(items.map((i) => ({ ...i, b: i.a })));
    expect(same.kappaChange).toMatchObject({ estimate: 0, low: null, high: null });
    expect(same.kappaChange.note).toMatch(/no item flipped/);
    const few = compareOnItems(items.slice(0, 9).map((i, n) => (n === 0 ? { ...i, b: null } : i)));
    expect(few.leftOut).toBe(1);
    expect(few.kappaChange.note).toBe("no interval (n = 8)");
    // Unparseable counts as a failure under the default policy, and is left out under "exclude".
    const unparsed = items.map((i) => (i.trajectoryId === 12 ? { ...i, b: "unparseable" } : i));
    expect(compareOnItems(unparsed).flips).toHaveLength(3);
    expect(compareOnItems(unparsed, { policy: "exclude" }).leftOut).toBe(1);
  });

  it("measures one way of asking: κ, FPR, FNR and the gap", () => {
    const m = judgeOnItems(items.map((i) => ({ ...i, verdict: i.a })));
    expect(m.table).toEqual([
      [6, 0],
      [3, 3],
    ]);
    expect(m.errors.falsePositive).toMatchObject({ errors: 3, of: 6, estimate: 0.5 });
    expect(m.errors.falseNegative).toMatchObject({ errors: 0, of: 6, estimate: 0 });
    expect(m.errors.gap.estimate).toBeCloseTo(9 / 12 - 6 / 12, 12);
    expect(judgeOnItems([{ trajectoryId: 1, taskId: 1, human: "success", verdict: null }])).toMatchObject({ missing: 1, n: 0 });
  });
});

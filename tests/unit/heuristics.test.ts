import { describe, expect, it } from "vitest";
import { answerKeyTokens, evaluateAnswerGrounded, normaliseNumber } from "../../server/domain/evaluation/heuristics/answer-grounded";
import {
  DHASH_HEIGHT,
  DHASH_WIDTH,
  dHashFromGrey,
  hammingDistance,
  NEAR_IDENTICAL_MAX_BITS,
  nearIdenticalScreens,
} from "../../server/domain/evaluation/heuristics/dhash";
import { evaluateGrounding } from "../../server/domain/evaluation/heuristics/grounding";
import { evaluateLoop } from "../../server/domain/evaluation/heuristics/loop";
import { evaluateNoAnswer } from "../../server/domain/evaluation/heuristics/no-answer";
import type { HeuristicStep, HeuristicTrajectory } from "../../server/domain/evaluation/heuristics/types";
import { actionKey, detectLoops, sameAction } from "../../server/domain/player/loops";
import { layoutOverlay, stepGrounding } from "../../server/domain/player/overlay";
import type { ParsedAction, SomElement } from "../../server/domain/types";

const click = (target: string, coords?: [number, number]): ParsedAction => ({ type: "click", target, ...(coords ? { coords } : {}) });
const type = (target: string, value: string): ParsedAction => ({ type: "type", target, value });
const scroll: ParsedAction = { type: "scroll", direction: "down" };
const answer = (value: string): ParsedAction => ({ type: "answer", value });
const el = (label: string, text: string | null = null, bbox: SomElement["bbox"] = [0, 0, 100, 40]): SomElement => ({ label, bbox, text });

function step(i: number, action: ParsedAction, o: Partial<HeuristicStep> = {}): HeuristicStep {
  return { index: i, action, url: null, elements: null, screenshotHash: `shot${i}`, screenshotDhash: null, screenshotSize: { width: 1280, height: 800 }, ...o };
}

function traj(steps: HeuristicStep[], o: Partial<HeuristicTrajectory> = {}): HeuristicTrajectory {
  return { intent: "Find the price of the blue kettle", finalAnswer: "done", outcome: "answered", steps, ...o };
}

/** A 256-bit hash with the first `n` bits set. */
function hashWithBits(n: number): string {
  const bits = "1".repeat(n).padEnd(256, "0");
  let hex = "";
  for (let i = 0; i < 256; i += 4) hex += parseInt(bits.slice(i, i + 4), 2).toString(16);
  return hex;
}

describe("dHash", () => {
  it("sets a bit where a pixel is brighter than its right neighbour", () => {
    const falling = Array.from({ length: DHASH_WIDTH * DHASH_HEIGHT }, (_, i) => 255 - (i % DHASH_WIDTH) * 10);
    const rising = falling.map((v) => 255 - v);
    expect(dHashFromGrey(falling)).toBe("f".repeat(64));
    expect(dHashFromGrey(rising)).toBe("0".repeat(64));
  });

  it("names the expected size when given the wrong number of pixels", () => {
    expect(() => dHashFromGrey([1, 2, 3])).toThrow(/17×16 = 272 grey pixels, got 3/);
  });

  it("counts differing bits and calls screens near-identical within the threshold", () => {
    expect(hammingDistance("0f", "ff")).toBe(4);
    expect(hammingDistance("0f", "0ff")).toBeNull();
    expect(hammingDistance("zz", "00")).toBeNull();
    expect(nearIdenticalScreens(hashWithBits(0), hashWithBits(NEAR_IDENTICAL_MAX_BITS))).toBe(true);
    expect(nearIdenticalScreens(hashWithBits(0), hashWithBits(NEAR_IDENTICAL_MAX_BITS + 1))).toBe(false);
    expect(nearIdenticalScreens(null, hashWithBits(0))).toBe(false);
  });

  it("lets the player's same-screen marker use perceptual hashes when it has them", () => {
    const m = detectLoops([
      { action: click("1"), url: null, screenshotHash: "a", screenshotDhash: hashWithBits(0) },
      { action: click("2"), url: null, screenshotHash: "b", screenshotDhash: hashWithBits(3) },
      { action: click("3"), url: null, screenshotHash: "c" },
    ]);
    expect(m.map((x) => x.sameScreen)).toEqual([false, true, false]);
  });
});

describe("sameAction", () => {
  it("says what comparing action keys says", () => {
    const actions: ParsedAction[] = [
      click("1"),
      click(" 1"),
      click("1", [10, 10]),
      click("1", [10, 11]),
      type("1", "a"),
      type("1", "a "),
      scroll,
      { type: "scroll", direction: "up" },
      { type: "click", target: "1", calls: [click("1"), click("2")] },
      { type: "click", target: "1", calls: [click("1"), click("3")] },
    ];
    for (const a of actions) for (const b of actions) expect(sameAction(a, b)).toBe(actionKey(a) === actionKey(b));
  });
});

describe("heuristic: loop", () => {
  it("fires on the third identical click in a row, not the second", () => {
    expect(evaluateLoop(traj([step(0, click("4")), step(1, click("4")), step(2, click("5"))])).verdict).toBe("success");
    const v = evaluateLoop(traj([step(0, click("1")), step(1, click("4")), step(2, click("4")), step(3, click("4")), step(4, click("2"))]));
    expect(v).toMatchObject({ verdict: "failure", step: 3, facts: { signal: "repeated-action" } });
    expect(v.reason).toMatch(/step 4: the same click action 3 times in a row/);
  });

  it("lets an agent scroll through a long page before calling it stuck", () => {
    const four = [0, 1, 2, 3].map((i) => step(i, scroll));
    expect(evaluateLoop(traj(four)).verdict).toBe("success");
    expect(evaluateLoop(traj([...four, step(4, scroll)]))).toMatchObject({ verdict: "failure", step: 4 });
  });

  it("fires when the same navigation is made twice (A → B → A → B), not on a return to a results page", () => {
    const u = (p: string) => `https://shop.example/${p}`;
    const browsing = ["search", "item/1", "search", "item/2", "search#top", "item/3"].map((p, i) => step(i, click(String(i)), { url: u(p) }));
    expect(evaluateLoop(traj(browsing)).verdict).toBe("success");
    const cycle = ["a", "b", "a", "b"].map((p, i) => step(i, click(String(i)), { url: u(p) }));
    expect(evaluateLoop(traj(cycle))).toMatchObject({ verdict: "failure", step: 3, facts: { signal: "url-cycle" } });
  });

  it("fires when two actions in a row leave the screen unchanged, counting near-identical hashes", () => {
    const same = (i: number, a: ParsedAction, bits: number) => step(i, a, { screenshotHash: `s${i}`, screenshotDhash: hashWithBits(bits) });
    const v = evaluateLoop(traj([same(0, click("1"), 0), same(1, click("2"), 2), same(2, click("3"), 4), same(3, click("4"), 200)]));
    expect(v).toMatchObject({ verdict: "failure", step: 2, facts: { signal: "same-screen" } });
    // One action without effect is not a loop.
    expect(evaluateLoop(traj([same(0, click("1"), 0), same(1, click("2"), 2), same(2, click("3"), 100)])).verdict).toBe("success");
    // Typing changes a field, which the hash barely sees: filling a form is progress.
    const form = [same(0, type("1", "Ada"), 0), same(1, type("2", "Lovelace"), 1), same(2, type("3", "ada@example.org"), 2), same(3, click("9"), 3)];
    expect(evaluateLoop(traj(form)).verdict).toBe("success");
  });

  it("reports the earliest signal when several fire", () => {
    const steps = [
      step(0, click("1"), { screenshotHash: "x" }),
      step(1, click("2"), { screenshotHash: "x" }),
      step(2, click("2"), { screenshotHash: "x" }),
      step(3, click("2")),
    ];
    const v = evaluateLoop(traj(steps));
    expect(v.step).toBe(2);
    expect(v.facts?.signals).toEqual([
      { signal: "same-screen", step: 2 },
      { signal: "repeated-action", step: 3 },
    ]);
  });
});

describe("heuristic: grounding", () => {
  it("fires on the first step whose target is not among its elements", () => {
    const v = evaluateGrounding(
      traj([step(0, click("1"), { elements: [el("1")] }), step(1, click("7"), { elements: [el("1"), el("2")] }), step(2, click("9"), { elements: [] })]),
    );
    expect(v).toMatchObject({ verdict: "failure", step: 1, facts: { flag: "missing-label", target: "7" } });
    expect(v.reason).toMatch(/step 2: Target \[7\] is not among the 2 elements/);
  });

  it("fires when the click point is outside its target's box", () => {
    const inside = step(0, click("1", [50, 20]), { elements: [el("1", null, [0, 0, 100, 40])] });
    const outside = step(1, click("1", [300, 300]), { elements: [el("1", null, [0, 0, 100, 40])] });
    expect(evaluateGrounding(traj([inside])).verdict).toBe("success");
    expect(evaluateGrounding(traj([inside, outside]))).toMatchObject({ verdict: "failure", step: 1, facts: { flag: "point-outside-target" } });
  });

  it("is not evaluable without element lists, and does not flag actions without a target", () => {
    expect(evaluateGrounding(traj([step(0, click("3")), step(1, scroll)])).verdict).toBe("not_evaluable");
    expect(evaluateGrounding(traj([step(0, scroll, { elements: [el("1")] }), step(1, answer("x"), { elements: [] })])).verdict).toBe("success");
  });

  it("agrees with the flag the player draws", () => {
    const natural = { width: 1280, height: 800 };
    const cases: { elements: SomElement[] | null; action: ParsedAction }[] = [
      { elements: [el("1")], action: click("1", [10, 10]) },
      { elements: [el("1")], action: click("1", [500, 10]) },
      { elements: [el("1")], action: click("2") },
      { elements: [el("1", null, null)], action: click("1", [500, 10]) },
      { elements: [el("1", null, [2000, 2000, 10, 10])], action: click("1") },
      { elements: null, action: click("1") },
      { elements: [el(" 1 ")], action: click("1 ", [5, 5]) },
    ];
    for (const c of cases) {
      expect(stepGrounding({ natural, ...c })).toEqual(layoutOverlay({ natural, display: { width: 640, height: 400 }, ...c }).grounding);
    }
  });
});

describe("heuristic: answer grounded", () => {
  const shop = (answerText: string, elementTexts: string[], url = "https://shop.example/kettles?colour=blue") =>
    traj([step(0, click("1"), { url, elements: elementTexts.map((t, i) => el(String(i), t)) }), step(1, answer(answerText), { url, elements: [] })], {
      finalAnswer: answerText,
    });

  it("takes numbers and content words beyond the intent as key tokens", () => {
    expect(answerKeyTokens("The blue kettle costs $1,299.00 at Argos", "Find the price of the blue kettle")).toEqual({
      words: ["costs", "argos"],
      numbers: ["1299"],
    });
    expect(normaliseNumber("1,299.00")).toBe("1299");
    expect(normaliseNumber("12,000")).toBe("12000");
  });

  it("passes when a key token is on a page (numbers compare as numbers)", () => {
    expect(evaluateAnswerGrounded(shop("It costs 1299", ["Blue kettle £1,299.00", "Add to cart"]))).toMatchObject({
      verdict: "success",
      facts: { matchedToken: "1299", matchedStep: 0 },
    });
    expect(evaluateAnswerGrounded(shop("Sold by Argos", ["Seller: ARGOS Ltd"])).verdict).toBe("success");
  });

  it("fires on the answering step when no key token was ever seen", () => {
    const v = evaluateAnswerGrounded(shop("It costs $45 at Walmart", ["Blue kettle £29.99", "Add to cart"]));
    expect(v).toMatchObject({ verdict: "failure", step: 1, facts: { keyTokens: ["costs", "walmart", "45"] } });
    expect(v.reason).toMatch(/"walmart"/);
  });

  it("finds tokens in URLs, and whole words only", () => {
    expect(evaluateAnswerGrounded(shop("Walmart", ["Kettles"], "https://www.google.com/search?q=walmart+kettle")).verdict).toBe("success");
    expect(evaluateAnswerGrounded(shop("Art", ["Walmart"])).verdict).toBe("failure");
    expect(evaluateAnswerGrounded(shop("45", ["Price 145"])).verdict).toBe("failure");
    expect(evaluateAnswerGrounded(shop("45", ["Rated 45.5"])).verdict).toBe("failure");
    expect(evaluateAnswerGrounded(shop("45", ["Sizes 10, 45"])).verdict).toBe("success");
    expect(evaluateAnswerGrounded(shop("245", ["Total 1,245"])).verdict).toBe("failure");
    expect(evaluateAnswerGrounded(shop("12,000 reviews", ["12000.0 ratings"])).verdict).toBe("success");
  });

  it("passes answers with nothing to check and cannot judge without an answer or page text", () => {
    expect(evaluateAnswerGrounded(shop("Yes, the blue kettle.", ["x"])).verdict).toBe("success");
    expect(evaluateAnswerGrounded(shop("", ["x"])).verdict).toBe("not_evaluable");
    expect(evaluateAnswerGrounded(traj([step(0, answer("Walmart"))], { finalAnswer: "Walmart" })).verdict).toBe("not_evaluable");
    // A URL alone is not page text.
    expect(evaluateAnswerGrounded(shop("Walmart", [], "https://shop.example/kettles")).verdict).toBe("not_evaluable");
  });
});

describe("heuristic: no answer / step limit", () => {
  const two = [step(0, click("1")), step(1, click("2"))];
  it("fires on the last step at the step limit or without an answer", () => {
    expect(evaluateNoAnswer(traj(two, { outcome: "step_limit", finalAnswer: null }))).toMatchObject({
      verdict: "failure",
      step: 1,
      reason: "Stopped by the step limit at step 2.",
    });
    expect(evaluateNoAnswer(traj(two, { outcome: "error", finalAnswer: "  " }))).toMatchObject({
      verdict: "failure",
      step: 1,
      facts: { outcome: "error", answered: false },
    });
    expect(evaluateNoAnswer(traj([], { outcome: "unknown", finalAnswer: null }))).toMatchObject({ verdict: "failure", step: null });
  });

  it("passes an answered trajectory and waits for running ones", () => {
    expect(evaluateNoAnswer(traj(two, { finalAnswer: "42" })).verdict).toBe("success");
    expect(evaluateNoAnswer(traj(two, { outcome: "running", finalAnswer: null })).verdict).toBe("not_evaluable");
  });
});

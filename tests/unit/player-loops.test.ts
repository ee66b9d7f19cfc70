import { describe, expect, it } from "vitest";
import { actionKey, detectLoops, isLoopish, normaliseUrl, type LoopStepInput } from "../../server/domain/player/loops";
import type { ParsedAction } from "../../server/domain/types";

const step = (action: ParsedAction, url: string | null = null, screenshotHash: string | null = null): LoopStepInput => ({
  action,
  url,
  screenshotHash,
});
const click = (target: string): ParsedAction => ({ type: "click", target });

describe("normaliseUrl", () => {
  it.each([
    ["https://Example.com/a/#top", "https://example.com/a"],
    ["https://example.com/a/", "https://example.com/a"],
    ["https://example.com/", "https://example.com"],
    ["https://example.com", "https://example.com"],
    ["https://example.com/s?q=1", "https://example.com/s?q=1"],
    ["  not a url ", "not a url"],
  ])("%s → %s", (input, want) => {
    expect(normaliseUrl(input)).toBe(want);
  });
});

describe("actionKey", () => {
  it("ignores surrounding whitespace but not case of typed text", () => {
    expect(actionKey({ type: "type", target: " 3", value: "abc " })).toBe(actionKey({ type: "type", target: "3", value: "abc" }));
    expect(actionKey({ type: "type", target: "3", value: "ABC" })).not.toBe(actionKey({ type: "type", target: "3", value: "abc" }));
  });
});

describe("detectLoops", () => {
  it("marks the second and later repeats of the same action", () => {
    const m = detectLoops([step(click("1")), step(click("2")), step(click("2")), step(click("2")), step(click("3"))]);
    expect(m.map((x) => x.repeatedAction)).toEqual([false, false, true, true, false]);
    expect(m.map((x) => x.repeatRun)).toEqual([1, 1, 2, 3, 1]);
  });

  it("tolerates two scrolls in a row but flags the third", () => {
    const down: ParsedAction = { type: "scroll", direction: "down" };
    const m = detectLoops([step(down), step(down), step(down)]);
    expect(m.map((x) => x.repeatedAction)).toEqual([false, false, true]);
  });

  it("does not treat unparsed actions as repeats of each other", () => {
    const bad: ParsedAction = { type: "unparsed", value: "???" };
    expect(detectLoops([step(bad), step(bad)]).map((x) => x.repeatedAction)).toEqual([false, false]);
  });

  it("flags a URL the agent left and came back to, not one it stayed on", () => {
    const m = detectLoops([
      step(click("1"), "https://a.com/"),
      step(click("2"), "https://a.com"),
      step(click("3"), "https://a.com/b"),
      step(click("4"), "https://a.com/#x"),
      step(click("5"), null),
      step(click("6"), "https://a.com/b"),
    ]);
    expect(m.map((x) => x.revisitedUrl)).toEqual([false, false, false, true, false, true]);
    expect(m[3]!.firstSeenAt).toBe(0);
    expect(m[5]!.firstSeenAt).toBe(2);
  });

  it("a step without URL does not count as leaving the page", () => {
    const m = detectLoops([step(click("1"), "https://a.com/x"), step(click("2"), null), step(click("3"), "https://a.com/x")]);
    expect(m.map((x) => x.revisitedUrl)).toEqual([false, false, false]);
  });

  it("flags identical consecutive screenshots", () => {
    const m = detectLoops([step(click("1"), null, "h1"), step(click("2"), null, "h1"), step(click("3"), null, null), step(click("4"), null, null)]);
    expect(m.map((x) => x.sameScreen)).toEqual([false, true, false, false]);
    expect(m.map(isLoopish)).toEqual([false, true, false, false]);
  });

  it("returns one entry per step, and none for an empty trajectory", () => {
    expect(detectLoops([])).toEqual([]);
    expect(detectLoops([step(click("1"))])).toHaveLength(1);
  });
});

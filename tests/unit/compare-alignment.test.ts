import { describe, expect, it } from "vitest";
import { align, alignBySteps, alignByUrl, firstDivergence, rowForStep, urlKey, type StepSignature } from "@/app/compare/_lib/alignment";
import { attemptsToCompare, compareHref, differentTasksProblem, parseCompareIds } from "@/app/compare/_lib/compare-ids";
import { compareCommandForKey } from "@/app/compare/_lib/keyboard";

/** Steps from URLs (one letter per page) and, optionally, actions. */
function steps(pages: string, actions?: string[]): StepSignature[] {
  return [...pages].map((p, i) => ({ url: p === "-" ? null : `https://shop.test/${p}`, action: actions?.[i] ?? `click ${p}` }));
}

describe("urlKey", () => {
  it("ignores the fragment, a trailing slash and the host's case, keeps the query", () => {
    expect(urlKey("https://Shop.TEST/item/3/#reviews")).toBe("https://shop.test/item/3");
    expect(urlKey("https://shop.test/")).toBe(urlKey("https://shop.test"));
    expect(urlKey("https://shop.test/search?q=dock")).not.toBe(urlKey("https://shop.test/search?q=cable"));
    expect(urlKey("  about:blank ")).toBe("about:blank");
    expect(urlKey(null)).toBeNull();
    expect(urlKey("   ")).toBeNull();
  });
});

describe("alignment by step", () => {
  it("pairs step i with step i and leaves gaps after a trajectory ends", () => {
    expect(alignBySteps([3, 1])).toEqual([
      [0, 0],
      [1, null],
      [2, null],
    ]);
  });

  it("marks the first step where URL or action differ", () => {
    const a = steps("abc");
    const b = steps("abd");
    expect(align("step", [a, b]).divergence).toBe(2);
    const sameUrlOtherAction = steps("abc", ["click a", "type dock", "click c"]);
    expect(align("step", [a, sameUrlOtherAction]).divergence).toBe(1);
    expect(align("step", [a, steps("abc")]).divergence).toBeNull();
    // One attempt stops earlier: they part where it has no step.
    expect(align("step", [a, steps("ab")]).divergence).toBe(2);
  });
});

describe("alignment by URL", () => {
  it("lines up the pages both visited, with gaps facing a detour", () => {
    // B went to page x before reaching c.
    const { rows } = alignByUrl([steps("abc"), steps("abxc")]);
    expect(rows).toEqual([
      [0, 0],
      [1, 1],
      [null, 2],
      [2, 3],
    ]);
  });

  it("pairs the steps of a matched visit in order and gives the longer visit's extra steps gaps", () => {
    // A spends three steps on b (scrolling), B one.
    const { rows } = alignByUrl([steps("abbbc"), steps("abc")]);
    expect(rows).toEqual([
      [0, 0],
      [1, 1],
      [2, null],
      [3, null],
      [4, 2],
    ]);
  });

  it("keeps a step with no recorded URL on the page before it", () => {
    const { rows } = alignByUrl([steps("a-b"), steps("ab")]);
    expect(rows).toEqual([
      [0, 0],
      [1, null],
      [2, 1],
    ]);
  });

  it("aligns three and four trajectories against each other, every step appearing once in order", () => {
    const inputs = [steps("abcd"), steps("axcd"), steps("abyd"), steps("zd")];
    const { rows } = alignByUrl(inputs);
    inputs.forEach((s, t) => {
      const shown = rows.map((r) => r[t]).filter((p): p is number => p !== null);
      expect(shown).toEqual(s.map((_, i) => i));
    });
    // Every trajectory ends on d: the last row has all four.
    expect(rows[rows.length - 1]).toEqual([3, 3, 3, 1]);
    // b is shared by the first and third only.
    const bRow = rows.find((r) => r[0] === 1)!;
    expect(bRow).toEqual([1, null, 1, null]);
  });

  it("reports the first gap as the divergence", () => {
    const a = steps("abc");
    const b = steps("abxc");
    const result = align("url", [a, b]);
    expect(result.divergence).toBe(2);
    expect(result.rows[2]).toEqual([null, 2]);
  });

  it("with nothing in common, every visit stands alone and they diverge at once", () => {
    const result = align("url", [steps("ab"), steps("xy")]);
    expect(result.rows).toHaveLength(4);
    expect(result.divergence).toBe(0);
  });
});

describe("firstDivergence", () => {
  it("is null for identical trajectories", () => {
    const a = steps("abc");
    expect(firstDivergence(alignBySteps([3, 3]), [a, steps("abc")])).toBeNull();
  });
});

describe("rowForStep", () => {
  it("finds the row showing a trajectory's step, or the nearest earlier one", () => {
    const rows = [
      [0, 0],
      [1, 1],
      [null, 2],
      [2, 3],
    ];
    expect(rowForStep(rows, 1, 2)).toBe(2);
    expect(rowForStep(rows, 0, 2)).toBe(3);
    expect(rowForStep(rows, 0, 9)).toBe(3);
  });
});

describe("compare ids", () => {
  it("accepts two to four ids, dropping repeats", () => {
    expect(parseCompareIds("3,5")).toEqual({ ok: true, ids: [3, 5] });
    expect(parseCompareIds(" 3, 5 ,3,8,9 ")).toEqual({ ok: true, ids: [3, 5, 8, 9] });
  });

  it("says what is wrong with one, five or a non-id", () => {
    const one = parseCompareIds("7");
    expect(one.ok).toBe(false);
    expect(!one.ok && one.problem).toMatch(/Only one trajectory given \(#7\)/);
    const five = parseCompareIds("1,2,3,4,5");
    expect(!five.ok && five.problem).toMatch(/5 trajectories given .*at most 4/);
    const bad = parseCompareIds("1,x2");
    expect(!bad.ok && bad.problem).toMatch(/"x2" is not a trajectory id/);
    const none = parseCompareIds(undefined);
    expect(!none.ok && none.problem).toMatch(/Choose 2 to 4/);
  });

  it("names which trajectory is of which task", () => {
    expect(
      differentTasksProblem([
        { id: 1, taskId: 10, taskName: "shop--1" },
        { id: 2, taskId: 10, taskName: "shop--1" },
        { id: 3, taskId: 11, taskName: "shop--2" },
      ]),
    ).toBe("These trajectories are of different tasks: #1, #2 are task shop--1; #3 is task shop--2. Side by side compares attempts at one task.");
    expect(
      differentTasksProblem([
        { id: 1, taskId: 10, taskName: "t" },
        { id: 2, taskId: 10, taskName: "t" },
      ]),
    ).toBeNull();
  });

  it("puts the starting trajectory first among its task's attempts", () => {
    expect(attemptsToCompare([1, 2, 3, 4, 5, 6], 5)).toEqual([5, 1, 2, 3]);
    expect(attemptsToCompare([1, 2])).toEqual([1, 2]);
    expect(compareHref([5, 1])).toBe("/compare?ids=5,1");
  });
});

describe("compare keys", () => {
  it("maps stepping and alignment keys, and leaves typing and browser shortcuts alone", () => {
    expect(compareCommandForKey({ key: "ArrowRight" }, null)).toBe("next");
    expect(compareCommandForKey({ key: "k" }, null)).toBe("prev");
    expect(compareCommandForKey({ key: "s" }, null)).toBe("byStep");
    expect(compareCommandForKey({ key: "u" }, null)).toBe("byUrl");
    expect(compareCommandForKey({ key: "?", shiftKey: true }, null)).toBe("toggleHelp");
    expect(compareCommandForKey({ key: "u" }, { tagName: "INPUT", type: "text" })).toBeNull();
    expect(compareCommandForKey({ key: "s", ctrlKey: true }, null)).toBeNull();
    expect(compareCommandForKey({ key: "S", shiftKey: true }, null)).toBeNull();
  });
});

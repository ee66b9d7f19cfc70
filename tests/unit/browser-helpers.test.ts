/**
 * The browser module's pure helpers: element references in scripts, key names, target resolution and the
 * element list format policies read.
 */
import { describe, expect, it } from "vitest";
import { normaliseKeyCombination, resolveTarget } from "../../server/browser/actions";
import { createScriptedPolicy, findElementLabel, resolveElementReferences, ScriptError } from "../../server/browser/scripted-policy";
import { formatElementList } from "../../server/browser/som";
import type { PolicyObservation } from "../../server/browser/policy";
import { parseWebVoyagerElementList } from "../../server/domain/actions/webvoyager";
import type { SomElement } from "../../server/domain/types";

const elements: SomElement[] = [
  { label: "0", bbox: [0, 0, 100, 20], tag: "a", text: "Vegetarian" },
  { label: "1", bbox: [0, 30, 300, 40], tag: "input", text: "Search recipes, e.g. lentil" },
  { label: "2", bbox: [310, 30, 80, 40], tag: "button", text: "Search" },
  { label: "3", bbox: [0, 80, 100, 20], tag: "a", text: "Vegetarian" },
  { label: "4", bbox: [0, 110, 200, 20], tag: "a", text: "VEGETARIAN Shakshuka ★★★★★ 4.8" },
  { label: "5", bbox: [0, 140, 200, 20], tag: "a", text: "Price: low to high" },
  { label: "6", bbox: null, tag: "div", text: "no box" },
];

describe("findElementLabel", () => {
  it.each([
    ["exact text wins over partial", "Search", undefined, "2"],
    ["partial text, case-insensitive", "shakshuka", undefined, "4"],
    ["tag filter", "search", "input", "1"],
    ["first of several exact matches", "Vegetarian", undefined, "0"],
    ["n-th match with #n", "Vegetarian#2", undefined, "3"],
    ["n-th match beyond the matches", "Vegetarian#3", undefined, null],
    ["text with a colon", "Price: low to high", undefined, "5"],
    ["no match", "Checkout", undefined, null],
    ["tag filter excludes", "Search", "a", null],
  ])("%s", (_name, text, tag, expected) => {
    expect(findElementLabel(elements, text, tag)).toBe(expected);
  });
});

describe("resolveElementReferences", () => {
  const obs = { elements, url: "http://demo/recipes/", stepIndex: 3 };
  it.each([
    ["Click [{{Search}}]", "Click [2]"],
    ["Type [{{input:lentil}}]; red lentil soup", "Type [1]; red lentil soup"],
    ["Click [{{ Price: low to high }}]", "Click [5]"],
    ["Click [{{a:Vegetarian#2}}]", "Click [3]"],
    ["Click [42]", "Click [42]"],
    ["ANSWER; {{Search}} and {{Vegetarian}}", "ANSWER; 2 and 0"],
  ])("%s → %s", (input, output) => {
    expect(resolveElementReferences(input, obs)).toBe(output);
  });

  it("names the step, the reference and the page when nothing matches", () => {
    expect(() => resolveElementReferences("Click [{{button:Checkout}}]", obs)).toThrow(
      new ScriptError('script step 3: no <button> element matching "Checkout" on http://demo/recipes/'),
    );
  });
});

describe("createScriptedPolicy", () => {
  const obs = (stepIndex: number) => ({ elements, url: "http://demo/", stepIndex }) as unknown as PolicyObservation;
  it("replays entries in order, with thoughts and computed actions, then refuses to invent more", async () => {
    const policy = createScriptedPolicy(
      ["Click [{{Search}}]", { thought: "Now answer.", action: (o) => `ANSWER; ${o.elements.length} elements` }],
      "scripted:test",
    );
    expect(policy.name).toBe("scripted:test");
    expect(await policy.nextAction(obs(0))).toEqual({ thought: null, actionRaw: "Click [2]" });
    expect(await policy.nextAction(obs(1))).toEqual({ thought: "Now answer.", actionRaw: "ANSWER; 7 elements" });
    await expect(policy.nextAction(obs(2))).rejects.toThrow("the script has 2 actions and none left for step 2");
  });
});

describe("normaliseKeyCombination", () => {
  it.each([
    ["Enter", "Enter"],
    ["enter", "Enter"],
    ["ctrl+a", "Control+a"],
    ["Control+A", "Control+a"],
    ["cmd+shift+T", "Meta+Shift+t"],
    ["esc", "Escape"],
    ["f5", "F5"],
    ["PageDown", "PageDown"],
    [" alt + left ", "Alt+ArrowLeft"],
    ["", ""],
  ])("%j → %j", (input, output) => {
    expect(normaliseKeyCombination(input)).toBe(output);
  });
});

describe("resolveTarget", () => {
  it.each([
    [{ type: "click" as const, target: "2" }, elements[2]],
    [{ type: "click" as const, target: " 4 " }, elements[4]],
    [{ type: "click" as const, target: "9" }, "element [9] is not on the page: the marks on this screenshot are 0–6"],
    [{ type: "click" as const, target: null }, "click needs an element number"],
    [{ type: "hover" as const, target: "6" }, "element [6] has no position on the screenshot"],
  ])("%j", (action, expected) => {
    expect(resolveTarget(action, elements)).toEqual(expected);
  });

  it("says so when the page has no marks at all", () => {
    expect(resolveTarget({ type: "click", target: "0" }, [])).toBe("element [0] is not on the page: this page has no marked elements");
  });
});

describe("formatElementList", () => {
  it("writes WebVoyager's observation format, which its parser reads back", () => {
    const list = formatElementList(elements.slice(0, 3));
    expect(list).toBe('[0]: <a> "Vegetarian";\t[1]: <input> "Search recipes, e.g. lentil";\t[2]: <button> "Search";');
    expect(parseWebVoyagerElementList(list).map((e) => [e.label, e.tag, e.text])).toEqual([
      ["0", "a", "Vegetarian"],
      ["1", "input", "Search recipes, e.g. lentil"],
      ["2", "button", "Search"],
    ]);
  });

  it("keeps quotes in element text from breaking the format", () => {
    const list = formatElementList([{ label: "0", bbox: null, tag: "a", text: 'The "best" soup' }]);
    expect(parseWebVoyagerElementList(list)[0]!.text).toBe("The 'best' soup");
  });
});

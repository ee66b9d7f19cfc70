import { describe, expect, it } from "vitest";
import { parseLiveAction, parsePolicyReply } from "../../server/domain/live/action-text";
import type { ParsedAction } from "../../server/domain/types";

describe("parseLiveAction: both seed grammars and the runner's extensions", () => {
  const cases: [string, Partial<ParsedAction>][] = [
    // VisualWebArena style
    ["click [12]", { type: "click", target: "12" }],
    ["hover [3]", { type: "hover", target: "3" }],
    ["type [5] [red lentil soup]", { type: "type", target: "5", value: "red lentil soup", submit: true }],
    ["type [5] [red lentil soup] [0]", { type: "type", target: "5", value: "red lentil soup", submit: false }],
    ["press [Control+a]", { type: "press", value: "Control+a" }],
    ["scroll [down]", { type: "scroll", direction: "down" }],
    ["goto [http://127.0.0.1:4517/shop/]", { type: "goto", value: "http://127.0.0.1:4517/shop/" }],
    ["new_tab", { type: "new_tab" }],
    ["tab_focus [1]", { type: "tab_focus", value: "1" }],
    ["close_tab", { type: "close_tab" }],
    ["go_back", { type: "go_back" }],
    ["go_forward", { type: "go_forward" }],
    ["stop [45 minutes]", { type: "answer", value: "45 minutes" }],
    // WebVoyager style
    ["Click [7]", { type: "click", target: "7" }],
    ["Type [5]; shakshuka", { type: "type", target: "5", value: "shakshuka", submit: true }],
    ["Scroll [WINDOW]; down", { type: "scroll", target: null, direction: "down" }],
    ["Scroll [9]; up", { type: "scroll", target: "9", direction: "up" }],
    ["Wait", { type: "wait" }],
    ["GoBack", { type: "go_back" }],
    ["ANSWER; $179.00", { type: "answer", value: "$179.00" }],
    // WebVoyager keywords in lower case, as models write them
    ["wait", { type: "wait" }],
    ["goback", { type: "go_back" }],
    ["answer; 1984", { type: "answer", value: "1984" }],
    // extensions
    ["select [4] [Price: low to high]", { type: "select", target: "4", value: "Price: low to high" }],
    ["scroll [8] [down]", { type: "scroll", target: "8", direction: "down" }],
    // wrapped in backticks
    ["`click [2]`", { type: "click", target: "2" }],
    ["```stop [N/A]```", { type: "answer", value: "N/A" }],
  ];
  it.each(cases)("%s", (text, expected) => {
    expect(parseLiveAction(text)).toMatchObject(expected);
  });

  const bad: [string, RegExp][] = [
    ["", /empty/],
    ["click on the blue button", /click/],
    ["type [5]", /type/],
    ["fly [3]", /not an action of this runner/],
  ];
  it.each(bad)("%j is unparsed with a reason", (text, reason) => {
    const a = parseLiveAction(text);
    expect(a.type).toBe("unparsed");
    expect(a.parseError).toMatch(reason);
  });
});

describe("parsePolicyReply", () => {
  it("splits reasoning and action on the last Action: line", () => {
    const r = parsePolicyReply("Reasoning: the search box is [5].\nAction: type [5] [shakshuka]");
    expect(r).toEqual({
      thought: "the search box is [5].",
      actionRaw: "type [5] [shakshuka]",
      action: { type: "type", target: "5", value: "shakshuka", submit: true },
    });
  });

  it("accepts WebVoyager's Thought:/Action: and markdown bold labels, and drops commentary after a blank line", () => {
    expect(parsePolicyReply("Thought: done.\nAction: ANSWER; 8 eggs")).toMatchObject({ thought: "done.", action: { type: "answer", value: "8 eggs" } });
    expect(parsePolicyReply("**Reasoning:** x\n**Action:** click [1]\n\nI hope this helps")).toMatchObject({ thought: "x", actionRaw: "click [1]" });
  });

  it("reads VisualWebArena's fenced action", () => {
    const r = parsePolicyReply("Let's think step-by-step. The cart is [9]. In summary, the next action I will perform is ```click [9]```");
    expect(r.action).toEqual({ type: "click", target: "9" });
    expect(r.thought).toMatch(/^Let's think/);
  });

  it("takes a bare one-line reply as the action", () => {
    expect(parsePolicyReply("click [4]")).toMatchObject({ thought: null, action: { type: "click", target: "4" } });
  });

  it("reports replies without an action", () => {
    expect(parsePolicyReply("I am not sure what to do here.\nMaybe look around.").action).toMatchObject({ type: "unparsed", parseError: /no "Action:" line/ });
    expect(parsePolicyReply("  ").action).toMatchObject({ type: "unparsed", parseError: /empty/ });
    expect(parsePolicyReply(null).action.type).toBe("unparsed");
  });
});

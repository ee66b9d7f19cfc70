import { describe, expect, it } from "vitest";
import { extractVwaAction, parseVwaAction, parseVwaPrediction, splitVwaPrediction, vwaEarlyStop, withModelTypeSubmit } from "../../server/domain/actions/vwa";
import type { ParsedAction } from "../../server/domain/types";

describe("parseVwaAction: the model's id-based actions", () => {
  const cases: [string, ParsedAction][] = [
    ["click [12]", { type: "click", target: "12" }],
    ["click[12]", { type: "click", target: "12" }],
    ["  CLICK [3]  ", { type: "click", target: "3" }],
    ["hover [7]", { type: "hover", target: "7" }],
    ["clear [4]", { type: "clear", target: "4" }],
    ["type [5] [guitar]", { type: "type", target: "5", value: "guitar", submit: true }],
    ["type [5] [guitar] [1]", { type: "type", target: "5", value: "guitar", submit: true }],
    ["type [5] [guitar] [0]", { type: "type", target: "5", value: "guitar", submit: false }],
    ["type [5] [guitar] [press_enter_after=0]", { type: "type", target: "5", value: "guitar", submit: false }],
    ["type [5] [guitar] [press_enter_after=1]", { type: "type", target: "5", value: "guitar", submit: true }],
    ["type [5] [red [large] shirt] [0]", { type: "type", target: "5", value: "red [large] shirt", submit: false }],
    ["press [Control+a]", { type: "press", value: "Control+a" }],
    ["press [Enter]", { type: "press", value: "Enter" }],
    ["scroll [down]", { type: "scroll", direction: "down" }],
    ["scroll [up]", { type: "scroll", direction: "up" }],
    ["scroll down", { type: "scroll", direction: "down" }],
    ["new_tab", { type: "new_tab" }],
    ["close_tab", { type: "close_tab" }],
    ["go_back", { type: "go_back" }],
    ["go_forward", { type: "go_forward" }],
    ["tab_focus [1]", { type: "tab_focus", value: "1" }],
    ["goto [http://localhost:9980/index.php?page=search&sCategory=5]", { type: "goto", value: "http://localhost:9980/index.php?page=search&sCategory=5" }],
    ["stop [$279.49]", { type: "answer", value: "$279.49" }],
    ["stop [N/A]", { type: "answer", value: "N/A" }],
    ["stop []", { type: "answer", value: "" }],
    ["stop", { type: "answer", value: "" }],
    ["stop [Early stop: Same action for 5 times]", { type: "answer", value: "Early stop: Same action for 5 times" }],
    ["upload [3] [/tmp/cat.png]", { type: "upload", target: "3", value: "/tmp/cat.png" }],
    ["none", { type: "noop" }],
  ];
  it.each(cases)("%j", (input, expected) => {
    expect(parseVwaAction(input)).toEqual(expected);
  });
});

describe("parseVwaAction: rendered parsed_action strings", () => {
  const cases: [string, ParsedAction][] = [
    ["click [11] where [11]", { type: "click", target: "11" }],
    ["hover [3] where [3]", { type: "hover", target: "3" }],
    ["type [5] [guitar\n] where [5]", { type: "type", target: "5", value: "guitar", submit: true }],
    ["type [5] [guitar] where [5]", { type: "type", target: "5", value: "guitar", submit: false }],
    ["type [5] [guitar\\n] where [5]", { type: "type", target: "5", value: "guitar", submit: true }],
    ["type [5] [see where [5] is] where [5]", { type: "type", target: "5", value: "see where [5] is", submit: false }],
    ["click [1234] where [1234] is [1234] link 'Home'", { type: "click", target: "1234" }],
    ["clear [8] where [8] is ", { type: "clear", target: "8" }],
    ["page_focus [0]", { type: "tab_focus", value: "0" }],
    ["upload [/tmp/x.png] to [3]", { type: "upload", target: "3", value: "/tmp/x.png" }],
    ["scroll [down]", { type: "scroll", direction: "down" }],
  ];
  it.each(cases)("%j", (input, expected) => {
    expect(parseVwaAction(input)).toEqual(expected);
  });
});

describe("parseVwaAction: malformed input", () => {
  const cases: [string, RegExp][] = [
    ["", /empty action/],
    ["click", /invalid click action/],
    ["click [abc]", /invalid click action/],
    ["click [11] where [12]", /invalid click action/],
    ["type [5]", /invalid type action/],
    ["type [x] [hello]", /invalid type action/],
    ["scroll [sideways]", /invalid scroll action/],
    ["press []", /invalid press action/],
    ["goto", /invalid goto action/],
    ["tab_focus [first]", /invalid tab_focus action/],
    ["go_back [1]", /go_back takes no argument/],
    ["stop now", /invalid stop action/],
    ["jump [3]", /unknown action "jump"/],
    ["I think I should click", /unknown action "i"/],
  ];
  it.each(cases)("%j", (input, error) => {
    const a = parseVwaAction(input);
    expect(a).toMatchObject({ type: "unparsed", value: input });
    expect(a.parseError).toMatch(error);
  });
});

describe("extracting the action from raw model output", () => {
  const output =
    "Let's think step-by-step. The search box is [5] and I must type the query.\n" +
    "In summary, the next action I will perform is ```type [5] [guitar] [1]```";
  it("takes the fenced action after the answer phrase and the reasoning before it", () => {
    expect(splitVwaPrediction(output)).toEqual({
      thought: "Let's think step-by-step. The search box is [5] and I must type the query.",
      action: "type [5] [guitar] [1]",
    });
    expect(parseVwaPrediction(output)).toEqual({ type: "type", target: "5", value: "guitar", submit: true });
  });
  it("prefers the fence after the phrase over an earlier one", () => {
    const s = "The page shows ```old``` text. In summary, the next action I will perform is ```click [2]```";
    expect(extractVwaAction(s)).toBe("click [2]");
  });
  it("falls back to the first fenced span without the phrase, across lines", () => {
    expect(extractVwaAction("Reasoning.\n```\nscroll [down]\n```")).toBe("scroll [down]");
  });
  it("honours another splitter", () => {
    expect(extractVwaAction("do ###stop [42]### now", "###")).toBe("stop [42]");
  });
  it("reports output without an action as unparsed", () => {
    const a = parseVwaPrediction("I am not sure what to do next.");
    expect(a).toMatchObject({ type: "unparsed", value: "I am not sure what to do next." });
    expect(a.parseError).toMatch(/no action between ``` splitters/);
    expect(splitVwaPrediction("I am not sure.")).toEqual({ thought: "I am not sure.", action: null });
  });
});

describe("vwaEarlyStop", () => {
  const cases: [string, ReturnType<typeof vwaEarlyStop>][] = [
    ["Early stop: Reach max steps 30", { outcome: "step_limit", detail: "Early stop: Reach max steps 30" }],
    ["Early stop: Same action for 5 times", { outcome: "error", detail: "Early stop: Same action for 5 times" }],
    ["Early stop: Failed to parse actions for 3 times", { outcome: "error", detail: "Early stop: Failed to parse actions for 3 times" }],
    ["ERROR: context length exceeded", { outcome: "error", detail: "ERROR: context length exceeded" }],
    ["$279.49", null],
    ["", null],
  ];
  it.each(cases)("%j", (answer, expected) => {
    expect(vwaEarlyStop(answer)).toEqual(expected);
  });
});

describe("withModelTypeSubmit: Enter rendered as a trailing space", () => {
  const rendered = parseVwaAction("type [20] [search term ] where [20] is Today");

  it("reads the space as Enter when the model's action asked for Enter on the same text", () => {
    expect(rendered).toEqual({ type: "type", target: "20", value: "search term ", submit: false });
    expect(withModelTypeSubmit(rendered, "type [20] [search term] [1]")).toEqual({ type: "type", target: "20", value: "search term", submit: true });
    // Without a flag VisualWebArena presses Enter too.
    expect(withModelTypeSubmit(rendered, "type [20] [search term]")).toEqual({ type: "type", target: "20", value: "search term", submit: true });
  });

  it("keeps the rendered action when the model did not ask for Enter, typed other text, or is unknown", () => {
    expect(withModelTypeSubmit(rendered, "type [20] [search term] [0]")).toBe(rendered);
    expect(withModelTypeSubmit(rendered, "type [21] [search term] [1]")).toBe(rendered);
    expect(withModelTypeSubmit(rendered, "type [20] [search] [1]")).toBe(rendered);
    expect(withModelTypeSubmit(rendered, null)).toBe(rendered);
    const click = parseVwaAction("click [3] where [3]");
    expect(withModelTypeSubmit(click, "type [3] [x] [1]")).toBe(click);
  });
});

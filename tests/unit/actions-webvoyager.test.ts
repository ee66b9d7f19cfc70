import { describe, expect, it } from "vitest";
import { formatWebVoyagerAction, parseWebVoyagerAction, parseWebVoyagerElementList, parseWebVoyagerReply } from "../../server/domain/actions/webvoyager";

describe("parseWebVoyagerAction", () => {
  const cases: [string, object][] = [
    ["Click [12]", { type: "click", target: "12" }],
    ["Click 7", { type: "click", target: "7" }],
    ["Type [5]; green Xbox controller", { type: "type", target: "5", value: "green Xbox controller", submit: true }],
    ["Type [5]; [bracketed query]", { type: "type", target: "5", value: "bracketed query" }],
    ["Type [5] text with ] inside", { type: "type", target: "5", value: "text with ] inside" }],
    ["Scroll [WINDOW]; down", { type: "scroll", target: null, direction: "down" }],
    ["Scroll WINDOW; up", { type: "scroll", target: null, direction: "up" }],
    ["Scroll [14]; down", { type: "scroll", target: "14", direction: "down" }],
    ["Wait", { type: "wait" }],
    ["GoBack", { type: "go_back" }],
    ["Google", { type: "search_engine" }],
    ["ANSWER; The final score is 6 out of 6.", { type: "answer", value: "The final score is 6 out of 6." }],
    ["ANSWER; [$279.49]", { type: "answer", value: "$279.49" }],
    ['ANSWER; Line ("-----") and [x] ok', { type: "answer", value: 'Line ("-----") and [x] ok' }],
    // Not starting with a keyword: WebVoyager's re.search order applies.
    ["I will Click [3] now", { type: "click", target: "3" }],
  ];
  it.each(cases)("%s", (text, expected) => {
    expect(parseWebVoyagerAction(text)).toMatchObject(expected);
  });

  const malformed: [string, string][] = [
    ["", "empty action"],
    ["Click [abc]", "malformed Click action"],
    ["Scroll [WINDOW]; sideways", "malformed Scroll action"],
    ["Type", "malformed Type action"],
    ["Press Enter", "not a WebVoyager action"],
  ];
  it.each(malformed)("malformed %j is kept as unparsed", (text, why) => {
    const a = parseWebVoyagerAction(text);
    expect(a.type).toBe("unparsed");
    expect(a.parseError).toBe(why);
    if (text) expect(a.value).toBe(text.trim());
  });

  it("round-trips through the canonical formatter", () => {
    for (const text of ["Click [12]", "Type [5]; hello", "Scroll [WINDOW]; down", "Wait", "GoBack", "Google", "ANSWER; 42"]) {
      expect(formatWebVoyagerAction(parseWebVoyagerAction(text))).toBe(text);
    }
  });
});

describe("parseWebVoyagerAction: action words in any case, as forks' prompts spell them", () => {
  const cases: [string, object][] = [
    ["Answer; Logitech G502, US$49.99", { type: "answer", value: "Logitech G502, US$49.99" }],
    ["answer: 42", { type: "answer", value: "42" }],
    ["click [12]", { type: "click", target: "12" }],
    ["CLICK 7", { type: "click", target: "7" }],
    ["type [5]; green controller", { type: "type", target: "5", value: "green controller", submit: true }],
    ["TYPE [5]: hello", { type: "type", target: "5", value: "hello" }],
    ["scroll [window]; Down", { type: "scroll", target: null, direction: "down" }],
    ["wait", { type: "wait" }],
    ["Go Back", { type: "go_back" }],
    ["go_back", { type: "go_back" }],
    ["google", { type: "search_engine" }],
    ["**Click [3]**", { type: "click", target: "3" }],
    ["`Answer; yes`", { type: "answer", value: "yes" }],
    ["I will click [3] next", { type: "click", target: "3" }],
  ];
  it.each(cases)("%s", (text, expected) => {
    expect(parseWebVoyagerAction(text)).toMatchObject(expected);
  });

  it("prose that mentions an answer is not an ANSWER action", () => {
    expect(parseWebVoyagerAction("the answer is 42").type).toBe("unparsed");
    expect(parseWebVoyagerAction("Clicking [3]").type).toBe("unparsed");
  });
});

describe("parseWebVoyagerReply", () => {
  it("reads the labels in any case and with markdown", () => {
    expect(parseWebVoyagerReply("thought: x\naction: Answer; 5")).toMatchObject({
      thought: "x",
      actionRaw: "Answer; 5",
      action: { type: "answer", value: "5" },
    });
    expect(parseWebVoyagerReply("THOUGHT: a\n**Action:** Type [1]; b")).toMatchObject({ thought: "a", actionRaw: "Type [1]; b" });
    // A lower-case "action:" inside the thought is not the label when a label line follows.
    expect(parseWebVoyagerReply("Thought: the next action: click is needed\nACTION: Wait")).toMatchObject({
      thought: "the next action: click is needed",
      actionRaw: "Wait",
    });
  });

  it("splits thought and action", () => {
    const r = parseWebVoyagerReply("Thought: the search box is [2].\n\nAction: Type [2]; salmon");
    expect(r.thought).toBe("the search box is [2].");
    expect(r.actionRaw).toBe("Type [2]; salmon");
    expect(r.action).toMatchObject({ type: "type", target: "2", value: "salmon" });
  });
  it("drops a trailing Observation section", () => {
    expect(parseWebVoyagerReply("Thought: x\nAction: Click [1]\nObservation: y").actionRaw).toBe("Click [1]");
  });
  it("a reply without Action is a format error", () => {
    const r = parseWebVoyagerReply("Thought: I am not sure what to do");
    expect(r.action.type).toBe("unparsed");
    expect(r.action.parseError).toBe("reply has no 'Action:'");
    expect(r.thought).toBe("I am not sure what to do");
  });
});

describe("parseWebVoyagerElementList", () => {
  it("reads tags, texts and aria labels", () => {
    const els = parseWebVoyagerElementList(`[0]: ".us", "Amazon";\t[1]: "Delivering to";\t[2]: <input> "Search Amazon";`);
    expect(els).toEqual([
      { label: "0", bbox: null, tag: null, text: ".us · Amazon" },
      { label: "1", bbox: null, tag: null, text: "Delivering to" },
      { label: "2", bbox: null, tag: "input", text: "Search Amazon" },
    ]);
  });
  it("returns nothing for text without a list", () => {
    expect(parseWebVoyagerElementList("Observation: A screenshot and some texts. (Omitted in context.)")).toEqual([]);
  });
  it("reads the attribute-style list some forks print", () => {
    const list = [
      `[0]: text="頂部" class="a-link-normal sub-nav-desktop-tab" id="" role="" data-attrs=""`,
      `[5]: <iframe> class="" id="ape_Detail_iframe" role="" data-attrs="data-arid="498f""`,
      `[9]: type=button aria-label="新增至購物車" class="a-button-text" id="a-autoid-2" role="" data-attrs=""`,
    ].join("\t");
    expect(parseWebVoyagerElementList(`Observation: please analyze the attached screenshot.\n${list}`)).toEqual([
      { label: "0", bbox: null, tag: null, text: "頂部" },
      { label: "5", bbox: null, tag: "iframe", text: null },
      { label: "9", bbox: null, tag: "button", text: "新增至購物車" },
    ]);
  });
});

import { describe, expect, it } from "vitest";
import {
  parseSeeActAction,
  parseSeeActHistory,
  parseSeeActPrediction,
  seeActGroundingElement,
  type SeeActHistoryEntry,
} from "../../server/domain/actions/seeact";
import type { ParsedAction } from "../../server/domain/types";

describe("parseSeeActHistory: research tool entries", () => {
  const cases: [string, SeeActHistoryEntry][] = [
    [
      "[textbox]  Search on Thumbtack -> TYPE: wedding photographer",
      {
        action: { type: "type", target: null, value: "wedding photographer", submit: false },
        element: { tagHead: "textbox", tag: "textbox", description: "Search on Thumbtack" },
        failure: null,
      },
    ],
    [
      '[button type="submit"] Search -> CLICK',
      { action: { type: "click", target: null }, element: { tagHead: 'button type="submit"', tag: "button", description: "Search" }, failure: null },
    ],
    [
      '[select role="combobox"] Sort by -> SELECT: Price: Low to High',
      {
        action: { type: "select", target: null, value: "Price: Low to High" },
        element: { tagHead: 'select role="combobox"', tag: "select", description: "Sort by" },
        failure: null,
      },
    ],
    ["[a] Menu -> HOVER", { action: { type: "hover", target: null }, element: { tagHead: "a", tag: "a", description: "Menu" }, failure: null }],
    [
      "[input] Email -> PRESS ENTER",
      { action: { type: "press", target: null, value: "Enter" }, element: { tagHead: "input", tag: "input", description: "Email" }, failure: null },
    ],
    ["PRESS ENTER", { action: { type: "press", target: null, value: "Enter" }, element: null, failure: null }],
    ["TERMINATE", { action: { type: "answer", value: null }, element: null, failure: null }],
    ["No Operation", { action: { type: "noop" }, element: null, failure: null }],
    ["Human intervention", { action: { type: "noop", value: "Human intervention" }, element: null, failure: null }],
    [
      "Human intervention with a message: I logged in for you",
      { action: { type: "noop", value: "Human intervention: I logged in for you" }, element: null, failure: null },
    ],
    [
      "[button] Add to cart -> Failed to CLICK because Timeout 10000ms exceeded., did a HOVER instead",
      {
        action: { type: "hover", target: null },
        element: { tagHead: "button", tag: "button", description: "Add to cart" },
        failure: "Failed to CLICK because Timeout 10000ms exceeded.; did a HOVER instead",
      },
    ],
    [
      '[input] Size -> Failed to TYPE "XL" because not editable, did a SELECT XL instead',
      {
        action: { type: "select", target: null, value: "XL" },
        element: { tagHead: "input", tag: "input", description: "Size" },
        failure: 'Failed to TYPE "XL" because not editable; did a SELECT instead',
      },
    ],
    [
      '[div] Color -> Failed to SELECT "red" because no options',
      {
        action: { type: "select", target: null, value: "red" },
        element: { tagHead: "div", tag: "div", description: "Color" },
        failure: 'Failed to SELECT "red" because no options',
      },
    ],
    [
      "Failed to CLICK Sign in because element is not visible",
      {
        action: { type: "click", target: null },
        element: { tagHead: null, tag: null, description: "Sign in" },
        failure: "Failed to CLICK because element is not visible",
      },
    ],
    [
      "Failed to TYPE new york for Destination because detached",
      {
        action: { type: "type", target: null, value: "new york", submit: false },
        element: { tagHead: null, tag: null, description: "Destination" },
        failure: "Failed to TYPE because detached",
      },
    ],
  ];
  it.each(cases)("%j", (input, expected) => {
    expect(parseSeeActHistory(input)).toEqual(expected);
  });
});

describe("parseSeeActAction: pip package entries", () => {
  const cases: [string, ParsedAction][] = [
    ["SCROLL DOWN", { type: "scroll", direction: "down" }],
    ["SCROLL UP", { type: "scroll", direction: "up" }],
    ["PRESS PAGEDOWN", { type: "press", value: "PageDown" }],
    ["PRESS HOME", { type: "press", value: "Home" }],
    ["NEW TAB", { type: "new_tab" }],
    ["CLOSE TAB", { type: "close_tab" }],
    ["GO BACK", { type: "go_back" }],
    ["GO FORWARD", { type: "go_forward" }],
    ["GOTO: https://www.example.com/a?b=c", { type: "goto", value: "https://www.example.com/a?b=c" }],
    ["SAY: The cheapest flight is $120", { type: "answer", value: "The cheapest flight is $120" }],
    ["MEMORIZE: price 12", { type: "noop", value: "price 12" }],
    ["NONE", { type: "noop" }],
    ['[a role="link"] Flights -> CLICK', { type: "click", target: null }],
    ["Search button at top -> CLICK", { type: "click", target: null }],
    ["Failed to perform CLICK on Search with value 'None': Timeout", { type: "click", target: null }],
    ["Changed task from a to: b", { type: "noop", value: "Task changed to: b" }],
  ];
  it.each(cases)("%j", (input, expected) => {
    expect(parseSeeActAction(input)).toEqual(expected);
  });
  it("keeps pip failures", () => {
    expect(parseSeeActHistory("Failed to perform TYPE on Query with value 'shoes': not editable")).toEqual({
      action: { type: "type", target: null, value: "shoes", submit: false },
      element: { tagHead: null, tag: null, description: "Query" },
      failure: "Failed to perform TYPE: not editable",
    });
  });
});

describe("parseSeeActHistory: operations in any case", () => {
  const cases: [string, object][] = [
    ["[button] Search -> Click", { type: "click" }],
    ["[textbox]  Query -> type: wedding photographer", { type: "type", value: "wedding photographer" }],
    ["press enter", { type: "press", value: "Enter" }],
    ["Terminate", { type: "answer", value: null }],
    ["[button] Buy -> failed to Click because it is hidden", { type: "click" }],
  ];
  it.each(cases)("%s", (entry, action) => {
    expect(parseSeeActHistory(entry).action).toMatchObject(action);
  });
});

describe("parseSeeActHistory: malformed input", () => {
  const cases: [string | null, string | null, RegExp][] = [
    [null, null, /no action history entry/],
    ["   ", "   ", /empty action history entry/],
    ["[button] Search -> JUMP", "[button] Search -> JUMP", /not a SeeAct action history entry/],
    ["[button] Search -> CLICKED", "[button] Search -> CLICKED", /unrecognised operation "CLICKED"/],
    ["GOTO", "GOTO", /GOTO needs a value/],
    ["clicked the search button", "clicked the search button", /not a SeeAct action history entry/],
  ];
  it.each(cases)("%j", (input, value, error) => {
    const { action } = parseSeeActHistory(input);
    expect(action.type).toBe("unparsed");
    expect(action.value).toBe(value);
    expect(action.parseError).toMatch(error);
  });
});

describe("pip package predictions", () => {
  const element = {
    center_point: [0.5, 0.1],
    description: "Search",
    tag_with_role: 'button type="submit"',
    box_raw: [587, 596.6, 93, 54],
    box: [587, 596.6, 680, 650.6],
    tag: "button",
  };
  const cases: [unknown, ParsedAction][] = [
    [
      { action: "CLICK", value: "None", element: { ...element, option: "H" } },
      { type: "click", target: "H" },
    ],
    [
      { action: "CLICK", value: "None", element, action_grounding: "ELEMENT: AB\nACTION: CLICK\nVALUE: None" },
      { type: "click", target: "AB" },
    ],
    [
      { action: "TYPE", value: "running shoes", element, action_grounding: "ELEMENT: C" },
      { type: "type", target: "C", value: "running shoes", submit: false },
    ],
    [
      { action: "TYPE", value: "x", element: null, action_grounding: "ELEMENT: C" },
      { type: "type", target: null, value: "x", submit: false },
    ],
    [
      { action: "SCROLL DOWN", value: "None", element: null },
      { type: "scroll", direction: "down" },
    ],
    [
      { action: "TERMINATE", value: "None", element: null },
      { type: "answer", value: null },
    ],
    [
      { action: "PRESS ENTER", value: "None", element: { ...element, option: "B" } },
      { type: "press", target: "B", value: "Enter" },
    ],
  ];
  it.each(cases)("%j", (p, expected) => {
    expect(parseSeeActPrediction(p as never)).toEqual(expected);
  });
  const bad: [unknown, string | null, RegExp][] = [
    [null, null, /not an object/],
    [{ value: "x" }, null, /has no action/],
    [{ action: "  " }, "  ", /has no action/],
    [{ action: "DANCE", value: "tango" }, "DANCE: tango", /unknown SeeAct operation "DANCE"/],
    [{ action: "GOTO", value: "None" }, "GOTO", /unknown SeeAct operation "GOTO"/],
  ];
  it.each(bad)("rejects %j", (p, value, error) => {
    const a = parseSeeActPrediction(p as never);
    expect(a.type).toBe("unparsed");
    expect(a.value).toBe(value);
    expect(a.parseError).toMatch(error);
  });
  it("reads the grounding output's element letter", () => {
    expect(seeActGroundingElement("ELEMENT: B\nACTION: CLICK\nVALUE: None")).toBe("B");
    expect(seeActGroundingElement("ACTION: SCROLL DOWN")).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import { computerUseAction, parseMind2WebEntry, parseMind2WebText } from "../../server/domain/actions/online-mind2web";

const action = (s: string) => parseMind2WebText(s).action;

describe("Online-Mind2Web action strings", () => {
  it("reads the pixel actions of an Agent Browser Protocol run", () => {
    expect(action("Click at (600, 475)")).toEqual({ type: "click", coords: [600, 475] });
    expect(action("Scroll (delta_x=0, delta_y=400)")).toEqual({ type: "scroll", direction: "down", delta: [0, 400] });
    expect(action("Scroll (delta_x=0, delta_y=-2200)")).toEqual({ type: "scroll", direction: "up", delta: [0, -2200] });
    expect(action("Drag from (1100, 500) to (400, 500)")).toEqual({ type: "drag", coords: [1100, 500], to: [400, 500] });
    expect(action('Type "support services"')).toEqual({ type: "type", value: "support services", submit: false });
    expect(action('Type ""')).toEqual({ type: "type", value: "", submit: false });
    expect(action("Press ENTER")).toEqual({ type: "press", value: "ENTER" });
    expect(action("Press CONTROL+HOME")).toEqual({ type: "press", value: "CONTROL+HOME" });
    expect(action("Navigate to https://www.qatarairways.com/")).toEqual({ type: "goto", value: "https://www.qatarairways.com/" });
    expect(action("Navigate back")).toEqual({ type: "go_back" });
    expect(action("Select picker sp_4 -> Select option(s) [211]")).toEqual({ type: "select", target: null, value: "211" });
  });

  it("reads neighbouring spellings: case, spacing, other point forms, a scroll at a point", () => {
    expect(action("click at (12.5,40)")).toEqual({ type: "click", coords: [12.5, 40] });
    expect(action("Double click at (3, 4)")).toEqual({ type: "dblclick", coords: [3, 4] });
    expect(action("Right click at (3, 4)")).toEqual({ type: "click", coords: [3, 4], value: "right button" });
    expect(action("CLICK coords(320, 180)")).toEqual({ type: "click", coords: [320, 180] });
    expect(action("click(x=10, y=20)")).toEqual({ type: "click", coords: [10, 20] });
    expect(action("Hover at (5, 6)")).toEqual({ type: "hover", coords: [5, 6] });
    expect(action("scroll (dx=-300, dy=0) at (640, 400)")).toEqual({ type: "scroll", direction: "left", delta: [-300, 0], coords: [640, 400] });
    expect(action("Scroll down by 500")).toEqual({ type: "scroll", direction: "down", delta: [0, 500] });
    expect(action("Scroll up")).toEqual({ type: "scroll", direction: "up" });
    expect(action('Type "90210" at (740, 44)')).toEqual({ type: "type", value: "90210", submit: false, coords: [740, 44] });
    expect(action('type "pizza" and press Enter')).toEqual({ type: "type", value: "pizza", submit: true });
    expect(action("Type best restaurants in Paris")).toEqual({ type: "type", value: "best restaurants in Paris", submit: false });
    expect(action("Wait")).toEqual({ type: "wait", value: null });
    expect(action("Go forward")).toEqual({ type: "go_forward" });
  });

  it("reads SeeAct-style element actions and a runner's arrows with status", () => {
    expect(action('<div role="button"> -> CLICK')).toEqual({ type: "click", target: null });
    expect(action("[textbox]  Search -> TYPE: wedding photographer")).toEqual({ type: "type", target: null, value: "wedding photographer", submit: false });
    expect(parseMind2WebText("page -> NAVIGATE -> open start page | SUCCESS")).toEqual({ action: { type: "goto", value: null }, failure: null });
    expect(parseMind2WebText("CLICK coords(320, 180) -> click primary result | FAILED element detached")).toEqual({
      action: { type: "click", coords: [320, 180] },
      failure: "FAILED element detached",
    });
    expect(action("TASK_COMPLETE -> ANSWER: Completed: 3 results -> done")).toEqual({ type: "answer", value: "Completed: 3 results -> done" });
    expect(action("ANSWER: $59.99")).toEqual({ type: "answer", value: "$59.99" });
    expect(action("TERMINATE")).toEqual({ type: "answer", value: null });
  });

  it("keeps what it cannot read as unparsed, with the text", () => {
    expect(action("Ponder the meaning of the page")).toEqual({
      type: "unparsed",
      value: "Ponder the meaning of the page",
      parseError: "not an action Verdict recognises",
    });
    expect(parseMind2WebEntry(42).action.type).toBe("unparsed");
  });

  it("reads computer-use action objects and the runners' step objects", () => {
    expect(computerUseAction({ action: "left_click", coordinate: [100, 200] })).toEqual({ type: "click", coords: [100, 200] });
    expect(computerUseAction({ action: "left_click_drag", start_coordinate: [1, 2], coordinate: [3, 4] })).toEqual({
      type: "drag",
      coords: [1, 2],
      to: [3, 4],
    });
    expect(computerUseAction({ action: "scroll", coordinate: [640, 400], scroll_direction: "down", scroll_amount: 5 })).toEqual({
      type: "scroll",
      coords: [640, 400],
      direction: "down",
      value: "5 clicks",
    });
    expect(computerUseAction({ type: "scroll", x: 10, y: 20, scroll_x: 0, scroll_y: -300 })).toEqual({
      type: "scroll",
      coords: [10, 20],
      direction: "up",
      delta: [0, -300],
    });
    expect(computerUseAction({ type: "keypress", keys: ["CTRL", "A"] })).toEqual({ type: "press", value: "CTRL+A" });
    expect(
      computerUseAction({
        type: "drag",
        path: [
          { x: 1, y: 1 },
          { x: 5, y: 5 },
          { x: 9, y: 9 },
        ],
      }),
    ).toEqual({ type: "drag", coords: [1, 1], to: [9, 9] });
    expect(parseMind2WebText('{"action": "double_click", "coordinate": [7, 8]}').action).toEqual({ type: "dblclick", coords: [7, 8] });
    expect(parseMind2WebEntry({ step: 1, screenshot: "0001.png", action: "Click at (1, 2)" }).action).toEqual({ type: "click", coords: [1, 2] });
  });
});

/**
 * Tool calls of ATIF trajectories as Verdict actions: the names computer-use, browser and MCP harnesses give their
 * tools, the element and the point their arguments name, and what stays unparsed.
 */
import { describe, expect, it } from "vitest";
import { readAtif, toolCallAction, atifTrajectorySchema } from "../../server/domain/imports/atif";

describe("toolCallAction", () => {
  const cases: [string, Record<string, unknown>, object][] = [
    ["computer_click", { x: 600, y: 475, button: "left" }, { type: "click", coords: [600, 475] }],
    ["left_click", { coordinate: [10, 20] }, { type: "click", coords: [10, 20] }],
    ["click_element_by_index", { index: 12 }, { type: "click", target: "12" }],
    ["mcp__playwright__browser_click", { element: "Search button", ref: "e12" }, { type: "click", target: "e12" }],
    ["right_click", { x: 1, y: 2 }, { type: "click", value: "right", coords: [1, 2] }],
    ["double_click", { x: 1, y: 2 }, { type: "dblclick", coords: [1, 2] }],
    ["input_text", { index: 5, text: "lamp" }, { type: "type", target: "5", value: "lamp" }],
    ["browser_type", { ref: "e3", text: "lamp", submit: true }, { type: "type", target: "e3", value: "lamp", submit: true }],
    ["computer_key", { keys: ["ctrl", "l"] }, { type: "press", value: "ctrl+l" }],
    ["computer_scroll", { x: 500, y: 500, direction: "down", amount: 400 }, { type: "scroll", direction: "down", coords: [500, 500] }],
    ["scroll", { delta_y: -300 }, { type: "scroll", direction: "up", delta: [0, -300] }],
    ["scroll_down", {}, { type: "scroll", direction: "down" }],
    ["browser_navigate", { url: "https://shop.test/" }, { type: "goto", value: "https://shop.test/" }],
    ["go_to_url", { url: "https://shop.test/" }, { type: "goto", value: "https://shop.test/" }],
    ["go_back", {}, { type: "go_back" }],
    ["wait", { seconds: 2 }, { type: "wait", value: "2" }],
    ["left_click_drag", { start_coordinate: [1, 2], coordinate: [3, 4] }, { type: "drag", coords: [1, 2], to: [3, 4] }],
    ["drag", { x: 1, y: 2, to_x: 30, to_y: 40 }, { type: "drag", coords: [1, 2], to: [30, 40] }],
    ["select_dropdown_option", { index: 4, text: "Blue" }, { type: "select", target: "4", value: "Blue" }],
    ["computer_screenshot", {}, { type: "noop", value: "screenshot" }],
    ["done", { text: "It costs $29.", success: true }, { type: "answer", value: "It costs $29." }],
    ["send_msg_to_user", { text: "42" }, { type: "answer", value: "42" }],
    ["answer", { text: "42" }, { type: "answer", value: "42" }],
    ["report_infeasible", { reason: "no such page" }, { type: "report_infeasible", value: "no such page" }],
  ];
  it.each(cases)("%s %j", (name, args, expected) => {
    expect(toolCallAction(name, args)).toMatchObject(expected);
  });

  it("a tool that is no browser action stays unparsed with the call kept", () => {
    expect(toolCallAction("terminal_run_command", { command: "ls" })).toEqual({
      type: "unparsed",
      value: 'terminal_run_command({"command":"ls"})',
      parseError: 'tool call "terminal_run_command" is not a browser action Verdict knows',
    });
  });
});

describe("readAtif", () => {
  const doc = (steps: unknown[]) => atifTrajectorySchema.parse({ schema_version: "ATIF-v1.4", session_id: "s", agent: { name: "a", version: "1" }, steps });

  it("a trajectory of talk only: the closing message is the answer, earlier messages are no-ops with their text", () => {
    const r = readAtif(
      doc([
        { step_id: 1, source: "user", message: "What is 6 × 7?" },
        { step_id: 2, source: "agent", message: "Let me think." },
        { step_id: 3, source: "agent", message: "42", reasoning_content: "six sevens" },
      ]),
    );
    expect(r.intent).toBe("What is 6 × 7?");
    expect(r.steps.map((s) => [s.action.type, s.action.value ?? null, s.thought])).toEqual([
      ["noop", "Let me think.", null],
      ["answer", "42", "six sevens"],
    ]);
    expect([r.finalAnswer, r.outcome]).toEqual(["42", "answered"]);
  });

  it("a step's screenshot is the last image shown before it, and only to that step", () => {
    const img = (p: string) => [{ type: "image", source: { media_type: "image/png", path: p } }];
    const r = readAtif(
      doc([
        { step_id: 1, source: "user", message: [{ type: "text", text: "Open the page." }, ...img("a.png")] },
        { step_id: 2, source: "agent", message: "", tool_calls: [{ tool_call_id: "1", function_name: "click", arguments: { x: 1, y: 1 } }] },
        {
          step_id: 3,
          source: "agent",
          message: "",
          tool_calls: [{ tool_call_id: "2", function_name: "screenshot", arguments: {} }],
          observation: { results: [{ source_call_id: "2", content: img("b.png") }] },
        },
        { step_id: 4, source: "agent", message: "", tool_calls: [{ tool_call_id: "3", function_name: "done", arguments: { text: "ok" } }] },
      ]),
    );
    expect(r.steps.map((s) => s.screenshot?.path ?? null)).toEqual(["a.png", null, "b.png"]);
    expect(r.intent).toBe("Open the page.");
  });
});

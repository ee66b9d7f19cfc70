import { describe, expect, it } from "vitest";
import { browserUseElement, browserUseSomElement, parseBrowserUseAction } from "../../server/domain/actions/browser-use";

describe("Browser Use actions", () => {
  it("maps every release's spelling of the element actions, keeping the index as the target", () => {
    expect(parseBrowserUseAction({ click_element: { index: 12 } })).toEqual({ type: "click", target: "12" });
    expect(parseBrowserUseAction({ click_element_by_index: { index: 3, xpath: "//a" } })).toEqual({ type: "click", target: "3" });
    expect(parseBrowserUseAction({ click: { index: 7 } })).toEqual({ type: "click", target: "7" });
    expect(parseBrowserUseAction({ click: { coordinate_x: 640, coordinate_y: 410 } })).toEqual({ type: "click", target: null, coords: [640, 410] });
    expect(parseBrowserUseAction({ input_text: { index: 5, text: "green controller" } })).toEqual({
      type: "type",
      target: "5",
      value: "green controller",
      submit: false,
    });
    expect(parseBrowserUseAction({ input: { index: 5, text: "x", clear: true } })).toEqual({ type: "type", target: "5", value: "x", submit: false });
    expect(parseBrowserUseAction({ select_dropdown_option: { index: 9, text: "Blue" } })).toEqual({ type: "select", target: "9", value: "Blue" });
    expect(parseBrowserUseAction({ upload_file: { index: 2, path: "/tmp/cv.pdf" } })).toEqual({ type: "upload", target: "2", value: "/tmp/cv.pdf" });
  });

  it("maps navigation, scrolling, keys, tabs, waiting and the final done", () => {
    expect(parseBrowserUseAction({ go_to_url: { url: "https://a.test/" } })).toEqual({ type: "goto", value: "https://a.test/" });
    expect(parseBrowserUseAction({ navigate: { url: "https://a.test/", new_tab: true } })).toEqual({ type: "new_tab", value: "https://a.test/" });
    expect(parseBrowserUseAction({ search_google: { query: "weather" } })).toEqual({ type: "search_engine", value: "weather" });
    expect(parseBrowserUseAction({ scroll_down: { amount: 500 } })).toEqual({ type: "scroll", direction: "down", target: null, delta: [0, 500] });
    expect(parseBrowserUseAction({ scroll_up: {} })).toEqual({ type: "scroll", direction: "up", target: null });
    expect(parseBrowserUseAction({ scroll: { down: false, num_pages: 0.5 } })).toEqual({ type: "scroll", direction: "up", target: null, value: "0.5 pages" });
    expect(parseBrowserUseAction({ send_keys: { keys: "Enter" } })).toEqual({ type: "press", value: "Enter" });
    expect(parseBrowserUseAction({ switch_tab: { page_id: 1 } })).toEqual({ type: "tab_focus", value: "1" });
    expect(parseBrowserUseAction({ wait: { seconds: 3 } })).toEqual({ type: "wait", value: "3 s" });
    expect(parseBrowserUseAction({ go_back: {} })).toEqual({ type: "go_back" });
    expect(parseBrowserUseAction({ done: { text: "The price is $5", success: true } })).toEqual({ type: "answer", value: "The price is $5" });
    expect(parseBrowserUseAction({ drag_drop: { coord_source_x: 10, coord_source_y: 20, coord_target_x: 300, coord_target_y: 20 } })).toEqual({
      type: "drag",
      target: null,
      value: null,
      coords: [10, 20],
      to: [300, 20],
    });
  });

  it("names reading actions and keeps unknown ones as unparsed", () => {
    expect(parseBrowserUseAction({ extract_content: { goal: "prices" } })).toEqual({ type: "noop", value: "extract_content: prices" });
    expect(parseBrowserUseAction({ click_element: null, extract: { query: "the table" } })).toEqual({ type: "noop", value: "extract: the table" });
    expect(parseBrowserUseAction({ teleport: { to: "mars" } })).toMatchObject({
      type: "unparsed",
      parseError: 'Browser Use action "teleport" is not one Verdict knows',
    });
    expect(parseBrowserUseAction("click")).toMatchObject({ type: "unparsed" });
  });

  it("reads the interacted element of old and new releases, scaled to the screenshot", () => {
    const old = browserUseElement({
      tag_name: "button",
      xpath: "html/body/div/button",
      highlight_index: 4,
      attributes: { "aria-label": "Search" },
      viewport_coordinates: { top_left: { x: 100, y: 50 }, width: 80, height: 30, center: { x: 140, y: 65 } },
      viewport_info: { scroll_x: 0, scroll_y: 0, width: 1280, height: 1100 },
    });
    expect(old).toEqual({
      label: "4",
      box: [100, 50, 80, 30],
      xpath: "html/body/div/button",
      tag: "button",
      text: "Search",
      viewport: { width: 1280, height: 1100 },
    });
    expect(browserUseSomElement(old!, "4", 2)).toEqual({ label: "4", bbox: [200, 100, 160, 60], tag: "button", text: "Search", xpath: "html/body/div/button" });
    const recent = browserUseElement({
      node_name: "INPUT",
      x_path: "html/body/form/input",
      attributes: { placeholder: "Search Amazon" },
      bounds: { x: 10, y: 20, width: 300, height: 40 },
    });
    expect(recent).toMatchObject({ label: null, box: [10, 20, 300, 40], xpath: "html/body/form/input", tag: "input", text: "Search Amazon", viewport: null });
    // A hand-written history's element: its text and XPath, no box.
    expect(browserUseElement({ xpath: "//header//h1", css_selector: "header h1", text_content: "Debugg AI", attributes: { class: "title" } })).toMatchObject({
      box: null,
      xpath: "//header//h1",
      text: "Debugg AI",
    });
    expect(browserUseElement(null)).toBeNull();
  });
});

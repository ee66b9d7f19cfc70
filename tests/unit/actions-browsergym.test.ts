import { describe, expect, it } from "vitest";
import { browserGymAnswer, parseBrowserGymAction } from "../../server/domain/actions/browsergym";
import { parsePythonCalls, parsePythonLiteral, PythonSyntaxError } from "../../server/domain/actions/python-literal";
import type { ParsedAction } from "../../server/domain/types";

describe("parseBrowserGymAction: every HighLevelActionSet function", () => {
  const cases: [string, ParsedAction][] = [
    [`click('a51')`, { type: "click", target: "a51", value: null }],
    [`click("12", button="right")`, { type: "click", target: "12", value: "right button" }],
    [`click('12', 'left', ['Control', 'Shift'])`, { type: "click", target: "12", value: "Control+Shift" }],
    [`click(12)`, { type: "click", target: "12", value: null }],
    [`dblclick('7')`, { type: "dblclick", target: "7", value: null }],
    [`fill('237', 'hello')`, { type: "type", target: "237", value: "hello", submit: false }],
    [`fill(bid="5", value="it's \\"quoted\\"")`, { type: "type", target: "5", value: `it's "quoted"`, submit: false }],
    [`fill('5', 'multi\\nline', enable_autocomplete_menu=True)`, { type: "type", target: "5", value: "multi\nline", submit: false }],
    [`select_option('48', 'blue')`, { type: "select", target: "48", value: "blue" }],
    [`select_option('48', ["red", "green"])`, { type: "select", target: "48", value: "red, green" }],
    [`hover('b2')`, { type: "hover", target: "b2", value: null }],
    [`press('88', 'Control+a')`, { type: "press", target: "88", value: "Control+a" }],
    [`focus('3')`, { type: "click", target: "3", value: "focus" }],
    [`check('3')`, { type: "click", target: "3", value: "check" }],
    [`clear('9')`, { type: "clear", target: "9", value: null }],
    [`drag_and_drop('1', '2')`, { type: "drag", target: "1", value: "2" }],
    [`upload_file('4', '/tmp/a.pdf')`, { type: "upload", target: "4", value: "/tmp/a.pdf" }],
    [`upload_file("4", ["a.png", "b.png"])`, { type: "upload", target: "4", value: "a.png, b.png" }],
    [`scroll(0, 300)`, { type: "scroll", direction: "down", value: "0,300", delta: [0, 300] }],
    [`scroll(0, -200.5)`, { type: "scroll", direction: "up", value: "0,-200.5", delta: [0, -200.5] }],
    [`scroll(-50, 0)`, { type: "scroll", direction: "left", value: "-50,0", delta: [-50, 0] }],
    [`scroll_at(10, 20, 0, 100)`, { type: "scroll", coords: [10, 20], direction: "down", value: "0,100", delta: [0, 100] }],
    [`mouse_move(5, 6)`, { type: "hover", target: null, coords: [5, 6], value: null }],
    [`mouse_click(100, 200)`, { type: "click", target: null, coords: [100, 200], value: null }],
    [`mouse_click(100, 200, button="middle")`, { type: "click", target: null, coords: [100, 200], value: "middle button" }],
    [`mouse_dblclick(1, 2)`, { type: "dblclick", target: null, coords: [1, 2], value: null }],
    [`mouse_down(1, 2)`, { type: "click", target: null, coords: [1, 2], value: "mouse down" }],
    [`mouse_up(1, 2, 'left')`, { type: "click", target: null, coords: [1, 2], value: "mouse up" }],
    [`mouse_drag_and_drop(1, 2, 3, 4)`, { type: "drag", coords: [1, 2], to: [3, 4], value: "3,4" }],
    [`mouse_upload_file(1, 2, 'f.txt')`, { type: "upload", coords: [1, 2], value: "f.txt" }],
    [`keyboard_press('Enter')`, { type: "press", value: "Enter" }],
    [`keyboard_down('Shift')`, { type: "press", value: "Shift" }],
    [`keyboard_up('Shift')`, { type: "press", value: "Shift" }],
    [`keyboard_type('abc')`, { type: "type", value: "abc", submit: false }],
    [`keyboard_insert_text('xyz')`, { type: "type", value: "xyz", submit: false }],
    [`go_back()`, { type: "go_back" }],
    [`go_forward()`, { type: "go_forward" }],
    [`goto('http://localhost:7770/?q=a%20b')`, { type: "goto", value: "http://localhost:7770/?q=a%20b" }],
    [`new_tab()`, { type: "new_tab" }],
    [`tab_close()`, { type: "close_tab" }],
    [`tab_focus(2)`, { type: "tab_focus", value: "2" }],
    [`noop()`, { type: "noop" }],
    [`noop(wait_ms=500)`, { type: "noop" }],
    [`send_msg_to_user("The price is $279.49")`, { type: "answer", value: "The price is $279.49" }],
    [`send_msg_to_user(text='caf\\u00e9 \\x41')`, { type: "answer", value: "café A" }],
    [`report_infeasible("The page does not exist")`, { type: "report_infeasible", value: "The page does not exist" }],
    [`  click('1')  # the search box\n`, { type: "click", target: "1", value: null }],
    [`# think first\nclick('1')`, { type: "click", target: "1", value: null }],
    [`fill('1', r'C:\\path')`, { type: "type", target: "1", value: "C:\\path", submit: false }],
    [`fill('1', 'a' "b")`, { type: "type", target: "1", value: "ab", submit: false }],
    [`fill('1', """triple 'quoted'""")`, { type: "type", target: "1", value: "triple 'quoted'", submit: false }],
    [`fill(\n  '1',\n  'wrapped',\n)`, { type: "type", target: "1", value: "wrapped", submit: false }],
  ];
  it.each(cases)("%s", (input, expected) => {
    expect(parseBrowserGymAction(input)).toEqual(expected);
  });
});

describe("parseBrowserGymAction: several calls", () => {
  it("keeps every call in order and the first at the top level", () => {
    const a = parseBrowserGymAction(`fill('5', 'shoes')\nclick('6')\nsend_msg_to_user("done")`);
    expect(a.type).toBe("type");
    expect(a.target).toBe("5");
    expect(a.calls?.map((c) => c.type)).toEqual(["type", "click", "answer"]);
    expect(browserGymAnswer(a)).toBe("done");
  });
  it("accepts ; as a separator and comments between calls", () => {
    const a = parseBrowserGymAction(`click('1'); # first\nclick('2')`);
    expect(a.calls?.map((c) => c.target)).toEqual(["1", "2"]);
  });
  it("has no answer when no call sends a message", () => {
    expect(browserGymAnswer(parseBrowserGymAction(`click('1')`))).toBeNull();
  });
});

describe("parseBrowserGymAction: malformed input never throws", () => {
  const cases: [string | null, string | null, RegExp][] = [
    [null, null, /no action string/],
    ["", "", /empty action/],
    ["   # only a comment", "   # only a comment", /empty action/],
    [`click('12'`, `click('12'`, /expected ',' or '\)'/],
    [`click('12)`, `click('12)`, /unterminated string/],
    [`fill('1', 'a'`, `fill('1', 'a'`, /syntax error/],
    [`click(bid)`, `click(bid)`, /'bid' is not a literal/],
    [`explode('1')`, `explode('1')`, /unknown BrowserGym function 'explode'/],
    [`fill('1')`, `fill('1')`, /missing required argument 'value'/],
    [`click('1', 'left', [], 4)`, `click('1', 'left', [], 4)`, /takes 3 argument\(s\) but 4 were given/],
    [`click('1', color='red')`, `click('1', color='red')`, /unexpected keyword argument 'color'/],
    [`click('1', bid='2')`, `click('1', bid='2')`, /multiple values for argument 'bid'/],
    [`click(bid='1', 'left')`, `click(bid='1', 'left')`, /positional argument after keyword/],
    [`scroll('a', 3)`, `scroll('a', 3)`, /'delta_x' must be a number/],
    [`fill(None, 'x')`, `fill(None, 'x')`, /'bid' must be a string, got None/],
    [`click('1') click('2')`, `click('1') click('2')`, /unexpected 'click' after click\(\)/],
    [`click('1')\nbogus('2')`, `click('1')\nbogus('2')`, /in bogus\('2'\): unknown BrowserGym function/],
    [`click('a' + 'b')`, `click('a' + 'b')`, /syntax error/],
    [`I will click the button`, `I will click the button`, /syntax error/],
    [`fill('1', '\\x4')`, `fill('1', '\\x4')`, /bad \\x escape/],
  ];
  it.each(cases)("%j", (input, value, error) => {
    const a = parseBrowserGymAction(input);
    expect(a.type).toBe("unparsed");
    expect(a.value).toBe(value);
    expect(a.parseError).toMatch(error);
  });
});

describe("python-literal", () => {
  const literals: [string, unknown][] = [
    [
      `{'eval_types': ['string_match'], 'reference_answers': {'exact_match': 'yes'}, 'n': -3, 'f': 1.5e2, 'ok': True, 'x': None}`,
      { eval_types: ["string_match"], reference_answers: { exact_match: "yes" }, n: -3, f: 150, ok: true, x: null },
    ],
    [`('a', 'b')`, ["a", "b"]],
    [`('a',)`, ["a"]],
    [`()`, []],
    [`[1, [2, [3]], {}]`, [1, [2, [3]], {}]],
    [`'don\\'t'`, "don't"],
    [`"\\t\\101"`, "\tA"],
    [`'keep \\d unknown'`, "keep \\d unknown"],
    [`0x1F`, 31],
    [`1_000`, 1000],
    [`{1: 'a'}`, { "1": "a" }],
    [`{'__proto__': 1}`, JSON.parse(`{"__proto__": 1}`)],
  ];
  it.each(literals)("%s", (src, expected) => {
    expect(parsePythonLiteral(src)).toEqual(expected);
  });
  it("does not let a __proto__ key change the prototype", () => {
    const v = parsePythonLiteral(`{'__proto__': {'polluted': 1}}`) as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  const bad: [string, RegExp][] = [
    [`{'a' 1}`, /expected ':' after a dict key/],
    [`[1, 2`, /expected a value|expected ','/],
    [`'a' 'b' c`, /unexpected 'c'/],
    [`array([0., 0.])`, /'array' is not a literal/],
    [`<ActionTypes.CLICK: 6>`, /unexpected character '<'/],
  ];
  it.each(bad)("rejects %s", (src, error) => {
    expect(() => parsePythonLiteral(src)).toThrow(PythonSyntaxError);
    expect(() => parsePythonLiteral(src)).toThrow(error);
  });
  it("records each call's source", () => {
    expect(parsePythonCalls(`a(1)\nb(x='y')`).map((c) => c.source)).toEqual(["a(1)", "b(x='y')"]);
  });
});

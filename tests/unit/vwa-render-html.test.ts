import { describe, expect, it } from "vitest";
import {
  actionFromRepr,
  configValue,
  parseRenderHtml,
  parseSomObservation,
  parseVwaErrorFile,
  parseVwaLog,
  trimTrailingClosers,
} from "../../server/importers/vwa-render";

describe("parseRenderHtml: tolerant extraction keyed on class markers", () => {
  const html =
    "<html><body>\n<pre>sites: ['reddit']\ntask_id: 7\nintent: line one\nline two: with a colon\n</pre>\n" +
    "<h2>New Page</h2>\n<h3 class='url'><a href=http://x.test/a?b=1&c=2>URL: http://x.test/a?b=1&c=2</a></h3>\n" +
    "<div class='state_obv'><pre>[1] [A] [Home & <b>away</b>]\n[] [StaticText] [</pre> inside]</pre><div>\n" +
    "<img src='data:image/png;base64,iVBORw0KGgo=' style='width:50vw; height:auto;'/>\n" +
    "<div class='prev_action' style='background-color:pink'>None</div>\n" +
    "<div class='predict_action'><div class='raw_parsed_prediction' style='background-color:grey'><pre>Think <div>. ```click [1]```</pre></div>" +
    "<div class='action_object' style='background-color:grey'><pre>{'action_type': <ActionTypes.CLICK: 6>, 'element_id': '1'}</pre></div>" +
    "<div class='parsed_action' style='background-color:yellow'><pre>click [1] where [1]</pre></div></div>\n" +
    '<h2>New Page</h2>\n<h3 class="url"><a href=about:blank>URL: about:blank</a></h3>\n' +
    "<div class=state_obv><pre></pre><div>\n<div class='prev_action'>click [1] where [1]</div>\n" +
    "<div class='predict_action'><div class='parsed_action'><pre>stop [done]</pre></div></div>\n</body></html>";

  it("reads the config block, including a value continued on the next line", () => {
    const r = parseRenderHtml(html);
    expect(r.config).toEqual({ sites: "['reddit']", task_id: "7", intent: "line one\nline two: with a colon" });
  });

  it("splits steps and pulls every section, whatever the quoting and nesting", () => {
    const r = parseRenderHtml(html);
    expect(r.steps).toHaveLength(2);
    expect(r.steps[0]).toEqual({
      url: "http://x.test/a?b=1&c=2",
      observation: "[1] [A] [Home & <b>away</b>]\n[] [StaticText] [</pre> inside]",
      imageMime: "image/png",
      imageBase64: "iVBORw0KGgo=",
      prevAction: "None",
      rawPrediction: "Think <div>. ```click [1]```",
      actionObject: "{'action_type': <ActionTypes.CLICK: 6>, 'element_id': '1'}",
      parsedAction: "click [1] where [1]",
    });
    expect(r.steps[1]).toMatchObject({
      url: "about:blank",
      observation: "",
      imageBase64: null,
      rawPrediction: null,
      actionObject: null,
      parsedAction: "stop [done]",
    });
  });

  it("gives no steps and no config for text that is not a render", () => {
    expect(parseRenderHtml("<html>hello</html>")).toEqual({ config: {}, steps: [] });
  });
});

describe("configValue: str() of a config value", () => {
  const cases: [string | undefined, unknown][] = [
    ["['wikipedia', 'reddit']", ["wikipedia", "reddit"]],
    ["{'eval_types': ['string_match'], 'reference_answers': None}", { eval_types: ["string_match"], reference_answers: null }],
    ["None", null],
    ["True", true],
    ["12", 12],
    ["http://x.test/a", "http://x.test/a"],
    ["[unbalanced", "[unbalanced"],
    [undefined, undefined],
  ];
  it.each(cases)("%j", (text, expected) => {
    expect(configValue(text)).toEqual(expected);
  });
});

describe("parseSomObservation", () => {
  it("keeps marked lines only", () => {
    expect(parseSomObservation("[3] [BUTTON] [Add to Cart]\n[] [StaticText] [$10]\n[12] [IMG] []\nrandom text")).toEqual([
      { label: "3", bbox: null, tag: "button", text: "Add to Cart" },
      { label: "12", bbox: null, tag: "img", text: null },
    ]);
    expect(parseSomObservation(null)).toEqual([]);
  });
});

describe("actionFromRepr", () => {
  const cases: [string, unknown][] = [
    ["{'action_type': <ActionTypes.CLICK: 6>, 'element_id': '11'}", { type: "click", target: "11" }],
    ["{'action_type': <ActionTypes.STOP: 17>, 'answer': \"it's $5\"}", { type: "answer", value: "it's $5" }],
    ["{'action_type': <ActionTypes.SCROLL: 1>, 'direction': 'up'}", { type: "scroll", direction: "up" }],
    ["{'action_type': <ActionTypes.GOTO_URL: 13>, 'url': 'http://a'}", { type: "goto", value: "http://a" }],
    ["{'action_type': <ActionTypes.PAGE_FOCUS: 9>, 'page_number': 2}", { type: "tab_focus", value: "2" }],
    ["{'action_type': <ActionTypes.MOUSE_CLICK: 3>}", null],
    ["not a repr", null],
  ];
  it.each(cases)("%s", (repr, expected) => {
    expect(actionFromRepr(repr)).toEqual(expected);
  });
});

describe("parseVwaLog", () => {
  it("pairs results with the intent logged for the same config file", () => {
    const log = [
      "2024-01-01 10:00:00,000 - INFO - [Config file]: config_files/vwa/test_reddit/3.json",
      "2024-01-01 10:00:00,000 - INFO - [Intent]: Find the post.",
      "2024-01-01 10:05:00,000 - INFO - [Result] (PASS) config_files/vwa/test_reddit/3.json",
      "2024-01-01 10:05:01,000 - INFO - [Result] (FAIL) config_files/vwa/test_reddit/4.json",
      "2024-01-01 10:06:00,000 - INFO - Average score: 0.5",
    ].join("\n");
    expect(parseVwaLog(log, "log.log")).toEqual([
      { configFile: "config_files/vwa/test_reddit/3.json", intent: "Find the post.", pass: true, logFile: "log.log", line: 3 },
      { configFile: "config_files/vwa/test_reddit/4.json", intent: null, pass: false, logFile: "log.log", line: 4 },
    ]);
  });
});

describe("padding cannot stall the parser (security review L4)", () => {
  const pad = " ".repeat(400_000);

  it("trims closers and their whitespace, and leaves whitespace that no closer follows", () => {
    expect(trimTrailingClosers("click [1]  </pre>\n</div> </div>\n")).toBe("click [1]");
    expect(trimTrailingClosers("keep  ")).toBe("keep  ");
    expect(trimTrailingClosers(`text${pad}</pre>${pad}</div>${pad}`)).toBe("text");
    expect(trimTrailingClosers(`text${pad}x`)).toBe(`text${pad}x`);
  });

  it("reads a step whose sections are padded with 400k spaces", () => {
    const html =
      "<html><body><pre>task_id: 1\nintent: x\n</pre><h2>New Page</h2>" +
      `<h3 class='url'><a href=http://a.test/>URL: http://a.test/${pad}</a></h3>` +
      `<div class='state_obv'><pre>[1] [A] [Home]${pad}</pre>${pad}<div>` +
      `<div class='predict_action'><div class='parsed_action'><pre>click [1]${pad}</pre>${pad}</div>${pad}x</div></body></html>`;
    const [step] = parseRenderHtml(html).steps;
    expect(step!.url).toBe("http://a.test/");
    expect(step!.observation).toBe("[1] [A] [Home]");
    expect(step!.parsedAction).toBe(`click [1]${pad}</pre>${pad}</div>${pad}x`);
  });

  it("reads log lines padded with 400k spaces", () => {
    const log = `[Config file]: a/1.json${pad}x\n[Result] (PASS) a/1.json${pad}\n`;
    expect(parseVwaLog(log, "log")).toEqual([{ configFile: "a/1.json", intent: null, pass: true, logFile: "log", line: 2 }]);
  });
});

describe("parseVwaErrorFile: error.txt blocks", () => {
  it("pairs each config file with its unhandled error and skips the traceback", () => {
    const text =
      "[Config file]: config_files/8.json\n[Unhandled Error] KeyError('action_type')\nTraceback (most recent call last):\n  File \"run.py\", line 312\nKeyError: 'action_type'\n" +
      '[Config file]: /tmp/tmp7baqjiwm/11.json\n[Unhandled Error] LookupError("\\n***\\n  Resource punkt not found.")\n' +
      "[Config file]: config_files/9.json\n";
    expect(parseVwaErrorFile(text)).toEqual([
      { configFile: "config_files/8.json", error: "KeyError('action_type')", line: 2 },
      { configFile: "/tmp/tmp7baqjiwm/11.json", error: 'LookupError("\\n***\\n  Resource punkt not found.")', line: 7 },
    ]);
  });
});

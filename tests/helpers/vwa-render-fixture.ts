/**
 * Writes VisualWebArena-style result folders the way its RenderHelper and run.py do (see
 * ../shared/docs/trajectory-formats.md §2): `render_<task_id>.html` rewritten per step with the config as
 * `key: str(value)` lines, unescaped observations and model output, the never-closed observation `<div>`, base64
 * PNG screenshots and a Python-repr action object; plus `config.json` and `log_files/log_*.log` result lines.
 */
import fs from "node:fs";
import path from "node:path";
import { tinyPng } from "./webvoyager-fixture";

/** Python's repr() of plain JSON data. */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "number") return String(v);
  if (typeof v === "string") {
    const quote = v.includes("'") && !v.includes('"') ? '"' : "'";
    const body = v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\t/g, "\\t").replace(new RegExp(quote, "g"), `\\${quote}`);
    return `${quote}${body}${quote}`;
  }
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
    .join(", ")}}`;
}

/** Python's str(): strings bare, everything else as repr. */
function pyStr(v: unknown): string {
  return typeof v === "string" ? v : pyRepr(v);
}

const ACTION_TYPE_IDS: Record<string, number> = {
  NONE: 0,
  SCROLL: 1,
  KEY_PRESS: 2,
  CLICK: 6,
  TYPE: 7,
  HOVER: 8,
  PAGE_FOCUS: 9,
  NEW_TAB: 10,
  GO_BACK: 11,
  GO_FORWARD: 12,
  GOTO_URL: 13,
  PAGE_CLOSE: 14,
  STOP: 17,
};

export interface RenderStepSpec {
  url: string;
  observation: string;
  /** PNG bytes; null renders no <img> (render_screenshot off). A string is pasted verbatim as the base64 payload. */
  image: Buffer | string | null;
  prevAction: string;
  rawPrediction: string;
  actionType: keyof typeof ACTION_TYPE_IDS;
  elementId?: string;
  answer?: string;
  parsedAction: string;
  /** Leave out the parsed_action div (older or broken renders). */
  omitParsedAction?: boolean;
}

function actionObjectRepr(s: RenderStepSpec): string {
  const fields = [
    `'action_type': <ActionTypes.${s.actionType}: ${ACTION_TYPE_IDS[s.actionType]}>`,
    `'coords': array([0., 0.], dtype=float32)`,
    `'element_role': 0`,
    `'element_name': ''`,
    `'text': ${s.actionType === "TYPE" ? "[46, 53, 41, 52, 33, 50, 3]" : "[]"}`,
    `'page_number': 0`,
    `'url': ''`,
    `'nth': 0`,
    `'pw_code': ''`,
    `'element_id': ${pyRepr(s.elementId ?? "")}`,
    `'key_comb': ''`,
    `'direction': ''`,
    `'answer': ${pyRepr(s.answer ?? "")}`,
    `'raw_prediction': ${pyRepr(s.rawPrediction)}`,
  ];
  return `{${fields.join(", ")}}`;
}

function template(body: string): string {
  return `\n<!DOCTYPE html>\n<head>\n    <style>\n        pre {\n            white-space: pre-wrap;\n            word-wrap: break-word;\n        }\n    </style>\n</head>\n<html>\n    <body>\n     ${body}\n    </body>\n</html>\n`;
}

export function renderHtml(config: Record<string, unknown>, steps: RenderStepSpec[]): string {
  let body = `<pre>${Object.entries(config)
    .map(([k, v]) => `${k}: ${pyStr(v)}\n`)
    .join("")}</pre>\n`;
  let html = template(body);
  for (const s of steps) {
    let c = `<h2>New Page</h2>\n`;
    c += `<h3 class='url'><a href=${s.url}>URL: ${s.url}</a></h3>\n`;
    c += `<div class='state_obv'><pre>${s.observation}</pre><div>\n`;
    if (s.image !== null) {
      const b64 = typeof s.image === "string" ? s.image : s.image.toString("base64");
      c += `<img src='data:image/png;base64,${b64}' style='width:50vw; height:auto;'/>\n`;
    }
    c += `<div class='prev_action' style='background-color:pink'>${s.prevAction}</div>\n`;
    let a = `<div class='raw_parsed_prediction' style='background-color:grey'><pre>${s.rawPrediction}</pre></div>`;
    a += `<div class='action_object' style='background-color:grey'><pre>${actionObjectRepr(s)}</pre></div>`;
    if (!s.omitParsedAction) a += `<div class='parsed_action' style='background-color:yellow'><pre>${s.parsedAction}</pre></div>`;
    c += `<div class='predict_action'>${a}</div>\n`;
    // RenderHelper re-reads the whole file and re-wraps its body on every step.
    body = /<body>([\s\S]*?)<\/body>/.exec(html)![1]! + c;
    html = template(body);
  }
  return html;
}

export function writeRender(dir: string, taskId: number, config: Record<string, unknown>, steps: RenderStepSpec[]): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `render_${taskId}.html`);
  fs.writeFileSync(file, renderHtml(config, steps));
  return file;
}

export function logLines(records: { configFile: string; intent: string; pass: boolean }[]): string {
  const lines: string[] = [];
  const ts = "2024-05-01 10:00:00,123";
  for (const r of records) {
    lines.push(`${ts} - INFO - [Config file]: ${r.configFile}`);
    lines.push(`${ts} - INFO - [Intent]: ${r.intent}`);
    lines.push(`${ts} - INFO - [Result] (${r.pass ? "PASS" : "FAIL"}) ${r.configFile}`);
  }
  lines.push(`${ts} - INFO - Average score: 0.5`);
  return lines.join("\n") + "\n";
}

/** error.txt as run.py appends it: the config file, the exception repr on one line, then the traceback. */
export function errorTxt(records: { configFile: string; error: string }[]): string {
  return records
    .map(
      (r) =>
        `[Config file]: ${r.configFile}\n[Unhandled Error] ${r.error}\nTraceback (most recent call last):\n  File "run.py", line 312, in test\n    raise\n${r.error}\n`,
    )
    .join("");
}

export const SHOPPING_CONFIG = {
  sites: ["shopping"],
  task_id: 12,
  require_login: true,
  storage_state: "./.auth/shopping_state.json",
  start_url: "http://127.0.0.1:7770",
  geolocation: null,
  intent_template: "What is the price of the {{item}} in the picture?",
  instantiation_dict: { item: "guitar" },
  intent: "What is the price of the cheapest guitar like the one in the picture?",
  image: "environment_docker/webarena-homepage/static/input_images/shopping/task_12/input_0.png",
  require_reset: false,
  eval: {
    eval_types: ["string_match"],
    reference_answers: { must_include: ["$279.49"] },
    reference_url: "",
    program_html: [],
    string_note: "",
    reference_answer_raw_annotation: "279.49",
  },
  reasoning_difficulty: "medium",
  visual_difficulty: "easy",
  overall_difficulty: "medium",
  comments: "",
  intent_template_id: 7,
};

export const REDDIT_CONFIG = {
  sites: ["wikipedia", "reddit"],
  task_id: 3,
  require_login: true,
  storage_state: "./.auth/reddit_state.json",
  start_url: "http://127.0.0.1:9999/forums",
  geolocation: null,
  intent_template: "Find the {{thing}}",
  instantiation_dict: { thing: "post" },
  intent: "Find the post about the tallest tower in Paris and tell me who wrote it.",
  image: null,
  require_reset: false,
  eval: { eval_types: ["string_match"], reference_answers: { exact_match: "MarvelsGrantMan136" }, reference_url: "", program_html: [] },
  reasoning_difficulty: "hard",
  visual_difficulty: "hard",
  overall_difficulty: "hard",
  comments: "it's a 'quoted' comment",
  intent_template_id: 2,
};

const SOM_OBSERVATION = [
  "[1] [A] [Home]",
  "[2] [INPUT] [Search entire store here...]",
  "[3] [BUTTON] [Search]",
  "[] [StaticText] [Guitars <b>on sale</b> & more]",
  "[5] [IMG] [Acoustic guitar, 41 inch [brown]]",
].join("\n");

/**
 * A result folder with two VWA tasks (shopping 12: answered and PASS; reddit 3: malformed prediction then an
 * early stop, FAIL), `config.json`, and a log in `log_files/`. Returns the folder.
 */
export async function writeVwaResultDir(root: string, seed = 1): Promise<string> {
  fs.mkdirSync(root, { recursive: true });
  const think = (a: string) =>
    `Let's think step-by-step. The <input> box is what I need; I'll use "quotes" & 'apostrophes'.\nIn summary, the next action I will perform is \`\`\`${a}\`\`\``;
  writeRender(root, 12, SHOPPING_CONFIG, [
    {
      url: "http://127.0.0.1:7770/",
      observation: SOM_OBSERVATION,
      image: await tinyPng(seed),
      prevAction: "None",
      rawPrediction: think("click [2]"),
      actionType: "CLICK",
      elementId: "2",
      parsedAction: "click [2] where [2]",
    },
    {
      url: "http://127.0.0.1:7770/",
      observation: SOM_OBSERVATION,
      image: await tinyPng(seed + 1),
      prevAction: "click [2] where [2]",
      rawPrediction: think("type [2] [guitar] [1]"),
      actionType: "TYPE",
      elementId: "2",
      parsedAction: "type [2] [guitar\n] where [2]",
    },
    {
      url: "http://127.0.0.1:7770/catalogsearch/result/?q=guitar",
      observation: SOM_OBSERVATION,
      image: await tinyPng(seed + 2),
      prevAction: "type [2] [guitar\n] where [2]",
      rawPrediction: think("stop [$279.49]"),
      actionType: "STOP",
      answer: "$279.49",
      parsedAction: "stop [$279.49]",
    },
  ]);
  writeRender(root, 3, REDDIT_CONFIG, [
    {
      url: "http://127.0.0.1:9999/forums",
      observation: "[1] [A] [Forums]\n[2] [A] [Wiki]",
      image: await tinyPng(seed + 3),
      prevAction: "None",
      rawPrediction: think("scroll [down]"),
      actionType: "SCROLL",
      parsedAction: "scroll [down]",
    },
    {
      url: "http://127.0.0.1:9999/forums?page=2",
      observation: "[1] [A] [Forums]",
      image: await tinyPng(seed + 4),
      prevAction: "scroll [down]",
      rawPrediction: "I should look around </pre> more.",
      actionType: "NONE",
      parsedAction: "none",
    },
    {
      url: "http://127.0.0.1:9999/forums?page=2",
      observation: "[1] [A] [Forums]",
      image: await tinyPng(seed + 5),
      prevAction:
        'The previous prediction you issued was "I should look around </pre> more.". However, the format was incorrect. Ensure that the action is wrapped inside a pair of ``` and enclose arguments within [] as follows: ```action [arg] ...```.',
      rawPrediction: "",
      actionType: "STOP",
      answer: "Early stop: Failed to parse actions for 3 times",
      parsedAction: "stop [Early stop: Failed to parse actions for 3 times]",
    },
  ]);
  fs.writeFileSync(
    path.join(root, "config.json"),
    JSON.stringify(
      {
        render: false,
        action_set_tag: "som",
        observation_type: "image_som",
        test_config_base_dir: "config_files/vwa/test_shopping",
        provider: "openai",
        model: "gpt-4-vision-preview",
        agent_type: "prompt",
        max_steps: 30,
        result_dir: root,
      },
      null,
      2,
    ),
  );
  fs.mkdirSync(path.join(root, "log_files"), { recursive: true });
  fs.writeFileSync(
    path.join(root, "log_files", "log_20240501100000_4242.log"),
    logLines([
      // An older run of the same task that failed; the later PASS wins.
      { configFile: "config_files/vwa/test_shopping/12.json", intent: SHOPPING_CONFIG.intent, pass: false },
      // Another site's task with the same per-site id must not be taken for reddit 3 or shopping 12.
      { configFile: "config_files/vwa/test_classifieds/3.json", intent: "Some classifieds task", pass: true },
      { configFile: "/tmp/tmpab12cd/3.json", intent: REDDIT_CONFIG.intent, pass: false },
    ]),
  );
  fs.writeFileSync(
    path.join(root, "log_files", "log_20240501110000_4243.log"),
    logLines([{ configFile: "config_files/vwa/test_shopping/12.json", intent: SHOPPING_CONFIG.intent, pass: true }]),
  );
  return root;
}

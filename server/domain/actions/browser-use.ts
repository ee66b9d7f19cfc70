/**
 * Browser Use actions (`AgentHistoryList.history[i].model_output.action`): a list of one-key objects
 * `{ "<action name>": { …params } }`. The names changed across releases; every spelling maps onto Verdict's types:
 *   click_element / click_element_by_index / click   {index, coordinate_x?, coordinate_y?, xpath?}
 *   input_text / input                                {index, text, clear?}
 *   go_to_url / navigate / open_tab                   {url, new_tab?}
 *   search_google / search                            {query, engine?}
 *   scroll_down / scroll_up                           {amount?}        scroll {down, num_pages | pages, index?}
 *   scroll_to_text / find_text                        {text}
 *   send_keys                                         {keys}
 *   select_dropdown_option / select_dropdown          {index, text}
 *   switch_tab / switch, close_tab / close            {page_id | tab_id}
 *   drag_drop                                         {element_source?, element_target?, coord_source_x/y, coord_target_x/y}
 *   upload_file                                       {index, path}
 *   wait {seconds}, go_back, go_forward, done {text, success, files_to_display?, data?}
 * Reading actions that do not touch the page (extract_content, extract, dropdown_options, screenshot, read_file,
 * write_file, evaluate…) become `noop` naming what was done. The element index is kept as the target (Browser Use
 * numbers the elements it highlights); a click point given as coordinates is kept as `coords`.
 *
 * Pure. Never throws.
 */
import type { ParsedAction, SomElement } from "../types";

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : null;
}

function str(v: unknown): string | null {
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : null;
}

function index(p: Record<string, unknown>, ...keys: string[]): string | null {
  for (const k of keys) {
    const n = num(p[k]);
    if (n !== null) return String(n);
  }
  return null;
}

/** The name and parameters of one action object; null when it is not `{name: params}`. */
export function browserUseActionName(action: unknown): { name: string; params: Record<string, unknown> } | null {
  if (!action || typeof action !== "object" || Array.isArray(action)) return null;
  // Some dumps keep other actions' keys with null values (pydantic's ActionModel without exclude_none).
  const entries = Object.entries(action as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined);
  if (entries.length !== 1) return null;
  const [name, params] = entries[0]!;
  return { name, params: params && typeof params === "object" && !Array.isArray(params) ? (params as Record<string, unknown>) : {} };
}

/** What a reading action did, for the step line ("extract: prices of the first three results"). */
function described(name: string, p: Record<string, unknown>): string {
  const detail =
    str(p.query) ?? str(p.goal) ?? str(p.text) ?? str(p.file_name) ?? str(p.pattern) ?? str(p.selector) ?? (p.index !== undefined ? `[${str(p.index)}]` : null);
  return detail ? `${name}: ${detail}` : name;
}

const READING = new Set([
  "extract_content",
  "extract_page_content",
  "extract_structured_data",
  "extract",
  "get_dropdown_options",
  "dropdown_options",
  "screenshot",
  "read_file",
  "write_file",
  "replace_file",
  "replace_file_str",
  "append_file",
  "evaluate",
  "search_page",
  "find_elements",
  "get_ax_tree",
  "save_pdf",
  "save_as_pdf",
  "think",
]);

export function parseBrowserUseAction(action: unknown): ParsedAction {
  const named = browserUseActionName(action);
  if (!named) return { type: "unparsed", value: JSON.stringify(action ?? null), parseError: "not a Browser Use action object ({name: params})" };
  const { name, params: p } = named;
  const target = index(p, "index", "element_index", "highlight_index");
  const at = num(p.coordinate_x) !== null && num(p.coordinate_y) !== null ? ([num(p.coordinate_x)!, num(p.coordinate_y)!] as [number, number]) : null;
  switch (name) {
    case "click_element":
    case "click_element_by_index":
    case "click":
    case "click_element_by_text":
    case "click_coordinates": {
      const a: ParsedAction = { type: "click", target };
      if (at) a.coords = at;
      else if (num(p.x) !== null && num(p.y) !== null) a.coords = [num(p.x)!, num(p.y)!];
      if (!target && !a.coords && typeof p.text === "string") a.value = p.text;
      return a;
    }
    case "input_text":
    case "input":
    case "type_text": {
      const a: ParsedAction = { type: "type", target, value: str(p.text) ?? "", submit: false };
      if (at) a.coords = at;
      return a;
    }
    case "go_to_url":
    case "navigate":
    case "open_url":
      return p.new_tab === true ? { type: "new_tab", value: str(p.url) } : { type: "goto", value: str(p.url) };
    case "open_tab":
    case "new_tab":
      return { type: "new_tab", value: str(p.url) };
    case "search_google":
    case "search":
    case "search_web":
      return { type: "search_engine", value: str(p.query) ?? str(p.text) };
    case "go_back":
      return { type: "go_back" };
    case "go_forward":
      return { type: "go_forward" };
    case "switch_tab":
    case "switch":
      return { type: "tab_focus", value: str(p.tab_id) ?? str(p.page_id) ?? str(p.tab) };
    case "close_tab":
    case "close":
      return { type: "close_tab", value: str(p.tab_id) ?? str(p.page_id) };
    case "scroll_down":
    case "scroll_up": {
      const direction = name === "scroll_down" ? "down" : "up";
      const amount = num(p.amount);
      const a: ParsedAction = { type: "scroll", direction, target };
      if (amount !== null) a.delta = [0, direction === "down" ? Math.abs(amount) : -Math.abs(amount)];
      return a;
    }
    case "scroll": {
      const down = p.down !== false && p.direction !== "up";
      const pages = num(p.num_pages) ?? num(p.pages);
      const amount = num(p.amount) ?? num(p.pixels);
      const a: ParsedAction = { type: "scroll", direction: down ? "down" : "up", target: index(p, "index", "frame_element_index", "element_index") };
      if (amount !== null) a.delta = [0, down ? Math.abs(amount) : -Math.abs(amount)];
      else if (pages !== null) a.value = `${pages} page${pages === 1 ? "" : "s"}`;
      return a;
    }
    case "scroll_to_text":
    case "find_text":
      return { type: "scroll", direction: null, value: str(p.text) };
    case "send_keys":
    case "press_key":
      return { type: "press", value: str(p.keys) ?? str(p.key) };
    case "select_dropdown_option":
    case "select_dropdown":
    case "select_option":
      return { type: "select", target, value: str(p.text) ?? str(p.option) ?? str(p.value) };
    case "upload_file":
      return { type: "upload", target, value: str(p.path) ?? str(p.file_path) };
    case "drag_drop": {
      const from =
        num(p.coord_source_x) !== null && num(p.coord_source_y) !== null ? ([num(p.coord_source_x)!, num(p.coord_source_y)!] as [number, number]) : null;
      const to =
        num(p.coord_target_x) !== null && num(p.coord_target_y) !== null ? ([num(p.coord_target_x)!, num(p.coord_target_y)!] as [number, number]) : null;
      const a: ParsedAction = { type: "drag", target: str(p.element_source), value: str(p.element_target) };
      if (from) a.coords = from;
      if (to) a.to = to;
      return a;
    }
    case "wait":
      return { type: "wait", value: num(p.seconds) !== null ? `${num(p.seconds)} s` : null };
    case "done": {
      const text = str(p.text) ?? (p.data !== undefined ? JSON.stringify(p.data) : null);
      return { type: "answer", value: text };
    }
    default:
      if (READING.has(name)) return { type: "noop", value: described(name, p) };
      return { type: "unparsed", value: JSON.stringify(action), parseError: `Browser Use action "${name}" is not one Verdict knows` };
  }
}

function record(v: unknown): Record<string, unknown> | null {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/**
 * The element a step acted on, as `state.interacted_element[i]` records it, in the viewport's CSS pixels:
 * newer releases keep `bounds {x, y, width, height}` and `x_path`; older ones `viewport_coordinates` (corner points,
 * width, height), `xpath`, `highlight_index` and `viewport_info {width, height}`.
 */
export interface BrowserUseElement {
  label: string | null;
  box: [number, number, number, number] | null;
  xpath: string | null;
  tag: string | null;
  text: string | null;
  /** The viewport the box was measured in, when recorded. */
  viewport: { width: number; height: number } | null;
}

export function browserUseElement(v: unknown): BrowserUseElement | null {
  const e = record(v);
  if (!e) return null;
  let box: [number, number, number, number] | null = null;
  const bounds = record(e.bounds);
  const vc = record(e.viewport_coordinates);
  if (bounds && [bounds.x, bounds.y, bounds.width, bounds.height].every((n) => num(n) !== null)) {
    box = [num(bounds.x)!, num(bounds.y)!, num(bounds.width)!, num(bounds.height)!];
  } else if (vc) {
    const tl = record(vc.top_left);
    const w = num(vc.width);
    const h = num(vc.height);
    if (tl && num(tl.x) !== null && num(tl.y) !== null && w !== null && h !== null) box = [num(tl.x)!, num(tl.y)!, w, h];
  }
  const vi = record(e.viewport_info);
  const viewport = vi && num(vi.width) && num(vi.height) ? { width: num(vi.width)!, height: num(vi.height)! } : null;
  const attrs = record(e.attributes);
  const text =
    str(e.ax_name) ??
    str(e.text_content) ??
    (attrs ? (str(attrs["aria-label"]) ?? str(attrs.title) ?? str(attrs.placeholder) ?? str(attrs.name) ?? str(attrs.value)) : null) ??
    (typeof e.node_value === "string" && e.node_value.trim() ? e.node_value : null);
  const tag = str(e.tag_name) ?? (typeof e.node_name === "string" ? e.node_name.toLowerCase() : null);
  return {
    label: num(e.highlight_index) !== null ? String(num(e.highlight_index)) : null,
    box: box && box[2] > 0 && box[3] > 0 ? box : null,
    xpath: str(e.x_path) ?? str(e.xpath),
    tag,
    text,
    viewport,
  };
}

/** The element as a Set-of-Marks element labelled with the action's index, its box scaled to screenshot pixels. */
export function browserUseSomElement(el: BrowserUseElement, label: string, scale: number): SomElement {
  return {
    label,
    bbox: el.box ? [el.box[0] * scale, el.box[1] * scale, el.box[2] * scale, el.box[3] * scale] : null,
    tag: el.tag,
    text: el.text,
    xpath: el.xpath,
  };
}

/**
 * ATIF, the Agent Trajectory Interchange Format (Harbor's RFC 0001; versions ATIF-v1.0 … v1.7): one JSON object per
 * trajectory with `schema_version`, `session_id`, `agent {name, version, model_name}`, `steps[]` (each with
 * `step_id`, `source` user|agent|system, `message` as text or content parts, `reasoning_content`, `tool_calls[]
 * {tool_call_id, function_name, arguments}`, `observation.results[] {source_call_id, content}`, `metrics`,
 * `extra`), `notes`, `final_metrics` and `extra`. Images (ATIF-v1.6) are content parts
 * `{type: "image", source: {media_type, path}}`, the path relative to the JSON file, absolute, or a URL.
 *
 * Reading (any harness's ATIF): an agent step is one Verdict step. Its screenshot is the last image shown to the
 * agent before it (in the user's message or a previous step's observation); its reasoning is the thought; its tool
 * calls are the action, mapped by name onto Verdict's action types (click, type, scroll, goto…, with the element and
 * the point they name); an agent step without tool calls is the final answer when it is the last one.
 *
 * Writing: each Verdict step becomes an agent step whose tool call is its action (function name = the action type)
 * and whose observation holds the next step's screenshot; the first screenshot goes with the task in the user
 * message. What ATIF has no field for (the parsed action, Set-of-Marks boxes, the unmarked screenshot, the task's
 * references, the run, verdicts) goes in `extra.verdict`, so that Verdict reads its own export back unchanged.
 *
 * Pure: paths are returned as written; the importer resolves and reads them.
 */
import { z } from "zod";
import { bundleStepSchema, bundleTrajectorySchema, parsedActionSchema, somElementSchema, type BundleImage, type BundleTrajectory } from "./bundle";
import { stepContent, type Outcome, type ParsedAction, type ScrollDirection, type StepContent } from "../types";

export const ATIF_SCHEMA_VERSION = "ATIF-v1.6";
const ATIF_VERSION = /^ATIF-v1\.\d+$/;
/** Marks Verdict's own fields in an ATIF `extra` object. */
export const ATIF_EXTRA_KEY = "verdict";
const EXTRA_FORMAT = "verdict.atif-extra";
const EXTRA_VERSION = 1;

const record = z.record(z.string(), z.unknown());
const imageSource = z.object({ media_type: z.string().nullish(), path: z.string().min(1) }).passthrough();
const contentPart = z.object({ type: z.string(), text: z.string().nullish(), source: imageSource.nullish() }).passthrough();
const content = z.union([z.string(), z.array(contentPart)]).nullish();
const toolCall = z.object({ tool_call_id: z.string().nullish(), function_name: z.string().min(1), arguments: record.nullish() }).passthrough();

export const atifStepSchema = z
  .object({
    step_id: z.number().int().nullish(),
    timestamp: z.string().nullish(),
    source: z.enum(["system", "user", "agent"]),
    model_name: z.string().nullish(),
    message: content,
    reasoning_content: z.string().nullish(),
    tool_calls: z.array(toolCall).nullish(),
    observation: z
      .object({ results: z.array(z.object({ source_call_id: z.string().nullish(), content }).passthrough()) })
      .passthrough()
      .nullish(),
    extra: record.nullish(),
  })
  .passthrough();

export const atifTrajectorySchema = z
  .object({
    schema_version: z.string().regex(ATIF_VERSION, 'must be "ATIF-v1.<n>"'),
    session_id: z.string().nullish(),
    agent: z
      .object({ name: z.string().nullish(), version: z.string().nullish(), model_name: z.string().nullish(), extra: record.nullish() })
      .passthrough()
      .nullish(),
    steps: z.array(atifStepSchema),
    notes: z.string().nullish(),
    final_metrics: record.nullish(),
    extra: record.nullish(),
  })
  .passthrough();

export type AtifTrajectory = z.infer<typeof atifTrajectorySchema>;
type AtifStep = z.infer<typeof atifStepSchema>;
type AtifContent = z.infer<typeof content>;

/** Verdict's own fields of one step (the step's `extra.verdict`). */
const stepExtraSchema = bundleStepSchema.omit({ screenshot: true, rawScreenshot: true }).extend({
  screenshot: z.string().nullable().default(null),
  rawScreenshot: z.string().nullable().default(null),
  action: parsedActionSchema,
  elements: z.array(somElementSchema).nullable().default(null),
});

/** Verdict's own fields of the trajectory (the root `extra.verdict`). */
const trajectoryExtraSchema = z.object({
  format: z.literal(EXTRA_FORMAT),
  version: z.literal(EXTRA_VERSION),
  // The bundle's trajectory fields but its steps (ATIF carries those itself).
  ...bundleTrajectorySchema.omit({ steps: true }).shape,
  /** The database it was exported from: its own judge and rule verdicts are not imported into it again. */
  sourceInstance: z.string().optional(),
});

export type AtifVerdictExtra = z.infer<typeof trajectoryExtraSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Reading

export interface AtifImageRef {
  /** As written in the file: a path relative to it, an absolute path, or a URL (data: URLs included). */
  path: string;
  mediaType: string | null;
}

export interface AtifStepReading extends StepContent {
  index: number;
  screenshot: AtifImageRef | null;
  rawScreenshot: AtifImageRef | null;
  marksBurnedIn: boolean;
  durationMs: number | null;
}

export interface AtifReading {
  /** The task as the agent was given it: the first user message's text. */
  intent: string | null;
  agentName: string | null;
  agentVersion: string | null;
  model: string | null;
  sessionId: string | null;
  steps: AtifStepReading[];
  finalAnswer: string | null;
  outcome: Outcome;
  outcomeDetail: string | null;
  /** Verdict's own fields when the file is a Verdict export (task, run, verdicts, exact steps). */
  verdict: AtifVerdictExtra | null;
  /** What could not be taken as written, for the import report. */
  warnings: string[];
}

function textOf(c: AtifContent): string {
  if (!c) return "";
  if (typeof c === "string") return c;
  return c
    .filter((p) => p.type === "text" && typeof p.text === "string")
    .map((p) => p.text!)
    .join("\n");
}

function imagesOf(c: AtifContent): AtifImageRef[] {
  if (!c || typeof c === "string") return [];
  return c.filter((p) => p.type === "image" && p.source?.path).map((p) => ({ path: p.source!.path, mediaType: p.source!.media_type ?? null }));
}

const str = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v : typeof v === "number" ? String(v) : null);
const num = (v: unknown): number | null =>
  typeof v === "number" && Number.isFinite(v) ? v : typeof v === "string" && v.trim() && Number.isFinite(Number(v)) ? Number(v) : null;

/** A point the arguments name: x/y, coordinate/coordinates [x, y], or a position object. */
function pointOf(args: Record<string, unknown>): [number, number] | null {
  const x = num(args.x);
  const y = num(args.y);
  if (x !== null && y !== null) return [x, y];
  for (const key of ["start_coordinate", "coordinate", "coordinates", "point", "position"]) {
    const v = args[key];
    if (Array.isArray(v) && v.length >= 2 && num(v[0]) !== null && num(v[1]) !== null) return [num(v[0])!, num(v[1])!];
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (num(o.x) !== null && num(o.y) !== null) return [num(o.x)!, num(o.y)!];
    }
  }
  return null;
}

/** Where a drag ends: to_x/to_y, end/target coordinates, or the `coordinate` of a drag that starts at `start_coordinate`. */
function endOf(args: Record<string, unknown>): [number, number] | null {
  const x = num(args.to_x ?? args.end_x ?? args.x2);
  const y = num(args.to_y ?? args.end_y ?? args.y2);
  if (x !== null && y !== null) return [x, y];
  for (const key of ["end_coordinate", "to", "target_coordinate", ...(args.start_coordinate !== undefined ? ["coordinate"] : [])]) {
    const v = args[key];
    if (Array.isArray(v) && v.length >= 2 && num(v[0]) !== null && num(v[1]) !== null) return [num(v[0])!, num(v[1])!];
  }
  return null;
}

/** How far a scroll moved, [dx, dy] in pixels, when the arguments say (delta_x/delta_y, dx/dy). */
function deltaOf(args: Record<string, unknown>): [number, number] | null {
  const dx = num(args.delta_x ?? args.dx ?? args.scroll_x);
  const dy = num(args.delta_y ?? args.dy ?? args.scroll_y);
  return dx !== null || dy !== null ? [dx ?? 0, dy ?? 0] : null;
}

/** The element the arguments name: a Set-of-Marks label, an index, a ref or a selector. */
function targetOf(args: Record<string, unknown>): string | null {
  for (const key of ["target", "index", "element_index", "element_id", "bid", "ref", "mark", "label", "element", "selector", "xpath"]) {
    const v = str(args[key]);
    if (v !== null) return v;
  }
  return null;
}

function valueOf(args: Record<string, unknown>, keys: string[]): string | null {
  for (const key of keys) {
    const v = args[key];
    if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v.join("+");
    const s = str(v);
    if (s !== null) return s;
  }
  return null;
}

const DIRECTIONS = new Set(["up", "down", "left", "right"]);

function directionOf(name: string, args: Record<string, unknown>): ScrollDirection | null {
  const given = str(args.direction)?.toLowerCase();
  if (given && DIRECTIONS.has(given)) return given as ScrollDirection;
  const fromName = /(up|down|left|right)$/.exec(name)?.[1];
  if (fromName) return fromName as ScrollDirection;
  const dy = num(args.delta_y ?? args.dy ?? args.scroll_y);
  const dx = num(args.delta_x ?? args.dx ?? args.scroll_x);
  const amount = num(args.amount ?? args.scroll_amount ?? args.clicks);
  if (dy) return dy > 0 ? "down" : "up";
  if (dx) return dx > 0 ? "right" : "left";
  if (amount) return amount > 0 ? "down" : "up";
  return null;
}

/** `computer_click`, `browser.click`, `mcp__playwright__browser_click` → `click`. */
function baseName(functionName: string): string {
  const last =
    functionName
      .split(/__|\.|\//)
      .filter(Boolean)
      .at(-1) ?? functionName;
  return last
    .toLowerCase()
    .replace(/^(computer|browser|page|web|mouse_?|keyboard_?)_(?=.)/, "")
    .replace(/-/g, "_");
}

/**
 * One tool call as a Verdict action. Names are matched loosely (computer-use, browser and Verdict's own names);
 * a call that is no browser action Verdict knows stays `unparsed` with the call kept as written.
 */
export function toolCallAction(functionName: string, args: Record<string, unknown>): ParsedAction {
  const name = baseName(functionName);
  const target = targetOf(args);
  const coords = pointOf(args);
  const at = { ...(target !== null ? { target } : {}), ...(coords ? { coords } : {}) };
  const text = () => valueOf(args, ["text", "value", "content", "query", "input"]);
  if (/^(click|left_click|tap|mouse_click|click_element(_by_index)?|click_at|right_click|middle_click)$/.test(name)) {
    return { type: "click", ...at, ...(name.startsWith("right") ? { value: "right" } : name.startsWith("middle") ? { value: "middle" } : {}) };
  }
  if (/^(double_click|dblclick|triple_click)$/.test(name)) return { type: "dblclick", ...at };
  if (/^(type|type_text|input_text|fill|input|keyboard_type|insert_text|write)$/.test(name)) {
    const submit = args.submit === true || args.press_enter === true || args.enter === true;
    return { type: "type", ...at, value: text() ?? "", ...(submit ? { submit: true } : {}) };
  }
  if (/^(key|keys|press|press_key|keypress|hotkey|key_press|send_keys)$/.test(name))
    return { type: "press", ...at, value: valueOf(args, ["key", "keys", "text", "combo", "value"]) };
  if (/^(scroll|scroll_up|scroll_down|scroll_left|scroll_right|scroll_page|scroll_at)$/.test(name)) {
    const delta = deltaOf(args);
    return { type: "scroll", ...at, direction: directionOf(name, args), ...(delta ? { delta } : {}) };
  }
  if (/^(navigate|goto|go_to|go_to_url|open_url|visit|open|navigate_to|load_url)$/.test(name))
    return { type: "goto", value: valueOf(args, ["url", "href", "link", "value"]) };
  if (/^(back|go_back|navigate_back|history_back)$/.test(name)) return { type: "go_back" };
  if (/^(forward|go_forward|navigate_forward)$/.test(name)) return { type: "go_forward" };
  if (/^(wait|sleep|pause|noop)$/.test(name))
    return {
      type: "wait",
      ...(valueOf(args, ["seconds", "ms", "duration", "time"]) !== null ? { value: valueOf(args, ["seconds", "ms", "duration", "time"]) } : {}),
    };
  if (/^(hover|mouse_move|move|move_mouse|mouse_over)$/.test(name)) return { type: "hover", ...at };
  if (/^(drag|left_click_drag|drag_and_drop|drag_to|mouse_drag)$/.test(name)) {
    const to = endOf(args);
    return { type: "drag", ...at, ...(to ? { to } : {}) };
  }
  if (/^(select|select_option|select_dropdown_option|choose_option)$/.test(name))
    return { type: "select", ...at, value: valueOf(args, ["option", "options", "value", "text", "label"]) };
  if (/^(clear|clear_input)$/.test(name)) return { type: "clear", ...at };
  if (/^(upload|upload_file|set_input_files)$/.test(name)) return { type: "upload", ...at, value: valueOf(args, ["file", "path", "files"]) };
  if (/^(new_tab|open_tab)$/.test(name)) return { type: "new_tab", ...(valueOf(args, ["url"]) !== null ? { value: valueOf(args, ["url"]) } : {}) };
  if (/^(close_tab|tab_close)$/.test(name)) return { type: "close_tab" };
  if (/^(switch_tab|tab_focus|focus_tab|select_tab)$/.test(name)) return { type: "tab_focus", value: valueOf(args, ["index", "tab", "tab_id", "page_id"]) };
  if (/^(search|google|web_search|search_google|search_engine)$/.test(name))
    return { type: "search_engine", value: valueOf(args, ["query", "q", "text", "value"]) };
  if (/^(screenshot|take_screenshot|capture|observe|get_screenshot)$/.test(name)) return { type: "noop", value: "screenshot" };
  if (/^(answer|done|finish|final_answer|submit|stop|send_msg_to_user|respond|reply|terminate|complete|complete_task|task_complete|report)$/.test(name)) {
    return { type: "answer", value: valueOf(args, ["text", "answer", "message", "content", "result", "response", "value"]) };
  }
  if (/^(report_infeasible|infeasible|give_up)$/.test(name)) return { type: "report_infeasible", value: valueOf(args, ["reason", "text", "message"]) };
  return { type: "unparsed", value: renderCall(functionName, args), parseError: `tool call "${functionName}" is not a browser action Verdict knows` };
}

function renderCall(functionName: string, args: Record<string, unknown>): string {
  return `${functionName}(${Object.keys(args).length ? JSON.stringify(args) : ""})`;
}

/** Every tool call of a step as one action (several calls: the first, with all of them in `calls`). */
function callsAction(calls: { function_name: string; arguments?: Record<string, unknown> | null }[]): ParsedAction {
  const parsed = calls.map((c) => toolCallAction(c.function_name, c.arguments ?? {}));
  return parsed.length === 1 ? parsed[0]! : { ...parsed[0]!, calls: parsed };
}

/** Observation text that reports a failure of the step's action. */
const FAILURE = /^\s*(error|exception|traceback|failed|failure)\b/i;

/** Reads an ATIF trajectory (already checked against atifTrajectorySchema). */
export function readAtif(doc: AtifTrajectory): AtifReading {
  const warnings: string[] = [];
  const rootExtra = doc.extra?.[ATIF_EXTRA_KEY];
  let verdict: AtifVerdictExtra | null = null;
  if (rootExtra !== undefined) {
    const parsed = trajectoryExtraSchema.safeParse(rootExtra);
    if (parsed.success) verdict = parsed.data;
    else
      warnings.push(
        `extra.${ATIF_EXTRA_KEY} is not Verdict's (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}); read as plain ATIF`,
      );
  }

  let intent: string | null = null;
  let shown: AtifImageRef | null = null;
  const steps: AtifStepReading[] = [];
  const agentSteps = doc.steps.filter((s) => s.source === "agent");
  const lastAgent = agentSteps.at(-1);
  for (const s of doc.steps) {
    const images = imagesOf(s.message);
    if (s.source === "user") {
      if (intent === null) intent = textOf(s.message).trim() || null;
      if (images.length) shown = images.at(-1)!;
      continue;
    }
    if (s.source === "system") {
      if (images.length) shown = images.at(-1)!;
      continue;
    }
    steps.push(agentStep(s, steps.length, shown, s === lastAgent, warnings));
    const observed = (s.observation?.results ?? []).flatMap((r) => imagesOf(r.content));
    // An image shown with the agent's own message (a computer-use agent's screenshot call) is what it saw next.
    shown = observed.at(-1) ?? images.at(-1) ?? null;
  }

  let finalAnswer: string | null = null;
  let outcome: Outcome = "unknown";
  let outcomeDetail: string | null = null;
  const last = steps.at(-1);
  const answers = last ? (last.action.calls ?? [last.action]).filter((a) => a.type === "answer") : [];
  if (answers.length) {
    finalAnswer = answers.at(-1)!.value ?? "";
    outcome = "answered";
  } else if (last?.action.type === "report_infeasible") {
    finalAnswer = last.action.value ?? "";
    outcome = "answered";
    outcomeDetail = "reported the task infeasible";
  } else {
    outcomeDetail = steps.length ? "the last step is not an answer" : "the trajectory has no agent step";
  }
  if (verdict) {
    finalAnswer = verdict.finalAnswer;
    outcome = verdict.outcome;
    outcomeDetail = verdict.outcomeDetail;
  }
  return {
    intent: verdict?.task.intent ?? intent,
    agentName: doc.agent?.name ?? null,
    agentVersion: doc.agent?.version ?? null,
    model: doc.agent?.model_name ?? agentSteps.find((s) => s.model_name)?.model_name ?? null,
    sessionId: doc.session_id ?? null,
    steps,
    finalAnswer,
    outcome,
    outcomeDetail,
    verdict,
    warnings,
  };
}

function agentStep(s: AtifStep, index: number, shown: AtifImageRef | null, isLast: boolean, warnings: string[]): AtifStepReading {
  const own = s.extra?.[ATIF_EXTRA_KEY];
  if (own !== undefined) {
    const parsed = stepExtraSchema.safeParse(own);
    if (parsed.success) {
      const e = parsed.data;
      const image = (p: string | null) => (p === null ? null : { path: p, mediaType: null });
      return {
        index: e.index,
        screenshot: image(e.screenshot),
        rawScreenshot: image(e.rawScreenshot),
        marksBurnedIn: e.marksBurnedIn,
        url: e.url,
        thought: e.thought,
        actionRaw: e.actionRaw,
        action: e.action,
        elements: e.elements,
        error: e.error,
        durationMs: e.durationMs,
      };
    }
    warnings.push(
      `step ${s.step_id ?? index + 1}: extra.${ATIF_EXTRA_KEY} is not Verdict's (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}); read as plain ATIF`,
    );
  }
  const calls = s.tool_calls ?? [];
  const message = textOf(s.message).trim() || null;
  const reasoning = s.reasoning_content?.trim() || null;
  let action: ParsedAction;
  let actionRaw: string | null;
  let thought: string | null;
  if (calls.length) {
    action = callsAction(calls);
    actionRaw = calls.map((c) => renderCall(c.function_name, c.arguments ?? {})).join("\n");
    thought = reasoning ?? message;
  } else if (isLast && message) {
    // The agent's closing words are its answer.
    action = { type: "answer", value: message };
    actionRaw = message;
    thought = reasoning;
  } else {
    action = { type: "noop", ...(message ? { value: message } : {}) };
    actionRaw = message;
    thought = reasoning;
  }
  const failures = (s.observation?.results ?? []).map((r) => textOf(r.content).trim()).filter((t) => FAILURE.test(t));
  return {
    index,
    screenshot: shown,
    rawScreenshot: null,
    marksBurnedIn: false,
    url: null,
    thought,
    actionRaw,
    action,
    elements: null,
    error: failures.length ? failures.join("\n") : null,
    durationMs: null,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

const MEDIA_TYPES: Record<string, string> = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", webp: "image/webp", gif: "image/gif" };

function mediaTypeOf(file: string): string {
  return MEDIA_TYPES[file.split(".").pop()!.toLowerCase()] ?? "image/png";
}

/** The arguments of a Verdict action as an ATIF tool call gives them. */
function argumentsOf(a: ParsedAction): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (a.target !== undefined && a.target !== null) out.target = a.target;
  if (a.value !== undefined && a.value !== null) out[a.type === "answer" ? "text" : a.type === "goto" ? "url" : "value"] = a.value;
  if (a.direction) out.direction = a.direction;
  if (a.coords) {
    out.x = a.coords[0];
    out.y = a.coords[1];
  }
  if (a.to) {
    out.to_x = a.to[0];
    out.to_y = a.to[1];
  }
  if (a.delta) {
    out.delta_x = a.delta[0];
    out.delta_y = a.delta[1];
  }
  if (a.submit) out.submit = true;
  return out;
}

/**
 * A Verdict trajectory (in its bundle form) as ATIF. `imagePath` gives the path, relative to the ATIF file, under
 * which each image is written beside it.
 */
export function toAtif(
  t: BundleTrajectory,
  imagePath: (image: BundleImage) => string,
  opts: { sessionId: string; generator: string; sourceInstance?: string },
): Record<string, unknown> {
  const image = (img: BundleImage | null) => (img ? [{ type: "image", source: { media_type: mediaTypeOf(img.file), path: imagePath(img) } }] : []);
  const first = t.steps[0];
  const steps: Record<string, unknown>[] = [
    {
      step_id: 1,
      source: "user",
      message: first?.screenshot ? [{ type: "text", text: t.task.intent }, ...image(first.screenshot)] : t.task.intent,
      ...(t.task.startUrl ? { extra: { start_url: t.task.startUrl } } : {}),
    },
  ];
  t.steps.forEach((s, i) => {
    const callId = `call_${i + 1}`;
    const calls = s.action.calls?.length ? s.action.calls : [s.action];
    const next = t.steps[i + 1];
    const results: Record<string, unknown>[] = [];
    if (s.error) results.push({ source_call_id: callId, content: `Error: ${s.error}` });
    if (next?.screenshot) results.push({ source_call_id: callId, content: image(next.screenshot) });
    steps.push({
      step_id: i + 2,
      source: "agent",
      ...(t.run.model ? { model_name: t.run.model } : {}),
      message: s.actionRaw ?? "",
      ...(s.thought ? { reasoning_content: s.thought } : {}),
      tool_calls: calls.map((c, k) => ({ tool_call_id: k === 0 ? callId : `${callId}_${k + 1}`, function_name: c.type, arguments: argumentsOf(c) })),
      ...(results.length ? { observation: { results } } : {}),
      extra: {
        [ATIF_EXTRA_KEY]: {
          index: s.index,
          screenshot: s.screenshot ? imagePath(s.screenshot) : null,
          rawScreenshot: s.rawScreenshot ? imagePath(s.rawScreenshot) : null,
          marksBurnedIn: s.marksBurnedIn,
          ...stepContent(s),
          durationMs: s.durationMs,
        },
        ...(s.url ? { url: s.url } : {}),
      },
    });
  });
  const extra: AtifVerdictExtra = {
    format: EXTRA_FORMAT,
    version: EXTRA_VERSION,
    task: t.task,
    run: t.run,
    attempt: t.attempt,
    finalAnswer: t.finalAnswer,
    outcome: t.outcome,
    outcomeDetail: t.outcomeDetail,
    verdicts: t.verdicts,
    ...(opts.sourceInstance ? { sourceInstance: opts.sourceInstance } : {}),
  };
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    session_id: opts.sessionId,
    agent: {
      name: t.run.agentName,
      version: "unknown",
      ...(t.run.model ? { model_name: t.run.model } : {}),
      extra: { run: t.run.name, source_system: t.run.sourceSystem },
    },
    steps,
    notes: `Exported by ${opts.generator}. Screenshots are image content parts with paths relative to this file: the first with the task, each later one in the observation of the step before it. extra.${ATIF_EXTRA_KEY} holds what ATIF has no field for (parsed actions, Set-of-Marks boxes, unmarked screenshots, the run, verdicts).`,
    final_metrics: { total_steps: steps.length },
    extra: { [ATIF_EXTRA_KEY]: extra },
  };
}

/**
 * One Browser Use history entry (`AgentHistoryList.history[i]`) as a step: its actions (several per step become one
 * multi-call action), the model's reasoning, the page URL, errors, timing, and the elements it acted on. Shared by
 * the Browser Use importer and Online-Mind2Web results written by Browser Use's evaluation (`complete_history`).
 *
 * Points and boxes are recorded in the viewport's CSS pixels; `scale` (screenshot pixels per CSS pixel, known when
 * the entry records the viewport) puts them on the screenshot.
 */
import { browserUseElement, browserUseSomElement, parseBrowserUseAction } from "../domain/actions/browser-use";
import type { ParsedAction, SomElement } from "../domain/types";

function record(v: unknown): Record<string, unknown> | null {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() ? v.trim() : null;
}

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

export interface BrowserUseStepParts {
  actionRaw: string | null;
  action: ParsedAction;
  thought: string | null;
  url: string | null;
  error: string | null;
  durationMs: number | null;
  elements: SomElement[] | null;
  /** The final `done`: its text and the agent's own success claim (not a verdict). */
  done: { text: string | null; success: boolean | null } | null;
  /** The viewport (CSS pixels) the entry's points and boxes were measured in, when it records one. */
  viewport: { width: number; height: number } | null;
}

/** The model's reasoning as one text: its thinking, then its evaluation of the last goal, memory and next goal. */
export function browserUseThought(output: Record<string, unknown> | null): string | null {
  if (!output) return null;
  const state = record(output.current_state) ?? output;
  const parts: string[] = [];
  const thinking = str(output.thinking) ?? str(state.thinking);
  if (thinking) parts.push(thinking);
  const evaluation = str(state.evaluation_previous_goal);
  if (evaluation) parts.push(`Evaluation of the previous goal: ${evaluation}`);
  const summary = str(state.page_summary);
  if (summary) parts.push(`Page summary: ${summary}`);
  const memory = str(state.memory);
  if (memory) parts.push(`Memory: ${memory}`);
  const next = str(state.next_goal);
  if (next) parts.push(`Next goal: ${next}`);
  return parts.length ? parts.join("\n") : null;
}

/** Where the entry records the viewport: an interacted element's `viewport_info` (older releases). */
export function browserUseViewport(entry: unknown): { width: number; height: number } | null {
  const state = record(record(entry)?.state);
  const interacted = Array.isArray(state?.interacted_element) ? state!.interacted_element : [];
  for (const e of interacted) {
    const el = browserUseElement(e);
    if (el?.viewport) return el.viewport;
  }
  return null;
}

export function browserUseStepParts(entry: unknown, scale = 1): BrowserUseStepParts {
  const e = record(entry) ?? {};
  const output = record(e.model_output);
  const state = record(e.state);
  const results = Array.isArray(e.result) ? e.result.map(record) : [];
  const rawActions = Array.isArray(output?.action) ? output!.action : [];
  const interacted = Array.isArray(state?.interacted_element) ? state!.interacted_element : [];
  const elements: SomElement[] = [];
  const calls: ParsedAction[] = rawActions.map((raw, i) => {
    const action = parseBrowserUseAction(raw);
    const result = results[i] ?? null;
    const meta = record(result?.metadata);
    const x = num(meta?.click_x) ?? num(meta?.input_x);
    const y = num(meta?.click_y) ?? num(meta?.input_y);
    if (x !== null && y !== null) action.coords = [x, y];
    if (action.coords) action.coords = [action.coords[0] * scale, action.coords[1] * scale];
    if (action.to) action.to = [action.to[0] * scale, action.to[1] * scale];
    const el = browserUseElement(interacted[i]);
    if (el) {
      const label = action.target ?? el.label;
      if (label && !elements.some((x) => x.label === label)) elements.push(browserUseSomElement(el, label, scale));
      if (!action.target && label && el.box) action.target = label;
    }
    return action;
  });
  const action: ParsedAction =
    calls.length === 0
      ? { type: "unparsed", value: null, parseError: output ? "the model output holds no action" : "the step has no model output (the model call failed)" }
      : calls.length === 1
        ? calls[0]!
        : { ...calls[0]!, calls };
  const errors = results.map((r) => str(r?.error)).filter((x): x is string => !!x);
  const doneResult = results.find((r) => r?.is_done === true) ?? null;
  const doneIndex = rawActions.findIndex((a) => record(a) && "done" in (a as object));
  const doneParams = doneIndex >= 0 ? record(record(rawActions[doneIndex])!.done) : null;
  const done =
    doneResult || doneParams
      ? {
          text: str(doneResult?.extracted_content) ?? str(doneParams?.text) ?? (doneParams?.data !== undefined ? JSON.stringify(doneParams.data) : null),
          success: typeof doneResult?.success === "boolean" ? doneResult.success : typeof doneParams?.success === "boolean" ? doneParams.success : null,
        }
      : null;
  const meta = record(e.metadata);
  const start = num(meta?.step_start_time);
  const end = num(meta?.step_end_time);
  return {
    actionRaw: rawActions.length ? rawActions.map((a) => JSON.stringify(a)).join("\n") : null,
    action,
    thought: browserUseThought(output),
    url: str(state?.url),
    error: errors.length ? errors.join("\n") : null,
    durationMs: start !== null && end !== null && end >= start ? Math.round((end - start) * 1000) : null,
    elements: elements.length ? elements : null,
    done,
    viewport: browserUseViewport(entry),
  };
}

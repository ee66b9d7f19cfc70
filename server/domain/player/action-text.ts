/**
 * One-line descriptions of parsed actions for the step panel, the filmstrip tooltips and the action overlay.
 */
import type { ParsedAction } from "../types";

const VERB: Record<ParsedAction["type"], string> = {
  click: "Click",
  dblclick: "Double-click",
  type: "Type",
  clear: "Clear",
  select: "Select",
  hover: "Hover",
  press: "Press",
  scroll: "Scroll",
  wait: "Wait",
  go_back: "Go back",
  go_forward: "Go forward",
  goto: "Go to",
  search_engine: "Search engine",
  new_tab: "New tab",
  tab_focus: "Focus tab",
  close_tab: "Close tab",
  drag: "Drag",
  upload: "Upload",
  answer: "Answer",
  report_infeasible: "Report infeasible",
  noop: "No-op",
  unparsed: "Unparsed",
};

function clip(s: string, max: number): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export function actionVerb(a: ParsedAction): string {
  return VERB[a.type] ?? a.type;
}

/** e.g. `Click [12]`, `Type [3] "green controller" ⏎`, `Scroll window ↓`, `Answer "6 out of 6"`. */
export function describeAction(a: ParsedAction, maxValue = 80): string {
  if (a.calls && a.calls.length > 1) return a.calls.map((c) => describeAction(c, Math.max(20, maxValue / 2))).join(" · ");
  const parts: string[] = [actionVerb(a)];
  if (a.target) parts.push(`[${a.target}]`);
  else if (a.coords) parts.push(`(${Math.round(a.coords[0])}, ${Math.round(a.coords[1])})`);
  else if (a.type === "scroll") parts.push("window");
  if (a.type === "drag" && a.to) parts.push(`→ (${Math.round(a.to[0])}, ${Math.round(a.to[1])})`);
  if (a.direction) parts.push({ up: "↑", down: "↓", left: "←", right: "→" }[a.direction]);
  if (a.type === "scroll" && a.delta && (a.delta[0] || a.delta[1])) {
    const [dx, dy] = a.delta.map((n) => Math.round(Math.abs(n)));
    parts.push(dx && dy ? `${dx} × ${dy} px` : `${dx || dy} px`);
  }
  if (a.type === "unparsed") {
    if (a.parseError) parts.push(`(${a.parseError})`);
  } else if (a.value) {
    parts.push(a.type === "type" || a.type === "answer" || a.type === "report_infeasible" ? `"${clip(a.value, maxValue)}"` : clip(a.value, maxValue));
  }
  if (a.type === "type" && a.submit) parts.push("⏎");
  return parts.join(" ");
}

/** Short label for a filmstrip cell: verb and target only. */
export function shortAction(a: ParsedAction): string {
  if (a.calls && a.calls.length > 1) return `${a.calls.length} actions`;
  return a.target ? `${actionVerb(a)} [${a.target}]` : actionVerb(a);
}

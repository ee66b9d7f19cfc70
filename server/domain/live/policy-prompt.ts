/**
 * Verdict's own prompt for the VLM policy of the live runner, versioned: every live run stores the version it was
 * driven with, and a change to the wording or the message layout gets a new version.
 *
 * Layout (chat messages): the instructions as the system message; one user message per earlier step with what the
 * page was and, for the most recent steps only, its marked screenshot; after each, the assistant's reply of that
 * step; then the current observation (marked screenshot, element list, URL, tabs, the previous action's error).
 * Screenshots are clipped to the last `keepScreenshots` (WebVoyager keeps 3): older steps stay as text, so the model
 * still knows what it did without the context growing by an image per step.
 *
 * Pure: images arrive as data URLs, the result is plain message objects an OpenAI-compatible client sends as is.
 */
import type { SomElement } from "../types";

/** v2: a task's input images (VisualWebArena's `image`) follow the task text in the first user message. */
export const RUNNER_PROMPT_VERSION = "verdict-live-v2";

export const RUNNER_SYSTEM_PROMPT = `You are operating a web browser on behalf of a user to complete one task. Each turn you see a screenshot of the browser tab, in which the interactive elements are outlined and numbered, the list of those numbered elements with their text, the address of the page, the open tabs, and what you did in earlier turns.

Answer every turn in this form and nothing else:
Reasoning: <one to three sentences: what the screenshot shows that matters for the task, and why the next action follows>
Action: <exactly one action from the list below>

Actions (N is the number of an element in the current screenshot):
click [N]
type [N] [text]          clear the field N, type the text, then press Enter; write type [N] [text] [0] to not press Enter
select [N] [option]      choose an option of the drop-down list N
hover [N]
press [keys]             for example press [Enter] or press [Control+a]
scroll [down]            scroll the page; scroll [up] goes back up
scroll [N] [down]        scroll inside element N (a list or panel with its own scroll bar); or [up]
wait                     wait a moment for the page to finish changing
go_back                  the previous page; go_forward undoes it
goto [URL]               open an address in this tab
new_tab                  open an empty tab; tab_focus [i] switches to tab i; close_tab closes this one
stop [answer]            end the task with your answer; write stop [N/A] when the task cannot be done

Rules:
- One action per turn, and only element numbers that appear in the current screenshot.
- When an action fails you are told why on the next turn: change your approach instead of repeating it.
- Stay on the task's website. Leaving it may be blocked, and some buttons (payments, deletions, sign-ins) may be refused.
- Once the page shows what the task asks for, stop with the answer rather than browsing further.`;

export interface PromptTextPart {
  type: "text";
  text: string;
}

export interface PromptImagePart {
  type: "image_url";
  image_url: { url: string; detail?: "auto" | "low" | "high" };
}

export type PromptMessage =
  { role: "system"; content: string } | { role: "user"; content: (PromptTextPart | PromptImagePart)[] } | { role: "assistant"; content: string };

export interface PromptPastStep {
  index: number;
  url: string | null;
  /** The reply of that step as the model wrote it (or rebuilt from its reasoning and action). */
  reply: string;
  /** Why the action failed, when it did. */
  error: string | null;
  /** Marked screenshot of that step as a data URL, when kept. */
  screenshot: string | null;
}

export interface PromptInput {
  intent: string;
  startUrl: string | null;
  /** 0-based index of the step being decided. */
  stepIndex: number;
  maxSteps: number;
  url: string;
  title: string;
  tabs: { index: number; url: string; active: boolean }[];
  elements: SomElement[];
  /** Data URL of the current marked screenshot. */
  screenshot: string;
  history: PromptPastStep[];
  /** Screenshots sent per call, the current one included (≥ 1). */
  keepScreenshots: number;
  imageDetail?: "auto" | "low" | "high";
  /** Data URLs of the images given with the task; sent with the task text on every call, outside the window. */
  inputImages?: string[];
}

/** Caps that keep one turn's text bounded on pages with hundreds of elements. */
export const MAX_ELEMENTS_LISTED = 250;
export const MAX_ELEMENT_TEXT = 100;

function clip(text: string, max: number): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** One element per line: `[N] <tag> text`. */
export function formatElementLines(elements: SomElement[]): string {
  if (elements.length === 0) return "(no interactive elements are visible)";
  const lines = elements.slice(0, MAX_ELEMENTS_LISTED).map((e) => {
    const text = clip(e.text ?? "", MAX_ELEMENT_TEXT);
    return `[${e.label}] <${e.tag ?? "element"}>${text ? ` ${text}` : ""}`;
  });
  if (elements.length > MAX_ELEMENTS_LISTED) lines.push(`… and ${elements.length - MAX_ELEMENTS_LISTED} more elements not listed`);
  return lines.join("\n");
}

function image(url: string, detail: PromptInput["imageDetail"]): PromptImagePart {
  return { type: "image_url", image_url: detail ? { url, detail } : { url } };
}

function text(t: string): PromptTextPart {
  return { type: "text", text: t };
}

export function buildPolicyMessages(input: PromptInput): PromptMessage[] {
  const keep = Math.max(1, Math.floor(input.keepScreenshots));
  // The current screenshot is always sent; the earlier ones fill the rest of the window, most recent first.
  const firstWithImage = input.history.length - (keep - 1);
  const messages: PromptMessage[] = [{ role: "system", content: RUNNER_SYSTEM_PROMPT }];
  const taskLine = `Task: ${input.intent.trim()}${input.startUrl ? `\n(The task starts at ${input.startUrl}.)` : ""}`;

  const inputImages = input.inputImages ?? [];
  // The task's own images belong to the task: they come right after its text, before any page.
  const taskImages = (): (PromptTextPart | PromptImagePart)[] =>
    inputImages.length
      ? [
          text(`The task comes with ${inputImages.length === 1 ? "this image" : `these ${inputImages.length} images`}:`),
          ...inputImages.map((u) => image(u, input.imageDetail)),
        ]
      : [];

  input.history.forEach((step, i) => {
    const parts: (PromptTextPart | PromptImagePart)[] = [];
    if (i === 0 && inputImages.length) parts.push(text(taskLine), ...taskImages());
    const head = i === 0 && !inputImages.length ? `${taskLine}\n\n` : "";
    const failed = i > 0 && input.history[i - 1]!.error ? `Your previous action failed: ${input.history[i - 1]!.error}\n` : "";
    const withImage = i >= firstWithImage && step.screenshot;
    parts.push(text(`${head}${failed}Step ${step.index + 1}. Page: ${step.url ?? "unknown"}${withImage ? "\nScreenshot:" : " (screenshot no longer shown)"}`));
    if (withImage) parts.push(image(step.screenshot!, input.imageDetail));
    messages.push({ role: "user", content: parts });
    messages.push({ role: "assistant", content: step.reply });
  });

  const previous = input.history[input.history.length - 1];
  const first = input.history.length === 0;
  const lines = [
    first && !inputImages.length ? `${taskLine}\n` : "",
    previous?.error ? `Your previous action failed: ${previous.error}` : "",
    `Step ${input.stepIndex + 1} of at most ${input.maxSteps}.${input.stepIndex + 1 >= input.maxSteps ? " This is the last step: stop with your best answer." : ""}`,
    `Page: ${input.url}${input.title ? ` (${clip(input.title, 120)})` : ""}`,
    input.tabs.length > 1 ? `Open tabs:\n${input.tabs.map((t) => `  [${t.index}] ${t.url}${t.active ? " (current)" : ""}`).join("\n")}` : "",
    `Numbered elements:\n${formatElementLines(input.elements)}`,
    "Current screenshot:",
  ].filter(Boolean);
  const lead = first && inputImages.length ? [text(taskLine), ...taskImages()] : [];
  messages.push({ role: "user", content: [...lead, text(lines.join("\n")), image(input.screenshot, input.imageDetail)] });
  return messages;
}

/** Rebuilds a step's reply in the prompt's own format when the original text is not at hand. */
export function replyText(thought: string | null, actionRaw: string | null): string {
  return `Reasoning: ${thought?.trim() || "(none)"}\nAction: ${actionRaw?.trim() || "(none)"}`;
}

/**
 * Executing a parsed action on the live page.
 *
 * Element actions aim at the centre of the target's Set-of-Marks box from the observation the policy saw, with
 * real mouse and keyboard input, the way WebVoyager and VisualWebArena act. Problems the agent caused (a label that
 * is not on the page, typing into a button, going back with no history) come back as an error message rather than
 * an exception: the runner records it on the step and shows it to the policy on the next turn. Only failures of the
 * browser itself (a closed page, a crashed renderer) throw and end the run.
 */
import type { ElementHandle, Page } from "playwright";
import type { ParsedAction, SomElement } from "../domain/types";
import { markActivity } from "./settle";
import type { BrowserSession } from "./session";

export interface ActionContext {
  session: BrowserSession;
  /** The elements of the observation the action was chosen on. */
  elements: SomElement[];
  /** Screenshot pixels per CSS pixel of that observation. */
  scale?: number;
}

export interface ActionOptions {
  /** How long a `wait` action waits. */
  waitMs?: number;
  /** Search URL prefix for `search_engine` with a query; the query is appended URL-encoded. */
  searchUrl?: string;
  /** Timeout for navigations the action starts explicitly (goto, back, forward). */
  navigationTimeoutMs?: number;
}

export interface ActionResult {
  /** Why the action could not be carried out, phrased for the agent; null on success. */
  error: string | null;
  /** True for actions that end the run (answer, report_infeasible). */
  ended: boolean;
}

const DEFAULTS: Required<ActionOptions> = {
  waitMs: 1000,
  searchUrl: "https://www.google.com/search?q=",
  navigationTimeoutMs: 15_000,
};

const ok: ActionResult = { error: null, ended: false };
const fail = (error: string): ActionResult => ({ error, ended: false });

/** Thrown only for browser failures that must end the run. */
export class BrowserFailure extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "BrowserFailure";
  }
}

function labelRange(elements: SomElement[]): string {
  if (elements.length === 0) return "this page has no marked elements";
  return `the marks on this screenshot are 0–${elements.length - 1}`;
}

/** The target element, or an error message for the agent. */
export function resolveTarget(action: ParsedAction, elements: SomElement[]): SomElement | string {
  const target = action.target?.trim();
  if (!target) return `${action.type} needs an element number`;
  const found = elements.find((e) => e.label === target);
  if (!found) return `element [${target}] is not on the page: ${labelRange(elements)}`;
  if (!found.bbox) return `element [${target}] has no position on the screenshot`;
  return found;
}

function centre(el: SomElement, scale: number): { x: number; y: number } {
  const [x, y, w, h] = el.bbox!;
  return { x: (x + w / 2) / scale, y: (y + h / 2) / scale };
}

const KEY_NAMES: Record<string, string> = {
  ctrl: "Control",
  control: "Control",
  cmd: "Meta",
  command: "Meta",
  meta: "Meta",
  win: "Meta",
  alt: "Alt",
  option: "Alt",
  shift: "Shift",
  enter: "Enter",
  return: "Enter",
  esc: "Escape",
  escape: "Escape",
  tab: "Tab",
  space: "Space",
  backspace: "Backspace",
  delete: "Delete",
  del: "Delete",
  up: "ArrowUp",
  down: "ArrowDown",
  left: "ArrowLeft",
  right: "ArrowRight",
  arrowup: "ArrowUp",
  arrowdown: "ArrowDown",
  arrowleft: "ArrowLeft",
  arrowright: "ArrowRight",
  pageup: "PageUp",
  pagedown: "PageDown",
  home: "Home",
  end: "End",
};

/** "ctrl+a", "Control+A", "meta+Enter" → Playwright key syntax ("Control+a", "Meta+Enter"). */
export function normaliseKeyCombination(combo: string): string {
  return combo
    .split("+")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const named = KEY_NAMES[part.toLowerCase()];
      if (named) return named;
      if (/^f\d{1,2}$/i.test(part)) return part.toUpperCase();
      return part.length === 1 ? part.toLowerCase() : part;
    })
    .join("+");
}

const EDITABLE_CHECK = `(() => {
  const a = document.activeElement;
  if (!a) return null;
  const tag = a.tagName.toLowerCase();
  if (a.isContentEditable) return 'ok';
  if (tag === 'textarea') return a.readOnly ? tag : 'ok';
  if (tag === 'input') {
    const t = (a.getAttribute('type') || 'text').toLowerCase();
    const textual = ['text', 'search', 'email', 'url', 'tel', 'password', 'number', 'date', 'time', 'datetime-local', 'month', 'week'];
    return textual.includes(t) && !a.readOnly ? 'ok' : 'input type=' + t;
  }
  return tag;
})()`;

interface ScrollArgs {
  x: number | null;
  y: number | null;
  dx: number;
  dy: number;
}

/** Scrolls the nearest scrollable ancestor of the element at (x, y), or the window; reports what moved. */
const SCROLL_SCRIPT = `(args) => {
  function scrollable(el) {
    for (let e = el; e && e !== document.body && e !== document.documentElement; e = e.parentElement) {
      const s = getComputedStyle(e);
      const canY = /(auto|scroll|overlay)/.test(s.overflowY) && e.scrollHeight > e.clientHeight + 1;
      const canX = /(auto|scroll|overlay)/.test(s.overflowX) && e.scrollWidth > e.clientWidth + 1;
      if ((args.dy !== 0 && canY) || (args.dx !== 0 && canX)) return e;
    }
    return null;
  }
  const start = args.x === null ? null : document.elementFromPoint(args.x, args.y);
  const box = start ? scrollable(start) : null;
  if (box) {
    const before = [box.scrollLeft, box.scrollTop];
    box.scrollBy({ left: args.dx * box.clientWidth, top: args.dy * box.clientHeight, behavior: 'instant' });
    return { target: 'element', moved: before[0] !== box.scrollLeft || before[1] !== box.scrollTop };
  }
  const before = [window.scrollX, window.scrollY];
  window.scrollBy({ left: args.dx * window.innerWidth, top: args.dy * window.innerHeight, behavior: 'instant' });
  return { target: 'window', moved: before[0] !== window.scrollX || before[1] !== window.scrollY };
}`;

/** Two thirds of the visible height per scroll, as WebVoyager scrolls. */
const SCROLL_FRACTION = 2 / 3;

function scrollDelta(direction: ParsedAction["direction"]): { dx: number; dy: number } | null {
  switch (direction ?? "down") {
    case "down":
      return { dx: 0, dy: SCROLL_FRACTION };
    case "up":
      return { dx: 0, dy: -SCROLL_FRACTION };
    case "right":
      return { dx: SCROLL_FRACTION, dy: 0 };
    case "left":
      return { dx: -SCROLL_FRACTION, dy: 0 };
    default:
      return null;
  }
}

function navigableUrl(value: string | null | undefined, base: string): URL | string {
  const text = value?.trim();
  if (!text) return "goto needs a URL";
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(text) ? text : /^[\w-]+(\.[\w-]+)+/.test(text) ? `https://${text}` : text, base);
  } catch {
    return `"${text}" is not a URL`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:" && url.href !== "about:blank") {
    return `cannot open ${url.protocol} URLs, only http and https`;
  }
  return url;
}

function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split("\n")[0]!;
}

async function typeInto(page: Page, el: SomElement, action: ParsedAction, scale: number): Promise<ActionResult> {
  let text = action.value ?? "";
  let submit = action.submit ?? false;
  // VisualWebArena marks "press Enter afterwards" with a trailing newline.
  if (text.endsWith("\n")) {
    text = text.replace(/\n+$/, "");
    submit = true;
  }
  const { x, y } = centre(el, scale);
  await page.mouse.click(x, y);
  const editable = (await page.evaluate(EDITABLE_CHECK)) as string | null;
  if (editable !== "ok") {
    return fail(`element [${el.label}] (${editable ?? el.tag ?? "element"}) is not a text field; click a text box first`);
  }
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("Backspace");
  if (text) await page.keyboard.type(text);
  if (submit) await page.keyboard.press("Enter");
  return ok;
}

async function selectOption(page: Page, el: SomElement, value: string, scale: number): Promise<ActionResult> {
  const { x, y } = centre(el, scale);
  const handle = await page.evaluateHandle(`document.elementFromPoint(${x}, ${y})?.closest('select') ?? null`);
  const select = handle.asElement() as ElementHandle | null;
  if (!select) {
    await handle.dispose();
    return fail(`element [${el.label}] is not a drop-down list`);
  }
  try {
    const options = (await select.evaluate("(s) => Array.from(s.options).map((o) => ({ value: o.value, label: o.text.trim() }))")) as {
      value: string;
      label: string;
    }[];
    const wanted = value.trim().toLowerCase();
    const match =
      options.find((o) => o.label.toLowerCase() === wanted || o.value.toLowerCase() === wanted) ?? options.find((o) => o.label.toLowerCase().includes(wanted));
    if (!match) return fail(`element [${el.label}] has no option "${value}" (options: ${options.map((o) => o.label).join(", ")})`);
    await select.selectOption({ value: match.value });
    return ok;
  } finally {
    await select.dispose();
  }
}

async function navigateHistory(page: Page, direction: "back" | "forward", timeout: number): Promise<ActionResult> {
  const before = page.url();
  const response = direction === "back" ? await page.goBack({ waitUntil: "commit", timeout }) : await page.goForward({ waitUntil: "commit", timeout });
  const none = direction === "back" ? "there is no previous page in this tab" : "there is no next page in this tab";
  if (!response && page.url() === before) return fail(none);
  // A new tab starts on about:blank; going back to it is not a page the agent ever saw.
  if (direction === "back" && page.url() === "about:blank" && before !== "about:blank") {
    try {
      await page.goForward({ waitUntil: "commit", timeout });
    } catch {
      // Right after the blank page commits, Chromium can briefly refuse history calls ("Not attached to an active
      // page"); loading the page again puts the agent back where it was.
      await page.goto(before, { waitUntil: "commit", timeout }).catch(() => null);
    }
    return fail(none);
  }
  return ok;
}

async function perform(ctx: ActionContext, action: ParsedAction, o: Required<ActionOptions>): Promise<ActionResult> {
  const { session } = ctx;
  const scale = ctx.scale ?? 1;
  const page = session.page;
  const needsTarget = (): SomElement | string => resolveTarget(action, ctx.elements);

  switch (action.type) {
    case "click":
    case "dblclick":
    case "hover":
    case "clear":
    case "type":
    case "select": {
      let target: SomElement | string | null = null;
      let point: { x: number; y: number };
      if (!action.target && action.coords && action.type !== "type" && action.type !== "select") {
        point = { x: action.coords[0] / scale, y: action.coords[1] / scale };
      } else {
        target = needsTarget();
        if (typeof target === "string") return fail(target);
        point = centre(target, scale);
      }
      switch (action.type) {
        case "click":
          await page.mouse.click(point.x, point.y);
          return ok;
        case "dblclick":
          await page.mouse.dblclick(point.x, point.y);
          return ok;
        case "hover":
          await page.mouse.move(point.x, point.y);
          return ok;
        case "clear":
          return typeInto(page, target as SomElement, { ...action, value: "", submit: false }, scale);
        case "type":
          return typeInto(page, target as SomElement, action, scale);
        case "select":
          return selectOption(page, target as SomElement, action.value ?? "", scale);
      }
      return ok;
    }
    case "press": {
      const combo = normaliseKeyCombination(action.value ?? "");
      if (!combo) return fail("press needs a key, e.g. Enter or Control+a");
      try {
        await page.keyboard.press(combo);
      } catch (e) {
        if (page.isClosed()) throw e;
        return fail(`cannot press "${action.value}": ${firstLine(e)}`);
      }
      return ok;
    }
    case "scroll": {
      const delta = scrollDelta(action.direction);
      if (!delta) return fail(`cannot scroll "${action.direction}"`);
      let at: { x: number; y: number } | null = null;
      if (action.target && action.target.toUpperCase() !== "WINDOW") {
        const target = needsTarget();
        if (typeof target === "string") return fail(target);
        at = centre(target, scale);
      }
      const args: ScrollArgs = { x: at?.x ?? null, y: at?.y ?? null, ...delta };
      await page.evaluate(`(${SCROLL_SCRIPT})(${JSON.stringify(args)})`);
      return ok;
    }
    case "wait":
      await page.waitForTimeout(o.waitMs);
      return ok;
    case "go_back":
      return navigateHistory(page, "back", o.navigationTimeoutMs);
    case "go_forward":
      return navigateHistory(page, "forward", o.navigationTimeoutMs);
    case "goto": {
      const url = navigableUrl(action.value, page.url());
      if (typeof url === "string") return fail(url);
      await page.goto(url.href, { waitUntil: "commit", timeout: o.navigationTimeoutMs });
      return ok;
    }
    case "search_engine": {
      const q = action.value?.trim() ?? "";
      const url = /^https?:\/\//i.test(q) ? q : q ? o.searchUrl + encodeURIComponent(q) : new URL(o.searchUrl).origin + "/";
      await page.goto(url, { waitUntil: "commit", timeout: o.navigationTimeoutMs });
      return ok;
    }
    case "new_tab": {
      let url: string | undefined;
      if (action.value?.trim()) {
        const u = navigableUrl(action.value, page.url());
        if (typeof u === "string") return fail(u);
        url = u.href;
      }
      await session.newTab(url);
      return ok;
    }
    case "tab_focus": {
      const raw = (action.value ?? action.target ?? "").trim();
      const index = Number(raw);
      if (!raw || !Number.isInteger(index) || index < 0) return fail(`tab_focus needs a tab number, got "${raw}"`);
      const err = await session.focusTab(index);
      return err ? fail(err) : ok;
    }
    case "close_tab": {
      const err = await session.closeTab();
      return err ? fail(err) : ok;
    }
    case "answer":
    case "report_infeasible":
      return { error: null, ended: true };
    case "noop":
      return ok;
    case "unparsed":
      return fail(`the action could not be parsed${action.parseError ? ` (${action.parseError})` : ""}; answer with one action in the required format`);
    case "drag":
    case "upload":
      return fail(`${action.type} actions are not supported by this runner`);
  }
  return fail(`unknown action type "${String((action as ParsedAction).type)}"`);
}

/**
 * Carries out one action on the session's current tab. Resolves with an error message for the agent when the
 * action cannot be done; rejects with BrowserFailure when the browser itself failed.
 */
export async function executeAction(ctx: ActionContext, action: ParsedAction, options: ActionOptions = {}): Promise<ActionResult> {
  const o = { ...DEFAULTS, ...options };
  const page = ctx.session.page;
  try {
    return await perform(ctx, action, o);
  } catch (e) {
    if (page.isClosed() && ctx.session.tabs().length === 0) throw new BrowserFailure(`the page closed during ${action.type}: ${firstLine(e)}`, { cause: e });
    if (/Target crashed|Browser has been closed|browser has disconnected|Target page, context or browser has been closed/i.test(String(e))) {
      throw new BrowserFailure(`the browser failed during ${action.type}: ${firstLine(e)}`, { cause: e });
    }
    return fail(`${action.type} failed: ${firstLine(e)}`);
  } finally {
    const now = ctx.session.page;
    if (!now.isClosed()) markActivity(now);
  }
}

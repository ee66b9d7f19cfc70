/**
 * Set-of-Marks observation: the interactive elements of the viewport as numbered boxes, plus a raw screenshot and
 * the same screenshot with the boxes drawn on it.
 *
 * The boxes are kept as data (`SomElement[]`, screenshot pixels) so a reviewer can show, hide or restyle them; the
 * marked image is what a VLM policy sees. Labels are 0..n-1 in reading order, as WebVoyager numbers them.
 */
import type { CDPSession, Page } from "playwright";
import type { SomElement } from "../domain/types";
import { readImageInfo } from "../domain/image-info";
import { CLEAR_SCRIPT, COLLECT_SCRIPT, DRAW_SCRIPT, HIDE_CARET_SCRIPT, type CollectScriptOptions, type CollectedElement } from "./som-page-script";

export interface PngImage {
  bytes: Buffer;
  width: number;
  height: number;
}

export interface SomObservation {
  url: string;
  title: string;
  elements: SomElement[];
  /** Screenshot pixels per CSS pixel (1 unless the context sets a device scale factor). */
  scale: number;
  raw: PngImage;
  marked: PngImage;
  /** Where the time went, for the runner's benchmark. */
  timings: { collectMs: number; rawMs: number; markedMs: number };
}

export type SomOptions = CollectScriptOptions;

/** One CDP session per page: capturing through it skips Playwright's screenshot bookkeeping, which costs ~2× here. */
const cdpSessions = new WeakMap<Page, Promise<CDPSession | null>>();

function cdpFor(page: Page): Promise<CDPSession | null> {
  let s = cdpSessions.get(page);
  if (!s) {
    s = page
      .context()
      .newCDPSession(page)
      .catch(() => null);
    cdpSessions.set(page, s);
  }
  return s;
}

function pngInfo(bytes: Buffer, what: string): PngImage {
  const info = readImageInfo(bytes);
  if (!info || info.mime !== "image/png") throw new Error(`${what} screenshot is not a PNG image`);
  return { bytes, width: info.width, height: info.height };
}

/** A PNG of the visible viewport. */
export async function captureViewport(page: Page): Promise<PngImage> {
  const cdp = await cdpFor(page);
  if (cdp) {
    try {
      const shot = (await cdp.send("Page.captureScreenshot", { format: "png", optimizeForSpeed: true })) as { data: string };
      return pngInfo(Buffer.from(shot.data, "base64"), "viewport");
    } catch (e) {
      if (page.isClosed()) throw e;
      // Fall through to Playwright's own capture (e.g. the CDP session died with a cross-process navigation).
      cdpSessions.delete(page);
    }
  }
  return pngInfo(await page.screenshot({ scale: "css", caret: "hide" }), "viewport");
}

/** The interactive elements in the viewport, labelled 0..n-1 in reading order, in screenshot pixels. */
export async function collectElements(
  page: Page,
  options: SomOptions = {},
  /** Also hide the text caret until CLEAR_SCRIPT runs (saves a round trip before a capture). */
  hideCaret = false,
): Promise<{ elements: SomElement[]; css: CollectedElement[]; scale: number; title: string }> {
  const { css, scale, title } = (await page.evaluate(
    `(${hideCaret ? `(${HIDE_CARET_SCRIPT})(), ` : ""}{ css: (${COLLECT_SCRIPT})(${JSON.stringify(options)}), scale: window.devicePixelRatio || 1, title: document.title })`,
  )) as { css: CollectedElement[]; scale: number; title: string };
  const elements = css.map((c, i): SomElement => {
    // Round the edges, not the size, so a box that ends at the viewport's edge never ends a pixel past it.
    const x0 = Math.round(c.x * scale);
    const y0 = Math.round(c.y * scale);
    const x1 = Math.round((c.x + c.width) * scale);
    const y1 = Math.round((c.y + c.height) * scale);
    return { label: String(i), bbox: [x0, y0, Math.max(1, x1 - x0), Math.max(1, y1 - y0)], tag: c.tag, text: c.text || null };
  });
  return { elements, css, scale, title };
}

/**
 * Collects the marks, takes the raw screenshot, draws the marks, takes the marked screenshot and removes the marks
 * again (also when a capture fails), so the page the action runs on is the page the agent saw.
 */
export async function observePage(page: Page, options: SomOptions = {}): Promise<SomObservation> {
  const t0 = performance.now();
  let raw: PngImage;
  let marked: PngImage;
  let t1: number;
  let t2: number;
  let collected: Awaited<ReturnType<typeof collectElements>>;
  try {
    collected = await collectElements(page, options, true);
    t1 = performance.now();
    raw = await captureViewport(page);
    t2 = performance.now();
    const marks = collected.css.map((c, i) => ({ label: String(i), x: c.x, y: c.y, width: c.width, height: c.height }));
    await page.evaluate(`(${DRAW_SCRIPT})(${JSON.stringify(marks)})`);
    marked = await captureViewport(page);
  } finally {
    if (!page.isClosed()) await page.evaluate(`(${CLEAR_SCRIPT})()`).catch(() => {});
  }
  const t3 = performance.now();
  return {
    url: page.url(),
    title: collected.title,
    elements: collected.elements,
    scale: collected.scale,
    raw,
    marked,
    timings: { collectMs: t1 - t0, rawMs: t2 - t1, markedMs: t3 - t2 },
  };
}

/**
 * The element list a text prompt carries next to the marked screenshot, one `[N]: <tag> "text";` entry per
 * element joined by tabs (WebVoyager's observation format, so its parser reads it back).
 */
export function formatElementList(elements: SomElement[]): string {
  return elements.map((e) => `[${e.label}]: <${e.tag ?? "element"}> "${(e.text ?? "").replace(/"/g, "'")}";`).join("\t");
}

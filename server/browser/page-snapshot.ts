/**
 * The small snapshot of a page the blocking-page detector reads (server/domain/live/blocking.ts): title, the
 * start of the visible text, iframe sources and which known CAPTCHA / bot-check / consent markers are present.
 */
import type { Page } from "playwright";
import { BLOCKING_MARKER_SELECTORS, type PageSnapshot } from "../domain/live/blocking";

const MAX_TEXT = 6_000;

export async function blockingSnapshot(page: Page): Promise<PageSnapshot | null> {
  const script = `(() => {
    const selectors = ${JSON.stringify(BLOCKING_MARKER_SELECTORS)};
    const markers = selectors.filter((s) => { try { return !!document.querySelector(s); } catch { return false; } });
    const iframeSrcs = Array.from(document.querySelectorAll('iframe')).map((f) => f.src || '').filter(Boolean).slice(0, 50);
    const text = (document.body ? document.body.innerText : '').slice(0, ${MAX_TEXT});
    return { title: document.title || '', text, iframeSrcs, markers };
  })()`;
  try {
    const snap = (await page.evaluate(script)) as Omit<PageSnapshot, "url">;
    return { url: page.url(), ...snap };
  } catch {
    // A page in the middle of navigating: the next step looks again.
    return null;
  }
}

/**
 * The live page a VisualWebArena evaluator may inspect at the end of a run (the `LivePage` capabilities of
 * server/domain/evaluation/vwa/evaluate.ts), served from the run's own browser context before it closes.
 *
 * - program_html: an empty locator reads the page's HTML; a `document.…` / `[...document…]` expression is evaluated
 *   in the page. VisualWebArena's `func:` helpers and prep actions need site-specific code: reported unsupported
 *   (the check becomes not evaluable, never a guess). "last" means the page the agent ended on; any other URL is
 *   opened in a new tab of the same context, so the run's safety rules apply to it too.
 * - page_image_query: the images under a CSS selector (the element itself when it is an <img>), fetched by the
 *   page itself (so the run's safety rules apply). Visual question answering needs a model: not offered here.
 */
import type { BrowserContext, Page } from "playwright";
import type { LivePage } from "../../domain/evaluation/vwa/evaluate";

const MAX_IMAGES = 20;

function isLast(url: string): boolean {
  return url.trim() === "" || url.trim().toLowerCase() === "last";
}

async function withPage<T>(context: BrowserContext, current: Page, url: string, work: (page: Page) => Promise<T>): Promise<T | null> {
  if (isLast(url)) return work(current);
  const page = await context.newPage();
  try {
    const res = await page.goto(url, { waitUntil: "load", timeout: 20_000 }).catch(() => null);
    if (!res) return null;
    return await work(page);
  } finally {
    await page.close().catch(() => {});
  }
}

export function livePageCapabilities(context: BrowserContext, current: () => Page): LivePage {
  return {
    async locate({ url, locator, prepActions }) {
      if (prepActions.length > 0) return undefined;
      const l = locator.trim();
      if (l && !/^(\[\s*\.\.\.\s*)?document\./.test(l)) return undefined;
      const out = await withPage(context, current(), url, async (page) => {
        if (!l) return page.content();
        const value = await page.evaluate(`(() => { try { return ${l}; } catch (e) { return null; } })()`);
        if (value === null || value === undefined) return null;
        return typeof value === "string" ? value : JSON.stringify(value);
      });
      return out ?? null;
    },
    async pageImages({ url, selector }) {
      const out = await withPage(context, current(), url, async (page) => {
        const sources = (await page.evaluate(
          `(() => { const out = []; for (const el of document.querySelectorAll(${JSON.stringify(selector)})) {
             const imgs = el.tagName === 'IMG' ? [el] : Array.from(el.querySelectorAll('img'));
             for (const img of imgs) if (img.currentSrc || img.src) out.push(img.currentSrc || img.src);
           } return out; })()`,
        )) as string[];
        const images: Uint8Array[] = [];
        for (const src of sources.slice(0, MAX_IMAGES)) {
          // Fetched by the page itself, so the request passes the run's safety rules like any other.
          const b64 = (await page
            .evaluate(
              `fetch(${JSON.stringify(src)}).then((r) => (r.ok ? r.arrayBuffer() : null)).then((b) => {
                 if (!b) return null; let s = ''; const a = new Uint8Array(b);
                 for (let i = 0; i < a.length; i += 0x8000) s += String.fromCharCode.apply(null, a.subarray(i, i + 0x8000));
                 return btoa(s); }).catch(() => null)`,
            )
            .catch(() => null)) as string | null;
          if (b64) images.push(Buffer.from(b64, "base64"));
        }
        return images;
      });
      return out ?? [];
    },
  };
}

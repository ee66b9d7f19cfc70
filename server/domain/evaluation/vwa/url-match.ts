/**
 * VisualWebArena's `url_match`: compares the URL the agent ended on with the task's reference URL(s).
 *
 * Normalisation as in VWA: every "localhost" becomes "127.0.0.1" and one trailing "/" is dropped, on both sides.
 * `reference_url` may list alternatives joined by " |OR| ". `url_note` picks the rule: "EXACT" (the default) needs
 * the final URL to equal one reference; "GOLD in PRED" needs one reference to be a substring of the final URL.
 *
 * References are written with site placeholders (`__REDDIT__/f/food/82896`). They are replaced with the base URL
 * of each site when the caller knows it. When it does not (a recorded trajectory from an unknown deployment), the
 * placeholder stands for the origin (scheme://host:port) of the final URL, so the rule compares everything after
 * the origin; the check's note says so.
 */
import { OR_SEPARATOR } from "./string-match";
import { summarise, type CheckDetail, type EvalTypeResult } from "./results";

export const PLACEHOLDER_RE = /__([A-Z][A-Z0-9_]*?)__/g;

export function cleanUrl(url: string): string {
  let u = url.split("localhost").join("127.0.0.1");
  if (u.endsWith("/")) u = u.slice(0, -1);
  return u;
}

/** scheme://host[:port] of a URL, or null when it has none. */
export function urlOrigin(url: string): string | null {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)/i.exec(url);
  return m ? m[1]! : null;
}

/**
 * Replaces placeholders with known site URLs (keys with or without the underscores: "__REDDIT__" or "REDDIT").
 * Unknown placeholders become `fallbackOrigin` when given; the names of those are returned.
 */
export function resolvePlaceholders(
  text: string,
  siteUrls: Record<string, string>,
  fallbackOrigin: string | null,
): { text: string; unresolved: string[]; fellBack: string[] } {
  const unresolved: string[] = [];
  const fellBack: string[] = [];
  const out = text.replace(PLACEHOLDER_RE, (whole: string, name: string) => {
    const base = siteUrls[whole] ?? siteUrls[name] ?? siteUrls[name.toLowerCase()];
    if (base !== undefined) return base.replace(/\/+$/, "");
    if (fallbackOrigin !== null) {
      fellBack.push(whole);
      return fallbackOrigin;
    }
    unresolved.push(whole);
    return whole;
  });
  return { text: out, unresolved, fellBack };
}

export interface UrlMatchInput {
  referenceUrl: string;
  urlNote?: string | null;
  /** URL of the page the agent ended on; null when the trajectory recorded none. */
  finalUrl: string | null;
  siteUrls?: Record<string, string>;
}

export function evaluateUrlMatch(input: UrlMatchInput): EvalTypeResult {
  const rule = input.urlNote ?? "EXACT";
  if (input.finalUrl === null || input.finalUrl.trim() === "") {
    return summarise("url_match", [
      { check: "url", reference: input.referenceUrl, observed: null, passed: null, note: "the trajectory records no final page URL" },
    ]);
  }
  if (rule !== "EXACT" && rule !== "GOLD in PRED") {
    return summarise("url_match", [{ check: "url", reference: input.referenceUrl, passed: null, note: `unknown url_note ${JSON.stringify(rule)}` }]);
  }
  const pred = cleanUrl(input.finalUrl);
  const origin = urlOrigin(input.finalUrl);
  const fellBack = new Set<string>();
  const refs = input.referenceUrl.split(OR_SEPARATOR).map((r) => {
    const resolved = resolvePlaceholders(r.trim(), input.siteUrls ?? {}, origin);
    resolved.fellBack.forEach((p) => fellBack.add(p));
    return cleanUrl(resolved.text);
  });
  const passed = rule === "EXACT" ? refs.includes(pred) : refs.some((r) => pred.includes(r));
  const check: CheckDetail = {
    check: "url",
    reference: refs.join(OR_SEPARATOR),
    observed: pred,
    passed,
    note: `rule ${rule}` + (fellBack.size ? `; site URL unknown for ${[...fellBack].join(", ")}: compared after the final page's origin` : ""),
  };
  return summarise("url_match", [check]);
}

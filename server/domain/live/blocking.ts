/**
 * Pages that stop an agent on the open web before it can do the task: CAPTCHAs, bot checks and consent walls.
 *
 * A run that meets one ends as `blocked` at that step, so success rates can leave it out: the agent neither
 * succeeded nor failed at the task; the website refused to let it try. The runner collects a small snapshot of the
 * page (title, the start of its visible text, iframe sources, which of the known markers are present) with
 * BLOCKING_MARKER_SELECTORS; this module decides. A cookie banner next to a usable page is not a wall: consent
 * counts only when the page shows little else.
 */

export interface PageSnapshot {
  url: string;
  title: string;
  /** The page's visible text (innerText), clipped by the collector. */
  text: string;
  iframeSrcs: string[];
  /** The selectors of BLOCKING_MARKER_SELECTORS that match an element of the page. */
  markers: string[];
}

export type BlockingKind = "captcha" | "bot_check" | "consent_wall";

export interface Blocking {
  kind: BlockingKind;
  /** What gave it away, for the trajectory's outcome detail. */
  evidence: string;
}

/** CSS selectors the collector tests; each is a widget or page of a known CAPTCHA, bot-check or consent vendor. */
export const CAPTCHA_SELECTORS = [".g-recaptcha", "#recaptcha", ".h-captcha", ".cf-turnstile", "#px-captcha", "#captcha", "[name='captcha']"];
export const BOT_CHECK_SELECTORS = ["#challenge-form", "#challenge-running", "#cf-challenge-running", "#cf-wrapper .cf-error-details"];
export const CONSENT_SELECTORS = [
  "#onetrust-banner-sdk",
  "#CybotCookiebotDialog",
  ".qc-cmp2-container",
  "[id^='sp_message_container']",
  ".fc-consent-root",
  "#usercentrics-root",
];
export const BLOCKING_MARKER_SELECTORS = [...CAPTCHA_SELECTORS, ...BOT_CHECK_SELECTORS, ...CONSENT_SELECTORS];

const CAPTCHA_FRAMES =
  /(google\.com\/recaptcha|recaptcha\.net|hcaptcha\.com|challenges\.cloudflare\.com|arkoselabs\.com|funcaptcha\.com|geo\.captcha-delivery\.com)/i;

const CAPTCHA_TEXTS = [
  /\bi['’]?m not a robot\b/i,
  /\bverify (?:that )?you are (?:a )?human\b/i,
  /\bcomplete the (?:security )?(?:check|captcha)\b/i,
  /\bpress (?:&|and) hold\b/i,
  /\bsolve (?:this|the) (?:puzzle|captcha)\b/i,
  /\benter the characters you see\b/i,
  /\btype the (?:characters|text) (?:you see )?in the image\b/i,
];

const BOT_CHECK_TITLES = [
  /^just a moment\.{0,3}$/i,
  /attention required!? \| cloudflare/i,
  /^access denied$/i,
  /^pardon our interruption/i,
  /^are you a robot\??$/i,
  /^robot check$/i,
];

const BOT_CHECK_TEXTS = [
  /\bchecking (?:if the site connection is secure|your browser before accessing)\b/i,
  /\bour systems have detected unusual traffic\b/i,
  /\bunusual traffic from your computer network\b/i,
  /\byou don['’]t have permission to access .* on this server\b/i,
  /\bwe(?:'ve| have) (?:detected|noticed) (?:unusual|suspicious) (?:activity|behaviou?r)\b/i,
  /\bplease enable (?:javascript and )?cookies to continue\b/i,
  /\brequest (?:was )?blocked\b.*\b(?:security|bot)\b/i,
];

const CONSENT_TEXTS = [
  /\bbefore you continue to (?:google|youtube)\b/i,
  /\bwe value your privacy\b/i,
  /\bwe use cookies\b/i,
  /\b(?:accept|reject) all(?: cookies)?\b/i,
  /\bmanage (?:cookie )?(?:preferences|options|settings)\b/i,
];

/** A page with fewer words than this besides its consent text shows nothing else: a wall, not a banner. */
const CONSENT_WALL_MAX_OTHER_WORDS = 60;

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

export function detectBlocking(page: PageSnapshot): Blocking | null {
  const text = page.text.replace(/\s+/g, " ").trim();
  const title = page.title.trim();

  const frame = page.iframeSrcs.find((s) => CAPTCHA_FRAMES.test(s));
  if (frame) return { kind: "captcha", evidence: `a CAPTCHA frame from ${hostOf(frame)}` };
  const captchaMarker = page.markers.find((m) => CAPTCHA_SELECTORS.includes(m));
  if (captchaMarker) return { kind: "captcha", evidence: `a CAPTCHA widget (${captchaMarker})` };
  const captchaText = CAPTCHA_TEXTS.find((r) => r.test(text) || r.test(title));
  if (captchaText) return { kind: "captcha", evidence: `the page asks: "${quote(text, captchaText) ?? title}"` };

  const botMarker = page.markers.find((m) => BOT_CHECK_SELECTORS.includes(m));
  if (botMarker) return { kind: "bot_check", evidence: `a bot-check page (${botMarker})` };
  if (BOT_CHECK_TITLES.some((r) => r.test(title))) return { kind: "bot_check", evidence: `the page title is "${title}"` };
  const botText = BOT_CHECK_TEXTS.find((r) => r.test(text));
  if (botText) return { kind: "bot_check", evidence: `the page says: "${quote(text, botText)}"` };

  const consentMarker = page.markers.find((m) => CONSENT_SELECTORS.includes(m));
  const consentTexts = CONSENT_TEXTS.filter((r) => r.test(text) || r.test(title));
  if (consentMarker || consentTexts.length) {
    let rest = text;
    for (const r of consentTexts) rest = rest.replace(new RegExp(r.source, "gi"), " ");
    const strong = /before you continue to/i.test(text) || /before you continue/i.test(title);
    if (strong || (consentTexts.length > 0 && words(rest) < CONSENT_WALL_MAX_OTHER_WORDS)) {
      return {
        kind: "consent_wall",
        evidence: consentMarker
          ? `a consent dialog (${consentMarker}) covering a page with little else`
          : `the page shows only a consent request: "${quote(text, consentTexts[0]!)}"`,
      };
    }
  }
  return null;
}

export function describeBlocking(b: Blocking, stepIndex: number): string {
  const what = b.kind === "captcha" ? "a CAPTCHA" : b.kind === "bot_check" ? "a bot check" : "a consent wall";
  return `blocked at step ${stepIndex} by ${what}: ${b.evidence}`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url.slice(0, 60);
  }
}

function quote(text: string, r: RegExp): string | null {
  const m = r.exec(text);
  return m ? m[0] : null;
}

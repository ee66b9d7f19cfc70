/**
 * The blocking-page detector on small pages written for it: CAPTCHAs, bot checks and consent walls end an open-web
 * run as `blocked`; ordinary pages, and ordinary pages with a cookie banner, do not.
 */
import { describe, expect, it } from "vitest";
import { describeBlocking, detectBlocking, type PageSnapshot } from "../../server/domain/live/blocking";

/** A rough stand-in for the browser's snapshot of a small HTML page: title, visible text, iframes, markers. */
function snapshot(html: string, url = "https://example.org/"): PageSnapshot {
  const title = /<title>([^<]*)<\/title>/i.exec(html)?.[1] ?? "";
  const body = html.replace(/<title>[^<]*<\/title>/i, "").replace(/<script[\s\S]*?<\/script>/gi, "");
  const text = body
    .replace(/<[^>]+>/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
  const iframeSrcs = [...html.matchAll(/<iframe[^>]*src="([^"]+)"/gi)].map((m) => m[1]!);
  const markers: string[] = [];
  for (const m of html.matchAll(/class="([^"]+)"/gi)) for (const c of m[1]!.split(/\s+/)) markers.push(`.${c}`);
  for (const m of html.matchAll(/id="([^"]+)"/gi)) markers.push(`#${m[1]}`);
  return { url, title, text, iframeSrcs, markers };
}

const ARTICLE = `<p>${"The lighthouse at Harrow Point was automated in 1984 after a century of keepers. ".repeat(12)}</p>`;

describe("detectBlocking", () => {
  it.each([
    [
      "a reCAPTCHA frame",
      `<title>Search</title><form><iframe src="https://www.google.com/recaptcha/api2/anchor?k=x"></iframe></form>`,
      "captcha",
      /www\.google\.com/,
    ],
    ["an hCaptcha widget", `<title>Sign up</title><div class="h-captcha" data-sitekey="x"></div>`, "captcha", /\.h-captcha/],
    ["a Turnstile widget", `<title>Login</title><div class="cf-turnstile"></div>`, "captcha", /cf-turnstile/],
    ["a text CAPTCHA", `<title>Check</title><h1>Please verify you are human</h1><p>Enter the characters you see below</p>`, "captcha", /verify you are human/i],
    ["press and hold", `<title>Access to this page has been denied</title><p>Press &amp; Hold to confirm you are a human</p>`, "captcha", /Press & Hold/],
    ["Cloudflare's interstitial", `<title>Just a moment...</title><p>Checking if the site connection is secure</p>`, "bot_check", /Just a moment/],
    ["Cloudflare's challenge form", `<title>example.org</title><form id="challenge-form"></form>`, "bot_check", /challenge-form/],
    [
      "Google's unusual traffic page",
      `<title>Sorry...</title><p>Our systems have detected unusual traffic from your computer network.</p>`,
      "bot_check",
      /unusual traffic/,
    ],
    [
      "an Akamai denial",
      `<title>Access Denied</title><p>You don't have permission to access "/" on this server. Reference #18.1</p>`,
      "bot_check",
      /Access Denied/,
    ],
    [
      "Google's consent wall",
      `<title>Before you continue to Google</title><p>We use cookies and data to deliver services.</p><button>Reject all</button><button>Accept all</button>`,
      "consent_wall",
      /consent/,
    ],
    [
      "a consent dialog over an empty page",
      `<div id="onetrust-banner-sdk"><p>We value your privacy</p><button>Accept all cookies</button></div>`,
      "consent_wall",
      /onetrust/,
    ],
  ])("%s is blocking", (_name, html, kind, evidence) => {
    const b = detectBlocking(snapshot(html));
    expect(b?.kind).toBe(kind);
    expect(b!.evidence).toMatch(evidence);
  });

  it.each([
    ["an article", `<title>Harrow Point lighthouse</title><h1>Harrow Point</h1>${ARTICLE}`],
    [
      "an article with a cookie banner",
      `<title>Harrow Point lighthouse</title>${ARTICLE}<div id="onetrust-banner-sdk">We use cookies. <button>Accept all</button></div>`,
    ],
    ["a search form", `<title>Recipes</title><form><input name="q"><button>Search</button></form><p>Try "lentil soup".</p>`],
    ["an article about CAPTCHAs", `<title>What is a CAPTCHA?</title><p>A CAPTCHA is a test that tells computers and humans apart.</p>${ARTICLE}`],
    ["a login page", `<title>Sign in</title><form><input name="user"><input name="password" type="password"><button>Log in</button></form>`],
  ])("%s is not blocking", (_name, html) => {
    expect(detectBlocking(snapshot(html))).toBeNull();
  });

  it("describes a block with its step", () => {
    const b = detectBlocking(snapshot(`<title>x</title><div class="g-recaptcha"></div>`))!;
    expect(describeBlocking(b, 3)).toBe("blocked at step 3 by a CAPTCHA: a CAPTCHA widget (.g-recaptcha)");
  });
});

/**
 * Scanners' pure parts and their sandbox (issue 29, item 3): each built-in scanner fires on the hand-made steps of
 * the fault it is for and stays quiet on look-alike steps; the pattern guard refuses what could stall a scan (with
 * the field named) and accepts ordinary patterns; the pixel check tells a blank screenshot from a page; precision
 * and recall come with Wilson intervals and a "not enough labels" state.
 */
import vm from "node:vm";
import { describe, expect, it, vi } from "vitest";
import {
  applyConsecutive,
  builtInScanner,
  checkScanner,
  regexRules,
  scannerInput,
  stepTexts,
  cutFieldsProblem,
  type ScannerField,
  type RuleHit,
  type ScannedStep,
} from "../../server/domain/evaluation/scanners/definitions";
import { checkPattern, PatternRefused, probeTexts } from "../../server/domain/evaluation/scanners/regex-guard";
import { describeUniformity, uniformity } from "../../server/domain/evaluation/scanners/pixels";
import { measureScanner, stepLabelsOf, trajectoryLabelOf } from "../../server/domain/evaluation/scanners/measure";
import { checkPatternSafe, checkPatternsSafe, matchInSandbox, ScanTimeout } from "../../server/services/evaluation/scanner-sandbox";
import type { ParsedAction } from "../../server/domain/types";

type StepSpec = Partial<Omit<ScannedStep, "index" | "action">> & { action?: ParsedAction; elementText?: string[] };

function step(index: number, spec: StepSpec): ScannedStep {
  return {
    index,
    thought: spec.thought ?? null,
    actionRaw: spec.actionRaw ?? null,
    action: spec.action ?? { type: "scroll", direction: "down" },
    elements: spec.elementText ? spec.elementText.map((text, i) => ({ label: String(i), bbox: null, text })) : (spec.elements ?? null),
    url: spec.url ?? null,
    error: spec.error ?? null,
  };
}

/** The steps a built-in scanner matches, as the service runs it (sandboxed regexes, then the run length). */
function firedSteps(key: string, specs: StepSpec[], finalAnswer: string | null = null): number[] {
  const def = builtInScanner(key)!;
  const steps = specs.map((s, i) => step(i, s));
  const texts = steps.flatMap((s, i) => stepTexts(s, finalAnswer, i === steps.length - 1).map((t) => ({ ...t, stepIndex: s.index })));
  const hits: RuleHit[] = matchInSandbox(regexRules(def), texts);
  return [...new Set(applyConsecutive(hits, def.minConsecutive).map((h) => h.stepIndex))].sort((a, b) => a - b);
}

describe("built-in scanners on hand-made steps", () => {
  it("captcha: a reCAPTCHA widget, an agent's thought, a challenge URL; not a page about captchas' history", () => {
    expect(firedSteps("captcha", [{ elementText: ["Search"] }, { elementText: ["I'm not a robot", "reCAPTCHA"] }])).toEqual([1]);
    expect(firedSteps("captcha", [{ thought: "A CAPTCHA appeared, I cannot proceed." }])).toEqual([0]);
    expect(firedSteps("captcha", [{ url: "https://www.google.com/sorry/index?continue=x&q=recaptcha" }])).toEqual([0]);
    expect(firedSteps("captcha", [{ thought: "Verify you’re human before continuing" }])).toEqual([0]);
    expect(firedSteps("captcha", [{ elementText: ["Captchas", "Add to cart"] }, { thought: "Click the robotics kit" }])).toEqual([]);
  });

  it("login wall: 'sign in to continue', 'you must be logged in'; not a Sign in link in a header", () => {
    expect(firedSteps("login_wall", [{ elementText: ["Sign in to continue to Gmail"] }])).toEqual([0]);
    expect(firedSteps("login_wall", [{ error: "You must be logged in to post a review" }])).toEqual([0]);
    expect(firedSteps("login_wall", [{ thought: "Please log in" }])).toEqual([0]);
    expect(firedSteps("login_wall", [{ elementText: ["Sign in", "Cart", "Deals"] }, { thought: "I will sign in later" }])).toEqual([]);
  });

  it("access denied: a 403 page, a firewall block; not 'access the menu'", () => {
    expect(firedSteps("access_denied", [{ elementText: ["Access Denied", "You don't have permission to access this resource"] }])).toEqual([0]);
    expect(firedSteps("access_denied", [{ elementText: ["Error 1020"] }])).toEqual([0]);
    expect(firedSteps("access_denied", [{ thought: "The request was blocked by the site" }])).toEqual([0]);
    expect(firedSteps("access_denied", [{ thought: "I can access the menu from the top bar" }, { elementText: ["Denied claims FAQ"] }])).toEqual([]);
  });

  it("site down: 502, DNS failures, maintenance; not a product called 502", () => {
    expect(firedSteps("site_down", [{ elementText: ["502 Bad Gateway", "nginx"] }])).toEqual([0]);
    expect(firedSteps("site_down", [{ error: "page.goto: net::ERR_NAME_NOT_RESOLVED at https://x.example" }])).toEqual([0]);
    expect(firedSteps("site_down", [{ elementText: ["This site can’t be reached"] }])).toEqual([0]);
    expect(firedSteps("site_down", [{ elementText: ["We're down for maintenance"] }])).toEqual([0]);
    expect(firedSteps("site_down", [{ elementText: ["Levi's 502 Taper Jeans"] }, { thought: "The server returned results" }])).toEqual([]);
  });

  it("cookie loop: fires on two steps running, not on one banner dismissed once", () => {
    const accept = { thought: "I need to accept the cookies first", action: { type: "click", target: "3" } as ParsedAction };
    expect(firedSteps("cookie_loop", [accept, { thought: "Search for shoes" }])).toEqual([]);
    expect(firedSteps("cookie_loop", [{ thought: "go" }, accept, { thought: "The cookie banner is still there" }, { thought: "Searching" }])).toEqual([1, 2]);
    // The clicked element's text is part of the action.
    const clickBanner = { actionRaw: "Click [0]", action: { type: "click", target: "0" } as ParsedAction, elementText: ["Accept all cookies"] };
    expect(firedSteps("cookie_loop", [clickBanner, clickBanner, clickBanner])).toEqual([0, 1, 2]);
  });

  it("rate limit: 429 and 'too many requests'; not a price of 429", () => {
    expect(firedSteps("rate_limit", [{ elementText: ["429 Too Many Requests"] }])).toEqual([0]);
    expect(firedSteps("rate_limit", [{ error: "HTTP 429 from api.example" }])).toEqual([0]);
    expect(firedSteps("rate_limit", [{ thought: "I'm being rate-limited by the site" }])).toEqual([0]);
    expect(firedSteps("rate_limit", [{ elementText: ["$429.99", "Add to cart"] }, { thought: "Compare rates per night" }])).toEqual([]);
  });

  it("the final answer is read at the last step only", () => {
    expect(firedSteps("captcha", [{}, {}], "I could not finish: a captcha blocked me")).toEqual([1]);
  });

  it("reads a field up to 20,000 characters and says which fields it cut, only for the fields the rules read", () => {
    const long = `${"x".repeat(25_000)} I'm not a robot`;
    expect(firedSteps("captcha", [{ thought: long }])).toEqual([]);
    const texts = stepTexts(step(0, { thought: long, url: "https://example.test/" }), null, true);
    expect(texts.map((t) => [t.field, t.text.length, t.fullLength])).toEqual([
      ["thought", 20_000, 25_016],
      ["action", 15, undefined],
      ["url", 21, undefined],
    ]);
    const reads = (fields: ScannerField[]) => ({ rules: [{ kind: "regex" as const, fields, pattern: "robot", flags: "" }] });
    expect(cutFieldsProblem(reads(["thought", "element"]), texts)).toBe(
      "read only the first 20,000 characters of 1 field (the longest has 25,016): a match past them would not be seen",
    );
    expect(cutFieldsProblem(reads(["url"]), texts)).toBeNull();
    expect(cutFieldsProblem({ rules: [{ kind: "blank_screenshot", minShare: 0.9 }] }, texts)).toBeNull();
  });
});

describe("applyConsecutive", () => {
  const hit = (stepIndex: number): RuleHit => ({ stepIndex, ruleIndex: 0, field: "thought", text: "x" });
  it("keeps every step of a run once it is long enough, and nothing of shorter runs", () => {
    const hits = [0, 2, 3, 4, 7, 8].map(hit);
    expect(applyConsecutive(hits, 3).map((h) => h.stepIndex)).toEqual([2, 3, 4]);
    expect(applyConsecutive(hits, 2).map((h) => h.stepIndex)).toEqual([2, 3, 4, 7, 8]);
    expect(applyConsecutive(hits, 1)).toHaveLength(6);
  });
});

describe("the pattern guard", () => {
  const refused = (pattern: string, flags = "i", field = "rules[2].pattern") => {
    try {
      checkPatternSafe(pattern, flags, field);
    } catch (e) {
      if (e instanceof PatternRefused) return e;
      throw e;
    }
    throw new Error(`${pattern} was accepted`);
  };

  it("accepts ordinary patterns", () => {
    for (const p of [
      String.raw`\bcaptcha\b`,
      "(?:re)?captcha",
      "[a-z]+@[a-z]+\\.com",
      "sign ?in to (?:continue|view)",
      String.raw`\d{3} error`,
      "(?<=403 )forbidden",
    ]) {
      expect(() => checkPatternSafe(p, "i", "rules[0].pattern")).not.toThrow();
    }
  });

  it("refuses nested repeats, repeated alternatives and backreferences statically, naming the field", () => {
    for (const p of ["(a+)+$", String.raw`(\w+\s?)*$`, "(a|aa)*b", "(.*a){12}", "((ab)*c)+", "(?:x+y?)+z"]) {
      const e = refused(p);
      expect(e.field).toBe("rules[2].pattern");
      expect(e.message).toMatch(/^rules\[2\]\.pattern: the group at position \d+ holds (a repeated part|alternatives) and is itself repeated/);
    }
    expect(refused("(a)\\1").message).toBe("rules[2].pattern: backreferences (\\1…) are not allowed: they can make a scan take exponential time");
    expect(refused("(?<x>a)\\k<x>").message).toMatch(/backreferences/);
  });

  it("refuses what does not compile, bad flags, empty and overlong patterns", () => {
    expect(refused("(unclosed").message).toMatch(/^rules\[2\]\.pattern: the pattern does not compile: /);
    expect(refused("x", "g").message).toBe('rules[2].pattern: flag "g" is not allowed; use any of i, m, s, u');
    expect(refused("x", "ii").message).toMatch(/repeat a flag/);
    expect(refused("").message).toBe("rules[2].pattern: the pattern is empty");
    expect(refused("a".repeat(301)).message).toBe("rules[2].pattern: the pattern is 301 characters long; at most 300 are allowed");
  });

  it("refuses a bounded repeat of a group holding an optional part statically", () => {
    for (const p of ["(a?){25}a{25}$", "(?:ab?){3,}c"]) {
      expect(() => checkPattern(p, "", "rules[0].pattern")).toThrow(
        /^rules\[0\]\.pattern: the group at position 1 holds an optional part and is itself repeated/,
      );
    }
    expect(() => checkPattern("(?:ab)?c{3}", "", "rules[0].pattern")).not.toThrow();
  });

  it("refuses a pattern the static check lets through but that backtracks on the probe texts", () => {
    // About 1001^6 / 720 ≈ 10^15 steps on a probe text: no budget of seconds lets it finish, on any machine.
    const slow = String.raw`\w*\w*\w*\w*\w*\w*#`;
    expect(() => checkPattern(slow, "i", "rules[0].pattern")).not.toThrow();
    expect(refused(slow, "i", "rules[0].pattern").message).toMatch(
      /^rules\[0\]\.pattern: the scanner's patterns took longer than 1000 ms together on their test texts, and this one was still running on a text of 1001 characters/,
    );
  });

  it("probes all of a scanner's patterns in one sandbox run under one budget, naming the slow one", () => {
    const run = vi.spyOn(vm.Script.prototype, "runInContext");
    try {
      const ok = Array.from({ length: 8 }, (_, i) => ({ pattern: `word${i} [a-z]+ \\d{2}`, flags: "i", field: `rules[${i}].pattern` }));
      checkPatternsSafe(ok);
      // 8 patterns × their probe texts (over 40 each), one watchdog for all of them.
      expect(ok.reduce((n, p) => n + probeTexts(p.pattern).length, 0)).toBeGreaterThan(300);
      expect(run).toHaveBeenCalledTimes(1);
      const slow = [ok[0]!, { pattern: String.raw`\w*\w*\w*\w*\w*\w*#`, flags: "i", field: "rules[1].pattern" }, ok[2]!];
      expect(() => checkPatternsSafe(slow)).toThrow(/^rules\[1\]\.pattern: the scanner's patterns took longer than 1000 ms together/);
      expect(run).toHaveBeenCalledTimes(2);
    } finally {
      run.mockRestore();
    }
  });

  it("builds probe texts from the pattern's own characters", () => {
    const texts = probeTexts("ab+c");
    expect(texts.some((t) => t.startsWith("bbbb"))).toBe(true);
    expect(texts.every((t) => t.length === 1001)).toBe(true);
  });

  it("stops a slow pattern at scan time (a stored pattern that bypassed the guard) and says so", () => {
    const texts = [{ stepIndex: 0, field: "thought" as const, text: `${"a".repeat(40)}!` }];
    expect(() => matchInSandbox([{ ruleIndex: 0, fields: ["thought"], pattern: "^(a+)+$", flags: "" }], texts, 100)).toThrow(ScanTimeout);
  });

  it("checks whole scanner definitions: schema errors, a built-in's key, every rule's pattern", () => {
    const base = { key: "my_wall", name: "My wall", category: "login wall", rules: [{ kind: "regex", fields: ["element"], pattern: "members only" }] };
    expect(checkScanner(scannerInput.parse(base))).toMatchObject({ key: "my_wall", minConsecutive: 1, builtIn: false });
    expect(() => checkScanner(scannerInput.parse({ ...base, key: "captcha" }))).toThrow(/built-in scanner's key/);
    const twoRules = { ...base, rules: [...base.rules, { kind: "regex", fields: ["url"], pattern: "(x+)+" }] };
    expect(() => checkScanner(scannerInput.parse(twoRules))).toThrow(/^rules\[1\]\.pattern: /);
    expect(scannerInput.safeParse({ ...base, rules: [{ kind: "regex", fields: ["title"], pattern: "x" }] }).success).toBe(false);
  });
});

describe("the blank-page check", () => {
  it("measures how much of a thumbnail is one colour", () => {
    const white = new Uint8Array(48 * 48).fill(255);
    expect(uniformity(white)).toEqual({ dominantGrey: 255, share: 1 });
    // A page: a third of the pixels are text and images of other greys.
    const page = white.map((v, i) => (i % 3 === 0 ? (i * 37) % 200 : v));
    expect(uniformity(page).share).toBeLessThan(0.7);
    // JPEG noise within the tolerance still counts as one colour.
    const noisy = white.map((v, i) => v - (i % 5));
    expect(uniformity(noisy).share).toBe(1);
    expect(describeUniformity({ dominantGrey: 255, share: 0.9912 })).toBe("99.1% of the screenshot is one colour (white)");
    expect(uniformity([]).share).toBe(0);
  });
});

describe("precision and recall against labels", () => {
  it("counts the four cells, gives Wilson intervals, and says when labels are too few", () => {
    const items = [
      ...Array.from({ length: 4 }, () => ({ fired: true, positive: true })),
      { fired: true, positive: false },
      { fired: false, positive: true },
      ...Array.from({ length: 6 }, () => ({ fired: false, positive: false })),
    ];
    const m = measureScanner(items);
    expect([m.n, m.truePositives, m.falsePositives, m.falseNegatives, m.trueNegatives, m.positives]).toEqual([12, 4, 1, 1, 6, 5]);
    expect(m.precision.estimate).toBeCloseTo(0.8, 12);
    expect(m.recall.estimate).toBeCloseTo(0.8, 12);
    // Wilson 95% for 4 of 5: [0.3755, 0.9638].
    expect(m.precision.low).toBeCloseTo(0.37553, 4);
    expect(m.precision.high).toBeCloseTo(0.96378, 4);
    expect(m.enough).toBe(true);
    const few = measureScanner(items.slice(0, 5));
    expect(few.enough).toBe(false);
    expect(measureScanner([]).precision.estimate).toBeNull();
  });

  it("counts a trajectory label only where its campaign offered the category", () => {
    const offered = ["Captcha ", "hallucination"];
    const label = (verdict: string, category: string | null, cats: string[] = offered) => trajectoryLabelOf({ verdict, category, offered: cats }, "captcha");
    expect([label("failure", "CAPTCHA"), label("failure", "hallucination"), label("success", null)]).toEqual([true, false, false]);
    // A failure, unsure or not executable without a category does not say which fault it was.
    expect([label("failure", null), label("unsure", null), label("not_executable", " ")]).toEqual([null, null, null]);
    // The default categories hold no "captcha": that campaign's labels say nothing of CAPTCHAs.
    expect([label("success", null, ["navigation stuck", "other"]), label("failure", "other", ["navigation stuck", "other"])]).toEqual([null, null]);
  });

  it("reads step labels from per-step choice questions offering the category", () => {
    const questions = [
      {
        id: "fault",
        prompt: "Fault here?",
        required: false,
        perStep: true,
        when: "always" as const,
        type: "single_choice" as const,
        options: ["CAPTCHA", "none"],
      },
      { id: "other", prompt: "?", required: false, perStep: false, when: "always" as const, type: "single_choice" as const, options: ["captcha", "x"] },
    ];
    expect(stepLabelsOf(questions, { fault: { "2": "captcha", "3": "none" }, other: "captcha" }, "captcha")).toEqual({
      labelled: true,
      positiveSteps: new Set([2]),
    });
    expect(stepLabelsOf(questions, { other: "captcha" }, "captcha")).toEqual({ labelled: false, positiveSteps: new Set() });
    expect(stepLabelsOf(questions, { fault: { "1": "none" } }, "login wall").labelled).toBe(false);
  });
});

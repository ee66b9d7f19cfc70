/**
 * heuristic:answer-grounded — the final answer says things the agent never saw. Its key tokens (numbers, and words
 * of three letters or more that are neither common function words nor words of the task's own intent) are looked
 * for in every step's element texts and URLs; when none of them appears anywhere, the answer is not grounded in
 * what was on screen (a hallucination, or knowledge from elsewhere). Fires on the step that gives the answer.
 *
 * Weak by design: one shared token is enough to pass, and trajectories that recorded no element text at all cannot be
 * checked (not_evaluable); URLs are searched too, but are not enough on their own.
 */
import { stepName, type HeuristicEvaluator, type HeuristicTrajectory, type HeuristicVerdict } from "./types";

const STOPWORDS = new Set(
  (
    "the and for are but not you all any can had her was one our out has his how its may new now old see two way who " +
    "did get let put say she too use that with have this will your from they know want been good much some time very " +
    "when come here just like long make many more only over such take than them well were what which their there " +
    "these those then into also about after again could would should because being does doing each most other same " +
    "where while found find answer task page website site following information yes none there's it's i'm"
  ).split(" "),
);

const WORD = /[\p{L}][\p{L}\p{N}'’-]*/gu;
const NUMBER = /\d+(?:[.,]\d+)*/g;

/** Commas inside numbers separate thousands: "1,299.00", "1299" and "1299.0" are the same number, "1299". */
export function normaliseNumber(text: string): string {
  const n = Number(text.replace(/,/g, ""));
  return Number.isFinite(n) ? String(n) : text;
}

function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/['’-]+$/, ""));
}

export interface KeyTokens {
  words: string[];
  numbers: string[];
}

/** The answer's tokens worth looking for on the pages: what it adds beyond the intent's own words. */
export function answerKeyTokens(answer: string, intent: string): KeyTokens {
  const intentWords = new Set(words(intent));
  const outWords = new Set<string>();
  for (const w of words(answer)) {
    if (w.length >= 3 && !STOPWORDS.has(w) && !intentWords.has(w) && !/^\d/.test(w)) outWords.add(w);
  }
  const intentNumbers = new Set((intent.match(NUMBER) ?? []).map(normaliseNumber));
  const outNumbers = new Set<string>();
  for (const n of answer.match(NUMBER) ?? []) {
    const v = normaliseNumber(n);
    if (!intentNumbers.has(v)) outNumbers.add(v);
  }
  return { words: [...outWords], numbers: [...outNumbers] };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A number as it may be written on a page: thousands commas anywhere between its digits and trailing zeros in the
 * fraction ("1299" as "1,299.00"), never as part of a longer number ("45" not in "145" or "45.5").
 */
function numberPattern(normalised: string): string {
  const [int, frac] = normalised.split(".");
  const digits = int!.split("").map(escapeRegExp).join(",?");
  return `(?<!\\d|\\d[.,])${digits}${frac ? `\\.${frac}0*` : "(?:\\.0+)?"}(?![\\d]|[.,]\\d)`;
}

function isWordChar(code: number): boolean {
  // Letters and digits of any script; a cheap test for the common ASCII case first.
  if ((code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90)) return true;
  return code > 127 && /[\p{L}\p{N}]/u.test(String.fromCharCode(code));
}

/** Whether `word` starts a word of lowercased `text` ("shoe" matches "shoes", not "horseshoe"). */
function containsWord(text: string, word: string): boolean {
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    if (at === 0 || !isWordChar(text.charCodeAt(at - 1))) return true;
  }
  return false;
}

/**
 * Finds the first key token in a step's text. Cheap literal searches find candidates; a number is then confirmed
 * with its pattern anchored there. Words compare case-insensitively, numbers as numbers.
 */
function keyTokenFinder(keys: KeyTokens): (text: string) => string | null {
  const numbers = keys.numbers.map((n) => {
    const int = n.split(".")[0]!;
    // However the page groups thousands, the number starts with its first group of digits.
    return { n, lead: int.slice(0, int.length % 3 || 3), exact: new RegExp(numberPattern(n), "y") };
  });
  return (text) => {
    if (!text) return null;
    const lower = text.toLowerCase();
    for (const w of keys.words) if (containsWord(lower, w)) return w;
    for (const { n, lead, exact } of numbers) {
      for (let at = text.indexOf(lead); at >= 0; at = text.indexOf(lead, at + 1)) {
        exact.lastIndex = at;
        if (exact.test(text)) return n;
      }
    }
    return null;
  };
}

function urlText(url: string): string {
  try {
    return decodeURIComponent(url.replace(/\+/g, " "));
  } catch {
    return url;
  }
}

/** A step's element texts, one per line: searched at once rather than element by element. */
function elementText(elements: HeuristicTrajectory["steps"][number]["elements"]): string {
  if (!elements) return "";
  let text = "";
  for (const e of elements) if (e.text) text += `${e.text}\n`;
  return text;
}

export function evaluateAnswerGrounded(t: HeuristicTrajectory): HeuristicVerdict {
  const answer = t.finalAnswer?.trim() ?? "";
  if (!answer) return { verdict: "not_evaluable", step: null, reason: "No final answer to check (see the no-answer heuristic)." };
  // URLs alone say too little of what was on screen: without any element text the check would fire on most answers.
  const hasText = t.steps.some((s) => s.elements?.some((e) => e.text));
  if (!hasText)
    return { verdict: "not_evaluable", step: null, reason: "No step recorded the text of its elements, so the answer cannot be looked for on the pages." };
  const keys = answerKeyTokens(answer, t.intent);
  const all = [...keys.words, ...keys.numbers];
  if (!all.length) return { verdict: "success", step: null, reason: "The answer has no key tokens beyond the task's own words." };
  const find = keyTokenFinder(keys);
  for (const s of t.steps) {
    const hit = (s.url ? find(urlText(s.url)) : null) ?? find(elementText(s.elements));
    if (hit !== null) {
      return {
        verdict: "success",
        step: null,
        reason: `The answer's "${hit}" appears at ${stepName(s.index)}.`,
        facts: { matchedToken: hit, matchedStep: s.index },
      };
    }
  }
  const answerStep = answeringStep(t);
  return {
    verdict: "failure",
    step: answerStep,
    reason: `None of the answer's key tokens (${all
      .slice(0, 8)
      .map((x) => `"${x}"`)
      .join(", ")}${all.length > 8 ? ", …" : ""}) appears in any element text or URL.`,
    facts: { keyTokens: all },
  };
}

/** The step whose action gives the answer; the last step when no step does. */
export function answeringStep(t: HeuristicTrajectory): number | null {
  for (let i = t.steps.length - 1; i >= 0; i--) {
    const type = t.steps[i]!.action.type;
    if (type === "answer" || type === "report_infeasible") return t.steps[i]!.index;
  }
  return t.steps.length ? t.steps[t.steps.length - 1]!.index : null;
}

export const ANSWER_GROUNDED_HEURISTIC: HeuristicEvaluator = {
  key: "heuristic:answer-grounded",
  name: "Heuristic: answer not grounded",
  version: "1",
  evaluate: evaluateAnswerGrounded,
};

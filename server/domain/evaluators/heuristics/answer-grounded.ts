/**
 * heuristic:answer-grounded — the final answer says things the agent never saw. Its key tokens (numbers, and words
 * of three letters or more that are neither common function words nor words of the task's own intent) are looked
 * for in every step's element texts and URLs; when none of them appears anywhere, the answer is not grounded in
 * what was on screen (a hallucination, or knowledge from elsewhere). Fires on the step that gives the answer.
 *
 * Weak by design: one shared token is enough to pass, and pages whose text was not recorded as elements cannot be
 * checked (not_evaluable).
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

/** "1,299.00" and "1299" are the same number; "3.5" stays "3.5". */
export function normaliseNumber(text: string): string {
  const unified = /^\d{1,3}(,\d{3})+(\.\d+)?$/.test(text) ? text.replace(/,/g, "") : text.replace(/,/g, ".");
  const n = Number(unified);
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

function isWordChar(code: number): boolean {
  // Letters and digits of any script; a cheap test for the common ASCII case first.
  if ((code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90)) return true;
  return code > 127 && /[\p{L}\p{N}]/u.test(String.fromCharCode(code));
}

/** Whether `word` occurs in lowercased `text` as a whole word (or the start of one: "shoe" matches "shoes"). */
function containsWord(text: string, word: string): boolean {
  let from = 0;
  for (;;) {
    const at = text.indexOf(word, from);
    if (at < 0) return false;
    if (at === 0 || !isWordChar(text.charCodeAt(at - 1))) return true;
    from = at + 1;
  }
}

function urlText(url: string): string {
  try {
    return decodeURIComponent(url.replace(/\+/g, " "));
  } catch {
    return url;
  }
}

/** The first key token found in `text`, or null. */
function findToken(text: string, keys: KeyTokens): string | null {
  if (!text) return null;
  const lower = text.toLowerCase();
  for (const w of keys.words) if (containsWord(lower, w)) return w;
  if (keys.numbers.length && /\d/.test(text)) {
    const seen = (text.match(NUMBER) ?? []).map(normaliseNumber);
    for (const n of keys.numbers) if (seen.includes(n)) return n;
  }
  return null;
}

export function evaluateAnswerGrounded(t: HeuristicTrajectory): HeuristicVerdict {
  const answer = t.finalAnswer?.trim() ?? "";
  if (!answer) return { verdict: "not_evaluable", step: null, reason: "No final answer to check (see the no-answer heuristic)." };
  const hasText = t.steps.some((s) => s.url || s.elements?.some((e) => e.text));
  if (!hasText) return { verdict: "not_evaluable", step: null, reason: "No step recorded element texts or URLs to look for the answer in." };
  const keys = answerKeyTokens(answer, t.intent);
  const all = [...keys.words, ...keys.numbers];
  if (!all.length) return { verdict: "success", step: null, reason: "The answer has no key tokens beyond the task's own words." };
  for (const s of t.steps) {
    const hit = (s.url ? findToken(urlText(s.url), keys) : null) ?? firstInElements(s.elements, keys);
    if (hit !== null) {
      return { verdict: "success", step: null, reason: `The answer's "${hit}" appears at ${stepName(s.index)}.`, facts: { matchedToken: hit, matchedStep: s.index } };
    }
  }
  const answerStep = answeringStep(t);
  return {
    verdict: "failure",
    step: answerStep,
    reason: `None of the answer's key tokens (${all.slice(0, 8).map((x) => `"${x}"`).join(", ")}${all.length > 8 ? ", …" : ""}) appears in any element text or URL.`,
    facts: { keyTokens: all },
  };
}

function firstInElements(elements: HeuristicTrajectory["steps"][number]["elements"], keys: KeyTokens): string | null {
  for (const e of elements ?? []) {
    const hit = e.text ? findToken(e.text, keys) : null;
    if (hit !== null) return hit;
  }
  return null;
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

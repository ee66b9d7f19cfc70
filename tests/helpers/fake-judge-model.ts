/**
 * A judge "model" for the tests' OpenAI-compatible endpoint (fake-openai.ts) whose answers follow from the prompt
 * it receives, so that a protocol, a rubric edit, few-shot examples or a hidden answer change its verdicts the way
 * they would change a real judge's — deterministically, and in ways a test can work out by hand.
 *
 *   const fake = await startFakeOpenAI({ responder: promptReadingResponder({ screens: { [hash]: "Order #123 placed" } }) });
 *
 * What it reads (the conventions Verdict's judge prompts follow):
 * - The answer form: the text after "Answer in this form:" in the system message. The fake fills in every line the
 *   form asks for — "Key points:" (a numbered list), "Criteria:" (a numbered list tagged [outcome] / [process]),
 *   "Score:" (1–5), "Key point N:" (MET / NOT MET), "Criterion N:" (PASS / FAIL), "Process:" (PASS / FAIL),
 *   "Failure cause:" (CONTROLLABLE / UNCONTROLLABLE / NONE), "Evidence:" (step citations), "First failing step:",
 *   "Verdict:" (SUCCESS / FAILURE).
 * - The case: the last user message. "Task: …", "Final answer reported by the agent: …" (absent or "not shown" =
 *   hidden), action lines "Step N: …", key points "Key point N: …" or a numbered list after "Key points:", criteria
 *   "N. [outcome|process] …" after "Criteria:", and screenshots, each after a label starting "Step N of T".
 * - What the screenshots show: the fake has no eyes; `screens` maps an image's sha256 to the text it shows.
 *
 * How it decides a verdict, first match wins:
 * 1. Rules: any instruction line (system message, or a user line that is not part of the case or an example) holding
 *    a quoted phrase and one verdict word — `Answers that say "approximately" are a FAILURE.` — applies when the
 *    phrase occurs in the task, the answer or the evidence; the last applicable rule wins.
 * 2. Examples: earlier user/assistant message pairs, or `<example>…</example>` blocks holding "Task:" and a
 *    "Verdict:" (or "Human verdict:" / "Label:") line. The example whose task shares the most content words with the
 *    case's task (Jaccard ≥ `exampleSimilarity`, default 0.5) gives its verdict.
 * 3. Key points or outcome criteria in the prompt: success when each is met, i.e. its content words all occur in the
 *    evidence (the answer, the action lines and the text of the screenshots sent).
 * 4. `decide(case)`, by default: with the answer shown, success when it is there and does not give up ("none",
 *    "cannot", "unable", "not found", "n/a"); with the answer hidden, success when the evidence holds every content
 *    word of the task.
 *
 * Relevance scores (key-point protocol): `scores[hash]` when given, else 1 + the number of key points fully shown in
 * the screenshot's text (at most 5). Process criteria pass unless the action lines repeat an action back to back.
 * A failure is UNCONTROLLABLE when the evidence mentions a CAPTCHA, a block, an outage or a server error.
 */
import type { ChatBody, FakeAction, RecordedRequest, Responder } from "./fake-openai";

export type Verdict = "success" | "failure";

export interface JudgeCase {
  task: string;
  /** The agent's answer as shown; undefined when the prompt hides it. */
  answer: string | undefined;
  /** Action lines ("Step N: …") in order, without the "Step N:" prefix. */
  actions: { step: number; text: string }[];
  /** Screenshots sent, in order: sha256, the step number their label gave, and what they show (from `screens`). */
  images: { hash: string; step: number | null; shows: string }[];
  keyPoints: string[];
  criteria: { kind: "outcome" | "process"; text: string }[];
  /** The answer, the action lines and the screenshots' text, lower-cased: what the fake can "see". */
  evidence: string;
}

export interface Example {
  task: string;
  verdict: Verdict;
}

export interface ReadRequest {
  system: string;
  /** The answer form's lines (after "Answer in this form:"). */
  form: string[];
  case: JudgeCase;
  rules: { phrase: string; verdict: Verdict; line: string }[];
  examples: Example[];
}

export interface JudgeModelOptions {
  /** What each screenshot shows, by the sha256 of its bytes. */
  screens?: Record<string, string>;
  /** Relevance scores (1–5) by image sha256, overriding the computed ones. */
  scores?: Record<string, number>;
  /** The verdict when no rule, example, key point or criterion decides. */
  decide?: (c: JudgeCase) => Verdict;
  /** Minimum Jaccard similarity of content words for an example to apply (default 0.5). */
  exampleSimilarity?: number;
  /** "Evidence:" lines to give instead of the computed ones (to test unverifiable citations). */
  cite?: (c: JudgeCase) => string[];
  /** Extra reply fields per request (model name, usage, delay). */
  extra?: (req: RecordedRequest) => Partial<Extract<FakeAction, { reply: string }>>;
}

const STOP = new Set(
  "the a an and or of to in on at for with from by is are was be this that it its as into than then find search look show give get use go site page website please which what who how when where all any some their there one two after before about under over".split(
    " ",
  ),
);

/** Content words: lower-case letters and digits, 3+ characters, stop words left out. */
export function contentWords(text: string): string[] {
  return [
    ...new Set(
      text
        .toLowerCase()
        .split(/[^a-z0-9$£€.]+/)
        .map((w) => w.replace(/^\.+|\.+$/g, ""))
        .filter((w) => w.length >= 3 && !STOP.has(w)),
    ),
  ];
}

function jaccard(a: string[], b: string[]): number {
  if (!a.length && !b.length) return 0;
  const sa = new Set(a);
  const inter = b.filter((w) => sa.has(w)).length;
  return inter / (new Set([...a, ...b]).size || 1);
}

/** Whether every content word of `text` occurs in the evidence. */
export function isShown(text: string, evidence: string): boolean {
  const words = contentWords(text);
  return words.length > 0 && words.every((w) => evidence.includes(w));
}

const GIVE_UP = /^(none|n\/a|na|no answer|unknown)\.?$|cannot|can't|unable|not found|could not|couldn't|no results?/i;

export function defaultDecision(c: JudgeCase): Verdict {
  if (c.answer === undefined) return isShown(c.task, c.evidence) ? "success" : "failure";
  const a = c.answer.trim();
  return a && !GIVE_UP.test(a) ? "success" : "failure";
}

const UNCONTROLLABLE = /captcha|access denied|blocked|site (?:is )?down|outage|unavailable|server error|\b50[0-9]\b/i;

function textOf(content: ChatBody["messages"][number]["content"]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (p?.type === "text" ? (p.text ?? "") : "")).join("\n");
}

const VERDICT_WORD = /\b(success(?:ful)?|failure|failed|fail)\b/gi;

function verdictOfWord(word: string): Verdict {
  return /^success/i.test(word) ? "success" : "failure";
}

/** "Verdict: X", "Human verdict: X", "Label: X" in a block of text. */
function verdictLine(text: string): Verdict | null {
  const m = /^\W*(?:human\s+)?(?:verdict|label)\W*:\W*(success|failure|successful|unsuccessful)\b/im.exec(text);
  if (!m) return null;
  return /^success/i.test(m[1]!) ? "success" : "failure";
}

function taskLine(text: string): string | null {
  const m = /^\W*task\s*:\s*(.+)$/im.exec(text);
  return m ? m[1]!.trim() : null;
}

const EXAMPLE_BLOCK = /<example>([\s\S]*?)<\/example>/gi;

/** Parses a recorded request into the case, the answer form, the rules and the examples. */
export function readJudgeRequest(req: Pick<RecordedRequest, "body" | "imageHashes">, screens: Record<string, string> = {}): ReadRequest {
  const messages = Array.isArray(req.body.messages) ? req.body.messages : [];
  const system = messages
    .filter((m) => m.role === "system")
    .map((m) => textOf(m.content))
    .join("\n");
  const lastUser = messages
    .map((m, i) => [m, i] as const)
    .filter(([m]) => m.role === "user")
    .pop();
  const examples: Example[] = [];
  // Few-shot as turns: a user message answered by an assistant message, before the case.
  messages.forEach((m, i) => {
    if (m.role !== "user" || !lastUser || i >= lastUser[1]) return;
    const next = messages[i + 1];
    if (next?.role !== "assistant") return;
    const task = taskLine(textOf(m.content));
    const verdict = verdictLine(textOf(next.content));
    if (task && verdict) examples.push({ task, verdict });
  });
  const allText = messages.map((m) => textOf(m.content)).join("\n");
  for (const m of allText.matchAll(EXAMPLE_BLOCK)) {
    const task = taskLine(m[1]!);
    const verdict = verdictLine(m[1]!);
    if (task && verdict) examples.push({ task, verdict });
  }

  // The case: the last user message, example blocks removed.
  const caseParts: ({ text: string } | { image: string })[] = [];
  if (lastUser) {
    const c = lastUser[0].content;
    if (typeof c === "string") caseParts.push({ text: c.replace(EXAMPLE_BLOCK, "") });
    else if (Array.isArray(c)) {
      let n = 0;
      const hashes = req.imageHashes.slice(req.imageHashes.length - c.filter((p) => p?.type === "image_url").length);
      for (const p of c) {
        if (p?.type === "text") caseParts.push({ text: (p.text ?? "").replace(EXAMPLE_BLOCK, "") });
        else if (p?.type === "image_url") caseParts.push({ image: hashes[n++] ?? "" });
      }
    }
  }
  let task = "";
  let answer: string | undefined;
  const actions: JudgeCase["actions"] = [];
  const images: JudgeCase["images"] = [];
  const keyPoints: string[] = [];
  const criteria: JudgeCase["criteria"] = [];
  const instructionLines: string[] = system.split("\n");
  let pendingStep: number | null = null;
  let list: "key-points" | "criteria" | null = null;
  for (const part of caseParts) {
    if ("image" in part) {
      images.push({ hash: part.image, step: pendingStep, shows: screens[part.image] ?? "" });
      pendingStep = null;
      continue;
    }
    for (const raw of part.text.split("\n")) {
      const line = raw.trim();
      let m: RegExpExecArray | null;
      if ((m = /^task\s*:\s*(.+)$/i.exec(line)) && !task) task = m[1]!.trim();
      else if ((m = /^final answer reported by the agent\s*:\s*(.*)$/i.exec(line))) answer = /^\(none/i.test(m[1]!) ? "" : m[1]!.trim();
      else if ((m = /^step (\d+) of \d+/i.exec(line))) pendingStep = Number(m[1]);
      else if ((m = /^step (\d+)\s*:\s*(.*)$/i.exec(line))) actions.push({ step: Number(m[1]), text: m[2]!.trim() });
      else if ((m = /^key point (\d+)\s*:\s*(.+)$/i.exec(line))) keyPoints.push(m[2]!.trim());
      else if (/^key points\s*:?$/i.test(line)) list = "key-points";
      else if (/^criteria\s*:?$/i.test(line)) list = "criteria";
      else if (list && (m = /^\d+[.)]\s*(?:\[(outcome|process)\]\s*)?(.+)$/i.exec(line))) {
        if (list === "key-points") keyPoints.push(m[2]!.trim());
        else criteria.push({ kind: (m[1]?.toLowerCase() as "outcome" | "process" | undefined) ?? "outcome", text: m[2]!.trim() });
      } else {
        if (line === "") list = null;
        instructionLines.push(line);
      }
    }
  }
  const evidence = [answer ?? "", ...actions.map((a) => a.text), ...images.map((i) => i.shows)].join("\n").toLowerCase();

  const rules: ReadRequest["rules"] = [];
  for (const line of instructionLines) {
    const phrase = /["“]([^"”\n]{2,})["”]/.exec(line);
    if (!phrase) continue;
    const rest = line.replace(phrase[0], " ");
    const words = [...rest.matchAll(VERDICT_WORD)].map((w) => verdictOfWord(w[1]!));
    if (words.length === 0 || new Set(words).size !== 1) continue;
    rules.push({ phrase: phrase[1]!, verdict: words[0]!, line });
  }

  const formAt = system.search(/answer in this form\s*:/i);
  const form =
    formAt < 0
      ? []
      : system
          .slice(formAt)
          .split("\n")
          .slice(1)
          .map((l) => l.trim())
          .filter(Boolean);
  return { system, form, case: { task, answer, actions, images, keyPoints, criteria, evidence }, rules, examples };
}

export interface Decision {
  verdict: Verdict;
  /** What decided it, in words (also the reply's reasoning). */
  because: string;
}

function criterionPasses(c: JudgeCase, criterion: { kind: "outcome" | "process"; text: string }): boolean {
  if (criterion.kind === "process") return !c.actions.some((a, i) => i > 0 && a.text === c.actions[i - 1]!.text);
  return isShown(criterion.text, c.evidence);
}

/** The verdict the fake gives a read request (see the module comment for the order). */
export function decide(read: ReadRequest, opts: JudgeModelOptions = {}): Decision {
  const c = read.case;
  const haystack = `${c.task}\n${c.evidence}`.toLowerCase();
  const rule = [...read.rules].reverse().find((r) => haystack.includes(r.phrase.toLowerCase()));
  if (rule) return { verdict: rule.verdict, because: `The instructions say: ${rule.line.trim()}` };
  const words = contentWords(c.task);
  let best: { e: Example; s: number; i: number } | null = null;
  read.examples.forEach((e, i) => {
    const s = jaccard(words, contentWords(e.task));
    if (s >= (opts.exampleSimilarity ?? 0.5) && (!best || s >= best.s)) best = { e, s, i };
  });
  if (best) {
    const b = best as { e: Example; s: number; i: number };
    return { verdict: b.e.verdict, because: `This is like example ${b.i + 1} ("${b.e.task}"), which was a ${b.e.verdict}.` };
  }
  if (c.keyPoints.length) {
    const missed = c.keyPoints.filter((k) => !isShown(k, c.evidence));
    return missed.length ? { verdict: "failure", because: `Not shown: ${missed.join("; ")}.` } : { verdict: "success", because: "Every key point is shown." };
  }
  const outcome = c.criteria.filter((k) => k.kind === "outcome");
  if (outcome.length) {
    const failed = outcome.filter((k) => !criterionPasses(c, k));
    return failed.length
      ? { verdict: "failure", because: `Not met: ${failed.map((k) => k.text).join("; ")}.` }
      : { verdict: "success", because: "Every outcome criterion is met." };
  }
  const verdict = (opts.decide ?? defaultDecision)(c);
  return {
    verdict,
    because:
      c.answer === undefined
        ? `Without the answer, the evidence ${verdict === "success" ? "shows" : "does not show"} the task done.`
        : `The answer ${verdict === "success" ? "gives" : "does not give"} what was asked.`,
  };
}

/** Task clauses: what the fake lists as key points and outcome criteria. */
export function taskClauses(task: string): string[] {
  return task
    .split(/,|;|\band\b|\bwith\b/i)
    .map((s) => s.trim().replace(/\.$/, ""))
    .filter((s) => contentWords(s).length > 0);
}

function relevance(c: JudgeCase, image: JudgeCase["images"][number], opts: JudgeModelOptions): number {
  const given = opts.scores?.[image.hash];
  if (given !== undefined) return given;
  const shows = image.shows.toLowerCase();
  return Math.min(5, 1 + c.keyPoints.filter((k) => isShown(k, shows)).length);
}

function citations(c: JudgeCase, opts: JudgeModelOptions): string[] {
  if (opts.cite) return opts.cite(c);
  const words = contentWords([c.task, ...c.keyPoints].join(" "));
  const telling = c.images.filter((i) => i.step !== null && words.some((w) => i.shows.toLowerCase().includes(w)));
  const cited = telling.length ? telling : c.images.filter((i) => i.step !== null).slice(-1);
  return cited.map((i) => `Evidence: step ${i.step}${i.shows ? ` — shows ${i.shows}` : ""}`);
}

/** The reply the fake gives: every line the answer form asks for, in the form's order. */
export function replyTo(read: ReadRequest, opts: JudgeModelOptions = {}): string {
  const c = read.case;
  const form = read.form.join("\n");
  if (/^key points\s*:/im.test(form) && !/^verdict\s*:/im.test(form)) {
    return ["Key points:", ...taskClauses(c.task).map((k, i) => `${i + 1}. ${k}`)].join("\n");
  }
  if (/^criteria\s*:/im.test(form) && !/^verdict\s*:/im.test(form)) {
    const outcome = taskClauses(c.task).map((k) => `[outcome] ${k}`);
    return ["Criteria:", ...[...outcome, "[process] The agent does not repeat an action without progress"].map((k, i) => `${i + 1}. ${k}`)].join("\n");
  }
  if (/^score\s*:/im.test(form)) {
    const image = c.images[c.images.length - 1];
    const score = image ? relevance(c, image, opts) : 1;
    return `Reasoning: The screenshot shows ${image?.shows || "nothing the key points need"}.\nScore: ${score}`;
  }
  const d = decide(read, opts);
  const out = [`Reasoning: ${d.because}`];
  if (/^key point \d+\s*:/im.test(form)) c.keyPoints.forEach((k, i) => out.push(`Key point ${i + 1}: ${isShown(k, c.evidence) ? "MET" : "NOT MET"}`));
  if (/^criterion \d+\s*:/im.test(form)) c.criteria.forEach((k, i) => out.push(`Criterion ${i + 1}: ${criterionPasses(c, k) ? "PASS" : "FAIL"}`));
  if (/^process\s*:/im.test(form)) out.push(`Process: ${c.criteria.filter((k) => k.kind === "process").every((k) => criterionPasses(c, k)) ? "PASS" : "FAIL"}`);
  if (/^failure cause\s*:/im.test(form))
    out.push(`Failure cause: ${d.verdict === "success" ? "NONE" : UNCONTROLLABLE.test(c.evidence) ? "UNCONTROLLABLE" : "CONTROLLABLE"}`);
  if (/^evidence\s*:/im.test(form)) out.push(...citations(c, opts));
  if (d.verdict === "failure" && /first failing step\s*:/i.test(read.system)) {
    const last = c.actions.length ? c.actions[c.actions.length - 1]!.step : c.images.length ? (c.images[c.images.length - 1]!.step ?? 1) : 1;
    out.push(`First failing step: ${last}`);
  }
  out.push(`Verdict: ${d.verdict === "success" ? "SUCCESS" : "FAILURE"}`);
  return out.join("\n");
}

/** A responder for startFakeOpenAI that answers every request from its prompt. */
export function promptReadingResponder(opts: JudgeModelOptions = {}): Responder {
  return (req) => ({ reply: replyTo(readJudgeRequest(req, opts.screens), opts), ...(opts.extra?.(req) ?? {}) });
}

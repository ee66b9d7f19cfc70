/**
 * Behaviour search: the query language of the trajectory list's search box, parsed into clauses the database layer
 * turns into full-text conditions (SQLite FTS5, PostgreSQL tsvector), and the highlighting of what a clause matched.
 *
 *   captcha "add to cart"          free words and phrases, anywhere a viewer may search
 *   thought:"captcha"  url:checkout  action:type  answer:42  note:…  rationale:…   one kind of text only
 *   -login                          trajectories where it does not occur
 *   check*                          any word starting "check"
 *   judge:success  human:failure    a judge's verdict / the consolidated human label
 *   scanner:captcha                 trajectories where that scanner matched a step (-scanner:… where it did not)
 *
 * Every clause must hold (AND), each anywhere in the trajectory: `thought:captcha url:checkout` finds trajectories
 * where some thought mentions a captcha and some step was on a checkout page, not necessarily the same step.
 *
 * Words are compared as the full-text indexes store them: lower case, split at every character that is neither a
 * letter nor a digit ("checkout.com/cart" is the phrase "checkout com cart"), without stemming.
 */
import { ValidationError } from "../../errors";

/** The kinds of text a trajectory holds, as search entries store them (db/schema search_entries.field). */
export const SEARCH_FIELDS = ["intent", "thought", "action", "element", "url", "answer", "error", "note", "rationale"] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

/** Field names a query may use, and the stored field each means (`text:` is the elements' text, as people say it). */
const FIELD_NAMES: Record<string, SearchField> = {
  intent: "intent",
  task: "intent",
  thought: "thought",
  action: "action",
  element: "element",
  text: "element",
  url: "url",
  answer: "answer",
  error: "error",
  note: "note",
  rationale: "rationale",
};

export const JUDGE_VERDICTS = ["success", "failure", "unparseable", "not_evaluable"] as const;
export const HUMAN_VERDICTS = ["success", "failure", "unsure", "none"] as const;
const VERDICT_VALUES = { judge: JUDGE_VERDICTS, human: HUMAN_VERDICTS } as const;

export interface TextClause {
  kind: "text";
  /** Null: any field the viewer may search. */
  field: SearchField | null;
  /** The words, in order (a phrase when more than one). */
  words: string[];
  /** The last word is a prefix (`check*`). */
  prefix: boolean;
  negated: boolean;
}

export interface VerdictClause {
  kind: "verdict";
  source: "judge" | "human";
  value: string;
}

/** `scanner:<key>`: trajectories where the scanner matched a step (server/domain/evaluation/scanners). */
export interface ScannerClause {
  kind: "scanner";
  key: string;
  negated: boolean;
}

export interface SearchQuery {
  text: TextClause[];
  verdicts: VerdictClause[];
  scanners: ScannerClause[];
}

/** Clauses one query may hold: each is a subquery, and a pasted paragraph is not a search. */
export const MAX_CLAUSES = 16;
export const MAX_QUERY_LENGTH = 500;

export class SearchSyntaxError extends ValidationError {
  constructor(
    message: string,
    /** 0-based position in the query where the problem starts. */
    readonly position: number,
  ) {
    super(message);
    this.name = "SearchSyntaxError";
  }
}

/** The words a text holds as the indexes see them: lower case, split at non-letters/digits, accents kept. */
export function searchWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

interface RawToken {
  /** `field:` before the value, as typed (lower-cased). */
  name: string | null;
  value: string;
  quoted: boolean;
  negated: boolean;
  start: number;
}

/** Reads one quoted value from `at` (the opening quote); returns its text and the position after the closing quote. */
function readQuoted(q: string, at: number): { text: string; end: number } {
  const close = q.indexOf('"', at + 1);
  if (close < 0) throw new SearchSyntaxError(`the quote at position ${at + 1} is never closed: add a " after the phrase`, at);
  return { text: q.slice(at + 1, close), end: close + 1 };
}

function readToken(q: string, start: number): { token: RawToken; end: number } {
  let i = start;
  const negated = q[i] === "-" && i + 1 < q.length && !/\s/.test(q[i + 1]!);
  if (negated) i++;
  if (q[i] === '"') {
    const { text, end } = readQuoted(q, i);
    return { token: { name: null, value: text, quoted: true, negated, start }, end };
  }
  const field = /^([A-Za-z_]+):/.exec(q.slice(i));
  // "https://…" is a word, not a field called https.
  if (field && q.slice(i + field[0].length, i + field[0].length + 2) !== "//") {
    const valueAt = i + field[0].length;
    if (q[valueAt] === '"') {
      const { text, end } = readQuoted(q, valueAt);
      return { token: { name: field[1]!.toLowerCase(), value: text, quoted: true, negated, start }, end };
    }
    let end = valueAt;
    while (end < q.length && !/\s/.test(q[end]!)) end++;
    return { token: { name: field[1]!.toLowerCase(), value: q.slice(valueAt, end), quoted: false, negated, start }, end };
  }
  let end = i;
  while (end < q.length && !/\s/.test(q[end]!)) end++;
  return { token: { name: null, value: q.slice(i, end), quoted: false, negated, start }, end };
}

function fieldNames(): string {
  return [...Object.keys(FIELD_NAMES), "judge", "human", "scanner"].map((n) => `${n}:`).join(", ");
}

function verdictClause(t: RawToken): VerdictClause {
  const source = t.name as "judge" | "human";
  const allowed: readonly string[] = VERDICT_VALUES[source];
  const value = t.value.toLowerCase().replace(/-/g, "_");
  if (t.negated) throw new SearchSyntaxError(`${source}: cannot be negated; ask for the verdict you want instead (${allowed.join(", ")})`, t.start);
  if (!allowed.includes(value)) {
    throw new SearchSyntaxError(`${source}:${t.value || "…"} is not a verdict: write ${allowed.map((v) => `${source}:${v}`).join(", ")}`, t.start);
  }
  return { kind: "verdict", source, value };
}

function scannerClause(t: RawToken): ScannerClause {
  const key = t.value.toLowerCase();
  if (!/^[a-z][a-z0-9_]{1,39}$/.test(key)) {
    throw new SearchSyntaxError(`scanner:${t.value || "…"} does not name a scanner: write its key, e.g. scanner:captcha or scanner:login_wall`, t.start);
  }
  return { kind: "scanner", key, negated: t.negated };
}

function textClause(t: RawToken, field: SearchField | null): TextClause {
  const shown = `${t.name ? `${t.name}:` : ""}${t.quoted ? `"${t.value}"` : t.value}`;
  if (!t.value.trim()) throw new SearchSyntaxError(`${shown} needs something to look for: a word or a "quoted phrase" after it`, t.start);
  const prefix = !t.quoted && t.value.endsWith("*");
  const words = searchWords(prefix ? t.value.slice(0, -1) : t.value);
  if (!words.length) throw new SearchSyntaxError(`${shown} has no letters or digits to search for`, t.start);
  return { kind: "text", field, words, prefix, negated: t.negated };
}

/**
 * Parses a behaviour search. Throws SearchSyntaxError, whose message says what is wrong and how to write it, for an
 * unclosed quote, an unknown field, a field without a value, a verdict filter with an unknown value, a query of only
 * punctuation or one with too many clauses.
 */
export function parseSearchQuery(input: string): SearchQuery {
  if (input.length > MAX_QUERY_LENGTH)
    throw new SearchSyntaxError(`the search is ${input.length} characters long; at most ${MAX_QUERY_LENGTH} are allowed`, MAX_QUERY_LENGTH);
  const query: SearchQuery = { text: [], verdicts: [], scanners: [] };
  let i = 0;
  while (i < input.length) {
    if (/\s/.test(input[i]!)) {
      i++;
      continue;
    }
    const { token, end } = readToken(input, i);
    i = end;
    if (token.name === "judge" || token.name === "human") query.verdicts.push(verdictClause(token));
    else if (token.name === "scanner") query.scanners.push(scannerClause(token));
    else if (token.name !== null) {
      const field = FIELD_NAMES[token.name];
      if (!field) throw new SearchSyntaxError(`${token.name}: is not a field you can search; the fields are ${fieldNames()}`, token.start);
      query.text.push(textClause(token, field));
    } else query.text.push(textClause(token, null));
    if (query.text.length + query.verdicts.length + query.scanners.length > MAX_CLAUSES)
      throw new SearchSyntaxError(`the search has more than ${MAX_CLAUSES} parts; search for fewer words at once`, token.start);
  }
  if (!query.text.length && !query.verdicts.length && !query.scanners.length) throw new SearchSyntaxError("the search is empty", 0);
  return query;
}

/** The fields a query names (`rationale:` and `note:` decide what the viewer must be allowed to search). */
export function fieldsNamed(query: SearchQuery): Set<SearchField> {
  return new Set(query.text.flatMap((c) => (c.field ? [c.field] : [])));
}

/** Clauses that select by what occurs (not negated): the ones a hit shows and relevance counts. */
export function positiveClauses(query: SearchQuery): TextClause[] {
  return query.text.filter((c) => !c.negated);
}

/** The clause as an FTS5 MATCH expression: one quoted phrase (its words are letters and digits only). */
export function fts5Match(clause: TextClause): string {
  return `"${clause.words.join(" ")}"${clause.prefix ? "*" : ""}`;
}

/** The clause as a PostgreSQL tsquery for `to_tsquery('simple', …)`: words followed by each other. */
export function pgTsQuery(clause: TextClause): string {
  return clause.words.map((w, i) => (clause.prefix && i === clause.words.length - 1 ? `${w}:*` : w)).join(" <-> ");
}

/** A part of a shown text: matched parts are highlighted. */
export interface TextPart {
  text: string;
  match: boolean;
}

/** One place a search matched, as the list shows it under a row. */
export interface SearchHit {
  /** The step (0-based), or null for the trajectory's own text (intent, answer, outcome, notes, rationales). */
  stepIndex: number | null;
  field: SearchField;
  parts: TextPart[];
}

interface WordSpan {
  word: string;
  start: number;
  end: number;
}

function wordSpans(text: string): WordSpan[] {
  const spans: WordSpan[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) spans.push({ word: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length });
  return spans;
}

function wordMatches(word: string, wanted: string, prefix: boolean): boolean {
  return prefix ? word.startsWith(wanted) : word === wanted;
}

/** [start, end) character ranges of `text` where one of the clauses' phrases occurs, sorted and merged. */
export function matchRanges(text: string, clauses: readonly TextClause[]): [number, number][] {
  const spans = wordSpans(text);
  const ranges: [number, number][] = [];
  for (const c of clauses) {
    for (let i = 0; i + c.words.length <= spans.length; i++) {
      const ok = c.words.every((w, j) => wordMatches(spans[i + j]!.word, w, c.prefix && j === c.words.length - 1));
      if (ok) ranges.push([spans[i]!.start, spans[i + c.words.length - 1]!.end]);
    }
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

/**
 * A window of about `width` characters of `text` around its first match, split into plain and matched parts, with
 * "…" where the text was cut. A text with no match (the index matched accents the highlighter does not) is shown
 * from its start, unhighlighted.
 */
export function highlightSnippet(text: string, clauses: readonly TextClause[], width = 160): TextPart[] {
  const flat = text.replace(/\s+/g, " ");
  const ranges = matchRanges(flat, clauses);
  const first = ranges[0];
  let from = first ? Math.max(0, first[0] - Math.floor(width / 3)) : 0;
  let to = Math.min(flat.length, from + width);
  if (to - from < width) from = Math.max(0, to - width);
  // Cut at spaces, not inside words.
  if (from > 0) {
    const space = flat.indexOf(" ", from);
    if (space >= 0 && (!first || space < first[0])) from = space + 1;
  }
  if (to < flat.length) {
    const space = flat.lastIndexOf(" ", to);
    if (space > from && (!first || space >= first[1])) to = space;
  }
  const parts: TextPart[] = [];
  if (from > 0) parts.push({ text: "…", match: false });
  let at = from;
  for (const [s, e] of ranges) {
    if (e <= from || s >= to) continue;
    const start = Math.max(s, from);
    const end = Math.min(e, to);
    if (start > at) parts.push({ text: flat.slice(at, start), match: false });
    parts.push({ text: flat.slice(start, end), match: true });
    at = end;
  }
  if (at < to) parts.push({ text: flat.slice(at, to), match: false });
  if (to < flat.length) parts.push({ text: "…", match: false });
  return parts;
}

/** The words to highlight in the player for a query (its positive clauses' phrases, as typed words). */
export function highlightTerms(query: SearchQuery): string[] {
  return positiveClauses(query).map((c) => `${c.words.join(" ")}${c.prefix ? "*" : ""}`);
}

/** Clauses back from highlightTerms' strings (the player reads them from its URL). */
export function clausesFromTerms(terms: readonly string[]): TextClause[] {
  return terms.flatMap((t) => {
    const prefix = t.endsWith("*");
    const words = searchWords(prefix ? t.slice(0, -1) : t);
    return words.length ? [{ kind: "text" as const, field: null, words, prefix, negated: false }] : [];
  });
}

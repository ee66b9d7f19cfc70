/**
 * The checks a researcher's scanner pattern passes before it is saved, so one pattern cannot stall a scan for
 * everyone (catastrophic backtracking, "ReDoS"). JavaScript's regular expressions backtrack, and some shapes take
 * time exponential in the text's length on a text that almost matches: `(a+)+$`, `(\w+\s?)*x`, `(a|aa)*b`.
 *
 * Three layers, because no static test catches every slow pattern:
 * 1. here, statically: a length bound, the flags that keep `exec` stateless, no backreferences (matching them is
 *    NP-hard in general), and no quantified group that itself holds a quantifier or an alternation
 *    (the shapes above);
 * 2. a probe (server/services/evaluation/scanner-sandbox.ts): the compiled pattern runs on the texts
 *    `probeTexts` builds, long repetitions of the characters the pattern names, under a time budget;
 * 3. at scan time every scanner runs on each trajectory under a time budget, and a trajectory whose scan ran out of
 *    time is reported as such, never as "no match".
 */

export const MAX_PATTERN_LENGTH = 300;
/** Flags a scanner pattern may carry: no `g` or `y`, which make a compiled pattern remember where it stopped. */
export const ALLOWED_FLAGS = ["i", "m", "s", "u"] as const;

/** Why a pattern was refused; `field` names the input it came from (`rules[0].pattern`). */
export class PatternRefused extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = "PatternRefused";
  }
}

interface GroupState {
  /** Something inside the group (or a group inside it) is repeated. */
  quantified: boolean;
  /** The group holds a top-level `|`. */
  alternation: boolean;
  /** Something inside the group is optional (`?`, `{0,1}`): repeated, `(a?){25}` tries every way to split a run. */
  optional: boolean;
  start: number;
}

/** Length of the quantifier at `i` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, with a lazy `?`), 0 when there is none. */
function quantifierAt(p: string, i: number): { length: number; repeats: boolean } {
  const c = p[i];
  let length = 0;
  let repeats = false;
  if (c === "*" || c === "+") {
    length = 1;
    repeats = true;
  } else if (c === "?") length = 1;
  else if (c === "{") {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
    if (!m) return { length: 0, repeats: false };
    length = m[0].length;
    const high = m[2] === undefined ? Number(m[1]) : m[3] === "" ? Infinity : Number(m[3]);
    repeats = high > 1;
  }
  if (length && p[i + length] === "?") length++;
  return { length, repeats };
}

/** End (exclusive) of the character class opening at `i`, escapes inside it skipped. */
function classEnd(p: string, i: number): number {
  let j = i + 1;
  if (p[j] === "^") j++;
  if (p[j] === "]") j++;
  while (j < p.length && p[j] !== "]") j += p[j] === "\\" ? 2 : 1;
  return j + 1;
}

/**
 * Refuses the pattern shapes that backtrack exponentially: a repeated group (bounded repeats included) holding a
 * repeated part, an optional part or an alternation, and backreferences. Lookarounds and bounded repeats of plain characters pass.
 */
function checkShape(p: string, field: string): void {
  const stack: GroupState[] = [{ quantified: false, alternation: false, optional: false, start: -1 }];
  let i = 0;
  while (i < p.length) {
    const c = p[i]!;
    if (c === "\\") {
      const next = p[i + 1] ?? "";
      if (/[1-9]/.test(next) || next === "k")
        throw new PatternRefused(field, `backreferences (\\${next}…) are not allowed: they can make a scan take exponential time`);
      i += 2;
    } else if (c === "[") {
      i = classEnd(p, i);
    } else if (c === "(") {
      stack.push({ quantified: false, alternation: false, optional: false, start: i });
      i++;
      continue;
    } else if (c === ")") {
      const group = stack.pop();
      if (!group || stack.length === 0) return; // unbalanced: the compiler reports it
      const q = quantifierAt(p, i + 1);
      if (q.repeats && (group.quantified || group.alternation || group.optional)) {
        const what = group.quantified ? "a repeated part" : group.alternation ? "alternatives" : "an optional part";
        throw new PatternRefused(
          field,
          `the group at position ${group.start + 1} holds ${what} and is itself repeated (like (a+)+ or (a|b)*), which can take exponential time; repeat a character class instead, e.g. [ab]*`,
        );
      }
      const parent = stack[stack.length - 1]!;
      parent.quantified ||= group.quantified || q.repeats;
      parent.optional ||= group.optional || (q.length > 0 && !q.repeats);
      i += 1 + q.length;
      continue;
    } else if (c === "|") {
      stack[stack.length - 1]!.alternation = true;
      i++;
      continue;
    } else {
      i++;
    }
    const q = quantifierAt(p, i);
    if (q.length) {
      if (q.repeats) stack[stack.length - 1]!.quantified = true;
      else stack[stack.length - 1]!.optional = true;
      i += q.length;
    }
  }
}

/**
 * Checks a scanner pattern and its flags, and returns the compiled pattern. Throws PatternRefused naming `field`
 * for an empty or too long pattern, unknown flags, a pattern that does not compile, and the shapes checkShape
 * refuses.
 */
export function checkPattern(pattern: string, flags: string, field: string): RegExp {
  if (!pattern.length) throw new PatternRefused(field, "the pattern is empty");
  if (pattern.length > MAX_PATTERN_LENGTH)
    throw new PatternRefused(field, `the pattern is ${pattern.length} characters long; at most ${MAX_PATTERN_LENGTH} are allowed`);
  for (const f of flags) {
    if (!(ALLOWED_FLAGS as readonly string[]).includes(f))
      throw new PatternRefused(field, `flag "${f}" is not allowed; use any of ${ALLOWED_FLAGS.join(", ")}`);
  }
  if (new Set(flags).size !== flags.length) throw new PatternRefused(field, `flags "${flags}" repeat a flag`);
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern, flags);
  } catch (e) {
    throw new PatternRefused(field, `the pattern does not compile: ${e instanceof Error ? e.message.replace(/^Invalid regular expression: /, "") : String(e)}`);
  }
  checkShape(pattern, field);
  return compiled;
}

/** Length of each probe text: an exponential or high-degree pattern cannot finish on it, a linear or quadratic one does in milliseconds. */
export const PROBE_LENGTH = 1_000;

/**
 * Texts that make backtracking patterns slow: long runs of each character the pattern names (and of word
 * characters, spaces and dots), each ending in a character that makes the match fail late.
 */
export function probeTexts(pattern: string): string[] {
  const literal = new Set<string>();
  for (const ch of pattern.replace(/\\[a-zA-Z]/g, "")) if (/[\p{L}\p{N} ._\-/:]/u.test(ch)) literal.add(ch);
  const units = [...new Set(["a", "a ", " ", ".", "1", ...literal])].slice(0, 24);
  const pairs = [...literal].slice(0, 6).flatMap((a) => [...literal].slice(0, 6).map((b) => a + b));
  return [...units, ...pairs].flatMap((u) => {
    const run = u.repeat(Math.ceil(PROBE_LENGTH / u.length)).slice(0, PROBE_LENGTH);
    return [`${run}\u0000`, `${run}!`];
  });
}

/**
 * A small reader for the Python source fragments the seed systems write: BrowserGym action calls
 * (`click('12')`, `fill("5", 'a\'b')`, several calls per string, `#` comments) and `str()`/`repr()` dumps of
 * plain containers (VisualWebArena's config block). It understands literals only — strings with escapes and
 * prefixes, numbers, lists, tuples, dicts, True/False/None — and calls whose arguments are literals.
 * Anything else (names, operators, attribute access) is a syntax error: nothing is ever evaluated.
 *
 * Pure; throws `PythonSyntaxError` on bad input so callers can turn it into a parse error of their own.
 */

export type PyValue = string | number | boolean | null | PyValue[] | { [key: string]: PyValue };

export interface PyCall {
  name: string;
  args: PyValue[];
  kwargs: Record<string, PyValue>;
  /** The call's own source text, for error messages. */
  source: string;
}

export class PythonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = "PythonSyntaxError";
  }
}

type TokenKind = "name" | "number" | "string" | "punct" | "newline" | "end";

interface Token {
  kind: TokenKind;
  text: string;
  /** Decoded value for strings and numbers. */
  value?: string | number;
  start: number;
  end: number;
}

const PUNCT = new Set(["(", ")", "[", "]", "{", "}", ",", ":", "=", ";", "-", "+"]);
const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  n: "\n",
  t: "\t",
  r: "\r",
  b: "\b",
  f: "\f",
  v: "\v",
  a: "\x07",
};

function describe(t: Token): string {
  if (t.kind === "end") return "end of input";
  if (t.kind === "newline") return "end of line";
  return `'${t.text.length > 20 ? `${t.text.slice(0, 20)}…` : t.text}'`;
}

/** Decodes the body of a non-raw string literal the way Python does; unknown escapes keep their backslash. */
function decodeEscapes(body: string, bodyStart: number): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const n = body[i + 1];
    if (n === undefined) throw new PythonSyntaxError("string ends with a lone backslash", bodyStart + i);
    if (n === "\n") {
      i++;
      continue;
    }
    if (n in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[n];
      i++;
      continue;
    }
    const hexLen = n === "x" ? 2 : n === "u" ? 4 : n === "U" ? 8 : 0;
    if (hexLen) {
      const hex = body.slice(i + 2, i + 2 + hexLen);
      if (hex.length !== hexLen || !/^[0-9a-fA-F]+$/.test(hex)) {
        throw new PythonSyntaxError(`bad \\${n} escape in string`, bodyStart + i);
      }
      const code = parseInt(hex, 16);
      if (code > 0x10ffff) throw new PythonSyntaxError(`\\${n} escape out of range`, bodyStart + i);
      out += String.fromCodePoint(code);
      i += 1 + hexLen;
      continue;
    }
    const octal = /^[0-7]{1,3}/.exec(body.slice(i + 1));
    if (octal) {
      out += String.fromCharCode(parseInt(octal[0], 8));
      i += octal[0].length;
      continue;
    }
    out += `\\${n}`;
    i++;
  }
  return out;
}

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === "#") {
      while (i < src.length && src[i] !== "\n") i++;
      continue;
    }
    if (c === "\\" && src[i + 1] === "\n") {
      i += 2;
      continue;
    }
    if (c === "\n") {
      // Inside brackets a newline is only whitespace (Python's implicit line joining).
      if (depth === 0) tokens.push({ kind: "newline", text: "\n", start: i, end: i + 1 });
      i++;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const str = /^([rRbBuUfF]{0,2})('''|"""|'|")/.exec(src.slice(i, i + 5));
    if (str && (str[1] === "" || /^[rR]?[bBuUfF]?$|^[bBuUfF][rR]$/.test(str[1]!))) {
      const prefix = str[1]!;
      const quote = str[2]!;
      const raw = /[rR]/.test(prefix);
      const bodyStart = i + prefix.length + quote.length;
      let j = bodyStart;
      let closed = -1;
      while (j < src.length) {
        const d = src[j]!;
        if (d === "\\") {
          j += 2;
          continue;
        }
        if (quote.length === 1 && d === "\n") break;
        if (src.startsWith(quote, j)) {
          closed = j;
          break;
        }
        j++;
      }
      if (closed < 0) throw new PythonSyntaxError(`unterminated string starting at offset ${i}`, i);
      const body = src.slice(bodyStart, closed);
      const value = raw ? body : decodeEscapes(body, bodyStart);
      const end = closed + quote.length;
      tokens.push({ kind: "string", text: src.slice(i, end), value, start: i, end });
      i = end;
      continue;
    }
    const num = /^(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?)/.exec(src.slice(i));
    if (num && num[0] !== "") {
      const text = num[0];
      const clean = text.replace(/_/g, "");
      let value: number;
      if (/^0[xX]/.test(clean)) value = parseInt(clean.slice(2), 16);
      else if (/^0[oO]/.test(clean)) value = parseInt(clean.slice(2), 8);
      else if (/^0[bB]/.test(clean)) value = parseInt(clean.slice(2), 2);
      else value = Number(clean);
      if (!Number.isFinite(value)) throw new PythonSyntaxError(`bad number ${text}`, i);
      tokens.push({ kind: "number", text, value, start: i, end: i + text.length });
      i += text.length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (name) {
      tokens.push({ kind: "name", text: name[0], start: i, end: i + name[0].length });
      i += name[0].length;
      continue;
    }
    if (PUNCT.has(c)) {
      if (c === "(" || c === "[" || c === "{") depth++;
      if (c === ")" || c === "]" || c === "}") depth = Math.max(0, depth - 1);
      tokens.push({ kind: "punct", text: c, start: i, end: i + 1 });
      i++;
      continue;
    }
    throw new PythonSyntaxError(`unexpected character '${c}' at offset ${i}`, i);
  }
  tokens.push({ kind: "end", text: "", start: src.length, end: src.length });
  return tokens;
}

class Reader {
  private pos = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly src: string,
  ) {}

  peek(): Token {
    return this.tokens[this.pos]!;
  }

  next(): Token {
    const t = this.tokens[this.pos]!;
    if (t.kind !== "end") this.pos++;
    return t;
  }

  isPunct(text: string): boolean {
    const t = this.peek();
    return t.kind === "punct" && t.text === text;
  }

  expectPunct(text: string, context: string): Token {
    const t = this.next();
    if (t.kind !== "punct" || t.text !== text) {
      throw new PythonSyntaxError(`expected '${text}' ${context} but found ${describe(t)} at offset ${t.start}`, t.start);
    }
    return t;
  }

  skipSeparators(): void {
    while (this.peek().kind === "newline" || this.isPunct(";")) this.next();
  }

  literal(): PyValue {
    const t = this.next();
    switch (t.kind) {
      case "string": {
        // Adjacent literals concatenate: 'a' "b" == 'ab'.
        let s = t.value as string;
        while (this.peek().kind === "string") s += this.next().value as string;
        return s;
      }
      case "number":
        return t.value as number;
      case "name":
        if (t.text === "True") return true;
        if (t.text === "False") return false;
        if (t.text === "None") return null;
        throw new PythonSyntaxError(`'${t.text}' is not a literal (offset ${t.start})`, t.start);
      case "punct":
        if (t.text === "-" || t.text === "+") {
          const n = this.next();
          if (n.kind !== "number") throw new PythonSyntaxError(`expected a number after '${t.text}' at offset ${t.start}`, t.start);
          return t.text === "-" ? -(n.value as number) : (n.value as number);
        }
        if (t.text === "[") return this.sequence("]");
        if (t.text === "(") {
          // A parenthesised single value without a comma is just that value; with one it is a tuple.
          if (this.isPunct(")")) {
            this.next();
            return [];
          }
          const first = this.literal();
          if (this.isPunct(")")) {
            this.next();
            return first;
          }
          this.expectPunct(",", "in tuple");
          const rest = this.sequence(")");
          return [first, ...rest];
        }
        if (t.text === "{") return this.dict();
        break;
    }
    throw new PythonSyntaxError(`expected a value but found ${describe(t)} at offset ${t.start}`, t.start);
  }

  private sequence(close: string): PyValue[] {
    const items: PyValue[] = [];
    while (!this.isPunct(close)) {
      items.push(this.literal());
      if (this.isPunct(",")) this.next();
      else if (!this.isPunct(close)) {
        const t = this.peek();
        throw new PythonSyntaxError(`expected ',' or '${close}' but found ${describe(t)} at offset ${t.start}`, t.start);
      }
    }
    this.next();
    return items;
  }

  private dict(): Record<string, PyValue> {
    const out: Record<string, PyValue> = {};
    while (!this.isPunct("}")) {
      const key = this.literal();
      this.expectPunct(":", "after a dict key");
      const value = this.literal();
      const k = typeof key === "string" ? key : JSON.stringify(key);
      Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
      if (this.isPunct(",")) this.next();
      else if (!this.isPunct("}")) {
        const t = this.peek();
        throw new PythonSyntaxError(`expected ',' or '}' but found ${describe(t)} at offset ${t.start}`, t.start);
      }
    }
    this.next();
    return out;
  }

  call(): PyCall {
    const nameTok = this.next();
    if (nameTok.kind !== "name") {
      throw new PythonSyntaxError(`expected a function name but found ${describe(nameTok)} at offset ${nameTok.start}`, nameTok.start);
    }
    this.expectPunct("(", `after '${nameTok.text}'`);
    const args: PyValue[] = [];
    const kwargs: Record<string, PyValue> = {};
    while (!this.isPunct(")")) {
      const t = this.peek();
      const after = this.tokens[this.pos + 1];
      if (t.kind === "name" && after && after.kind === "punct" && after.text === "=") {
        this.next();
        this.next();
        if (Object.prototype.hasOwnProperty.call(kwargs, t.text)) {
          throw new PythonSyntaxError(`keyword argument '${t.text}' repeated in ${nameTok.text}()`, t.start);
        }
        Object.defineProperty(kwargs, t.text, { value: this.literal(), enumerable: true, writable: true, configurable: true });
      } else {
        if (Object.keys(kwargs).length) {
          throw new PythonSyntaxError(`positional argument after keyword argument in ${nameTok.text}()`, t.start);
        }
        args.push(this.literal());
      }
      if (this.isPunct(",")) this.next();
      else if (!this.isPunct(")")) {
        const bad = this.peek();
        throw new PythonSyntaxError(`expected ',' or ')' in ${nameTok.text}() but found ${describe(bad)} at offset ${bad.start}`, bad.start);
      }
    }
    const close = this.next();
    return { name: nameTok.text, args, kwargs, source: this.src.slice(nameTok.start, close.end) };
  }
}

/** Parses one or more calls separated by newlines or `;`. An empty string gives no calls. */
export function parsePythonCalls(src: string): PyCall[] {
  const r = new Reader(tokenize(src), src);
  const calls: PyCall[] = [];
  r.skipSeparators();
  while (r.peek().kind !== "end") {
    calls.push(r.call());
    const t = r.peek();
    if (t.kind !== "end" && t.kind !== "newline" && !r.isPunct(";")) {
      throw new PythonSyntaxError(`unexpected ${describe(t)} after ${calls[calls.length - 1]!.name}() at offset ${t.start}`, t.start);
    }
    r.skipSeparators();
  }
  return calls;
}

/** Parses exactly one literal (a `repr()` of plain data). */
export function parsePythonLiteral(src: string): PyValue {
  const r = new Reader(tokenize(src), src);
  r.skipSeparators();
  const value = r.literal();
  r.skipSeparators();
  const t = r.peek();
  if (t.kind !== "end") throw new PythonSyntaxError(`unexpected ${describe(t)} after the value at offset ${t.start}`, t.start);
  return value;
}

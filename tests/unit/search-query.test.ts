import { describe, expect, it } from "vitest";
import {
  clausesFromTerms,
  fts5Match,
  highlightSnippet,
  highlightTerms,
  matchRanges,
  MAX_CLAUSES,
  parseSearchQuery,
  pgTsQuery,
  searchWords,
  SearchSyntaxError,
  type TextClause,
} from "../../server/domain/trajectories/search-query";
import { parseTrajectoryListParams, trajectoryListSearch } from "../../server/domain/trajectory-list-query";

const text = (words: string[], o: Partial<TextClause> = {}): TextClause => ({ kind: "text", field: null, words, prefix: false, negated: false, ...o });

function syntaxError(q: string): SearchSyntaxError {
  try {
    parseSearchQuery(q);
  } catch (e) {
    if (e instanceof SearchSyntaxError) return e;
    throw e;
  }
  throw new Error(`${q} parsed`);
}

describe("parseSearchQuery", () => {
  it("reads free words, phrases, field filters, negation, prefixes and verdicts", () => {
    expect(parseSearchQuery(`captcha "Add to cart" thought:"login wall" url:checkout action:type -answer:none check* judge:success human:failure`)).toEqual({
      text: [
        text(["captcha"]),
        text(["add", "to", "cart"]),
        text(["login", "wall"], { field: "thought" }),
        text(["checkout"], { field: "url" }),
        text(["type"], { field: "action" }),
        text(["none"], { field: "answer", negated: true }),
        text(["check"], { prefix: true }),
      ],
      verdicts: [
        { kind: "verdict", source: "judge", value: "success" },
        { kind: "verdict", source: "human", value: "failure" },
      ],
      scanners: [],
    });
  });

  it("reads scanner: filters, negated too, and refuses one that names no scanner", () => {
    expect(parseSearchQuery("scanner:captcha -scanner:Login_Wall").scanners).toEqual([
      { kind: "scanner", key: "captcha", negated: false },
      { kind: "scanner", key: "login_wall", negated: true },
    ]);
    expect(syntaxError("scanner:").message).toBe("scanner:… does not name a scanner: write its key, e.g. scanner:captcha or scanner:login_wall");
    expect(syntaxError("thought:x scanner:'; drop").position).toBe(10);
  });

  it("splits words where the indexes do: a URL or a dotted name is a phrase of its words", () => {
    expect(parseSearchQuery("url:shop.example/checkout?step=2").text).toEqual([text(["shop", "example", "checkout", "step", "2"], { field: "url" })]);
    // A URL with a scheme is a word, not a field called https.
    expect(parseSearchQuery("https://a.test/x").text).toEqual([text(["https", "a", "test", "x"])]);
    expect(searchWords("Café-au-lait, 3.5 €")).toEqual(["café", "au", "lait", "3", "5"]);
  });

  it("takes field names in any case and the synonyms text: (elements) and task: (intent)", () => {
    expect(parseSearchQuery("URL:cart text:Submit task:recipe").text.map((c) => c.field)).toEqual(["url", "element", "intent"]);
  });

  it("reads judge:not-evaluable as not_evaluable and human:none", () => {
    expect(parseSearchQuery("judge:not-evaluable human:none").verdicts.map((v) => v.value)).toEqual(["not_evaluable", "none"]);
  });

  it("says what is wrong, where, and how to write it", () => {
    expect(syntaxError(`thought:"captcha`).message).toBe(`the quote at position 9 is never closed: add a " after the phrase`);
    expect(syntaxError(`thought:"captcha`).position).toBe(8);
    expect(syntaxError("thougt:captcha").message).toMatch(
      /^thougt: is not a field you can search; the fields are intent:, task:, thought:, .*judge:, human:, scanner:$/,
    );
    expect(syntaxError("answer: captcha").message).toBe(`answer: needs something to look for: a word or a "quoted phrase" after it`);
    expect(syntaxError(`note:""`).message).toBe(`note:"" needs something to look for: a word or a "quoted phrase" after it`);
    expect(syntaxError("judge:great").message).toBe("judge:great is not a verdict: write judge:success, judge:failure, judge:unparseable, judge:not_evaluable");
    expect(syntaxError("-human:success").message).toMatch(/^human: cannot be negated/);
    expect(syntaxError("?!").message).toBe("?! has no letters or digits to search for");
    expect(syntaxError("   ").message).toBe("the search is empty");
    expect(syntaxError(Array.from({ length: MAX_CLAUSES + 1 }, (_, i) => `w${i}`).join(" ")).message).toMatch(/more than 16 parts/);
  });

  it("keeps a lone dash and an inner dash as text, not as negation", () => {
    expect(parseSearchQuery("e-mail").text).toEqual([text(["e", "mail"])]);
    expect(() => parseSearchQuery("- foo")).toThrow(/has no letters or digits/);
  });
});

describe("engine queries", () => {
  it("quotes a clause as one FTS5 phrase and chains a tsquery, prefix on the last word", () => {
    const c = text(["add", "to", "cart"], { prefix: true });
    expect(fts5Match(c)).toBe(`"add to cart"*`);
    expect(pgTsQuery(c)).toBe("add <-> to <-> cart:*");
    expect(fts5Match(text(["captcha"]))).toBe(`"captcha"`);
  });
});

describe("highlighting", () => {
  it("finds phrases and prefixes by word, not inside words", () => {
    const s = "Solve the CAPTCHA, then captchas and the recaptcha";
    expect(matchRanges(s, [text(["captcha"])])).toEqual([[10, 17]]);
    expect(matchRanges(s, [text(["captcha"], { prefix: true })])).toEqual([
      [10, 17],
      [24, 32],
    ]);
    expect(matchRanges("add to cart, Add  To Cart", [text(["add", "to", "cart"])])).toEqual([
      [0, 11],
      [13, 25],
    ]);
  });

  it("cuts a long text around its first match with ellipses and marks the match", () => {
    const body = `${"lorem ipsum ".repeat(30)}a captcha appeared ${"dolor sit ".repeat(30)}`;
    const parts = highlightSnippet(body, [text(["captcha"])], 80);
    expect(parts[0]).toEqual({ text: "…", match: false });
    expect(parts[parts.length - 1]).toEqual({ text: "…", match: false });
    expect(parts.filter((p) => p.match)).toEqual([{ text: "captcha", match: true }]);
    const shown = parts.map((p) => p.text).join("");
    expect(shown.length).toBeLessThanOrEqual(82);
    // Cut at spaces: whole words on either side of the ellipses.
    expect(shown).toMatch(/^…(lorem|ipsum) .* (dolor|sit)…$/);
  });

  it("shows a short text whole", () => {
    expect(highlightSnippet("Type [5]; salmon", [text(["salmon"])])).toEqual([
      { text: "Type [5]; ", match: false },
      { text: "salmon", match: true },
    ]);
  });

  it("round-trips the player's highlight terms", () => {
    const q = parseSearchQuery(`"add to cart" -login check* judge:success`);
    expect(highlightTerms(q)).toEqual(["add to cart", "check*"]);
    expect(clausesFromTerms(highlightTerms(q))).toEqual([text(["add", "to", "cart"]), text(["check"], { prefix: true })]);
  });
});

describe("the list URL", () => {
  it("carries the search and sorts by relevance only with one", () => {
    const q = parseTrajectoryListParams(new URLSearchParams("search=thought%3A%22captcha%22&sort=relevance"));
    expect(q.search).toBe(`thought:"captcha"`);
    expect(q.sort).toBe("relevance");
    expect(trajectoryListSearch(q)).toBe("?search=thought%3A%22captcha%22&sort=relevance");
    expect(parseTrajectoryListParams(new URLSearchParams("sort=relevance")).sort).toBe("id");
  });
});

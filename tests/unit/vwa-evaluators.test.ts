import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { parseVwaEvalConfig, VwaConfigError } from "../../server/domain/evaluation/vwa/config";
import { buildVwaEvaluator, type LivePage, type VwaEvaluatorDeps } from "../../server/domain/evaluation/vwa/evaluate";
import { buildFuzzyMatchPrompt, parseFuzzyMatchReply, type FuzzyMatcher } from "../../server/domain/evaluation/vwa/fuzzy-prompt";
import {
  cleanAnswer,
  compareInequality,
  evaluateStringMatch,
  exactMatch,
  mustExclude,
  mustInclude,
  parseInteger,
} from "../../server/domain/evaluation/vwa/string-match";
import { wordTokenize } from "../../server/domain/evaluation/vwa/tokenize";
import { cleanUrl, evaluateUrlMatch, resolvePlaceholders } from "../../server/domain/evaluation/vwa/url-match";
import { sharedPath } from "../helpers/context";
import { titled } from "../helpers/requirements";

// VisualWebArena's own harness examples, copied under tests/fixtures (see its README); the full task configs stay in ../shared.
const harness = path.resolve(import.meta.dirname, "..", "fixtures", "visualwebarena", "tests", "test_evaluation_harness", "configs");
const configDir = sharedPath("fixtures", "visualwebarena", "config_files");

function harnessConfig(name: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(harness, name), "utf8"));
}

describe("wordTokenize (reference outputs from NLTK 3.8 word_tokenize)", () => {
  it.each([
    ["the date is 1985/04/18", ["the", "date", "is", "1985/04/18"]],
    ["the date is 1985/04/18.", ["the", "date", "is", "1985/04/18", "."]],
    ["$279.49", ["$", "279.49"]],
    ["it costs $25.", ["it", "costs", "$", "25", "."]],
    ["don't do it", ["do", "n't", "do", "it"]],
    ['"quoted" text', ["``", "quoted", "''", "text"]],
    ["yes.", ["yes", "."]],
    ["no, it isn't", ["no", ",", "it", "is", "n't"]],
    ["10:30 am", ["10:30", "am"]],
    ["1,000 items", ["1,000", "items"]],
    ["(a) b [c]", ["(", "a", ")", "b", "[", "c", "]"]],
    ["hello... world", ["hello", "...", "world"]],
    ["cannot", ["can", "not"]],
    ["gonna go", ["gon", "na", "go"]],
    ["it's john's", ["it", "'s", "john", "'s"]],
    ["can you comment 'i love this!' on it?", ["can", "you", "comment", "'", "i", "love", "this", "!", "'", "on", "it", "?"]],
    ["i wasn’t able", ["i", "wasn", "’", "t", "able"]],
    ["macbook 12'', pixel", ["macbook", "12", "''", ",", "pixel"]],
    ["0", ["0"]],
    ["the answer is 0.", ["the", "answer", "is", "0", "."]],
    ["usb-c", ["usb-c"]],
    ["n/a", ["n/a"]],
    ["luma@example.com", ["luma", "@", "example.com"]],
    ["50% off & more", ["50", "%", "off", "&", "more"]],
    ["a--b", ["a", "--", "b"]],
    // Sentence splitting (Punkt) splits a sentence-final full stop off inside a text, but not after initials.
    ["it is red. the next one", ["it", "is", "red", ".", "the", "next", "one"]],
    ["e.g. this one", ["e.g.", "this", "one"]],
  ])("%j", (text, tokens) => {
    expect(wordTokenize(text)).toEqual(tokens);
  });
});

describe("string checks", () => {
  it("cleans answers like VWA: lower case, one pair of surrounding quotes", () => {
    expect(cleanAnswer('"Hello"')).toBe("hello");
    expect(cleanAnswer("'it''s'")).toBe("it''s");
    expect(cleanAnswer("\"mixed'")).toBe("\"mixed'");
    expect(cleanAnswer("'")).toBe("'");
    expect(exactMatch("N/A", "n/a")).toBe(true);
    expect(exactMatch("$25", " $25")).toBe(false);
  });

  it.each([
    ["0", "there are 10 items", false],
    ["0", "there are 0 items", true],
    ["0", "The answer is 0.", true],
    ["1985/04/18", "The date is 1985/04/18", true],
    ["yes", "Yes, it is", true],
    ["cat", "concatenate", false],
    ["two words", "there are two words here", true],
    ["$25", "it costs $25.", true],
    ["red", "Reddish", false],
  ])("must_include %j in %j → %s", (ref, pred, want) => {
    expect(mustInclude(ref, pred)).toBe(want);
    expect(mustExclude(ref, pred)).toBe(!want);
  });

  it("reads integers and tests inequalities", () => {
    expect(parseInteger(" 1,234 ")).toBe(1234);
    expect(parseInteger("12.5")).toBeNull();
    expect(parseInteger("twelve")).toBeNull();
    expect(compareInequality(12, ">= 12")).toBe(true);
    // VWA compares with a 1e-8 tolerance in the lenient direction, so "< 700" admits 700 itself.
    expect(compareInequality(700, "< 700")).toBe(true);
    expect(compareInequality(700.5, "< 700")).toBe(false);
    expect(compareInequality(5, "== 5")).toBe(true);
    expect(() => compareInequality(5, "about 5")).toThrow(/bad inequality/);
  });

  it("must_include items accept any |OR| alternative; every item must be present", async () => {
    const reference = { must_include: ["red |OR| crimson", "large"] };
    const run = (answer: string) => evaluateStringMatch({ intent: "i", finalAnswer: answer, reference });
    expect((await run("a large crimson mug")).status).toBe("pass");
    expect((await run("a large blue mug")).status).toBe("fail");
    expect((await run("a small red mug")).checks.map((c) => c.passed)).toEqual([true, false]);
  });

  it("one_of, required_values and exact_match", async () => {
    expect((await evaluateStringMatch({ intent: "", finalAnswer: "Blue", reference: { one_of: ["green", "blue"] } })).status).toBe("pass");
    expect((await evaluateStringMatch({ intent: "", finalAnswer: "14", reference: { required_values: [">= 12", "< 20 |OR| == 40"] } })).status).toBe("pass");
    const notInt = await evaluateStringMatch({ intent: "", finalAnswer: "about 14", reference: { required_values: [">= 12"] } });
    expect(notInt.status).toBe("fail");
    expect(notInt.checks[0]!.note).toBe("answer is not an integer");
    expect((await evaluateStringMatch({ intent: "", finalAnswer: "'B07'", reference: { exact_match: "b07" } })).status).toBe("pass");
    expect((await evaluateStringMatch({ intent: "", finalAnswer: null, reference: { exact_match: "x" } })).status).toBe("fail");
  });

  it("unachievable tasks: N/A passes without a judge; another answer asks the judge about the reason", async () => {
    const reference = { fuzzy_match: "N/A" };
    const fuzzy = vi.fn<FuzzyMatcher>(async () => ({ match: true, raw: "Match: YES" }));
    const na = await evaluateStringMatch({ intent: "Buy the purple kettle", finalAnswer: "n/a", reference, fuzzy });
    expect(na.status).toBe("pass");
    expect(fuzzy).not.toHaveBeenCalled();

    const reason = await evaluateStringMatch({
      intent: "Buy the purple kettle",
      finalAnswer: "There is no purple kettle in the store",
      reference,
      stringNote: "no purple kettle exists",
      fuzzy,
    });
    expect(reason.status).toBe("pass");
    expect(fuzzy).toHaveBeenCalledWith({
      kind: "unachievable",
      intent: "Buy the purple kettle",
      reason: "no purple kettle exists",
      prediction: "there is no purple kettle in the store",
    });

    const noJudge = await evaluateStringMatch({ intent: "x", finalAnswer: "gave up", reference });
    expect(noJudge.status).toBe("not_evaluable");
    expect(noJudge.reason).toMatch(/needs a judge endpoint/);

    const unreadable = await evaluateStringMatch({
      intent: "x",
      finalAnswer: "gave up",
      reference,
      fuzzy: async () => ({ match: null, raw: "hmm" }),
    });
    expect(unreadable.status).toBe("not_evaluable");
    expect(unreadable.reason).toMatch(/unparseable/);
  });

  it("fuzzy_match references are each graded; judge calls are skipped once a check has failed", async () => {
    const fuzzy = vi.fn<FuzzyMatcher>(async (r) => ({ match: r.kind === "semantic" && r.reference !== "wrong", raw: "" }));
    const two = await evaluateStringMatch({ intent: "q", finalAnswer: "Paris", reference: { fuzzy_match: ["paris", "the capital"] }, fuzzy });
    expect(two.status).toBe("pass");
    expect(fuzzy).toHaveBeenCalledTimes(2);
    fuzzy.mockClear();
    const failedFirst = await evaluateStringMatch({
      intent: "q",
      finalAnswer: "Paris",
      reference: { must_include: ["lyon"], fuzzy_match: ["paris"] },
      fuzzy,
    });
    expect(failedFirst.status).toBe("fail");
    expect(fuzzy).not.toHaveBeenCalled();
    expect(failedFirst.checks[1]).toMatchObject({ check: "fuzzy_match", passed: null, note: "skipped: another check already failed" });
  });

  it("fuzzy prompts ask for a final Match line, parsed strictly", () => {
    const p = buildFuzzyMatchPrompt({ kind: "semantic", intent: "Q?", reference: "42", prediction: "forty-two" });
    expect(p.user).toBe("Question: Q?\nReference answer: 42\nCandidate answer: forty-two");
    expect(p.system).toContain('"Match: YES"');
    expect(buildFuzzyMatchPrompt({ kind: "unachievable", intent: "T", reason: "R", prediction: "P" }).user).toContain("Known reason it cannot be done: R");
    expect(parseFuzzyMatchReply("Same fact.\nMatch: YES")).toBe(true);
    expect(parseFuzzyMatchReply("**Match:** no")).toBe(false);
    expect(parseFuzzyMatchReply("yes, they match")).toBeNull();
    expect(parseFuzzyMatchReply("Match: YES\nMatch: NO")).toBeNull();
  });
});

describe("url_match", () => {
  it("normalises localhost and one trailing slash", () => {
    expect(cleanUrl("http://localhost:7770/a/")).toBe("http://127.0.0.1:7770/a");
    expect(cleanUrl("http://x.test//")).toBe("http://x.test/");
  });

  it.each([
    { ref: "http://127.0.0.1:9999/f/food", note: "EXACT", url: "http://localhost:9999/f/food/", want: "pass" },
    { ref: "http://127.0.0.1:9999/f/food", note: null, url: "http://localhost:9999/f/food/1", want: "fail" },
    { ref: "http://127.0.0.1:9999/f/food", note: "GOLD in PRED", url: "http://localhost:9999/f/food/1", want: "pass" },
    { ref: "http://a.test/1 |OR| http://a.test/2", note: "EXACT", url: "http://a.test/2", want: "pass" },
    { ref: "http://a.test/1", note: "EXACT", url: null, want: "not_evaluable" },
    { ref: "http://a.test/1", note: "FUZZY", url: "http://a.test/1", want: "not_evaluable" },
  ])("$ref ($note) vs $url → $want", ({ ref, note, url, want }) => {
    expect(evaluateUrlMatch({ referenceUrl: ref, urlNote: note, finalUrl: url }).status).toBe(want);
  });

  it("resolves site placeholders from known URLs, else compares after the final page's origin", () => {
    const ref = "__REDDIT__/f/food/82896";
    const final = "http://10.0.0.5:9999/f/food/82896/a-title";
    const fallback = evaluateUrlMatch({ referenceUrl: ref, urlNote: "GOLD in PRED", finalUrl: final });
    expect(fallback.status).toBe("pass");
    expect(fallback.checks[0]!.note).toMatch(/site URL unknown for __REDDIT__/);
    expect(evaluateUrlMatch({ referenceUrl: ref, urlNote: "GOLD in PRED", finalUrl: final, siteUrls: { REDDIT: "http://10.0.0.5:9999/" } }).status).toBe(
      "pass",
    );
    expect(evaluateUrlMatch({ referenceUrl: ref, urlNote: "GOLD in PRED", finalUrl: final, siteUrls: { __REDDIT__: "http://other:9999" } }).status).toBe(
      "fail",
    );
    expect(resolvePlaceholders("__A__/x __B__", { A: "http://a" }, null)).toEqual({ text: "http://a/x __B__", unresolved: ["__B__"], fellBack: [] });
  });
});

describe("config validation", () => {
  it.each([
    [{}, "eval_types"],
    [{ eval_types: ["string_match"], reference_answers: null }, "reference_answers"],
    [{ eval_types: ["url_match"] }, "reference_url"],
    [{ eval_types: ["html_match"] }, "eval_types[0]"],
    [{ eval_types: ["string_match"], reference_answers: { must_include: "red" } }, "reference_answers"],
    [{ eval_types: ["page_image_query"], page_image_query: [{ eval_image_url: "last", eval_image_class: ".x" }] }, "page_image_query[0]"],
  ])("%j names field %s", (raw, field) => {
    try {
      parseVwaEvalConfig(raw, "task t-1");
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(VwaConfigError);
      expect((e as VwaConfigError).field).toBe(field);
      expect((e as Error).message).toMatch(/^task t-1: evaluator config/);
    }
  });

  it("accepts a whole task config holding `eval`", () => {
    expect(parseVwaEvalConfig({ task_id: 3, eval: { eval_types: ["url_match"], reference_url: "http://x" } }, "t").eval_types).toEqual(["url_match"]);
  });
});

describe("VisualWebArena evaluation-harness examples", () => {
  const facts = (finalAnswer: string | null, finalUrl: string | null) => ({ intent: "", finalAnswer, finalUrl });

  it("string_match.json: 1985/04/18 passes, 1936/04/18 fails (as in VWA's tests)", async () => {
    const ev = buildVwaEvaluator(harnessConfig("string_match.json"), "string_match.json");
    expect((await ev.evaluate(facts("The date is 1985/04/18", null))).verdict).toBe("success");
    expect((await ev.evaluate(facts("The date is 1936/04/18", null))).verdict).toBe("failure");
    // must_exclude: naming the wrong date as well fails.
    expect((await ev.evaluate(facts("1985/04/18 or 1985/04/17", null))).verdict).toBe("failure");
  });

  it("url_exact_match.json: google.com passes, github fails", async () => {
    const ev = buildVwaEvaluator(harnessConfig("url_exact_match.json"), "url_exact_match.json");
    expect((await ev.evaluate(facts(null, "https://www.google.com/"))).verdict).toBe("success");
    expect((await ev.evaluate(facts(null, "https://github.com/web-arena-x"))).verdict).toBe("failure");
  });

  it("live-page types are not evaluable on recordings, and decided through live capabilities", async () => {
    const ev = buildVwaEvaluator(harnessConfig("html_content_url_comb.json"), "html_content_url_comb.json");
    const url = "https://russmaxdesign.github.io/exercise/";
    const recorded = await ev.evaluate(facts(null, url));
    expect(recorded.verdict).toBe("not_evaluable");
    expect(recorded.reason).toMatch(/program_html: program_html runs JavaScript locators on the final page/);
    expect(recorded.types.find((t) => t.type === "url_match")!.status).toBe("pass");

    const page = (name: string, email: string): LivePage => ({
      locate: async ({ locator }) => (locator.includes("form-name") ? name : locator.includes("form-email") ? email : undefined),
    });
    expect((await ev.evaluate(facts(null, url), { live: page("Hello World", "alexisxy@hotmail.com") })).verdict).toBe("success");
    expect((await ev.evaluate(facts(null, url), { live: page("Hello", "alexisxy@hotmail.com") })).verdict).toBe("failure");
    // Wrong final page: program_html passes but url_match fails.
    expect((await ev.evaluate(facts(null, "https://www.google.com/"), { live: page("Hello World", "alexisxy@hotmail.com") })).verdict).toBe("failure");
  });

  it("program_html helpers: required values and the first required_contents key, as VWA checks them", async () => {
    const values = (reviews: string, price: string, brand: string): LivePage => ({
      locate: async ({ locator }) =>
        locator.includes("num_reviews") ? reviews : locator.includes("price") ? price : locator.includes("attributes") ? brand : undefined,
    });
    const success = buildVwaEvaluator(harnessConfig("html_required_values_success_1.json"), "s");
    const failure = buildVwaEvaluator(harnessConfig("html_required_values_failure_1.json"), "f");
    const page = values("15", "649", "Olympus");
    expect((await success.evaluate(facts(null, null), { live: page })).verdict).toBe("success");
    expect((await failure.evaluate(facts(null, null), { live: page })).verdict).toBe("failure");
    // must_include wins over must_exclude in the same required_contents (VWA's elif chain).
    expect((await success.evaluate(facts(null, null), { live: values("15", "649", "Olympus, Canon") })).verdict).toBe("success");
    expect((await success.evaluate(facts(null, null), { live: values("fifteen", "649", "Olympus") })).verdict).toBe("failure");

    const funcOk = buildVwaEvaluator(harnessConfig("func_eval_success.json"), "ok");
    const funcFail = buildVwaEvaluator(harnessConfig("func_eval_fail.json"), "fail");
    const review: LivePage = { locate: async ({ locator }) => (locator.includes("rating") ? "100" : "cupcakecupcake") };
    expect((await funcOk.evaluate(facts(null, null), { live: review })).verdict).toBe("success");
    expect((await funcFail.evaluate(facts(null, null), { live: review })).verdict).toBe("failure");
    const nothing: LivePage = { locate: async () => null };
    const none = await funcOk.evaluate(facts(null, null), { live: nothing });
    expect(none.verdict).toBe("failure");
    expect(none.types[0]!.checks).toHaveLength(1);
  });

  it("page_image_query: VQA through a live model, fuzzy image match through SSIM, otherwise not evaluable", async () => {
    const img = new Uint8Array([1, 2, 3]);
    const vqaYes: LivePage = { pageImages: async () => [img], vqa: async () => ["yes"] };
    const yes = buildVwaEvaluator(harnessConfig("image_evaluator_yes.json"), "yes");
    const yesNo = buildVwaEvaluator(harnessConfig("image_evaluator_yes_no.json"), "yes_no");
    expect((await yes.evaluate(facts(null, null), { live: vqaYes })).verdict).toBe("success");
    expect((await yesNo.evaluate(facts(null, null), { live: vqaYes })).verdict).toBe("failure");
    expect((await yes.evaluate(facts(null, null), { live: { pageImages: async () => [img] } })).reason).toMatch(/visual question answering/);
    expect((await yes.evaluate(facts(null, null), { live: { pageImages: async () => [] } })).verdict).toBe("failure");

    const exact = buildVwaEvaluator(harnessConfig("exact_image_success.json"), "exact");
    const url = "http://127.0.0.1:9999/f/funny/125684/neighborhood-watch";
    const loaded: string[] = [];
    const deps = (similarity: number): VwaEvaluatorDeps => ({
      live: { pageImages: async () => [img, img] },
      referenceImage: async (spec) => {
        loaded.push(spec);
        return img;
      },
      imageSimilarity: async () => similarity,
      siteUrls: { REDDIT: "http://127.0.0.1:9999" },
    });
    expect((await exact.evaluate(facts(null, url), deps(0.93))).verdict).toBe("success");
    expect(loaded[0]).toBe("http://127.0.0.1:9999/submission_images/58fd8145d1b2dfa2dfddb2f29c481e66d38c487cc1b2e1d613cb086b0c1caaad.png");
    // Default threshold 0.8, strictly greater.
    expect((await exact.evaluate(facts(null, url), deps(0.8))).verdict).toBe("failure");
    const template = buildVwaEvaluator(harnessConfig("exact_image_resize_template.json"), "template");
    const noRef = await template.evaluate(facts(null, "http://127.0.0.1:9999/f/food/18838/homemade-obligatory-halloween-pumpkin-loaf"), deps(0.99));
    expect(noRef.verdict).toBe("not_evaluable");
    expect(noRef.reason).toMatch(/reference image unavailable/);
    const recorded = await exact.evaluate(facts(null, url));
    expect(recorded.verdict).toBe("not_evaluable");
    expect(recorded.reason).toMatch(/page_image_query inspects images on the final page/);
  });

  it("every harness config loads", () => {
    const files = fs.readdirSync(harness).filter((n) => n.endsWith(".json"));
    expect(files).toHaveLength(19);
    for (const f of files) {
      expect(() => buildVwaEvaluator(harnessConfig(f), f)).not.toThrow();
    }
  });
});

interface RawVwaTask {
  task_id: number;
  intent: string;
  eval: {
    reference_answers?: { exact_match?: string; must_include?: string[]; one_of?: string[]; fuzzy_match?: string | string[] } | null;
    reference_url?: string;
    url_note?: string;
  };
}

describe.skipIf(!configDir)(titled("all 910 VisualWebArena task configs", configDir ? null : "../shared/fixtures absent"), () => {
  const sites = ["classifieds", "reddit", "shopping"];
  const tasks = configDir
    ? sites.flatMap((s) =>
        (JSON.parse(fs.readFileSync(path.join(configDir, "vwa", `test_${s}.raw.json`), "utf8")) as RawVwaTask[]).map((t) => ({ ...t, site: s })),
      )
    : [];

  it("load into evaluators without error", () => {
    expect(tasks).toHaveLength(910);
    const evaluators = tasks.map((t) => buildVwaEvaluator(t.eval, `${t.site} task ${t.task_id}`));
    const offline = evaluators.filter((e) => e.offlineTypes.length === e.types.length).length;
    // string_match / url_match-only tasks are the ones a recording can decide; the rest need the live page.
    expect(offline).toBeGreaterThan(400);
    expect(offline).toBeLessThan(910);
  });

  it("an answer and URL built from each offline task's own references passes; an empty answer and a wrong URL fail", async () => {
    const siteUrls = {
      REDDIT: "http://127.0.0.1:9999",
      SHOPPING: "http://127.0.0.1:7770",
      CLASSIFIEDS: "http://127.0.0.1:9980",
      WIKIPEDIA: "http://127.0.0.1:8888",
      HOMEPAGE: "http://127.0.0.1:4399",
    };
    const fuzzy: FuzzyMatcher = async () => ({ match: false, raw: "Match: NO" });
    let checked = 0;
    for (const t of tasks) {
      const ev = buildVwaEvaluator(t.eval, `${t.site} ${t.task_id}`);
      if (ev.offlineTypes.length !== ev.types.length) continue;
      const ra = t.eval.reference_answers ?? {};
      let answer = "";
      if (ra.exact_match !== undefined) answer = ra.exact_match;
      else if (ra.fuzzy_match === "N/A") answer = "N/A";
      else {
        const parts = ((ra.must_include ?? []) as string[]).map((m) => m.split(" |OR| ")[0]);
        if (ra.one_of) parts.push(ra.one_of[0]!);
        answer = parts.join(" ; ");
      }
      let url: string | null = null;
      if (t.eval.reference_url) {
        const first = resolvePlaceholders(t.eval.reference_url.split(" |OR| ")[0]!, siteUrls, null).text;
        url = t.eval.url_note === "GOLD in PRED" ? `${first}/extra` : first;
      }
      const good = await ev.evaluate({ intent: t.intent, finalAnswer: answer, finalUrl: url }, { siteUrls, fuzzy });
      expect(good.verdict, `${t.site} ${t.task_id}: ${JSON.stringify(good.types)}`).toBe("success");
      const bad = await ev.evaluate({ intent: t.intent, finalAnswer: "", finalUrl: "http://127.0.0.1:1/nowhere" }, { siteUrls, fuzzy });
      expect(bad.verdict, `${t.site} ${t.task_id}`).toBe("failure");
      checked++;
    }
    expect(checked).toBeGreaterThan(400);
  });
});

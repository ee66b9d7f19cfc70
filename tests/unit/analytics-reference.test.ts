/**
 * References and split keys as the pages and the CLI write them (server/domain/analytics/reference.ts,
 * app/analytics/_lib/params.ts): parsing, the majority with ties, and the URL round trip.
 */
import { describe, expect, it } from "vitest";
import { analyticsSearch, parseAnalyticsParams } from "../../app/analytics/_lib/params";
import { describeReference, formatReferenceSpec, majorityOutcome, parseReferenceSpec, plurality } from "../../server/domain/analytics/reference";
import { decodeSelection, describeSelection, encodeSelection } from "../../server/domain/analytics/selection";

describe("human references", () => {
  it("parses consolidated, majority and annotator:NAME, and refuses anything else", () => {
    expect(parseReferenceSpec("consolidated")).toEqual({ kind: "consolidated" });
    expect(parseReferenceSpec("majority")).toEqual({ kind: "majority" });
    expect(parseReferenceSpec("annotator:Ann Lee")).toEqual({ kind: "annotator", annotator: "Ann Lee" });
    expect(formatReferenceSpec({ kind: "annotator", annotator: "Ann Lee" })).toBe("annotator:Ann Lee");
    expect(() => parseReferenceSpec("annotator:")).toThrow(/consolidated, majority or annotator:NAME/);
    expect(() => parseReferenceSpec("median")).toThrow(/not "median"/);
    expect(describeReference({ kind: "annotator", annotator: "user:7" }, "Ann")).toBe("Ann's labels");
  });

  it("takes a strict majority of success/failure labels; an even split is a tie, never a guess", () => {
    expect(majorityOutcome(2, 1, 0)).toBe("success");
    expect(majorityOutcome(1, 2, 3)).toBe("failure");
    expect(majorityOutcome(1, 1, 1)).toBe("tie");
    expect(majorityOutcome(2, 2, 0)).toBe("tie");
    expect(majorityOutcome(0, 0, 2)).toBe("unsure");
    expect(majorityOutcome(0, 0, 0)).toBeNull();
    expect(plurality([0, 3, 1])).toBe(1);
    expect(plurality([2, 2, 0])).toBe(-1);
    expect(plurality([0, 0])).toBe(-1);
  });
});

describe("split and reference parameters", () => {
  it("round-trip through the URL, and a bad reference drops to the consolidated label", () => {
    const p = parseAnalyticsParams(new URLSearchParams("by=attr%3Alang&ref=annotator%3AAnn&campaign=3"));
    expect(p).toMatchObject({ by: "attr:lang", reference: { kind: "annotator", annotator: "Ann" }, campaignId: 3 });
    expect(analyticsSearch(p)).toBe("?campaign=3&by=attr%3Alang&ref=annotator%3AAnn");
    expect(parseAnalyticsParams(new URLSearchParams("ref=nobody")).reference).toBeUndefined();
    expect(parseAnalyticsParams(new URLSearchParams("ref=consolidated")).reference).toBeUndefined();
  });

  it("selections carry a task attribute and the reference they were counted against", () => {
    const sel = { attribute: { name: "lang", value: "zh" }, reference: { verdicts: ["failure" as const], source: { kind: "majority" as const } } };
    expect(decodeSelection(encodeSelection(sel))).toEqual(sel);
    expect(describeSelection(sel)).toEqual(["lang = zh", "majority of the annotators: failure"]);
    expect(describeSelection({ attribute: { name: "lang", value: null } })).toEqual(["tasks without lang"]);
  });
});

import { describe, expect, it } from "vitest";
import { etaText, parseKText, wholeIn } from "../../app/(evaluation)/judges/_lib/batch-text";
import { errorText } from "../../app/(evaluation)/judges/_lib/error-text";

describe("k values typed into the batch form", () => {
  it("reads numbers and full, separated by commas or spaces, without repeats", () => {
    expect(parseKText("5, 10 full,5")).toEqual({ ks: [5, 10, "full"] });
    expect(parseKText("  ")).toEqual({ ks: [] });
    expect(parseKText("FULL")).toEqual({ ks: ["full"] });
  });

  it("names the first entry that is not a k value", () => {
    expect(parseKText("3, 0, 2")).toEqual({ bad: "0" });
    expect(parseKText("1 all")).toEqual({ bad: "all" });
    expect(parseKText("1001")).toEqual({ bad: "1001" });
    expect(parseKText("2.5")).toEqual({ bad: "2.5" });
  });
});

describe("whole numbers typed into the judge forms (concurrency, samples, seed)", () => {
  it("takes a whole number within the bounds, the bounds included", () => {
    expect(wholeIn("1", 1, 64)).toBe(1);
    expect(wholeIn("64", 1, 64)).toBe(64);
    expect(wholeIn("007", 1, 64)).toBe(7);
    expect(wholeIn("0", 0, 4_294_967_295)).toBe(0);
  });

  it("refuses what is outside the bounds or not a whole number", () => {
    expect(wholeIn("0", 1, 64)).toBeNull();
    expect(wholeIn("65", 1, 64)).toBeNull();
    expect(wholeIn("", 1, 64)).toBeNull();
    expect(wholeIn(" 4", 1, 64)).toBeNull();
    expect(wholeIn("2.5", 1, 64)).toBeNull();
    expect(wholeIn("-3", -5, 64)).toBeNull();
    expect(wholeIn("1e2", 1, 1000)).toBeNull();
  });
});

describe("time left of a batch", () => {
  it("says when nothing is left and when the pace is not known yet", () => {
    expect(etaText(0, 0)).toBe("nothing left to do");
    expect(etaText(null, 4)).toBe("time left: known once the first calls finish");
  });

  it("uses seconds, then minutes and seconds, then hours and minutes", () => {
    expect(etaText(42, 3)).toBe("about 42 s left");
    expect(etaText(125, 3)).toBe("about 2 min 5 s left");
    expect(etaText(3 * 3600 + 7 * 60 + 9, 3)).toBe("about 3 h 7 min left");
  });
});

describe("errors shown in the judge forms", () => {
  it("names the fields the server's schema refused", () => {
    const e = Object.assign(new Error('[{"code":"too_small"}]'), {
      data: { zodError: { formErrors: [], fieldErrors: { name: ["Too small: expected string to have >=1 characters"], temperature: ["Too big"] } } },
    });
    expect(errorText(e)).toBe("Please check the form: name: Too small: expected string to have >=1 characters; temperature: Too big");
  });

  it("keeps a service's own refusal as worded", () => {
    const e = Object.assign(new Error('judge configuration field "baseUrl": judge endpoint 10.0.0.1 is a private or link-local address'), {
      data: { zodError: null },
    });
    expect(errorText(e)).toBe('judge configuration field "baseUrl": judge endpoint 10.0.0.1 is a private or link-local address');
  });
});

import { describe, expect, it } from "vitest";
import { parseVariantRequest, screenshotUrl, snapVariantWidth } from "../../server/domain/image-variants";

describe("snapVariantWidth", () => {
  it.each([
    [1, 120],
    [112, 120],
    [120, 120],
    [121, 160],
    [160, 160],
    [161, 320],
    [674, 720],
    [720, 720],
    [721, 800],
    [801, 960],
    [1280, 1280],
    [5000, 1920],
    [0, 120],
    [Number.NaN, 120],
  ])("%d → %d", (w, want) => {
    expect(snapVariantWidth(w)).toBe(want);
  });
});

describe("parseVariantRequest", () => {
  const p = (q: string) => parseVariantRequest(new URLSearchParams(q));
  it.each([
    ["", { ok: true, value: { kind: "original" } }],
    ["w=300", { ok: true, value: { kind: "variant", width: 320, format: "webp" } }],
    ["w=300&f=avif", { ok: true, value: { kind: "variant", width: 320, format: "avif" } }],
    ["f=webp", { ok: true, value: { kind: "variant", width: null, format: "webp" } }],
  ])("%j", (q, want) => {
    expect(p(q)).toEqual(want);
  });

  it.each([
    ["w=abc", 'w must be a positive integer width in pixels, got "abc"'],
    ["w=0", 'w must be a positive integer width in pixels, got "0"'],
    ["w=-5", 'w must be a positive integer width in pixels, got "-5"'],
    ["f=png", 'f must be one of webp, avif, got "png"'],
    ["w=100&f=../../etc", 'f must be one of webp, avif, got "../../etc"'],
  ])("rejects %j", (q, error) => {
    expect(p(q)).toEqual({ ok: false, error });
  });
});

describe("screenshotUrl", () => {
  const h = "a".repeat(64);
  it("builds original and snapped variant URLs", () => {
    expect(screenshotUrl(h)).toBe(`/api/screenshots/${h}`);
    expect(screenshotUrl(h, { width: 700, format: "webp" })).toBe(`/api/screenshots/${h}?w=720&f=webp`);
    expect(screenshotUrl(h, { width: 760, format: "webp" })).toBe(`/api/screenshots/${h}?w=800&f=webp`);
  });
});

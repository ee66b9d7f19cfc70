import { describe, expect, it } from "vitest";
import { detectLoops } from "../../server/domain/player/loops";
import {
  MAX_STEP_WINDOW,
  packHash,
  packStepIndex,
  STEP_WINDOW,
  stepWindowProblem,
  unpackHash,
  unpackStepIndex,
  windowStart,
  windowsToFetch,
} from "../../server/domain/player/paging";

const HASH = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

describe("step windows", () => {
  it("aligns windows to multiples of the window size", () => {
    expect(windowStart(0)).toBe(0);
    expect(windowStart(STEP_WINDOW - 1)).toBe(0);
    expect(windowStart(STEP_WINDOW)).toBe(STEP_WINDOW);
    expect(windowStart(9_999, 50)).toBe(9_950);
  });

  it("fetches the playhead's window first, and the next one ahead near its end", () => {
    expect(windowsToFetch(10, 10_000, new Set())).toEqual([0]);
    expect(windowsToFetch(10, 10_000, new Set([0]))).toEqual([]);
    // 15 steps from the end of window 0: window 50 is fetched ahead.
    expect(windowsToFetch(40, 10_000, new Set([0]))).toEqual([50]);
    // Just into window 50 from the left: window 0 (behind) is wanted too.
    expect(windowsToFetch(55, 10_000, new Set())).toEqual([50, 0]);
    // End jumps to the last step: only the last (partial) window, nothing past the end.
    expect(windowsToFetch(9_999, 10_000, new Set([0]))).toEqual([9_950]);
    expect(windowsToFetch(5, 0, new Set())).toEqual([]);
  });

  it("names the field and the range when a window request is out of range", () => {
    expect(stepWindowProblem(0, 50, 10)).toBeNull();
    expect(stepWindowProblem(9, 50, 10)).toBeNull();
    expect(stepWindowProblem(10, 50, 10)).toBe('step window "from" 10 is out of range: the trajectory has 10 steps (positions 0–9)');
    expect(stepWindowProblem(0, 50, 0)).toBe('step window "from" 0 is out of range: the trajectory has no steps');
    expect(stepWindowProblem(-1, 50, 10)).toMatch(/"from" must be a whole number/);
    expect(stepWindowProblem(0, MAX_STEP_WINDOW + 1, 10)).toMatch(/"count" must be between 1 and 200/);
  });
});

describe("the packed step index", () => {
  it("packs a sha256 hash into 43 base64url characters and back", () => {
    const packed = packHash(HASH);
    expect(packed).toHaveLength(43);
    expect(packed).toMatch(/^[A-Za-z0-9_-]+$/);
    // The same text as base64url of the digest's 32 bytes.
    expect(packed).toBe(Buffer.from(HASH, "hex").toString("base64url"));
    expect(unpackHash(packed)).toBe(HASH);
    for (const h of ["0".repeat(64), "f".repeat(64), "0123456789abcdef".repeat(4)]) expect(unpackHash(packHash(h))).toBe(h);
    // Anything else is carried as it is.
    expect(unpackHash(packHash("not-a-sha256"))).toBe("not-a-sha256");
    expect(() => unpackHash(`${packHash(HASH).slice(0, 42)}$`)).toThrow(/outside base64url: "\$"/);
    expect(() => unpackHash("abc")).toThrow(/should be 43 characters long, not 3/);
  });

  it("round-trips screenshots, sizes, actions, errors and loop marks per step", () => {
    const actions = [
      { type: "click" as const, target: "3" },
      { type: "click" as const, target: "3" },
      { type: "scroll" as const, direction: "down" as const },
      { type: "answer" as const, value: "x" },
    ];
    const urls = ["https://a.test/", "https://b.test/", "https://a.test/", "https://a.test/"];
    const loops = detectLoops(actions.map((a, i) => ({ action: a, url: urls[i]!, screenshotHash: null })));
    const packed = packStepIndex([
      { shot: { hash: HASH, width: 1280, height: 800 }, action: "click [3]", hasError: false, loops: loops[0]! },
      { shot: { hash: "0".repeat(64), width: 1280, height: 800 }, action: "click [3]", hasError: true, loops: loops[1]! },
      { shot: null, action: "scroll", hasError: false, loops: loops[2]! },
      { shot: { hash: HASH, width: 1024, height: 768 }, action: "answer", hasError: false, loops: loops[3]! },
    ]);
    expect(packed.sizes).toEqual([
      [1280, 800],
      [1024, 768],
    ]);
    expect(packed.actions).toEqual(["click [3]", "scroll", "answer"]);
    expect(packed.errors).toEqual([1]);
    const entries = unpackStepIndex(packed);
    expect(entries.map((e) => e.shot?.hash ?? null)).toEqual([HASH, "0".repeat(64), null, HASH]);
    expect(entries[3]!.shot).toEqual({ hash: HASH, width: 1024, height: 768 });
    expect(entries.map((e) => e.action)).toEqual(["click [3]", "click [3]", "scroll", "answer"]);
    expect(entries.map((e) => e.hasError)).toEqual([false, true, false, false]);
    // Loop marks survive except the compared URL (the step's details carry it).
    expect(entries.map((e) => ({ ...e.loops, url: null }))).toEqual(loops.map((m) => ({ ...m, url: null })));
    expect(entries[1]!.loops).toMatchObject({ repeatedAction: true, repeatRun: 2 });
    expect(entries[2]!.loops).toMatchObject({ revisitedUrl: true, firstSeenAt: 0 });
  });

  it("keeps 10,000 steps under 60 bytes a step", () => {
    const loops = detectLoops([{ action: { type: "click", target: "1" }, url: null, screenshotHash: null }]);
    const rows = Array.from({ length: 10_000 }, (_, i) => ({
      shot: { hash: HASH.slice(0, 60) + String(i).padStart(4, "0"), width: 1280, height: 800 },
      action: `click [${i % 30}]`,
      hasError: i % 500 === 0,
      loops: loops[0]!,
    }));
    const bytes = Buffer.byteLength(JSON.stringify(packStepIndex(rows)));
    expect(bytes / rows.length).toBeLessThan(60);
  });
});

import { describe, expect, it } from "vitest";
import { qaCommandForKey, qaDecisionFor } from "../../server/domain/annotation/qa-keys";

const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean; repeat: boolean }> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  repeat: false,
  ...mods,
});
const opts = { categories: 3, allowNotExecutable: true };

describe("the QA page's keys", () => {
  it("approve, override verdicts, failure type and point, reasoning, confidence, source, submit", () => {
    expect(qaCommandForKey(key("y"), null, opts)).toEqual({ kind: "approve" });
    expect(qaCommandForKey(key("s"), null, opts)).toEqual({ kind: "verdict", verdict: "success" });
    expect(qaCommandForKey(key("x"), null, opts)).toEqual({ kind: "verdict", verdict: "failure" });
    expect(qaCommandForKey(key("b"), null, opts)).toEqual({ kind: "verdict", verdict: "not_executable" });
    expect(qaCommandForKey(key("2"), null, opts)).toEqual({ kind: "category", index: 1 });
    expect(qaCommandForKey(key("f"), null, opts)).toEqual({ kind: "markFailurePoint" });
    expect(qaCommandForKey(key("n"), null, opts)).toEqual({ kind: "focusReasoning" });
    expect(qaCommandForKey(key("c"), null, opts)).toEqual({ kind: "cycleConfidence" });
    expect(qaCommandForKey(key("d"), null, opts)).toEqual({ kind: "cycleSource" });
    expect(qaCommandForKey(key("Enter", { ctrlKey: true }), null, opts)).toEqual({ kind: "submitAndNext" });
  });

  it("leaves the player's keys alone and never fires while typing, with modifiers, or on repeat", () => {
    for (const k of ["a", "j", "k", "o", "r", "z", "e"]) expect(qaCommandForKey(key(k), null, opts)).toBeNull();
    expect(qaCommandForKey(key("4"), null, opts)).toBeNull();
    expect(qaCommandForKey(key("b"), null, { ...opts, allowNotExecutable: false })).toBeNull();
    expect(qaCommandForKey(key("s"), { tagName: "TEXTAREA" }, opts)).toBeNull();
    expect(qaCommandForKey(key("Enter", { ctrlKey: true }), { tagName: "TEXTAREA" }, opts)).toEqual({ kind: "submitAndNext" });
    expect(qaCommandForKey(key("Enter", { ctrlKey: true, repeat: true }), null, opts)).toBeNull();
    expect(qaCommandForKey(key("s", { altKey: true }), null, opts)).toBeNull();
    expect(qaCommandForKey(key("S", { shiftKey: true }), null, opts)).toBeNull();
  });

  it("records an approval only when the form still equals the consolidated label", () => {
    const c = { verdict: "failure", category: "wrong navigation", firstFailingStep: 2 };
    expect(qaDecisionFor(c, { ...c })).toBe("confirmed");
    expect(qaDecisionFor(c, { ...c, firstFailingStep: 1 })).toBe("corrected");
    expect(qaDecisionFor(c, { verdict: "success", category: null, firstFailingStep: null })).toBe("corrected");
    expect(qaDecisionFor(null, { verdict: "success", category: null, firstFailingStep: null })).toBe("corrected");
  });
});

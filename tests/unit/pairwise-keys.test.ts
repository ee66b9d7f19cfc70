import { describe, expect, it } from "vitest";
import { pairwiseCommandForKey } from "../../server/domain/annotation/pairwise-keys";
import { labelCommandForKey } from "../../server/domain/annotation/label-keys";
import { commandForKey } from "../../server/domain/player/keyboard";

const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean; repeat: boolean }> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  repeat: false,
  ...mods,
});

describe("the pairwise page's keys", () => {
  it("1–4 answer left, right, tie, both fail; Ctrl/Cmd+Enter submits; g shows the guidelines", () => {
    expect(pairwiseCommandForKey(key("1"), null)).toEqual({ kind: "choose", choice: "left" });
    expect(pairwiseCommandForKey(key("2"), null)).toEqual({ kind: "choose", choice: "right" });
    expect(pairwiseCommandForKey(key("3"), null)).toEqual({ kind: "choose", choice: "tie" });
    expect(pairwiseCommandForKey(key("4"), null)).toEqual({ kind: "choose", choice: "both_fail" });
    expect(pairwiseCommandForKey(key("5"), null)).toBeNull();
    expect(pairwiseCommandForKey(key("Enter", { ctrlKey: true }), null)).toEqual({ kind: "submitAndNext" });
    expect(pairwiseCommandForKey(key("Enter", { metaKey: true }), null)).toEqual({ kind: "submitAndNext" });
    expect(pairwiseCommandForKey(key("g"), null)).toEqual({ kind: "guidelines" });
  });

  it("steps with the player's keys, the labelling page's guidelines key, and no answer key the player or label panel uses", () => {
    for (const [k, command] of [
      ["ArrowLeft", "prev"],
      ["k", "prev"],
      ["ArrowRight", "next"],
      ["j", "next"],
      ["Home", "first"],
      ["End", "last"],
      ["o", "toggleOverlay"],
      ["a", "toggleAction"],
      ["?", "toggleHelp"],
      ["Escape", "close"],
    ] as const) {
      expect(pairwiseCommandForKey(key(k), null)).toEqual({ kind: "player", command });
      expect(commandForKey(key(k), null)).toBe(command);
    }
    expect(labelCommandForKey(key("g"), null, { categories: 0, allowUnsure: false })).toEqual({ kind: "guidelines" });
    for (const k of ["1", "2", "3", "4"]) expect(commandForKey(key(k), null)).toBeNull();
    // Keys the player has and this page does not (evaluations, raw, zoom, copy link) do nothing here.
    for (const k of ["e", "r", "z", "l", " "]) expect(pairwiseCommandForKey(key(k), null)).toBeNull();
  });

  it("never answers while typing, with modifiers or on key repeat, but holding an arrow keeps stepping", () => {
    expect(pairwiseCommandForKey(key("1"), { tagName: "TEXTAREA" })).toBeNull();
    expect(pairwiseCommandForKey(key("ArrowRight"), { tagName: "INPUT", type: "text" })).toBeNull();
    expect(pairwiseCommandForKey(key("1", { altKey: true }), null)).toBeNull();
    expect(pairwiseCommandForKey(key("1", { ctrlKey: true }), null)).toBeNull();
    expect(pairwiseCommandForKey(key("1", { repeat: true }), null)).toBeNull();
    expect(pairwiseCommandForKey(key("Enter", { ctrlKey: true, repeat: true }), null)).toBeNull();
    expect(pairwiseCommandForKey(key("G", { shiftKey: true }), null)).toBeNull();
    expect(pairwiseCommandForKey(key("ArrowRight", { repeat: true }), null)).toEqual({ kind: "player", command: "next" });
  });
});

import { describe, expect, it } from "vitest";
import { labelCommandForKey, type LabelCommand } from "../../server/domain/annotation/label-keys";
import type { KeyLike, TargetLike } from "../../server/domain/player/keyboard";

const body: TargetLike = { tagName: "BODY" };
const note: TargetLike = { tagName: "TEXTAREA" };
const opts = { categories: 5, allowUnsure: false };

describe("labelCommandForKey", () => {
  const cases: [string, KeyLike, TargetLike, LabelCommand | null][] = [
    ["s is success", { key: "s" }, body, { kind: "verdict", verdict: "success" }],
    ["S (caps lock) is success", { key: "S" }, body, { kind: "verdict", verdict: "success" }],
    ["x is failure", { key: "x" }, body, { kind: "verdict", verdict: "failure" }],
    ["1 is the first category", { key: "1" }, body, { kind: "category", index: 0 }],
    ["5 is the fifth", { key: "5" }, body, { kind: "category", index: 4 }],
    ["6 is beyond five categories", { key: "6" }, body, null],
    ["0 is nothing", { key: "0" }, body, null],
    ["f marks the step", { key: "f" }, body, { kind: "markFirstFailing" }],
    ["u undoes", { key: "u" }, body, { kind: "undo" }],
    ["n focuses the note", { key: "n" }, body, { kind: "focusNote" }],
    ["m turns the region-mark mode on and off", { key: "m" }, body, { kind: "toggleMarks" }],
    ["q without unsure", { key: "q" }, body, null],
    ["Ctrl+Enter submits", { key: "Enter", ctrlKey: true }, body, { kind: "submitAndNext" }],
    ["Cmd+Enter submits", { key: "Enter", metaKey: true }, body, { kind: "submitAndNext" }],
    ["Ctrl+Enter submits from the note", { key: "Enter", ctrlKey: true }, note, { kind: "submitAndNext" }],
    ["a held Ctrl+Enter submits once", { key: "Enter", ctrlKey: true, repeat: true }, body, null],
    ["plain Enter is the browser's", { key: "Enter" }, body, null],
    ["Ctrl+Shift+Enter is not ours", { key: "Enter", ctrlKey: true, shiftKey: true }, body, null],
    ["typing s in the note", { key: "s" }, note, null],
    ["typing m in the note", { key: "m" }, note, null],
    ["typing in an input", { key: "x" }, { tagName: "INPUT", type: "text" }, null],
    ["a focused checkbox still takes keys", { key: "x" }, { tagName: "INPUT", type: "checkbox" }, { kind: "verdict", verdict: "failure" }],
    ["Ctrl+S is the browser's", { key: "s", ctrlKey: true }, body, null],
    ["Cmd+U is the browser's", { key: "u", metaKey: true }, body, null],
    ["Alt+1 is the browser's", { key: "1", altKey: true }, body, null],
    ["Shift+S is left alone", { key: "S", shiftKey: true }, body, null],
    ["a repeating key does not relabel", { key: "x", repeat: true }, body, null],
    ["player keys are not ours", { key: "j" }, body, null],
  ];
  it.each(cases)("%s", (_, e, target, expected) => {
    expect(labelCommandForKey(e, target, opts)).toEqual(expected);
  });

  it("q is unsure when the campaign allows it", () => {
    expect(labelCommandForKey({ key: "q" }, body, { categories: 0, allowUnsure: true })).toEqual({ kind: "verdict", verdict: "unsure" });
  });
});

describe("protocol keys", () => {
  it("b is not executable only where the campaign accepts it; g toggles the guidelines, never while typing", () => {
    expect(labelCommandForKey({ key: "b" }, body, { ...opts, allowNotExecutable: true })).toEqual({ kind: "verdict", verdict: "not_executable" });
    expect(labelCommandForKey({ key: "b" }, body, opts)).toBeNull();
    expect(labelCommandForKey({ key: "g" }, body, opts)).toEqual({ kind: "guidelines" });
    expect(labelCommandForKey({ key: "g" }, note, opts)).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import {
  draftStorageKey,
  EMPTY_DRAFT,
  hasUnsavedChanges,
  parseStoredDraft,
  serializeDraft,
  type LabelDraft,
} from "../../server/domain/annotation/label-drafts";

const fit = { categories: ["Navigation", "Grounding"], stepCount: 4 };
const failing: LabelDraft = { verdict: "failure", category: "Grounding", firstFailingStep: 2, note: "clicked the ad" };

describe("label drafts", () => {
  it("keys drafts by user, campaign and trajectory, so two annotators on one browser never share one", () => {
    expect(draftStorageKey("u1", 3, 7)).not.toBe(draftStorageKey("u2", 3, 7));
    expect(draftStorageKey("u1", 3, 7)).not.toBe(draftStorageKey("u1", 4, 7));
    expect(draftStorageKey("u1", 3, 7)).not.toBe(draftStorageKey("u1", 3, 8));
  });

  it("counts any field that would change what is stored as unsaved, but not whitespace around the note", () => {
    expect(hasUnsavedChanges(EMPTY_DRAFT, null)).toBe(false);
    expect(hasUnsavedChanges({ ...EMPTY_DRAFT, note: "  " }, null)).toBe(false);
    expect(hasUnsavedChanges({ ...EMPTY_DRAFT, verdict: "failure" }, null)).toBe(true);
    expect(hasUnsavedChanges(failing, failing)).toBe(false);
    expect(hasUnsavedChanges({ ...failing, note: "clicked the ad " }, failing)).toBe(false);
    expect(hasUnsavedChanges({ ...failing, category: "Navigation" }, failing)).toBe(true);
    expect(hasUnsavedChanges({ ...failing, firstFailingStep: 1 }, failing)).toBe(true);
    expect(hasUnsavedChanges({ ...failing, note: "clicked the banner ad" }, failing)).toBe(true);
  });

  it("reads back what it wrote, with the time it was written", () => {
    expect(parseStoredDraft(serializeDraft(failing, 1_700_000_000_000), fit)).toEqual({ draft: failing, savedAt: 1_700_000_000_000 });
  });

  it("ignores text that is not a draft", () => {
    for (const text of [null, "", "not json", "42", "null", JSON.stringify({ draft: failing }), JSON.stringify({ savedAt: 1 })]) {
      expect(parseStoredDraft(text, fit), String(text)).toBeNull();
    }
  });

  it("drops values the campaign no longer accepts but keeps the rest", () => {
    const stale = JSON.stringify({ draft: { verdict: "maybe", category: "Gone", firstFailingStep: 9, note: "kept" }, savedAt: 5 });
    expect(parseStoredDraft(stale, fit)).toEqual({ draft: { verdict: null, category: null, firstFailingStep: null, note: "kept" }, savedAt: 5 });
  });

  it("keeps region marks: a change to them is unsaved, they survive the round trip, and malformed entries are dropped", () => {
    const box = { kind: "box" as const, step: 1, label: "should have clicked", x: 10, y: 20, width: 30, height: 40 };
    const point = { kind: "point" as const, step: 0, label: "the answer was here", x: 5, y: 6 };
    const marked = { ...failing, marks: [box, point] };
    expect(hasUnsavedChanges(marked, failing)).toBe(true);
    expect(hasUnsavedChanges({ ...failing, marks: [] }, failing)).toBe(false);
    expect(hasUnsavedChanges({ ...failing, marks: [point, box] }, marked)).toBe(true);
    expect(parseStoredDraft(serializeDraft(marked, 9), fit)).toEqual({ draft: marked, savedAt: 9 });
    const messy = JSON.stringify({
      draft: {
        ...failing,
        marks: [
          { ...box, colour: "red" },
          { kind: "box", step: 0, label: "x", x: 1, y: 1 },
          { kind: "point", step: 0, x: 1.5, y: 2, label: "x" },
          "box",
          point,
        ],
      },
      savedAt: 3,
    });
    expect(parseStoredDraft(messy, fit)).toEqual({ draft: { ...failing, marks: [box, point] }, savedAt: 3 });
  });
});

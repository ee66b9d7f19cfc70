/**
 * Drafts of a label that is not submitted yet. The label panel keeps one per user, campaign and trajectory in the
 * browser's storage, so a reload, a navigation or an expired session does not lose a half-written label, and it
 * warns before leaving while the form differs from what the server has.
 *
 * Pure: the panel does the storage reads and writes; this decides keys, what counts as a change and which stored
 * text is a usable draft.
 */
import { marksFromDraft, type RegionMark } from "./region-marks";

export type DraftVerdict = "success" | "failure" | "unsure" | "not_executable";

export interface LabelDraft {
  verdict: DraftVerdict | null;
  category: string | null;
  /** 0-based step index, as the server stores it. */
  firstFailingStep: number | null;
  note: string;
  /** Answers to the campaign's own questions, as the form holds them (checked by the server on submit). */
  answers?: Record<string, unknown>;
  /** Region marks drawn on the screenshots, in their own pixels (absent: none). */
  marks?: RegionMark[];
}

export interface StoredDraft {
  draft: LabelDraft;
  /** When the draft was last written (ms since the epoch). */
  savedAt: number;
}

export const EMPTY_DRAFT: LabelDraft = { verdict: null, category: null, firstFailingStep: null, note: "" };

/** Storage key of one user's draft for one trajectory of one campaign. */
export function draftStorageKey(userId: string, campaignId: number, trajectoryId: number): string {
  return `verdict:draft:${userId}:${campaignId}:${trajectoryId}`;
}

/** The same label: what submitting would store is identical (surrounding whitespace of the note is not a change). */
export function sameDraft(a: LabelDraft, b: LabelDraft): boolean {
  return (
    a.verdict === b.verdict &&
    a.category === b.category &&
    a.firstFailingStep === b.firstFailingStep &&
    a.note.trim() === b.note.trim() &&
    JSON.stringify(a.answers ?? {}) === JSON.stringify(b.answers ?? {}) &&
    JSON.stringify(a.marks ?? []) === JSON.stringify(b.marks ?? [])
  );
}

/** Whether the form holds something the server does not: worth keeping, and worth a warning before leaving. */
export function hasUnsavedChanges(draft: LabelDraft, saved: LabelDraft | null): boolean {
  return !sameDraft(draft, saved ?? EMPTY_DRAFT);
}

export function serializeDraft(draft: LabelDraft, savedAt: number): string {
  return JSON.stringify({ draft, savedAt } satisfies StoredDraft);
}

const VERDICTS: readonly string[] = ["success", "failure", "unsure", "not_executable"];

/**
 * A stored draft, or null when the text is missing or not a draft (written by another version, edited by hand).
 * Values that no longer fit the campaign (a category it does not offer, a step past the end) are dropped rather
 * than the whole draft.
 */
export function parseStoredDraft(text: string | null, fit: { categories: readonly string[]; stepCount: number }): StoredDraft | null {
  if (!text) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (!raw || typeof raw !== "object") return null;
  const { draft, savedAt } = raw as { draft?: unknown; savedAt?: unknown };
  if (!draft || typeof draft !== "object" || typeof savedAt !== "number" || !Number.isFinite(savedAt)) return null;
  const d = draft as Record<string, unknown>;
  const verdict = typeof d.verdict === "string" && VERDICTS.includes(d.verdict) ? (d.verdict as DraftVerdict) : null;
  const category = typeof d.category === "string" && fit.categories.includes(d.category) ? d.category : null;
  const step = d.firstFailingStep;
  const firstFailingStep = typeof step === "number" && Number.isInteger(step) && step >= 0 && step < fit.stepCount ? step : null;
  const note = typeof d.note === "string" ? d.note : "";
  const answers = d.answers && typeof d.answers === "object" && !Array.isArray(d.answers) ? (d.answers as Record<string, unknown>) : undefined;
  const marks = marksFromDraft(d.marks);
  return {
    draft: { verdict, category, firstFailingStep, note, ...(answers && Object.keys(answers).length ? { answers } : {}), ...(marks.length ? { marks } : {}) },
    savedAt,
  };
}

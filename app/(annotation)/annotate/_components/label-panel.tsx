"use client";
/**
 * The label panel beside the player: verdict, error category, first failing step, note; submit and go to the
 * next trajectory, undo the last submit. Keyboard first (server/domain/annotation/label-keys.ts): `s` / `x`
 * verdict, `1`–`9` category, `f` marks the step on screen, `n` note, Ctrl/Cmd+Enter submit and next, `u` undo.
 *
 * Records what the server stores with the label: time spent on this trajectory (only while the tab is visible)
 * and the steps opened. Each submit carries an idempotency key that stays the same for retries of the same
 * label and changes when the label changes, so a double press or a retried request is stored once.
 *
 * An unsubmitted label is kept as a draft in the browser (per user, campaign and trajectory; see
 * server/domain/annotation/label-drafts.ts) and the page warns before it is left with unsaved changes.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { draftStorageKey, EMPTY_DRAFT, hasUnsavedChanges, parseStoredDraft, serializeDraft, type LabelDraft } from "@/server/domain/annotation/label-drafts";
import { LABEL_SHORTCUTS, labelCommandForKey } from "@/server/domain/annotation/label-keys";
import { GuidelinesText } from "../../../_components/guidelines";
import { useSignedInUser } from "../../../_components/signed-in-user";
import { markLabelsOf, marksFromDraft, type RegionMark } from "@/server/domain/annotation/region-marks";
import { answersForSubmit, QuestionFields } from "./question-fields";
import { useRegionMarking, type MarkingView } from "./region-marking";
import { useTRPC } from "../../../_trpc/client";

type Outputs = inferRouterOutputs<AppRouter>;
export type LabelCampaign = Outputs["labelling"]["campaign"];
export type MyLabel = Outputs["labelling"]["mine"];

export type Draft = LabelDraft;

/** Where an undo leaves the values it reverted, for the page it navigates to (same tab only). */
export function restoreKey(campaignId: number, itemNo: number): string {
  return `verdict:restore:${campaignId}:${itemNo}`;
}

function newKey(): string {
  return typeof crypto !== "undefined" && "randomUUID" in crypto ? crypto.randomUUID() : `k-${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/** What the server holds for this trajectory, in the form's shape (null: nothing submitted). */
function savedDraft(mine: MyLabel): Draft | null {
  const l = mine.label;
  return l
    ? {
        verdict: l.verdict,
        category: l.category,
        firstFailingStep: l.firstFailingStep,
        note: l.note ?? "",
        ...(Object.keys(l.answers ?? {}).length ? { answers: l.answers as Record<string, unknown> } : {}),
        ...(l.marks.length ? { marks: l.marks } : {}),
      }
    : null;
}

const UNSAVED_WARNING = "Your label for this trajectory is not submitted. Leave anyway? (It stays as a draft in this browser.)";

/**
 * Where the form starts: values an undo put back, else this user's draft if it differs from the stored label,
 * else the stored label. `restoredAt` says when a restored draft was written.
 */
function initialState(
  draftKey: string | null,
  campaign: LabelCampaign,
  itemNo: number,
  mine: MyLabel,
  stepCount: number,
): { draft: Draft; restoredAt: number | null } {
  const fromUndo = undoneValues(campaign.id, itemNo);
  if (fromUndo !== null) return { draft: fromUndo, restoredAt: null };
  const saved = savedDraft(mine);
  if (draftKey && typeof window !== "undefined") {
    const stored = parseStoredDraft(window.localStorage.getItem(draftKey), { categories: campaign.labelSchema.categories, stepCount });
    if (stored && hasUnsavedChanges(stored.draft, saved)) return { draft: stored.draft, restoredAt: stored.savedAt };
  }
  return { draft: saved ?? { verdict: null, category: null, firstFailingStep: null, note: "" }, restoredAt: null };
}

/** Values an undo left for this trajectory (consumed), or null. */
function undoneValues(campaignId: number, itemNo: number): Draft | null {
  if (typeof window !== "undefined") {
    const saved = window.sessionStorage.getItem(restoreKey(campaignId, itemNo));
    if (saved) {
      window.sessionStorage.removeItem(restoreKey(campaignId, itemNo));
      try {
        const v = JSON.parse(saved) as Partial<Draft>;
        return {
          verdict: v.verdict ?? null,
          category: v.category ?? null,
          firstFailingStep: v.firstFailingStep ?? null,
          note: v.note ?? "",
          ...(v.answers ? { answers: v.answers } : {}),
          ...(marksFromDraft(v.marks).length ? { marks: marksFromDraft(v.marks) } : {}),
        };
      } catch {
        // A malformed entry is ignored: start from the draft or the stored label.
      }
    }
  }
  return null;
}

/** Milliseconds the page was visible since `reset()`. */
function useVisibleTime() {
  const acc = useRef(0);
  const since = useRef<number | null>(null);
  useEffect(() => {
    since.current = document.visibilityState === "visible" ? performance.now() : null;
    const onVis = () => {
      if (document.visibilityState === "visible") since.current = performance.now();
      else if (since.current !== null) {
        acc.current += performance.now() - since.current;
        since.current = null;
      }
    };
    document.addEventListener("visibilitychange", onVis);
    return () => document.removeEventListener("visibilitychange", onVis);
  }, []);
  return {
    read: () => acc.current + (since.current !== null ? performance.now() - since.current : 0),
    reset: () => {
      acc.current = 0;
      since.current = document.visibilityState === "visible" ? performance.now() : null;
    },
  };
}

export interface LabelPanelProps {
  campaign: LabelCampaign;
  itemNo: number;
  mine: MyLabel;
  current: number;
  count: number;
  go: (index: number) => void;
  /** Hands the region marks up to the page, which draws them over the screenshot. */
  onMarking?: (view: MarkingView | null) => void;
  /** Stay on the item after Submit & next: what shows next is beside the player (a reveal campaign's evaluator, a training item's feedback). */
  stayAfterSubmit?: boolean;
}

/**
 * A draft without marks hands the marking hook this one array: a new `[]` on every render changed the view the hook
 * hands up to the page, whose re-render made another, so the page re-rendered without end and Submit & next's
 * navigation never got its turn.
 */
const NO_MARKS: readonly RegionMark[] = [];

/** The draft's region marks, and how the marking section changes them. */
function useDraftMarking(
  draft: Draft,
  setDraft: (update: (d: Draft) => Draft) => void,
  schema: LabelCampaign["labelSchema"],
  locked: boolean,
  onMarking?: LabelPanelProps["onMarking"],
) {
  const setMarks = useCallback(
    (update: (marks: readonly RegionMark[]) => RegionMark[]) => setDraft((d) => ({ ...d, marks: update(d.marks ?? []) })),
    [setDraft],
  );
  const [markLabels] = useState(() => markLabelsOf(schema.markLabels));
  return useRegionMarking({ marks: draft.marks ?? NO_MARKS, setMarks, markLabels, locked, onMarking });
}

export function LabelPanel(props: LabelPanelProps) {
  const { campaign, itemNo, mine, current, count, go, stayAfterSubmit } = props;
  const schema = campaign.labelSchema;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const user = useSignedInUser();
  const draftKey = user ? draftStorageKey(user.userId, campaign.id, itemNo) : null;
  // Server and first client render start from the stored label; browser-kept values are applied after mount.
  const [draft, setDraftState] = useState<Draft>(() => savedDraft(mine) ?? EMPTY_DRAFT);
  const [draftReady, setDraftReady] = useState(false);
  const [status, setStatus] = useState<{ tone: "ok" | "error" | "info"; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [showHelp, setShowHelp] = useState(false);
  const [showGuidelines, setShowGuidelines] = useState(false);
  const questions = schema.questions ?? [];
  const keyRef = useRef(newKey());
  const viewed = useRef(new Set<number>());
  const time = useVisibleTime();
  const noteRef = useRef<HTMLTextAreaElement>(null);
  const locked = mine.itemState === "adjudicated" || campaign.status !== "active" || !campaign.isAnnotator;

  useEffect(() => {
    viewed.current.add(current);
  }, [current]);

  // After mount (so server and client render the same): put back what an undo left or this user's draft.
  useEffect(() => {
    const start = initialState(draftKey, campaign, itemNo, mine, count);
    setDraftState(start.draft);
    setDraftReady(true);
    if (new URLSearchParams(window.location.search).has("undone")) {
      setStatus({ tone: "info", text: "Your last submit was undone; its values are back in the form." });
    } else if (start.restoredAt !== null) {
      setStatus({ tone: "info", text: `Restored your unsaved draft from ${new Date(start.restoredAt).toLocaleString()}.` });
    }
    // Once per trajectory: the panel is keyed by it.
  }, []);

  const unsaved = !locked && hasUnsavedChanges(draft, savedDraft(mine));

  // Keep the draft while it differs from what the server has; drop it once they agree (submitted, or undone edits).
  useEffect(() => {
    if (!draftReady || !draftKey) return;
    try {
      if (unsaved) window.localStorage.setItem(draftKey, serializeDraft(draft, Date.now()));
      else window.localStorage.removeItem(draftKey);
    } catch {
      // Storage full or disabled: the form still works, only the draft is not kept.
    }
  }, [draftReady, draftKey, draft, unsaved]);

  // Warn before leaving with unsaved changes: reloads and closing the tab (beforeunload), and links on the page.
  useEffect(() => {
    if (!unsaved) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = "";
    };
    const onLinkClick = (e: MouseEvent) => {
      const a = (e.target as HTMLElement | null)?.closest?.("a[href]") as HTMLAnchorElement | null;
      if (!a || a.target === "_blank" || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
      const to = new URL(a.href, window.location.href);
      if (to.origin === window.location.origin && to.pathname === window.location.pathname) return;
      if (!window.confirm(UNSAVED_WARNING)) {
        e.preventDefault();
        e.stopPropagation();
      }
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    document.addEventListener("click", onLinkClick, true);
    return () => {
      window.removeEventListener("beforeunload", onBeforeUnload);
      document.removeEventListener("click", onLinkClick, true);
    };
  }, [unsaved]);

  const setDraft = useCallback((update: (d: Draft) => Draft) => {
    setDraftState((d) => {
      const next = update(d);
      if (next !== d) keyRef.current = newKey();
      return next;
    });
  }, []);

  const { toggle: toggleMarks, section: marksSection } = useDraftMarking(draft, setDraft, schema, locked, props.onMarking);
  const submitM = useMutation(trpc.labelling.submit.mutationOptions());
  const nextM = useMutation(trpc.labelling.next.mutationOptions());
  const undoM = useMutation(trpc.labelling.undo.mutationOptions());
  const skipM = useMutation(trpc.labelling.skip.mutationOptions());

  const missing = !draft.verdict
    ? "Choose a verdict (s or x)"
    : draft.verdict === "failure" && schema.requireCategory && !draft.category
      ? "Choose an error category (1–9)"
      : draft.verdict === "failure" && schema.requireFailureStep && draft.firstFailingStep === null
        ? "Mark the failure point: the step where the agent went wrong (f)"
        : draft.verdict === "failure" && schema.requireReasoning && !draft.note.trim()
          ? "Write your reasoning in the note (n)"
          : null;

  const goNext = useCallback(async () => {
    let next;
    try {
      next = await nextM.mutateAsync({ campaignId: campaign.id });
    } catch {
      // Refused (e.g. blocked by the campaign's quality checks): the queue page says why.
      next = null;
    }
    router.push(next ? `/annotate/${campaign.id}/${next.itemNo}` : `/annotate/${campaign.id}`);
  }, [campaign.id, nextM, router]);

  const submit = useCallback(
    async (andNext: boolean) => {
      if (busy || locked) return;
      if (missing) {
        setStatus({ tone: "error", text: missing });
        return;
      }
      setBusy(true);
      setStatus({ tone: "info", text: "Saving…" });
      try {
        const result = await submitM.mutateAsync({
          campaignId: campaign.id,
          itemNo,
          verdict: draft.verdict!,
          category: draft.verdict === "failure" ? draft.category : null,
          firstFailingStep: draft.verdict === "success" || draft.verdict === "not_executable" ? null : draft.firstFailingStep,
          note: draft.note.trim() ? draft.note : null,
          ...(questions.length ? { answers: answersForSubmit(questions, draft.verdict, draft.answers ?? {}) } : {}),
          marks: draft.marks ?? [],
          timeSpentMs: Math.round(time.read()),
          stepsViewed: [...viewed.current].sort((a, b) => a - b),
          idempotencyKey: keyRef.current,
          baseRevision: mine.label?.revision ?? null,
        });
        keyRef.current = newKey();
        if (draftKey) window.localStorage.removeItem(draftKey);
        time.reset();
        viewed.current = new Set([current]);
        const mineQuery = { queryKey: trpc.labelling.mine.queryKey({ campaignId: campaign.id, itemNo }) };
        setStatus({ tone: "ok", text: `Saved (revision ${result.revision})` });
        // Going next (a reveal campaign or a training item stays to show what follows), the label is marked stale, not fetched again first.
        if (andNext && !stayAfterSubmit) await Promise.all([queryClient.invalidateQueries({ ...mineQuery, refetchType: "none" }), goNext()]);
        else await queryClient.invalidateQueries(mineQuery).then(() => setBusy(false));
      } catch (e) {
        setBusy(false);
        setStatus({ tone: "error", text: (e as Error).message });
      }
    },
    [
      busy,
      locked,
      missing,
      submitM,
      campaign.id,
      stayAfterSubmit,
      itemNo,
      draft,
      draftKey,
      time,
      mine.label?.revision,
      current,
      queryClient,
      trpc,
      goNext,
      questions,
    ],
  );

  const undo = useCallback(async () => {
    if (busy || !mine.undoable) {
      if (!mine.undoable) setStatus({ tone: "info", text: "Nothing to undo" });
      return;
    }
    setBusy(true);
    try {
      const r = await undoM.mutateAsync({ campaignId: campaign.id, revisionId: mine.undoable.revisionId, idempotencyKey: newKey() });
      // Reopen the trajectory whose submit was undone, with the undone values in the form to fix them.
      window.sessionStorage.setItem(
        restoreKey(campaign.id, r.itemNo),
        JSON.stringify(r.status === "withdrawn" ? r.values : { ...r.values, note: r.values.note ?? "" }),
      );
      await queryClient.invalidateQueries({ queryKey: trpc.labelling.mine.queryKey() });
      if (r.itemNo === itemNo) {
        setDraftState(undoneValues(campaign.id, itemNo) ?? EMPTY_DRAFT);
        setStatus({ tone: "ok", text: "Undone" });
        setBusy(false);
      } else {
        router.push(`/annotate/${campaign.id}/${r.itemNo}?undone=1`);
      }
    } catch (e) {
      setBusy(false);
      setStatus({ tone: "error", text: (e as Error).message });
    }
  }, [busy, mine, undoM, campaign.id, queryClient, trpc, itemNo, router]);

  const skip = useCallback(async () => {
    if (busy) return;
    setBusy(true);
    try {
      await skipM.mutateAsync({ campaignId: campaign.id, itemNo });
      await goNext();
    } catch (e) {
      setBusy(false);
      setStatus({ tone: "error", text: (e as Error).message });
    }
  }, [busy, skipM, campaign.id, itemNo, goNext]);

  const chooseCategory = useCallback(
    (category: string) => setDraft((d) => ({ ...d, verdict: "failure", category: d.category === category && d.verdict === "failure" ? null : category })),
    [setDraft],
  );

  const markStep = useCallback(
    (index: number) =>
      setDraft((d) => ({ ...d, verdict: d.verdict === "unsure" ? d.verdict : "failure", firstFailingStep: d.firstFailingStep === index ? null : index })),
    [setDraft],
  );

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const cmd = labelCommandForKey(e, e.target as HTMLElement | null, {
        categories: schema.categories.length,
        allowUnsure: schema.allowUnsure,
        allowNotExecutable: schema.allowNotExecutable ?? false,
      });
      if (!cmd) return;
      if (locked && cmd.kind !== "undo" && cmd.kind !== "guidelines") return;
      e.preventDefault();
      switch (cmd.kind) {
        case "guidelines":
          setShowGuidelines((v) => !v);
          break;
        case "verdict":
          setDraft((d) =>
            cmd.verdict === "success" || cmd.verdict === "not_executable"
              ? { ...d, verdict: cmd.verdict, category: null, firstFailingStep: null }
              : { ...d, verdict: cmd.verdict },
          );
          break;
        case "category":
          chooseCategory(schema.categories[cmd.index]!);
          break;
        case "markFirstFailing":
          if (schema.firstFailingStep) markStep(current);
          break;
        case "focusNote":
          noteRef.current?.focus();
          break;
        case "toggleMarks":
          toggleMarks();
          break;
        case "submitAndNext":
          (document.activeElement as HTMLElement | null)?.blur?.();
          void submit(true);
          break;
        case "undo":
          void undo();
          break;
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [schema, locked, setDraft, chooseCategory, markStep, current, submit, undo, toggleMarks]);

  const verdictButton = (v: "success" | "failure" | "unsure" | "not_executable", key: string, label: string, on: string) => (
    <button
      type="button"
      disabled={locked}
      aria-pressed={draft.verdict === v}
      onClick={() =>
        setDraft((d) => (v === "success" || v === "not_executable" ? { ...d, verdict: v, category: null, firstFailingStep: null } : { ...d, verdict: v }))
      }
      className={`flex h-9 flex-1 items-center justify-center gap-2 rounded-md border text-[13px] font-semibold ${
        draft.verdict === v ? on : "border-zinc-300 bg-white text-zinc-700 hover:bg-zinc-50"
      }`}
    >
      {label} <kbd className="kbd">{key}</kbd>
    </button>
  );

  return (
    <div className="flex flex-col gap-3 px-3 py-3" data-testid="label-panel">
      <div className="flex items-start justify-between gap-2">
        <div className="min-w-0">
          <div className="section-title">Label</div>
          <div className="truncate text-[12px] text-zinc-500" title={campaign.name}>
            {campaign.name}
            {campaign.blind && " · blind"}
          </div>
        </div>
        <button type="button" className="btn btn-icon" title="Label shortcuts" aria-label="Label shortcuts" onClick={() => setShowHelp((v) => !v)}>
          ?
        </button>
      </div>

      {showHelp && (
        <ul className="rounded-md bg-zinc-50 px-2 py-1.5 text-[11.5px] text-zinc-600">
          {LABEL_SHORTCUTS.filter((s) => (s.keys[0] !== "q" || schema.allowUnsure) && (s.keys[0] !== "b" || schema.allowNotExecutable)).map((s) => (
            <li key={s.description} className="flex items-center gap-2 py-0.5">
              <span className="flex shrink-0 gap-0.5">
                {s.keys.map((k) => (
                  <kbd key={k} className="kbd">
                    {k}
                  </kbd>
                ))}
              </span>
              {s.description}
            </li>
          ))}
        </ul>
      )}

      {campaign.instructions && (
        <button
          type="button"
          className="btn h-7 justify-between text-[12px]"
          aria-expanded={showGuidelines}
          onClick={() => setShowGuidelines((v) => !v)}
          data-testid="guidelines-toggle"
        >
          <span>
            Guidelines <span className="text-zinc-500">v{campaign.guidelineVersion}</span>
          </span>
          <kbd className="kbd">g</kbd>
        </button>
      )}
      {showGuidelines && campaign.instructions && (
        <div
          role="dialog"
          aria-label="Guidelines"
          className="fixed inset-0 z-50 flex items-start justify-center bg-zinc-900/40 p-6"
          onClick={() => setShowGuidelines(false)}
          data-testid="guidelines"
        >
          <div className="panel max-h-[85vh] w-full max-w-2xl overflow-y-auto px-5 py-4 shadow-lg" onClick={(e) => e.stopPropagation()}>
            <div className="mb-2 flex items-center justify-between">
              <span className="section-title">Guidelines · version {campaign.guidelineVersion}</span>
              <button type="button" className="btn h-7" onClick={() => setShowGuidelines(false)}>
                Close <kbd className="kbd">g</kbd>
              </button>
            </div>
            <GuidelinesText text={campaign.instructions} />
          </div>
        </div>
      )}

      {mine.itemState === "adjudicated" && (
        <p className="rounded-md bg-amber-50 px-2 py-1.5 text-[12px] text-amber-800">This trajectory was adjudicated; labels can no longer change.</p>
      )}
      {mine.label && mine.itemState !== "adjudicated" && (
        <p className="rounded-md bg-indigo-50 px-2 py-1.5 text-[12px] text-indigo-800">
          You labelled this trajectory (revision {mine.label.revision}). Submitting again records a revision.
        </p>
      )}

      <div className="flex gap-2" role="group" aria-label="Verdict">
        {verdictButton("success", "s", "Success", "border-emerald-400 bg-emerald-50 text-emerald-800")}
        {verdictButton("failure", "x", "Failure", "border-rose-400 bg-rose-50 text-rose-800")}
      </div>
      {(schema.allowUnsure || schema.allowNotExecutable) && (
        <div className="flex gap-2">
          {schema.allowNotExecutable && verdictButton("not_executable", "b", "Not executable", "border-sky-400 bg-sky-50 text-sky-800")}
          {schema.allowUnsure && verdictButton("unsure", "q", "Unsure", "border-amber-400 bg-amber-50 text-amber-800")}
        </div>
      )}

      {schema.categories.length > 0 && (
        <fieldset disabled={locked || draft.verdict !== "failure"} className="flex flex-col gap-0.5 disabled:opacity-50">
          <legend className="mb-1 text-[12px] font-medium text-zinc-700">Error category{schema.requireCategory ? "" : " (optional)"}</legend>
          {schema.categories.map((c, i) => (
            <label
              key={c}
              className={`flex cursor-pointer items-center gap-2 rounded px-1.5 py-1 text-[12.5px] ${draft.category === c ? "bg-rose-50 text-rose-900" : "hover:bg-zinc-50"}`}
            >
              <input type="radio" name="category" className="accent-rose-600" checked={draft.category === c} onChange={() => chooseCategory(c)} />
              <kbd className="kbd">{i + 1}</kbd>
              {c}
            </label>
          ))}
        </fieldset>
      )}

      {schema.firstFailingStep && (
        <div className="flex flex-col gap-1">
          <div className="flex items-center justify-between text-[12px]">
            <span className="font-medium text-zinc-700">{schema.requireFailureStep ? "Failure point (required for failures)" : "First failing step"}</span>
            <span data-testid="first-failing-step" className="text-zinc-600">
              {draft.firstFailingStep === null ? "not marked" : `step ${draft.firstFailingStep + 1}`}
            </span>
          </div>
          <div className="flex flex-wrap gap-1" role="group" aria-label="First failing step">
            {Array.from({ length: count }, (_, i) => (
              <button
                key={i}
                type="button"
                disabled={locked}
                title={`Step ${i + 1}${i === current ? " (on screen)" : ""}`}
                onClick={() => {
                  markStep(i);
                  go(i);
                }}
                className={`h-6 min-w-6 rounded border px-1 text-2xs tabular-nums ${
                  draft.firstFailingStep === i
                    ? "border-rose-500 bg-rose-500 text-white"
                    : i === current
                      ? "border-indigo-400 bg-indigo-50 text-indigo-800"
                      : viewed.current.has(i)
                        ? "border-zinc-300 bg-white text-zinc-700"
                        : "border-dashed border-zinc-300 bg-white text-zinc-400"
                }`}
              >
                {i + 1}
              </button>
            ))}
          </div>
          <p className="text-2xs text-zinc-500">
            <kbd className="kbd">f</kbd> marks the step on screen; dashed steps are ones you have not opened.
          </p>
        </div>
      )}

      {marksSection(current)}

      {schema.note && (
        <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
          <span>
            {schema.requireReasoning ? "Reasoning (required for failures)" : "Note"} <kbd className="kbd">n</kbd>
          </span>
          <textarea
            ref={noteRef}
            disabled={locked}
            value={draft.note}
            onChange={(e) => {
              const note = e.target.value;
              setDraft((d) => ({ ...d, note }));
            }}
            onKeyDown={(e) => {
              if (e.key === "Escape") e.currentTarget.blur();
            }}
            rows={3}
            maxLength={10_000}
            placeholder="Why? What went wrong, where?"
            className="rounded-md border border-zinc-300 px-2 py-1 text-[12.5px] font-normal text-zinc-800 shadow-xs focus:border-indigo-400 focus:outline-none"
          />
        </label>
      )}

      <QuestionFields
        questions={questions}
        verdict={draft.verdict}
        answers={draft.answers ?? {}}
        onChange={(answers) => setDraft((d) => ({ ...d, answers }))}
        disabled={locked}
        stepCount={count}
        current={current}
        go={go}
      />

      <div className="flex flex-col gap-1.5">
        <button
          type="button"
          className="btn btn-on h-9 justify-center text-[13px]"
          disabled={locked || busy}
          onClick={() => void submit(true)}
          data-testid="submit-next"
        >
          Submit &amp; next <kbd className="kbd">Ctrl</kbd>
          <kbd className="kbd">Enter</kbd>
        </button>
        <div className="flex gap-1.5">
          <button type="button" className="btn flex-1 justify-center" disabled={locked || busy} onClick={() => void submit(false)}>
            Save
          </button>
          <button
            type="button"
            className="btn flex-1 justify-center"
            disabled={locked || busy || !!mine.label}
            onClick={() => void skip()}
            title="Put it back and label it last"
          >
            Skip
          </button>
          <button
            type="button"
            className="btn flex-1 justify-center"
            disabled={busy || !mine.undoable}
            onClick={() => void undo()}
            title={mine.undoable ? `Undo your last submit (item ${mine.undoable.itemNo})` : "Nothing to undo"}
          >
            Undo <kbd className="kbd">u</kbd>
          </button>
        </div>
        {status && (
          <p
            role="status"
            data-testid="label-status"
            className={`text-[12px] ${status.tone === "error" ? "text-rose-700" : status.tone === "ok" ? "text-emerald-700" : "text-zinc-500"}`}
          >
            {status.text}
          </p>
        )}
        {!status && missing && !locked && <p className="text-[12px] text-zinc-500">{missing}</p>}
      </div>

      <LabelHistory history={mine.history} />
    </div>
  );
}

/** This annotator's submits, undos and withdrawals on the trajectory. */
function LabelHistory({ history }: { history: MyLabel["history"] }) {
  if (history.length === 0) return null;
  return (
    <details className="text-[12px] text-zinc-600">
      <summary className="cursor-pointer">Your history on this trajectory ({history.length})</summary>
      <ol className="mt-1 flex flex-col gap-0.5">
        {history.map((h) => (
          <li key={h.revision} className={h.undone ? "text-zinc-400 line-through" : ""}>
            r{h.revision} {h.action}: {h.status === "withdrawn" ? "withdrawn" : `${h.values.verdict}${h.values.category ? ` · ${h.values.category}` : ""}`}
          </li>
        ))}
      </ol>
    </details>
  );
}

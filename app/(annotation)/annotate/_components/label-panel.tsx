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
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from "react";
import type { AppRouter } from "@/server/api/root";
import { draftStorageKey, EMPTY_DRAFT, hasUnsavedChanges, parseStoredDraft, serializeDraft, type LabelDraft } from "@/server/domain/annotation/label-drafts";
import { LABEL_SHORTCUTS, labelCommandForKey } from "@/server/domain/annotation/label-keys";
import { GuidelinesDialog } from "../../../_components/guidelines";
import { useSignedInUser } from "../../../_components/signed-in-user";
import { markLabelsOf, marksFromDraft, type RegionMark } from "@/server/domain/annotation/region-marks";
import { answersForSubmit, QuestionFields } from "./question-fields";
import { CategoryField, PanelHeader, ReasonField, ShortcutList, StepPicker, useGoToNextItem, VerdictButtons, type LabelVerdict } from "./label-fields";
import { useRegionMarking, type MarkingView } from "./region-marking";
import { useLookAhead } from "./look-ahead";
import { keepProblem, NotSentError, submitInOrder, submitsSettled, takeProblem } from "./submit-queue";
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
): { draft: Draft; restoredAt: number | null; fromStored: boolean } {
  const fromUndo = undoneValues(campaign.id, itemNo);
  if (fromUndo !== null) return { draft: fromUndo, restoredAt: null, fromStored: false };
  const saved = savedDraft(mine);
  if (draftKey && typeof window !== "undefined") {
    const stored = parseStoredDraft(window.localStorage.getItem(draftKey), { categories: campaign.labelSchema.categories, stepCount });
    if (stored && hasUnsavedChanges(stored.draft, saved)) return { draft: stored.draft, restoredAt: stored.savedAt, fromStored: false };
  }
  return { draft: saved ?? { verdict: null, category: null, firstFailingStep: null, note: "" }, restoredAt: null, fromStored: true };
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

type Status = { tone: "ok" | "error" | "info"; text: string } | null;
type SetDraft = (update: (d: Draft) => Draft) => void;

/** What the form still needs before it can be submitted, as the hint shown under the buttons (null: nothing). */
function missingField(draft: Draft, schema: LabelCampaign["labelSchema"]): string | null {
  if (!draft.verdict) return "Choose a verdict (s or x)";
  if (draft.verdict !== "failure") return null;
  if (schema.requireCategory && !draft.category) return "Choose an error category (1–9)";
  if (schema.requireFailureStep && draft.firstFailingStep === null) return "Mark the failure point: the step where the agent went wrong (f)";
  if (schema.requireReasoning && !draft.note.trim()) return "Write your reasoning in the note (n)";
  return null;
}

/** A verdict as the form takes it: success and not executable clear a failure's category and step. */
function withVerdict(d: Draft, verdict: LabelVerdict): Draft {
  return verdict === "success" || verdict === "not_executable" ? { ...d, verdict, category: null, firstFailingStep: null } : { ...d, verdict };
}

/**
 * The form's values: where they start (undo, draft or stored label, applied after mount so that server and client
 * render the same), the draft kept in the browser while it differs from the stored label, and the idempotency key
 * that changes whenever the values do.
 */
function useLabelDraft(campaign: LabelCampaign, itemNo: number, mine: MyLabel, stepCount: number, locked: boolean, setStatus: (s: Status) => void) {
  const user = useSignedInUser();
  const draftKey = user ? draftStorageKey(user.userId, campaign.id, itemNo) : null;
  const [draft, setDraftState] = useState<Draft>(() => savedDraft(mine) ?? EMPTY_DRAFT);
  const [draftReady, setDraftReady] = useState(false);
  const keyRef = useRef(newKey());
  // The stored label the form shows while nobody has touched it (null once it shows an undo's values, a restored
  // draft or the annotator's own edits).
  const followed = useRef<{ revision: number | null } | null>(null);

  // After mount (so server and client render the same): put back what an undo left or this user's draft.
  useEffect(() => {
    const start = initialState(draftKey, campaign, itemNo, mine, stepCount);
    setDraftState(start.draft);
    setDraftReady(true);
    followed.current = start.fromStored ? { revision: mine.label?.revision ?? null } : null;
    // A submit that failed after the next item was shown in its place: its values are the draft restored here.
    const problem = takeProblem(campaign.id, itemNo);
    if (problem) {
      setStatus({ tone: "error", text: problem });
    } else if (new URLSearchParams(window.location.search).has("undone")) {
      setStatus({ tone: "info", text: "Your last submit was undone; its values are back in the form." });
    } else if (start.restoredAt !== null) {
      setStatus({ tone: "info", text: `Restored your unsaved draft from ${new Date(start.restoredAt).toLocaleString()}.` });
    }
    // Once per trajectory: the panel is keyed by it.
  }, []);

  // Back to an item labelled a moment ago shows the copy of its label cached before that submit, then the server's
  // answer: an untouched form follows the stored label, rather than showing an empty form with "unsaved" edits.
  const revision = mine.label?.revision ?? null;
  useEffect(() => {
    if (!draftReady || !followed.current || followed.current.revision === revision) return;
    followed.current = { revision };
    setDraftState(savedDraft(mine) ?? EMPTY_DRAFT);
    // `mine` changes with its revision: the revision is what the form follows.
  }, [draftReady, revision]);

  // About to follow a new revision of the stored label (the effect above): nothing is unsaved, so the effect below
  // neither writes the values the form had as a draft (removed again a render later) nor warns about leaving.
  const following = draftReady && followed.current !== null && followed.current.revision !== revision;
  const unsaved = !locked && !following && hasUnsavedChanges(draft, savedDraft(mine));

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
  useUnsavedWarning(unsaved);

  const setDraft: SetDraft = useCallback((update) => {
    setDraftState((d) => {
      const next = update(d);
      if (next !== d) {
        keyRef.current = newKey();
        followed.current = null;
      }
      return next;
    });
  }, []);
  const replaceDraft = useCallback((values: Draft) => {
    followed.current = null;
    setDraftState(values);
  }, []);
  // In the commit before the effect above catches up, the form already shows the revision it is about to follow.
  return { draft: following ? (savedDraft(mine) ?? EMPTY_DRAFT) : draft, setDraft, replaceDraft, keyRef, draftKey };
}

/** Warn before leaving with unsaved changes: reloads and closing the tab (beforeunload), and links on the page. */
function useUnsavedWarning(unsaved: boolean) {
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
}

/** The steps this annotator opened on the trajectory (sent with the label). */
function useStepsViewed(current: number) {
  const viewed = useRef(new Set<number>());
  useEffect(() => {
    viewed.current.add(current);
  }, [current]);
  return viewed;
}

/** The edits a click or a key makes to the draft: a verdict, a category (a failure's), the failure point. */
function useDraftEdits(setDraft: SetDraft) {
  return useMemo(
    () => ({
      chooseVerdict: (verdict: LabelVerdict) => setDraft((d) => withVerdict(d, verdict)),
      chooseCategory: (category: string) =>
        setDraft((d) => ({ ...d, verdict: "failure", category: d.category === category && d.verdict === "failure" ? null : category })),
      markStep: (index: number) =>
        setDraft((d) => ({ ...d, verdict: d.verdict === "unsure" ? d.verdict : "failure", firstFailingStep: d.firstFailingStep === index ? null : index })),
    }),
    [setDraft],
  );
}

interface LabelActionsInput {
  props: LabelPanelProps;
  form: ReturnType<typeof useLabelDraft>;
  locked: boolean;
  missing: string | null;
  viewed: RefObject<Set<number>>;
  setStatus: (s: Status) => void;
}

type SubmitResult = Awaited<ReturnType<ReturnType<typeof useSubmitMutation>["mutateAsync"]>>;

function useSubmitMutation() {
  const trpc = useTRPC();
  return useMutation(trpc.labelling.submit.mutationOptions());
}

interface SubmitInput extends LabelActionsInput {
  busy: boolean;
  setBusy: (busy: boolean) => void;
  fail: (e: unknown) => void;
}

/**
 * Submit, or Submit & next. Going next, the item looked ahead to is shown as soon as the look-ahead has answered,
 * without waiting for the server (look-ahead.ts); once the server answers, the page goes to the item it handed out if
 * that is another one, or back to this item, its values and the problem, if the submit failed. The submits of the
 * items shown in place go to the server in order (submit-queue.ts).
 */
function useSubmitLabel({ props, form, locked, missing, viewed, setStatus, busy, setBusy, fail }: SubmitInput) {
  const { campaign, itemNo, mine, current, stayAfterSubmit } = props;
  const { draft, keyRef, draftKey } = form;
  const questions = campaign.labelSchema.questions ?? NO_QUESTIONS;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const time = useVisibleTime();
  const goNext = useGoToNextItem(campaign.id);
  // Submit & next's next item, asked for and made ready while this one is labelled (see look-ahead.ts).
  const lookAhead = useLookAhead(campaign.id, itemNo, !locked && !stayAfterSubmit);
  const submitM = useSubmitMutation();

  return useCallback(
    async (andNext: boolean) => {
      if (busy || locked) return;
      if (missing) return setStatus({ tone: "error", text: missing });
      setBusy(true);
      setStatus({ tone: "info", text: "Saving…" });
      const goingOn = andNext && !stayAfterSubmit;
      const values = {
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
        andNext: goingOn,
      };
      const sent = submitInOrder(campaign.id, itemNo, () => submitM.mutateAsync(values));
      const mineQuery = { queryKey: trpc.labelling.mine.queryKey({ campaignId: campaign.id, itemNo }) };
      // Stored: the draft goes, and this item's label is marked stale (read again when it is next shown), not fetched now.
      const stored = async () => {
        if (draftKey) window.localStorage.removeItem(draftKey);
        await queryClient.invalidateQueries({ ...mineQuery, refetchType: "none" });
      };
      try {
        const ahead = goingOn ? lookAhead.ready() : null;
        const early = ahead && (await Promise.race([ahead.then((a) => a), sent.result.then(() => null)]));
        if (early) {
          // The next item on screen now; the server's answer decides what follows.
          sent.shownInPlace(early.itemNo);
          lookAhead.show(early, null);
          let result: SubmitResult;
          try {
            result = await sent.result;
          } catch (e) {
            keepProblem(campaign.id, itemNo, (e as Error).message);
            // Not sent because the submit before failed: the page goes back to that one.
            if (e instanceof NotSentError) return;
            const back = `/annotate/${campaign.id}/${itemNo}`;
            if (window.location.pathname === `/annotate/${campaign.id}/${early.itemNo}`) window.history.replaceState(null, "", back);
            else router.push(back);
            return;
          }
          await stored();
          if (result.next?.itemNo === early.itemNo) lookAhead.stored(early.itemNo, { revisionId: result.revisionId, itemNo });
          else await goNext(result.next ?? null);
          return;
        }
        const result = await sent.result;
        keyRef.current = newKey();
        time.reset();
        viewed.current = new Set([current]);
        await stored();
        setStatus({ tone: "ok", text: `Saved (revision ${result.revision})` });
        // Going next (a reveal campaign or a training item stays to show what follows): the next item shows in place
        // when it is the one looked ahead to, else the page navigates to it.
        if (goingOn) {
          const next = result.next ?? null;
          if (!next || !(await lookAhead.open(next.itemNo, { revisionId: result.revisionId, itemNo }))) await goNext(next);
        } else await queryClient.invalidateQueries(mineQuery).then(() => setBusy(false));
      } catch (e) {
        fail(e);
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
      keyRef,
      time,
      viewed,
      mine.label?.revision,
      current,
      queryClient,
      trpc,
      router,
      goNext,
      lookAhead,
      questions,
      setStatus,
      setBusy,
      fail,
    ],
  );
}

/** Submit (and go next), undo the last submit, skip: the server calls and where the page goes after them. */
function useLabelActions(input: LabelActionsInput) {
  const { props, form, setStatus } = input;
  const { campaign, itemNo, mine } = props;
  const { replaceDraft } = form;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const goNext = useGoToNextItem(campaign.id);
  const undoM = useMutation(trpc.labelling.undo.mutationOptions());
  const skipM = useMutation(trpc.labelling.skip.mutationOptions());

  const fail = useCallback(
    (e: unknown) => {
      setBusy(false);
      setStatus({ tone: "error", text: (e as Error).message });
    },
    [setStatus],
  );
  const submit = useSubmitLabel({ ...input, busy, setBusy, fail });

  const undo = useCallback(async () => {
    if (busy || !mine.undoable) {
      if (!mine.undoable) setStatus({ tone: "info", text: "Nothing to undo" });
      return;
    }
    setBusy(true);
    try {
      // After the submits still on their way (the one it reverts among them).
      await submitsSettled(campaign.id);
      const r = await undoM.mutateAsync({ campaignId: campaign.id, revisionId: mine.undoable.revisionId, idempotencyKey: newKey() });
      // Reopen the trajectory whose submit was undone, with the undone values in the form to fix them.
      window.sessionStorage.setItem(
        restoreKey(campaign.id, r.itemNo),
        JSON.stringify(r.status === "withdrawn" ? r.values : { ...r.values, note: r.values.note ?? "" }),
      );
      await queryClient.invalidateQueries({ queryKey: trpc.labelling.mine.queryKey() });
      if (r.itemNo === itemNo) {
        replaceDraft(undoneValues(campaign.id, itemNo) ?? EMPTY_DRAFT);
        setStatus({ tone: "ok", text: "Undone" });
        setBusy(false);
      } else {
        router.push(`/annotate/${campaign.id}/${r.itemNo}?undone=1`);
      }
    } catch (e) {
      fail(e);
    }
  }, [busy, mine, undoM, campaign.id, queryClient, trpc, itemNo, router, replaceDraft, setStatus, fail]);

  const skip = useCallback(async () => {
    if (busy) return;
    setBusy(true);
    try {
      // The item is reserved for this annotator once the submit that handed it out is stored.
      await submitsSettled(campaign.id);
      await skipM.mutateAsync({ campaignId: campaign.id, itemNo });
      await goNext();
    } catch (e) {
      fail(e);
    }
  }, [busy, skipM, campaign.id, itemNo, goNext, fail]);

  return { busy, submit, undo, skip };
}

interface LabelKeysInput {
  schema: LabelCampaign["labelSchema"];
  locked: boolean;
  current: number;
  edits: ReturnType<typeof useDraftEdits>;
  actions: ReturnType<typeof useLabelActions>;
  toggleMarks: () => void;
  toggleGuidelines: () => void;
  noteRef: RefObject<HTMLTextAreaElement | null>;
}

/** The labelling keys (server/domain/annotation/label-keys.ts); a locked label still undoes and shows the guidelines. */
function useLabelKeys({ schema, locked, current, edits, actions, toggleMarks, toggleGuidelines, noteRef }: LabelKeysInput) {
  const { chooseVerdict, chooseCategory, markStep } = edits;
  const { submit, undo } = actions;
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
          return toggleGuidelines();
        case "verdict":
          return chooseVerdict(cmd.verdict);
        case "category":
          return chooseCategory(schema.categories[cmd.index]!);
        case "markFirstFailing":
          if (schema.firstFailingStep) markStep(current);
          return;
        case "focusNote":
          return noteRef.current?.focus();
        case "toggleMarks":
          return toggleMarks();
        case "submitAndNext":
          (document.activeElement as HTMLElement | null)?.blur?.();
          return void submit(true);
        case "undo":
          return void undo();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [schema, locked, chooseVerdict, chooseCategory, markStep, current, submit, undo, toggleMarks, toggleGuidelines, noteRef]);
}

/** Everything the label panel holds: the form, its draft, the server calls and the keyboard. */
function useLabelPanel(props: LabelPanelProps) {
  const { campaign, mine, current, count } = props;
  const schema = campaign.labelSchema;
  const [status, setStatus] = useState<Status>(null);
  const [showGuidelines, setShowGuidelines] = useState(false);
  const noteRef = useRef<HTMLTextAreaElement>(null);
  const locked = mine.itemState === "adjudicated" || campaign.status !== "active" || !campaign.isAnnotator;
  const viewed = useStepsViewed(current);
  const form = useLabelDraft(campaign, props.itemNo, mine, count, locked, setStatus);
  const edits = useDraftEdits(form.setDraft);
  const { toggle: toggleMarks, section: marksSection } = useDraftMarking(form.draft, form.setDraft, schema, locked, props.onMarking);
  const missing = missingField(form.draft, schema);
  const actions = useLabelActions({ props, form, locked, missing, viewed, setStatus });
  const toggleGuidelines = useCallback(() => setShowGuidelines((v) => !v), []);
  useLabelKeys({ schema, locked, current, edits, actions, toggleMarks, toggleGuidelines, noteRef });
  return { status, showGuidelines, toggleGuidelines, noteRef, locked, viewed, form, edits, marksSection, missing, actions };
}

const NO_QUESTIONS: NonNullable<LabelCampaign["labelSchema"]["questions"]> = [];

export function LabelPanel(props: LabelPanelProps) {
  const { campaign, mine, current, count, go } = props;
  const schema = campaign.labelSchema;
  const panel = useLabelPanel(props);
  const { locked, form, edits, actions } = panel;
  const { draft, setDraft } = form;
  const [showHelp, setShowHelp] = useState(false);
  const shortcuts = LABEL_SHORTCUTS.filter((s) => (s.keys[0] !== "q" || schema.allowUnsure) && (s.keys[0] !== "b" || schema.allowNotExecutable));
  const secondRow = [...(schema.allowNotExecutable ? (["not_executable"] as const) : []), ...(schema.allowUnsure ? (["unsure"] as const) : [])];

  return (
    <div className="flex flex-col gap-3 px-3 py-3" data-testid="label-panel" data-item-no={props.itemNo}>
      <PanelHeader title="Label" subtitle={`${campaign.name}${campaign.blind ? " · blind" : ""}`} subtitleTitle={campaign.name}>
        <button type="button" className="btn btn-icon" title="Label shortcuts" aria-label="Label shortcuts" onClick={() => setShowHelp((v) => !v)}>
          ?
        </button>
      </PanelHeader>
      {showHelp && <ShortcutList shortcuts={shortcuts} />}
      <Guidelines campaign={campaign} open={panel.showGuidelines} toggle={panel.toggleGuidelines} />
      <ItemNotice mine={mine} />

      <VerdictButtons verdicts={VERDICTS} value={draft.verdict} onChoose={edits.chooseVerdict} disabled={locked} label="Verdict" />
      {secondRow.length > 0 && <VerdictButtons verdicts={secondRow} value={draft.verdict} onChoose={edits.chooseVerdict} disabled={locked} />}
      <CategoryField
        categories={schema.categories}
        value={draft.category}
        onChoose={edits.chooseCategory}
        disabled={locked || draft.verdict !== "failure"}
        legend={`Error category${schema.requireCategory ? "" : " (optional)"}`}
        name="category"
      />
      {schema.firstFailingStep && (
        <div className="flex flex-col gap-1">
          <div className="flex items-center justify-between gap-2 text-[12px]">
            <span className="font-medium text-zinc-700">{schema.requireFailureStep ? "Failure point (required for failures)" : "First failing step"}</span>
            <span data-testid="first-failing-step" className="text-zinc-600">
              {draft.firstFailingStep === null ? "not marked" : `step ${draft.firstFailingStep + 1}`}
            </span>
          </div>
          <StepPicker
            count={count}
            current={current}
            value={draft.firstFailingStep}
            onPick={(i) => {
              edits.markStep(i);
              go(i);
            }}
            disabled={locked}
            label="First failing step"
            viewed={panel.viewed.current}
          />
          <p className="text-2xs text-zinc-500">
            <kbd className="kbd">f</kbd> marks the step on screen; dashed steps are ones you have not opened.
          </p>
        </div>
      )}
      {panel.marksSection(current)}
      {schema.note && (
        <ReasonField
          label={
            <>
              {schema.requireReasoning ? "Reasoning (required for failures)" : "Note"} <kbd className="kbd">n</kbd>
            </>
          }
          value={draft.note}
          onChange={(note) => setDraft((d) => ({ ...d, note }))}
          textareaRef={panel.noteRef}
          disabled={locked}
          maxLength={10_000}
          placeholder="Why? What went wrong, where?"
        />
      )}
      <QuestionFields
        questions={schema.questions ?? NO_QUESTIONS}
        verdict={draft.verdict}
        answers={draft.answers ?? {}}
        onChange={(answers) => setDraft((d) => ({ ...d, answers }))}
        disabled={locked}
        stepCount={count}
        current={current}
        go={go}
      />
      <LabelButtons mine={mine} locked={locked} actions={actions} status={panel.status} missing={panel.missing} />
      <LabelHistory history={mine.history} />
    </div>
  );
}

const VERDICTS = ["success", "failure"] as const;

/** The guidelines button and, open, the guidelines over the page (`g` opens and closes them). */
function Guidelines({ campaign, open, toggle }: { campaign: LabelCampaign; open: boolean; toggle: () => void }) {
  if (!campaign.instructions) return null;
  return (
    <>
      <button type="button" className="btn h-7 justify-between text-[12px]" aria-expanded={open} onClick={toggle} data-testid="guidelines-toggle">
        <span>
          Guidelines <span className="text-zinc-500">v{campaign.guidelineVersion}</span>
        </span>
        <kbd className="kbd">g</kbd>
      </button>
      {open && <GuidelinesDialog text={campaign.instructions} version={campaign.guidelineVersion} onClose={toggle} />}
    </>
  );
}

/** Whether this trajectory is adjudicated (the label cannot change) or already labelled (a submit is a revision). */
function ItemNotice({ mine }: { mine: MyLabel }) {
  if (mine.itemState === "adjudicated") {
    return <p className="rounded-md bg-amber-50 px-2 py-1.5 text-[12px] text-amber-800">This trajectory was adjudicated; labels can no longer change.</p>;
  }
  if (!mine.label) return null;
  return (
    <p className="rounded-md bg-indigo-50 px-2 py-1.5 text-[12px] text-indigo-800">
      You labelled this trajectory (revision {mine.label.revision}). Submitting again records a revision.
    </p>
  );
}

/** Submit & next, save, skip, undo, and what the last of them did (or what the form still needs). */
function LabelButtons(props: { mine: MyLabel; locked: boolean; actions: ReturnType<typeof useLabelActions>; status: Status; missing: string | null }) {
  const { mine, locked, status, missing } = props;
  const { busy, submit, skip, undo } = props.actions;
  return (
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

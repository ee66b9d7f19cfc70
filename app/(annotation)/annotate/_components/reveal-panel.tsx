"use client";
/**
 * Blind → reveal → revise, beside the player once the annotator's blind label is in: the campaign's evaluator
 * verdict, its rationale and the screenshots it was sent, then keep or revise (verdict, category, first failing step)
 * with a required reason. The reveal is asked for only here, after the blind submit; the server refuses it before.
 * Keyboard first (server/domain/agreement/reveal-keys.ts): `c` keep, `v` revise, `s` / `x`, `1`–`9`, `f` while
 * revising, `n` reason, Ctrl/Cmd+Enter record, then next.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useCallback, useEffect, useRef, useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { REVEAL_SHORTCUTS, revealCommandForKey } from "@/server/domain/agreement/reveal-keys";
import { stepImageUrl } from "../../../trajectories/[id]/_components/image-urls";
import { useTRPC } from "../../../_trpc/client";
import { PanelHeader, ReasonField, ShortcutList, useGoToNextItem, VerdictButtons } from "./label-fields";
import type { LabelCampaign, MyLabel } from "./label-panel";

type RevealView = inferRouterOutputs<AppRouter>["labelling"]["reveal"];

const VERDICT_TONE: Record<string, string> = {
  success: "bg-emerald-50 text-emerald-800 border-emerald-300",
  failure: "bg-rose-50 text-rose-800 border-rose-300",
};

function VerdictChip({ verdict }: { verdict: string }) {
  return (
    <span
      className={`inline-flex rounded border px-1.5 py-0.5 text-[12px] font-semibold ${VERDICT_TONE[verdict] ?? "border-zinc-300 bg-zinc-50 text-zinc-700"}`}
    >
      {verdict.replace("_", " ")}
    </span>
  );
}

function describe(v: { verdict: string; category: string | null; firstFailingStep: number | null }): string {
  return [v.verdict.replace("_", " "), v.category, v.firstFailingStep === null ? null : `step ${v.firstFailingStep + 1}`].filter(Boolean).join(" · ");
}

type Revision = { verdict: "success" | "failure" | null; category: string | null; step: number | null };
const NO_REVISION: Revision = { verdict: null, category: null, step: null };

/** A revised verdict: a success has no category or failing step. */
function withVerdict(r: Revision, verdict: "success" | "failure"): Revision {
  return verdict === "success" ? { verdict, category: null, step: null } : { ...r, verdict };
}

/**
 * The reveal's state: the evaluator's view (asked once per item, after the blind submit that brought this panel up;
 * the panel is keyed by item), keep or revise, the revised label and the reason, and recording the decision.
 */
function useRevealDecision(campaign: LabelCampaign, itemNo: number) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const revealM = useMutation(trpc.labelling.reveal.mutationOptions());
  const decideM = useMutation(trpc.labelling.decideReveal.mutationOptions());
  const goNext = useGoToNextItem(campaign.id);
  const [view, setView] = useState<RevealView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [decision, setDecision] = useState<"keep" | "revise" | null>(null);
  const [revision, setRevision] = useState<Revision>(NO_REVISION);
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const asked = useRef(false);

  useEffect(() => {
    if (asked.current) return;
    asked.current = true;
    revealM.mutateAsync({ campaignId: campaign.id, itemNo }).then(setView, (e: Error) => setError(e.message));
  }, [revealM, campaign.id, itemNo]);

  const decided = view?.informed ?? null;

  const choose = useCallback(
    (d: "keep" | "revise") => {
      if (decided || view?.status !== "revealed") return;
      setDecision(d);
      // Revising starts from the other verdict than the blind one.
      if (d === "revise" && view.blind && revision.verdict === null)
        setRevision({ ...NO_REVISION, verdict: view.blind.verdict === "success" ? "failure" : "success" });
      setTimeout(() => reasonRef.current?.focus(), 0);
    },
    [decided, view, revision.verdict],
  );

  const confirm = useCallback(async () => {
    if (busy) return;
    if (decided || view?.status !== "revealed") {
      setBusy(true);
      await goNext();
      return;
    }
    if (!decision) return setError("Keep (c) or revise (v) your label first");
    if (!reason.trim()) {
      setError("Write why you keep or revise your label (n)");
      reasonRef.current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const { verdict, category, step } = revision;
      const informed = await decideM.mutateAsync({
        campaignId: campaign.id,
        itemNo,
        decision,
        reason,
        ...(decision === "revise" ? { verdict, category: verdict === "failure" ? category : null, firstFailingStep: verdict === "failure" ? step : null } : {}),
      });
      setView((v) => (v ? { ...v, informed } : v));
      await queryClient.invalidateQueries({ queryKey: trpc.labelling.mine.queryKey({ campaignId: campaign.id, itemNo }) });
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }, [busy, decided, view, decision, reason, decideM, campaign.id, itemNo, revision, goNext, queryClient, trpc]);

  return { view, error, decided, decision, choose, revision, setRevision, reason, setReason, reasonRef, busy, confirm };
}

/** The reveal keys (server/domain/agreement/reveal-keys.ts); the verdict, category and step keys only while revising. */
function useRevealKeys(categories: readonly string[], current: number, reveal: ReturnType<typeof useRevealDecision>) {
  const { decision, decided, choose, setRevision, reasonRef, confirm } = reveal;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const cmd = revealCommandForKey(e, e.target as HTMLElement | null, { categories: categories.length, revising: decision === "revise" && !decided });
      if (!cmd) return;
      e.preventDefault();
      switch (cmd.kind) {
        case "keep":
        case "revise":
          return choose(cmd.kind);
        case "verdict":
          return setRevision((r) => withVerdict(r, cmd.verdict));
        case "category":
          return setRevision((r) => ({ ...r, verdict: "failure", category: r.category === categories[cmd.index] ? null : categories[cmd.index]! }));
        case "markFirstFailing":
          return setRevision((r) => ({ ...r, verdict: "failure", step: r.step === current ? null : current }));
        case "focusReason":
          return reasonRef.current?.focus();
        case "confirm":
          (document.activeElement as HTMLElement | null)?.blur?.();
          return void confirm();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [categories, decision, decided, choose, setRevision, reasonRef, current, confirm]);
}

export function RevealPanel(props: { campaign: LabelCampaign; itemNo: number; mine: MyLabel; current: number; count: number; go: (index: number) => void }) {
  const { campaign, itemNo, current, count, go } = props;
  const reveal = useRevealDecision(campaign, itemNo);
  useRevealKeys(campaign.labelSchema.categories, current, reveal);
  const [showHelp, setShowHelp] = useState(false);
  const { view, error, decided, busy, confirm } = reveal;
  const blind = view?.blind;
  return (
    <div className="flex flex-col gap-3 px-3 py-3" data-testid="reveal-panel">
      <PanelHeader title="Your label, then the evaluator" subtitle={`${campaign.name} · reveal after blind label`} subtitleTitle={campaign.name}>
        <button type="button" className="btn btn-icon" title="Reveal shortcuts" aria-label="Reveal shortcuts" onClick={() => setShowHelp((v) => !v)}>
          ?
        </button>
      </PanelHeader>
      {showHelp && <ShortcutList shortcuts={REVEAL_SHORTCUTS} testId="reveal-shortcuts" />}

      {!view && !error && <p className="text-[12px] text-zinc-500">Loading the evaluator…</p>}
      {view && view.status !== "revealed" && (
        <p className="rounded-md bg-zinc-50 px-2 py-1.5 text-[12px] text-zinc-700" data-testid="reveal-message">
          {view.message}
        </p>
      )}

      {view?.status === "revealed" && view.evaluator && blind && (
        <>
          <BlindLabel blind={blind} />
          <EvaluatorVerdict evaluator={view.evaluator} screenshots={view.screenshots} current={current} go={go} />
          {decided ? (
            <div className="rounded-md bg-emerald-50 px-2 py-1.5 text-[12px] text-emerald-900" data-testid="reveal-decided">
              {decided.decision === "keep" ? "You kept your label" : `You revised your label to ${describe(decided)}`}: “{decided.reason}”
            </div>
          ) : (
            <RevealDecisionForm campaign={campaign} reveal={reveal} current={current} count={count} />
          )}
        </>
      )}

      <button
        type="button"
        className="btn btn-on h-9 justify-center text-[13px]"
        disabled={busy || (!view && !error)}
        onClick={() => void confirm()}
        data-testid="reveal-confirm"
      >
        {view?.status === "revealed" && !decided ? "Record decision" : "Next trajectory"} <kbd className="kbd">Ctrl</kbd>
        <kbd className="kbd">Enter</kbd>
      </button>
      {error && (
        <p role="status" className="text-[12px] text-rose-700" data-testid="reveal-status">
          {error}
        </p>
      )}
    </div>
  );
}

/** The annotator's own blind label, as submitted. */
function BlindLabel({ blind }: { blind: NonNullable<RevealView["blind"]> }) {
  return (
    <div className="rounded-md border border-zinc-200 px-2 py-1.5 text-[12px]" data-testid="reveal-blind">
      <div className="text-2xs font-medium tracking-wide text-zinc-500 uppercase">Your blind label</div>
      <div className="mt-0.5 flex flex-wrap items-center gap-1.5">
        <VerdictChip verdict={blind.verdict} />
        <span className="text-zinc-700">{describe(blind).split(" · ").slice(1).join(" · ")}</span>
      </div>
      {blind.note && <p className="mt-1 text-zinc-600">{blind.note}</p>}
    </div>
  );
}

/** The campaign's evaluator: its verdict, rationale and the screenshots it was sent (each opens its step). */
function EvaluatorVerdict(props: {
  evaluator: NonNullable<RevealView["evaluator"]>;
  screenshots: RevealView["screenshots"];
  current: number;
  go: (index: number) => void;
}) {
  const { evaluator, screenshots, current, go } = props;
  return (
    <div className="rounded-md border border-indigo-200 bg-indigo-50/40 px-2 py-1.5 text-[12px]" data-testid="reveal-evaluator">
      <div className="text-2xs font-medium tracking-wide text-indigo-700 uppercase">
        {evaluator.name}
        {evaluator.k && ` · k = ${evaluator.k}`}
      </div>
      <div className="mt-0.5 flex items-center gap-1.5">
        <VerdictChip verdict={evaluator.verdict} />
        {evaluator.firstFailingStep !== null && <span className="text-zinc-600">first failing step {evaluator.firstFailingStep + 1}</span>}
      </div>
      {evaluator.rationale && <p className="mt-1 max-h-48 overflow-y-auto whitespace-pre-wrap text-zinc-800">{evaluator.rationale}</p>}
      {screenshots.length > 0 && (
        <div className="mt-1.5">
          <div className="text-2xs text-zinc-500">Screenshots it was sent (click to open the step)</div>
          <div className="mt-1 flex flex-wrap gap-1">
            {screenshots.map((s) => (
              <button
                key={s.step}
                type="button"
                onClick={() => go(s.step)}
                title={`Step ${s.step + 1}`}
                className={`relative overflow-hidden rounded border ${s.step === current ? "border-indigo-500 ring-1 ring-indigo-400" : "border-zinc-300"}`}
              >
                <img
                  src={stepImageUrl(s.hash, 72)}
                  alt={`Step ${s.step + 1}`}
                  width={72}
                  height={45}
                  className="block h-[45px] w-[72px] object-cover object-top"
                />
                <span className="absolute right-0 bottom-0 bg-zinc-900/70 px-1 text-2xs text-white tabular-nums">{s.step + 1}</span>
              </button>
            ))}
          </div>
        </div>
      )}
    </div>
  );
}

const REVISED_VERDICTS = ["success", "failure"] as const;

/** The two answers to a reveal, with the keys `revealCommandForKey` gives them. */
const REVEAL_CHOICES = [
  { choice: "keep", name: "Keep", key: "c" },
  { choice: "revise", name: "Revise", key: "v" },
] as const;

/** Keep or revise; revising asks for the new verdict, category and failing step; both ask why. */
function RevealDecisionForm(props: { campaign: LabelCampaign; reveal: ReturnType<typeof useRevealDecision>; current: number; count: number }) {
  const { campaign, current, count } = props;
  const { decision, choose, revision, setRevision, reason, setReason, reasonRef } = props.reveal;
  const categories = campaign.labelSchema.categories;
  return (
    <div className="flex flex-col gap-2" data-testid="reveal-decision">
      <div className="flex gap-2" role="group" aria-label="Keep or revise">
        {REVEAL_CHOICES.map(({ choice, name, key }) => (
          <button
            key={choice}
            type="button"
            aria-pressed={decision === choice}
            onClick={() => choose(choice)}
            className={`btn h-9 flex-1 justify-center ${decision === choice ? "btn-on" : ""}`}
          >
            {name} <kbd className="kbd">{key}</kbd>
          </button>
        ))}
      </div>
      {decision === "revise" && (
        <div className="flex flex-col gap-1.5 rounded-md border border-zinc-200 px-2 py-1.5">
          <VerdictButtons
            verdicts={REVISED_VERDICTS}
            value={revision.verdict}
            onChoose={(v) => setRevision((r) => withVerdict(r, v))}
            label="Revised verdict"
            height="h-8"
          />
          {revision.verdict === "failure" && categories.length > 0 && (
            <label className="flex flex-col gap-0.5 text-[12px] text-zinc-700">
              Error category (1–{Math.min(9, categories.length)})
              <select
                value={revision.category ?? ""}
                onChange={(e) => setRevision((r) => ({ ...r, category: e.target.value || null }))}
                className="rounded border border-zinc-300 px-1 py-0.5 text-[12.5px]"
              >
                <option value="">none</option>
                {categories.map((c, i) => (
                  <option key={c} value={c}>
                    {i < 9 ? `${i + 1}. ` : ""}
                    {c}
                  </option>
                ))}
              </select>
            </label>
          )}
          {revision.verdict === "failure" && campaign.labelSchema.firstFailingStep && (
            <div className="text-[12px] text-zinc-700">
              First failing step: <span data-testid="reveal-step">{revision.step === null ? "not marked" : `step ${revision.step + 1}`}</span>{" "}
              <span className="text-zinc-500">
                (<kbd className="kbd">f</kbd> marks step {current + 1} of {count})
              </span>
            </div>
          )}
        </div>
      )}
      <ReasonField
        label={
          <>
            Why? (required) <kbd className="kbd">n</kbd>
          </>
        }
        value={reason}
        onChange={setReason}
        textareaRef={reasonRef}
        maxLength={5000}
        placeholder="What in the evaluator's verdict or screenshots made you keep or change your label?"
        testId="reveal-reason"
      />
    </div>
  );
}

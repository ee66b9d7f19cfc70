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
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { REVEAL_SHORTCUTS, revealCommandForKey } from "@/server/domain/agreement/reveal-keys";
import { stepImageUrl } from "../../../trajectories/[id]/_components/image-urls";
import { useTRPC } from "../../../_trpc/client";
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

export function RevealPanel(props: { campaign: LabelCampaign; itemNo: number; mine: MyLabel; current: number; count: number; go: (index: number) => void }) {
  const { campaign, itemNo, current, count, go } = props;
  const categories = campaign.labelSchema.categories;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const revealM = useMutation(trpc.labelling.reveal.mutationOptions());
  const decideM = useMutation(trpc.labelling.decideReveal.mutationOptions());
  const nextM = useMutation(trpc.labelling.next.mutationOptions());
  const [view, setView] = useState<RevealView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [decision, setDecision] = useState<"keep" | "revise" | null>(null);
  const [verdict, setVerdict] = useState<"success" | "failure" | null>(null);
  const [category, setCategory] = useState<string | null>(null);
  const [step, setStep] = useState<number | null>(null);
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [showHelp, setShowHelp] = useState(false);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const asked = useRef(false);

  // Asked once per item, after the blind submit that brought this panel up (the panel is keyed by item).
  useEffect(() => {
    if (asked.current) return;
    asked.current = true;
    revealM.mutateAsync({ campaignId: campaign.id, itemNo }).then(setView, (e: Error) => setError(e.message));
  }, [revealM, campaign.id, itemNo]);

  const decided = view?.informed ?? null;

  const goNext = useCallback(async () => {
    let next;
    try {
      next = await nextM.mutateAsync({ campaignId: campaign.id });
    } catch {
      next = null;
    }
    router.push(next ? `/annotate/${campaign.id}/${next.itemNo}` : `/annotate/${campaign.id}`);
  }, [campaign.id, nextM, router]);

  const choose = useCallback(
    (d: "keep" | "revise") => {
      if (decided || view?.status !== "revealed") return;
      setDecision(d);
      if (d === "revise" && view.blind && verdict === null) {
        setVerdict(view.blind.verdict === "success" ? "failure" : "success");
        setCategory(null);
        setStep(null);
      }
      setTimeout(() => reasonRef.current?.focus(), 0);
    },
    [decided, view, verdict],
  );

  const confirm = useCallback(async () => {
    if (busy) return;
    if (decided || view?.status !== "revealed") {
      setBusy(true);
      await goNext();
      return;
    }
    if (!decision) {
      setError("Keep (c) or revise (v) your label first");
      return;
    }
    if (!reason.trim()) {
      setError("Write why you keep or revise your label (n)");
      reasonRef.current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
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
  }, [busy, decided, view, decision, reason, decideM, campaign.id, itemNo, verdict, category, step, goNext, queryClient, trpc]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const cmd = revealCommandForKey(e, e.target as HTMLElement | null, { categories: categories.length, revising: decision === "revise" && !decided });
      if (!cmd) return;
      e.preventDefault();
      switch (cmd.kind) {
        case "keep":
        case "revise":
          choose(cmd.kind);
          break;
        case "verdict":
          setVerdict(cmd.verdict);
          if (cmd.verdict === "success") {
            setCategory(null);
            setStep(null);
          }
          break;
        case "category":
          setVerdict("failure");
          setCategory((c) => (c === categories[cmd.index] ? null : categories[cmd.index]!));
          break;
        case "markFirstFailing":
          setVerdict("failure");
          setStep((s) => (s === current ? null : current));
          break;
        case "focusReason":
          reasonRef.current?.focus();
          break;
        case "confirm":
          (document.activeElement as HTMLElement | null)?.blur?.();
          void confirm();
          break;
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [categories, decision, decided, choose, current, confirm]);

  const blind = view?.blind;
  return (
    <div className="flex flex-col gap-3 px-3 py-3" data-testid="reveal-panel">
      <div className="flex items-start justify-between gap-2">
        <div className="min-w-0">
          <div className="section-title">Your label, then the evaluator</div>
          <div className="truncate text-[12px] text-zinc-500" title={campaign.name}>
            {campaign.name} · reveal after blind label
          </div>
        </div>
        <button type="button" className="btn btn-icon" title="Reveal shortcuts" aria-label="Reveal shortcuts" onClick={() => setShowHelp((v) => !v)}>
          ?
        </button>
      </div>
      {showHelp && (
        <ul className="rounded-md bg-zinc-50 px-2 py-1.5 text-[11.5px] text-zinc-600" data-testid="reveal-shortcuts">
          {REVEAL_SHORTCUTS.map((s) => (
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

      {!view && !error && <p className="text-[12px] text-zinc-500">Loading the evaluator…</p>}
      {view && view.status !== "revealed" && (
        <p className="rounded-md bg-zinc-50 px-2 py-1.5 text-[12px] text-zinc-700" data-testid="reveal-message">
          {view.message}
        </p>
      )}

      {view?.status === "revealed" && view.evaluator && blind && (
        <>
          <div className="rounded-md border border-zinc-200 px-2 py-1.5 text-[12px]" data-testid="reveal-blind">
            <div className="text-2xs font-medium tracking-wide text-zinc-500 uppercase">Your blind label</div>
            <div className="mt-0.5 flex flex-wrap items-center gap-1.5">
              <VerdictChip verdict={blind.verdict} />
              <span className="text-zinc-700">{describe(blind).split(" · ").slice(1).join(" · ")}</span>
            </div>
            {blind.note && <p className="mt-1 text-zinc-600">{blind.note}</p>}
          </div>

          <div className="rounded-md border border-indigo-200 bg-indigo-50/40 px-2 py-1.5 text-[12px]" data-testid="reveal-evaluator">
            <div className="text-2xs font-medium tracking-wide text-indigo-700 uppercase">
              {view.evaluator.name}
              {view.evaluator.k && ` · k = ${view.evaluator.k}`}
            </div>
            <div className="mt-0.5 flex items-center gap-1.5">
              <VerdictChip verdict={view.evaluator.verdict} />
              {view.evaluator.firstFailingStep !== null && <span className="text-zinc-600">first failing step {view.evaluator.firstFailingStep + 1}</span>}
            </div>
            {view.evaluator.rationale && <p className="mt-1 max-h-48 overflow-y-auto whitespace-pre-wrap text-zinc-800">{view.evaluator.rationale}</p>}
            {view.screenshots.length > 0 && (
              <div className="mt-1.5">
                <div className="text-2xs text-zinc-500">Screenshots it was sent (click to open the step)</div>
                <div className="mt-1 flex flex-wrap gap-1">
                  {view.screenshots.map((s) => (
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

          {decided ? (
            <div className="rounded-md bg-emerald-50 px-2 py-1.5 text-[12px] text-emerald-900" data-testid="reveal-decided">
              {decided.decision === "keep" ? "You kept your label" : `You revised your label to ${describe(decided)}`}: “{decided.reason}”
            </div>
          ) : (
            <div className="flex flex-col gap-2" data-testid="reveal-decision">
              <div className="flex gap-2" role="group" aria-label="Keep or revise">
                <button
                  type="button"
                  aria-pressed={decision === "keep"}
                  onClick={() => choose("keep")}
                  className={`btn h-9 flex-1 justify-center ${decision === "keep" ? "btn-on" : ""}`}
                >
                  Keep <kbd className="kbd">c</kbd>
                </button>
                <button
                  type="button"
                  aria-pressed={decision === "revise"}
                  onClick={() => choose("revise")}
                  className={`btn h-9 flex-1 justify-center ${decision === "revise" ? "btn-on" : ""}`}
                >
                  Revise <kbd className="kbd">v</kbd>
                </button>
              </div>
              {decision === "revise" && (
                <div className="flex flex-col gap-1.5 rounded-md border border-zinc-200 px-2 py-1.5">
                  <div className="flex gap-2" role="group" aria-label="Revised verdict">
                    {(["success", "failure"] as const).map((v) => (
                      <button
                        key={v}
                        type="button"
                        aria-pressed={verdict === v}
                        onClick={() => {
                          setVerdict(v);
                          if (v === "success") {
                            setCategory(null);
                            setStep(null);
                          }
                        }}
                        className={`flex h-8 flex-1 items-center justify-center gap-2 rounded-md border text-[12.5px] font-semibold ${verdict === v ? VERDICT_TONE[v] : "border-zinc-300 bg-white text-zinc-700"}`}
                      >
                        {v === "success" ? "Success" : "Failure"} <kbd className="kbd">{v === "success" ? "s" : "x"}</kbd>
                      </button>
                    ))}
                  </div>
                  {verdict === "failure" && categories.length > 0 && (
                    <label className="flex flex-col gap-0.5 text-[12px] text-zinc-700">
                      Error category (1–{Math.min(9, categories.length)})
                      <select
                        value={category ?? ""}
                        onChange={(e) => setCategory(e.target.value || null)}
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
                  {verdict === "failure" && campaign.labelSchema.firstFailingStep && (
                    <div className="text-[12px] text-zinc-700">
                      First failing step: <span data-testid="reveal-step">{step === null ? "not marked" : `step ${step + 1}`}</span>{" "}
                      <span className="text-zinc-500">
                        (<kbd className="kbd">f</kbd> marks step {current + 1} of {count})
                      </span>
                    </div>
                  )}
                </div>
              )}
              <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
                <span>
                  Why? (required) <kbd className="kbd">n</kbd>
                </span>
                <textarea
                  ref={reasonRef}
                  value={reason}
                  onChange={(e) => setReason(e.target.value)}
                  onKeyDown={(e) => {
                    if (e.key === "Escape") e.currentTarget.blur();
                  }}
                  rows={3}
                  maxLength={5000}
                  placeholder="What in the evaluator's verdict or screenshots made you keep or change your label?"
                  className="rounded-md border border-zinc-300 px-2 py-1 text-[12.5px] font-normal text-zinc-800 shadow-xs focus:border-indigo-400 focus:outline-none"
                  data-testid="reveal-reason"
                />
              </label>
            </div>
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

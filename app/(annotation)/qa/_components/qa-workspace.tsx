"use client";
/**
 * One item's QA review: the annotators' labels side by side above the player (QA comes after the blind stage, so
 * the reviewer sees them; never the agent), and the review form in the player's side column, driven by the
 * keyboard like the labelling page. The form starts at the consolidated label: recording it unchanged approves
 * it; any change is an override, which needs the source of the disagreement.
 */
import { useMutation, useQueryClient, useSuspenseQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import type { AppRouter } from "@/server/api/root";
import {
  DECISION_CONFIDENCES,
  DISAGREEMENT_SOURCES,
  DISAGREEMENT_SOURCE_NAMES,
  type DecisionConfidence,
  type DisagreementSource,
} from "@/server/domain/annotation/protocols";
import { qaCommandForKey, qaDecisionFor, QA_SHORTCUTS } from "@/server/domain/annotation/qa-keys";
import { GuidelinesText } from "../../../_components/guidelines";
import { TrajectoryPlayer } from "../../../trajectories/[id]/_components/player";
import { AnnotatorMarksLayer, annotatorColour, MarksSummary } from "../../_components/region-marks";
import { useTRPC } from "../../../_trpc/client";

type QaItem = inferRouterOutputs<AppRouter>["qa"]["item"];
type Verdict = "success" | "failure" | "not_executable";

const VERDICT_STYLE: Record<string, string> = {
  success: "bg-emerald-50 text-emerald-800 ring-emerald-600/20",
  failure: "bg-rose-50 text-rose-800 ring-rose-600/20",
  unsure: "bg-amber-50 text-amber-800 ring-amber-600/20",
  not_executable: "bg-sky-50 text-sky-800 ring-sky-600/20",
};

interface Form {
  verdict: Verdict | null;
  category: string | null;
  firstFailingStep: number | null;
  reason: string;
  confidence: DecisionConfidence | null;
  disagreementSource: DisagreementSource | null;
}

function fromConsolidated(c: QaItem["consolidated"]): Pick<Form, "verdict" | "category" | "firstFailingStep"> {
  if (!c || c.verdict === "unsure") return { verdict: null, category: null, firstFailingStep: null };
  return { verdict: c.verdict, category: c.category, firstFailingStep: c.firstFailingStep };
}

function seconds(ms: number | null): string {
  if (ms === null) return "–";
  return ms < 90_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 60_000).toFixed(1)} min`;
}

function verdictName(v: string): string {
  return v === "not_executable" ? "not executable" : v;
}

function cycle<T>(list: readonly T[], current: T | null): T {
  const i = current === null ? -1 : list.indexOf(current);
  return list[(i + 1) % list.length]!;
}

export function QaWorkspace({ campaignId, itemNo }: { campaignId: number; itemNo: number }) {
  const trpc = useTRPC();
  const { data: review } = useSuspenseQuery(trpc.qa.item.queryOptions({ campaignId, itemNo }));
  return (
    <div className="flex flex-1 flex-col lg:h-[calc(100dvh-2.75rem)] lg:flex-none">
      <div className="shrink-0 border-b border-zinc-200 bg-zinc-50 px-4 py-2 lg:max-h-[38%] lg:overflow-y-auto">
        <div className="mb-1.5 flex items-center gap-2 text-[12px] text-zinc-600">
          <Link className="link" href={`/qa/${campaignId}`}>
            ← {review.campaign.name}
          </Link>
          <span>·</span>
          <span data-testid="qa-item-state">
            Item #{review.item.itemNo}: {review.labels.length} label{review.labels.length === 1 ? "" : "s"},{" "}
            {review.item.state === "disputed" ? "the annotators disagree" : review.item.state}
          </span>
        </div>
        <div className="flex gap-2 overflow-x-auto pb-1" data-testid="qa-labels">
          {review.labels.map((l, i) => (
            <article key={i} className="flex min-w-52 flex-1 flex-col gap-1 rounded-lg border border-zinc-200 bg-white px-3 py-2" data-testid="qa-label">
              <header className="flex items-center justify-between gap-2">
                <span className="truncate text-[12.5px] font-semibold text-zinc-900">{l.annotatorName}</span>
                <span className={`rounded px-1.5 py-px text-2xs font-semibold ring-1 ring-inset ${VERDICT_STYLE[l.verdict] ?? ""}`}>
                  {verdictName(l.verdict)}
                </span>
              </header>
              <dl className="grid grid-cols-[auto_1fr] gap-x-2 text-[12px]">
                <dt className="text-zinc-500">Failure type</dt>
                <dd>{l.category ?? "–"}</dd>
                <dt className="text-zinc-500">Failure point</dt>
                <dd>{l.firstFailingStep === null ? "–" : `step ${l.firstFailingStep + 1}`}</dd>
                <dt className="text-zinc-500">Time · steps opened</dt>
                <dd>
                  {seconds(l.timeSpentMs)} · {l.stepsOpened ?? "–"}
                </dd>
                <dt className="text-zinc-500">Region marks</dt>
                <dd>
                  <MarksSummary marks={l.marks} colour={annotatorColour(i)} />
                </dd>
              </dl>
              {l.note && <p className="rounded bg-zinc-50 px-2 py-1 text-[12px] whitespace-pre-wrap text-zinc-700">“{l.note}”</p>}
            </article>
          ))}
        </div>
      </div>
      <TrajectoryPlayer
        source={{ campaignId, itemNo, qa: true }}
        initialStep={1}
        sidePanelFirst
        fill="parent"
        back={{ href: `/qa/${campaignId}`, label: review.campaign.name }}
        stageLayer={(p) => <AnnotatorMarksLayer labels={review.labels} {...p} />}
        sidePanel={(p) => <QaPanel review={review} campaignId={campaignId} itemNo={itemNo} current={p.current} count={p.count} go={p.go} />}
      />
    </div>
  );
}

function QaPanel({
  review,
  campaignId,
  itemNo,
  current,
  count,
  go,
}: {
  review: QaItem;
  campaignId: number;
  itemNo: number;
  current: number;
  count: number;
  go: (i: number) => void;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const submitMutation = useMutation(trpc.qa.submit.mutationOptions());
  const schema = review.campaign.labelSchema;
  const [form, setForm] = useState<Form>(() => ({ ...fromConsolidated(review.consolidated), reason: "", confidence: null, disagreementSource: null }));
  const [error, setError] = useState("");
  const [showGuidelines, setShowGuidelines] = useState(false);
  const [showHelp, setShowHelp] = useState(false);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const done = review.item.qaReviewedAt !== null;
  const decision = qaDecisionFor(review.consolidated, form);
  const missing: string[] = [];
  if (!form.verdict) missing.push("a verdict");
  if (form.verdict === "failure" && schema.requireCategory && !form.category) missing.push("the failure type");
  if (form.verdict === "failure" && schema.requireFailureStep && form.firstFailingStep === null) missing.push("the failure point");
  if (!form.reason.trim()) missing.push("your reasoning");
  if (decision === "corrected" && !form.disagreementSource) missing.push("the source of the disagreement");
  const ready = !done && missing.length === 0 && !submitMutation.isPending;
  const verdicts: Verdict[] = schema.allowNotExecutable ? ["success", "failure", "not_executable"] : ["success", "failure"];

  const submit = useCallback(async () => {
    if (!ready) {
      if (!done) setError(`Still needed: ${missing.join(", ")}`);
      return;
    }
    setError("");
    try {
      await submitMutation.mutateAsync({
        campaignId,
        itemNo,
        decision,
        ...(decision === "corrected"
          ? {
              verdict: form.verdict!,
              category: form.verdict === "failure" ? form.category : null,
              firstFailingStep: form.verdict === "failure" ? form.firstFailingStep : null,
            }
          : {}),
        reason: form.reason,
        confidence: form.confidence,
        disagreementSource: form.disagreementSource,
      });
      const queue = await queryClient.fetchQuery(trpc.qa.queue.queryOptions({ campaignId, status: "pending", page: 1, pageSize: 50 }, { staleTime: 0 }));
      const next = queue.items.find((i) => !i.blind && i.itemNo !== itemNo);
      router.push(next ? `/qa/${campaignId}/${next.itemNo}` : `/qa/${campaignId}?status=done`);
      router.refresh();
    } catch (e) {
      setError((e as Error).message);
    }
  }, [ready, done, missing, submitMutation, campaignId, itemNo, decision, form, queryClient, trpc, router]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const cmd = qaCommandForKey(e, e.target as HTMLElement | null, {
        categories: schema.categories.length,
        allowNotExecutable: schema.allowNotExecutable ?? false,
      });
      if (!cmd) return;
      if (done && cmd.kind !== "guidelines") return;
      e.preventDefault();
      switch (cmd.kind) {
        case "approve":
          setForm((f) => ({ ...f, ...fromConsolidated(review.consolidated) }));
          break;
        case "verdict":
          setForm((f) => (cmd.verdict === "failure" ? { ...f, verdict: "failure" } : { ...f, verdict: cmd.verdict, category: null, firstFailingStep: null }));
          break;
        case "category":
          setForm((f) => ({ ...f, verdict: "failure", category: schema.categories[cmd.index]! }));
          break;
        case "markFailurePoint":
          if (schema.firstFailingStep) setForm((f) => ({ ...f, verdict: "failure", firstFailingStep: f.firstFailingStep === current ? null : current }));
          break;
        case "focusReasoning":
          reasonRef.current?.focus();
          break;
        case "cycleConfidence":
          setForm((f) => ({ ...f, confidence: cycle(DECISION_CONFIDENCES, f.confidence) }));
          break;
        case "cycleSource":
          setForm((f) => ({ ...f, disagreementSource: cycle(DISAGREEMENT_SOURCES, f.disagreementSource) }));
          break;
        case "guidelines":
          setShowGuidelines((v) => !v);
          break;
        case "submitAndNext":
          (document.activeElement as HTMLElement | null)?.blur?.();
          void submit();
          break;
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [schema, done, current, review.consolidated, submit]);

  const c = review.consolidated;
  return (
    <div className="flex flex-col gap-3 px-3 py-3" data-testid="qa-panel">
      <div className="flex items-start justify-between gap-2">
        <div className="min-w-0">
          <div className="section-title">QA review</div>
          <div className="truncate text-[12px] text-zinc-500">{review.campaign.name}</div>
        </div>
        <div className="flex gap-1">
          <button type="button" className="btn btn-icon" title="Guidelines (g)" aria-label="Guidelines" onClick={() => setShowGuidelines((v) => !v)}>
            G
          </button>
          <button type="button" className="btn btn-icon" title="QA shortcuts" aria-label="QA shortcuts" onClick={() => setShowHelp((v) => !v)}>
            ?
          </button>
        </div>
      </div>
      {showHelp && (
        <ul className="rounded-md bg-zinc-50 px-2 py-1.5 text-[11.5px] text-zinc-600" data-testid="qa-shortcuts">
          {QA_SHORTCUTS.map((s) => (
            <li key={s.description}>
              {s.keys.map((k) => (
                <kbd key={k} className="kbd mr-0.5">
                  {k}
                </kbd>
              ))}{" "}
              {s.description}
            </li>
          ))}
        </ul>
      )}
      {showGuidelines && (
        <div className="max-h-64 overflow-y-auto rounded-md border border-zinc-200 bg-white px-2 py-1.5 text-[12px]" data-testid="qa-guidelines">
          <GuidelinesText text={review.campaign.instructions} />
        </div>
      )}
      {done ? (
        <p className="rounded-md bg-emerald-50 px-2 py-1.5 text-[12px] text-emerald-900" data-testid="qa-done">
          QA done: {c?.qaDecision ?? "reviewed"}
          {c?.qaReviewerName ? ` by ${c.qaReviewerName}` : ""}
          {c && ` · ${verdictName(c.verdict)}${c.category ? ` · ${c.category}` : ""}`}
        </p>
      ) : c ? (
        <p className="rounded-md bg-indigo-50 px-2 py-1.5 text-[12px] text-indigo-900" data-testid="qa-consolidated">
          Consolidated: <strong>{verdictName(c.verdict)}</strong>
          {c.category ? ` · ${c.category}` : ""}
          {c.firstFailingStep !== null ? ` · step ${c.firstFailingStep + 1}` : ""} ({c.method}
          {c.adjudicatorName ? ` by ${c.adjudicatorName}` : ""})
        </p>
      ) : (
        <p className="rounded-md bg-rose-50 px-2 py-1.5 text-[12px] text-rose-900" data-testid="qa-disputed">
          The annotators disagree: decide the label it should have.
        </p>
      )}
      <div className="flex gap-2" role="group" aria-label="Verdict">
        {verdicts.map((v) => (
          <button
            key={v}
            type="button"
            disabled={done}
            aria-pressed={form.verdict === v}
            onClick={() => setForm((f) => (v === "failure" ? { ...f, verdict: v } : { ...f, verdict: v, category: null, firstFailingStep: null }))}
            className={`flex h-9 flex-1 items-center justify-center gap-1.5 rounded-md border text-[12.5px] font-semibold ${form.verdict === v ? (v === "success" ? "border-emerald-400 bg-emerald-50 text-emerald-800" : v === "failure" ? "border-rose-400 bg-rose-50 text-rose-800" : "border-sky-400 bg-sky-50 text-sky-800") : "border-zinc-300 bg-white text-zinc-700"}`}
          >
            {verdictName(v)} <kbd className="kbd">{v === "success" ? "s" : v === "failure" ? "x" : "b"}</kbd>
          </button>
        ))}
      </div>
      {schema.categories.length > 0 && (
        <fieldset disabled={done || form.verdict !== "failure"} className="flex flex-col gap-0.5 disabled:opacity-50">
          <legend className="mb-1 text-[12px] font-medium text-zinc-700">Failure type</legend>
          {schema.categories.map((cat, i) => (
            <label key={cat} className="flex items-center gap-2 rounded px-1.5 py-0.5 text-[12.5px]">
              <input
                type="radio"
                name="qa-category"
                className="accent-rose-600"
                checked={form.category === cat}
                onChange={() => setForm((f) => ({ ...f, category: cat }))}
              />
              {i < 9 && <kbd className="kbd">{i + 1}</kbd>}
              {cat}
            </label>
          ))}
        </fieldset>
      )}
      {schema.firstFailingStep && (
        <div className="flex flex-col gap-1">
          <span className="text-[12px] font-medium text-zinc-700">
            Failure point: {form.firstFailingStep === null ? "none" : `step ${form.firstFailingStep + 1}`} <kbd className="kbd">f</kbd>
          </span>
          <div className="flex flex-wrap gap-1" data-testid="qa-failure-point">
            {Array.from({ length: count }, (_, i) => (
              <button
                key={i}
                type="button"
                disabled={done || form.verdict !== "failure"}
                onClick={() => {
                  setForm((f) => ({ ...f, firstFailingStep: f.firstFailingStep === i ? null : i }));
                  go(i);
                }}
                className={`h-6 min-w-6 rounded border px-1 text-2xs tabular-nums disabled:opacity-40 ${form.firstFailingStep === i ? "border-rose-500 bg-rose-500 text-white" : i === current ? "border-indigo-400 bg-indigo-50" : "border-zinc-300 bg-white"}`}
              >
                {i + 1}
              </button>
            ))}
          </div>
        </div>
      )}
      <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
        <span>
          Reasoning (required) <kbd className="kbd">n</kbd>
        </span>
        <textarea
          ref={reasonRef}
          value={form.reason}
          disabled={done}
          onChange={(e) => setForm((f) => ({ ...f, reason: e.target.value }))}
          onKeyDown={(e) => {
            if (e.key === "Escape") e.currentTarget.blur();
          }}
          rows={3}
          maxLength={5000}
          placeholder="What settles it? e.g. “step 5 shows the price; the answer matches”"
          className="rounded-md border border-zinc-300 px-2 py-1 text-[12.5px] font-normal shadow-xs focus:border-indigo-400 focus:outline-none"
          data-testid="qa-reason"
        />
      </label>
      <div className="grid grid-cols-2 gap-2">
        <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
          <span>
            Confidence <kbd className="kbd">c</kbd>
          </span>
          <select
            className="field h-8"
            disabled={done}
            value={form.confidence ?? ""}
            onChange={(e) => setForm((f) => ({ ...f, confidence: (e.target.value || null) as DecisionConfidence | null }))}
            data-testid="qa-confidence"
          >
            <option value="">–</option>
            {DECISION_CONFIDENCES.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
          <span>
            Disagreement source <kbd className="kbd">d</kbd>
          </span>
          <select
            className="field h-8"
            disabled={done}
            value={form.disagreementSource ?? ""}
            onChange={(e) => setForm((f) => ({ ...f, disagreementSource: (e.target.value || null) as DisagreementSource | null }))}
            data-testid="qa-source"
          >
            <option value="">–</option>
            {DISAGREEMENT_SOURCES.map((v) => (
              <option key={v} value={v}>
                {DISAGREEMENT_SOURCE_NAMES[v]}
              </option>
            ))}
          </select>
        </label>
      </div>
      {!done && (
        <button type="button" className="btn btn-on h-9 justify-center" aria-disabled={!ready} onClick={() => void submit()} data-testid="qa-submit">
          {decision === "confirmed" ? "Approve" : "Override"} &amp; next <kbd className="kbd">Ctrl ⏎</kbd>
        </button>
      )}
      {error && (
        <p role="alert" className="text-[12px] text-rose-700" data-testid="qa-error">
          {error}
        </p>
      )}
    </div>
  );
}

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
import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import type { AppRouter } from "@/server/api/root";
import { DECISION_CONFIDENCES, DISAGREEMENT_SOURCES, type DecisionConfidence, type DisagreementSource } from "@/server/domain/annotation/decisions";
import { qaCommandForKey, qaDecisionFor, QA_SHORTCUTS } from "@/server/domain/annotation/qa-keys";
import { GuidelinesText } from "../../../_components/guidelines";
import {
  CategoryField,
  DecisionDetails,
  PanelHeader,
  ReasonField,
  ShortcutList,
  DecisionStepField,
  VerdictButtons,
  verdictName,
} from "../../annotate/_components/label-fields";
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

interface QaPanelProps {
  review: QaItem;
  campaignId: number;
  itemNo: number;
  current: number;
  count: number;
  go: (i: number) => void;
}

/** A verdict as the form takes it: only a failure keeps a category and a failure point. */
function withVerdict(f: Form, verdict: Verdict): Form {
  return verdict === "failure" ? { ...f, verdict } : { ...f, verdict, category: null, firstFailingStep: null };
}

/** What the review still needs before it can be recorded. */
function missingFields(form: Form, schema: QaItem["campaign"]["labelSchema"], decision: "confirmed" | "corrected"): string[] {
  const missing: string[] = [];
  if (!form.verdict) missing.push("a verdict");
  if (form.verdict === "failure" && schema.requireCategory && !form.category) missing.push("the failure type");
  if (form.verdict === "failure" && schema.requireFailureStep && form.firstFailingStep === null) missing.push("the failure point");
  if (!form.reason.trim()) missing.push("your reasoning");
  if (decision === "corrected" && !form.disagreementSource) missing.push("the source of the disagreement");
  return missing;
}

/** The review form's values (starting at the consolidated label), what it still needs, and recording it, then the next item. */
function useQaReview({ review, campaignId, itemNo }: QaPanelProps) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const submitMutation = useMutation(trpc.qa.submit.mutationOptions());
  const [form, setForm] = useState<Form>(() => ({ ...fromConsolidated(review.consolidated), reason: "", confidence: null, disagreementSource: null }));
  const [error, setError] = useState("");
  const done = review.item.qaReviewedAt !== null;
  const decision = qaDecisionFor(review.consolidated, form);
  const missing = missingFields(form, review.campaign.labelSchema, decision);
  const ready = !done && missing.length === 0 && !submitMutation.isPending;

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

  return { form, setForm, error, done, decision, ready, submit };
}

/** The QA keys (server/domain/annotation/qa-keys.ts); a recorded review only opens the guidelines. */
function useQaKeys(
  review: QaItem,
  current: number,
  qa: ReturnType<typeof useQaReview>,
  toggleGuidelines: () => void,
  reasonRef: RefObject<HTMLTextAreaElement | null>,
) {
  const schema = review.campaign.labelSchema;
  const { done, setForm, submit } = qa;
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
          return setForm((f) => ({ ...f, ...fromConsolidated(review.consolidated) }));
        case "verdict":
          return setForm((f) => withVerdict(f, cmd.verdict));
        case "category":
          return setForm((f) => ({ ...f, verdict: "failure", category: schema.categories[cmd.index]! }));
        case "markFailurePoint":
          if (schema.firstFailingStep) setForm((f) => ({ ...f, verdict: "failure", firstFailingStep: f.firstFailingStep === current ? null : current }));
          return;
        case "focusReasoning":
          return reasonRef.current?.focus();
        case "cycleConfidence":
          return setForm((f) => ({ ...f, confidence: cycle(DECISION_CONFIDENCES, f.confidence) }));
        case "cycleSource":
          return setForm((f) => ({ ...f, disagreementSource: cycle(DISAGREEMENT_SOURCES, f.disagreementSource) }));
        case "guidelines":
          return toggleGuidelines();
        case "submitAndNext":
          (document.activeElement as HTMLElement | null)?.blur?.();
          return void submit();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [schema, done, current, review.consolidated, setForm, submit, toggleGuidelines, reasonRef]);
}

// As on the labelling page: success and failure side by side, not executable on a row of its own (three keys do not
// fit the side column at 1280 px).
const QA_VERDICTS = ["success", "failure"] as const;
const QA_SECOND_ROW = ["not_executable"] as const;

/** The review form in the player's side column: the labelling page's fields, plus confidence and disagreement source. */
function QaPanel(props: QaPanelProps) {
  const { review, current, count, go } = props;
  const schema = review.campaign.labelSchema;
  const qa = useQaReview(props);
  const [showGuidelines, setShowGuidelines] = useState(false);
  const [showHelp, setShowHelp] = useState(false);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const toggleGuidelines = useCallback(() => setShowGuidelines((v) => !v), []);
  useQaKeys(review, current, qa, toggleGuidelines, reasonRef);
  const { form, setForm, done } = qa;
  return (
    <div className="flex flex-col gap-3 px-3 py-3" data-testid="qa-panel">
      <PanelHeader title="QA review" subtitle={review.campaign.name}>
        <button type="button" className="btn btn-icon" title="Guidelines (g)" aria-label="Guidelines" onClick={toggleGuidelines}>
          G
        </button>
        <button type="button" className="btn btn-icon" title="QA shortcuts" aria-label="QA shortcuts" onClick={() => setShowHelp((v) => !v)}>
          ?
        </button>
      </PanelHeader>
      {showHelp && <ShortcutList shortcuts={QA_SHORTCUTS} testId="qa-shortcuts" />}
      {showGuidelines && (
        <div className="max-h-64 overflow-y-auto rounded-md border border-zinc-200 bg-white px-2 py-1.5 text-[12px]" data-testid="qa-guidelines">
          <GuidelinesText text={review.campaign.instructions} />
        </div>
      )}
      <QaState review={review} done={done} />
      <VerdictButtons
        verdicts={QA_VERDICTS}
        value={form.verdict}
        onChoose={(v) => setForm((f) => withVerdict(f, v))}
        disabled={done}
        label="Verdict"
        name={verdictName}
      />
      {schema.allowNotExecutable && (
        <VerdictButtons verdicts={QA_SECOND_ROW} value={form.verdict} onChoose={(v) => setForm((f) => withVerdict(f, v))} disabled={done} name={verdictName} />
      )}
      <CategoryField
        categories={schema.categories}
        value={form.category}
        onChoose={(category) => setForm((f) => ({ ...f, category }))}
        disabled={done || form.verdict !== "failure"}
        legend="Failure type"
        name="qa-category"
      />
      {schema.firstFailingStep && (
        <DecisionStepField
          title="Failure point"
          shortcut="f"
          value={form.firstFailingStep}
          onChange={(firstFailingStep) => setForm((f) => ({ ...f, firstFailingStep }))}
          count={count}
          current={current}
          go={go}
          disabled={done || form.verdict !== "failure"}
          testId="qa-failure-point"
        />
      )}
      <ReasonField
        label={
          <>
            Reasoning (required) <kbd className="kbd">n</kbd>
          </>
        }
        value={form.reason}
        onChange={(reason) => setForm((f) => ({ ...f, reason }))}
        textareaRef={reasonRef}
        disabled={done}
        maxLength={5000}
        placeholder="What settles it? e.g. “step 5 shows the price; the answer matches”"
        testId="qa-reason"
      />
      <DecisionDetails
        value={form}
        onChange={(change) => setForm((f) => ({ ...f, ...change }))}
        confidenceLabel={
          <>
            Confidence <kbd className="kbd">c</kbd>
          </>
        }
        sourceLabel={
          <>
            Disagreement source <kbd className="kbd">d</kbd>
          </>
        }
        testIdPrefix="qa"
        disabled={done}
      />
      {!done && (
        <button type="button" className="btn btn-on h-9 justify-center" aria-disabled={!qa.ready} onClick={() => void qa.submit()} data-testid="qa-submit">
          {qa.decision === "confirmed" ? "Approve" : "Override"} &amp; next <kbd className="kbd">Ctrl ⏎</kbd>
        </button>
      )}
      {qa.error && (
        <p role="alert" className="text-[12px] text-rose-700" data-testid="qa-error">
          {qa.error}
        </p>
      )}
    </div>
  );
}

/** Where the item stands: reviewed already, its consolidated label, or disputed (the reviewer decides it). */
function QaState({ review, done }: { review: QaItem; done: boolean }) {
  const c = review.consolidated;
  if (done) {
    return (
      <p className="rounded-md bg-emerald-50 px-2 py-1.5 text-[12px] text-emerald-900" data-testid="qa-done">
        QA done: {c?.qaDecision ?? "reviewed"}
        {c?.qaReviewerName ? ` by ${c.qaReviewerName}` : ""}
        {c && ` · ${verdictName(c.verdict)}${c.category ? ` · ${c.category}` : ""}`}
      </p>
    );
  }
  if (c) {
    return (
      <p className="rounded-md bg-indigo-50 px-2 py-1.5 text-[12px] text-indigo-900" data-testid="qa-consolidated">
        Consolidated: <strong>{verdictName(c.verdict)}</strong>
        {c.category ? ` · ${c.category}` : ""}
        {c.firstFailingStep !== null ? ` · step ${c.firstFailingStep + 1}` : ""} ({c.method}
        {c.adjudicatorName ? ` by ${c.adjudicatorName}` : ""})
      </p>
    );
  }
  return (
    <p className="rounded-md bg-rose-50 px-2 py-1.5 text-[12px] text-rose-900" data-testid="qa-disputed">
      The annotators disagree: decide the label it should have.
    </p>
  );
}

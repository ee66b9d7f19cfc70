"use client";
/**
 * Adjudication of one trajectory: every annotator's label side by side (verdict, category, first failing step,
 * note, time spent, steps opened, revisions), the player, and the decision form beside it. The decision becomes
 * the consolidated label with its reason; the annotators' labels are not touched.
 */
import { useMutation, useQueryClient, useSuspenseQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type Dispatch, type SetStateAction } from "react";
import type { AppRouter } from "@/server/api/root";
import type { DecisionConfidence, DisagreementSource } from "@/server/domain/annotation/protocols";
import { CategoryField, DecisionDetails, DecisionStepField, ReasonField, VerdictButtons } from "../../annotate/_components/label-fields";
import { TrajectoryPlayer } from "../../../trajectories/[id]/_components/player";
import { AnnotatorMarksLayer, annotatorColour, MarksSummary } from "../../_components/region-marks";
import { useTRPC } from "../../../_trpc/client";
import { sayingProblem } from "../../../_lib/say-problem";

type Review = inferRouterOutputs<AppRouter>["campaigns"]["review"];
type ReviewLabel = Review["labels"][number];

const VERDICT_STYLE: Record<string, string> = {
  success: "bg-emerald-50 text-emerald-800 ring-emerald-600/20",
  failure: "bg-rose-50 text-rose-800 ring-rose-600/20",
  unsure: "bg-amber-50 text-amber-800 ring-amber-600/20",
  not_executable: "bg-sky-50 text-sky-800 ring-sky-600/20",
};

type DecisionVerdict = "success" | "failure" | "not_executable";

interface Decision {
  verdict: DecisionVerdict | null;
  category: string | null;
  firstFailingStep: number | null;
  reason: string;
  confidence: DecisionConfidence | null;
  disagreementSource: DisagreementSource | null;
}

function seconds(ms: number | null): string {
  if (ms === null) return "–";
  return ms < 90_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 60_000).toFixed(1)} min`;
}

/** One answer to a campaign question as one line of text. */
function answerText(v: unknown): string {
  return Array.isArray(v) ? v.join(", ") : typeof v === "object" ? JSON.stringify(v) : String(v);
}

/**
 * One annotator's label, compact enough that three of them leave the player most of a 1280×800 window: the verdict
 * beside the name, the facts on one wrapping line, answers and note cut to two lines (whole in their tooltips).
 */
function LabelCard({ label, stepCount, colour, onTake }: { label: ReviewLabel; stepCount: number; colour: string; onTake: () => void }) {
  const answers = Object.entries(label.answers ?? {});
  return (
    <article
      className={`flex max-w-[28rem] min-w-60 flex-1 flex-col gap-0.5 rounded-lg border bg-white px-3 py-1.5 ${label.status === "withdrawn" ? "border-dashed opacity-60" : "border-zinc-200"}`}
      data-testid="review-label"
    >
      <header className="flex items-center gap-2">
        <span className="truncate text-[12.5px] font-semibold text-zinc-900">{label.annotatorName}</span>
        <span className={`shrink-0 rounded px-1.5 py-px text-2xs font-semibold ring-1 ring-inset ${VERDICT_STYLE[label.verdict] ?? ""}`}>
          {label.status === "withdrawn" ? "withdrawn" : label.verdict}
        </span>
        {label.status === "active" && label.verdict !== "unsure" && (
          <button type="button" className="btn ml-auto h-6 shrink-0 px-2 text-[11.5px]" onClick={onTake}>
            Take this label
          </button>
        )}
      </header>
      <p className="flex flex-wrap gap-x-2 text-[11.5px] text-zinc-600" data-testid="review-label-facts">
        <span className="font-medium text-zinc-800">{label.category ?? "no category"}</span>
        <span>first failing: {label.firstFailingStep === null ? "–" : `step ${label.firstFailingStep + 1}`}</span>
        <span title="Time spent on the label">{seconds(label.timeSpentMs)}</span>
        <span title="Steps the annotator opened">{label.stepsViewed ? `${label.stepsViewed.length} of ${stepCount} steps opened` : "steps opened: –"}</span>
        {label.guidelineVersion !== null && <span>guidelines v{label.guidelineVersion}</span>}
        <MarksSummary marks={label.marks} colour={colour} />
        <span>
          revision {label.revision}
          {label.revisedAfterReveal && (
            <span className="ml-1 text-amber-700" title="Revised after seeing other labels or verdicts">
              · after reveal
            </span>
          )}
        </span>
      </p>
      {answers.length > 0 && (
        <p
          className="line-clamp-2 text-[11.5px] text-zinc-600"
          title={answers.map(([q, v]) => `${q}: ${answerText(v)}`).join("\n")}
          data-testid="review-answers"
        >
          {answers.map(([q, v]) => (
            <span key={q} className="mr-2">
              <span className="text-zinc-500">{q}:</span> {answerText(v)}
            </span>
          ))}
        </p>
      )}
      {label.note && (
        <p className="line-clamp-2 rounded bg-zinc-50 px-2 py-0.5 text-[12px] whitespace-pre-wrap text-zinc-700" title={label.note}>
          “{label.note}”
        </p>
      )}
    </article>
  );
}

/** The decision's verdict chosen: anything but a failure clears the failure's category and step. */
function withVerdict(d: Decision, verdict: DecisionVerdict): Decision {
  return { ...d, verdict, ...(verdict !== "failure" ? { category: null, firstFailingStep: null } : {}) };
}

interface DecisionInput {
  review: Review;
  decision: Decision;
  campaignId: number;
  trajectoryId: number;
}

/**
 * Sends the decision: as the consolidated label (adjudication) or, in the QA stage, as the reviewer's confirmation or
 * correction; then opens the next item of the same queue, or the queue when it is empty.
 */
function useDecisionSubmit({ review, decision, campaignId, trajectoryId }: DecisionInput) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const adjudicate = useMutation(trpc.campaigns.adjudicate.mutationOptions());
  const qaSubmit = useMutation(trpc.campaigns.qaSubmit.mutationOptions());
  const [error, setError] = useState("");
  // The QA stage: the item has all its labels and no QA reviewer has checked it yet.
  const qaPending = review.campaign.qaReview && review.item.state !== "open" && !review.item.qaReviewedAt;
  const schema = review.campaign.labelSchema;
  const ready = !!(decision.verdict && decision.reason.trim() && !(decision.verdict === "failure" && schema.requireCategory && !decision.category));
  const failureOnly = <T,>(v: T): T | null => (decision.verdict === "failure" ? v : null);

  // The QA queue names no trajectory to a reviewer who is not a researcher: the queue page is then the next stop.
  function openNext(next: { trajectoryId: number | null } | undefined, emptyQueue: string) {
    router.push(
      next?.trajectoryId != null ? `/campaigns/${campaignId}/review/${next.trajectoryId}` : `/campaigns/${campaignId}/adjudicate?state=${emptyQueue}`,
    );
    router.refresh();
  }

  async function decide() {
    if (!ready) return;
    await sayingProblem(setError, async () => {
      await adjudicate.mutateAsync({
        id: campaignId,
        trajectoryId,
        verdict: decision.verdict!,
        category: failureOnly(decision.category),
        firstFailingStep: failureOnly(decision.firstFailingStep),
        reason: decision.reason,
        confidence: decision.confidence,
        disagreementSource: decision.disagreementSource,
      });
      const queue = await queryClient.fetchQuery(
        trpc.campaigns.adjudicationQueue.queryOptions({ id: campaignId, states: ["disputed"], page: 1, pageSize: 1 }, { staleTime: 0 }),
      );
      openNext(queue.items[0], "adjudicated");
    });
  }

  async function qa(kind: "confirmed" | "corrected") {
    await sayingProblem(setError, async () => {
      await qaSubmit.mutateAsync({
        id: campaignId,
        trajectoryId,
        decision: kind,
        ...(kind === "corrected"
          ? { verdict: decision.verdict ?? undefined, category: failureOnly(decision.category), firstFailingStep: failureOnly(decision.firstFailingStep) }
          : {}),
        reason: decision.reason,
        confidence: decision.confidence,
        disagreementSource: decision.disagreementSource,
      });
      const queue = await queryClient.fetchQuery(
        trpc.campaigns.qaQueue.queryOptions({ id: campaignId, status: "pending", page: 1, pageSize: 1 }, { staleTime: 0 }),
      );
      openNext(queue.items[0], "qa");
    });
  }

  return { qaPending, ready, error, setError, decide, qa, adjudicating: adjudicate.isPending, reviewing: qaSubmit.isPending };
}

/** Where the item stands: QA done (and by whom), and the consolidated label it has now. */
function ConsolidatedNow({ review }: { review: Review }) {
  const c = review.consolidated;
  return (
    <>
      {review.item.qaReviewedAt && (
        <p className="rounded-md bg-emerald-50 px-2 py-1.5 text-[12px] text-emerald-900" data-testid="qa-done">
          QA done: {c?.qaDecision ?? "reviewed"}
          {c?.qaReviewerName ? ` by ${c.qaReviewerName}` : ""}
        </p>
      )}
      {c && (
        <p className="rounded-md bg-indigo-50 px-2 py-1.5 text-[12px] text-indigo-900">
          Now: <strong>{c.verdict}</strong>
          {c.category ? ` · ${c.category}` : ""} ({c.method}
          {c.adjudicatorName ? ` by ${c.adjudicatorName}` : ""}){c.reason && <span className="block text-indigo-800">“{c.reason}”</span>}
        </p>
      )}
    </>
  );
}

// As on the labelling page: success and failure side by side, not executable on a row of its own.
const DECISION_VERDICTS = ["success", "failure"] as const;
const DECISION_SECOND_ROW = ["not_executable"] as const;

/**
 * The label the decision sets, from the labelling surface: verdict, category, first failing step (picking one shows
 * it in the player), the reason, the decider's confidence and the disagreement's source.
 */
function DecisionFields(props: {
  schema: Review["campaign"]["labelSchema"];
  decision: Decision;
  setDecision: Dispatch<SetStateAction<Decision>>;
  current: number;
  count: number;
  go: (i: number) => void;
}) {
  const { schema, decision, setDecision, current, count, go } = props;
  const notFailure = decision.verdict !== "failure";
  return (
    <>
      <VerdictButtons
        verdicts={DECISION_VERDICTS}
        value={decision.verdict}
        onChoose={(v) => setDecision((d) => withVerdict(d, v))}
        label="Consolidated verdict"
        keys={false}
      />
      {schema.allowNotExecutable && (
        <VerdictButtons verdicts={DECISION_SECOND_ROW} value={decision.verdict} onChoose={(v) => setDecision((d) => withVerdict(d, v))} keys={false} />
      )}
      <CategoryField
        categories={schema.categories}
        value={decision.category}
        onChoose={(category) => setDecision((d) => ({ ...d, category }))}
        disabled={notFailure}
        legend="Error category"
        name="decision-category"
        keys={false}
      />
      {schema.firstFailingStep && (
        <DecisionStepField
          title="First failing step"
          value={decision.firstFailingStep}
          onChange={(firstFailingStep) => setDecision((d) => ({ ...d, firstFailingStep }))}
          count={count}
          current={current}
          go={go}
          disabled={notFailure}
        />
      )}
      <ReasonField
        label="Reason (required)"
        value={decision.reason}
        onChange={(reason) => setDecision((d) => ({ ...d, reason }))}
        maxLength={5000}
        placeholder="What settles it? e.g. “step 5 shows the price; the answer matches”"
      />
      <DecisionDetails
        value={decision}
        onChange={(change) => setDecision((d) => ({ ...d, ...change }))}
        confidenceLabel="Your confidence"
        sourceLabel="Source of the disagreement"
        testIdPrefix="decision"
      />
    </>
  );
}

/** The decision's buttons: confirm or correct in the QA stage, set the consolidated label otherwise; withdraw once adjudicated. */
function DecisionActions(props: { input: DecisionInput; submit: ReturnType<typeof useDecisionSubmit> }) {
  const { review, decision, campaignId, trajectoryId } = props.input;
  const { qaPending, ready, error, setError, decide, qa, adjudicating, reviewing } = props.submit;
  return (
    // The decision's buttons stay at the foot of the column while the form above them scrolls (1280×800).
    <div className="sticky bottom-0 -mx-3 -mb-3 flex flex-col gap-1.5 border-t border-zinc-200 bg-white px-3 py-2" data-testid="decision-actions">
      {qaPending ? (
        <div className="flex flex-col gap-1.5">
          <button
            type="button"
            className="btn btn-on h-9 justify-center"
            disabled={!review.consolidated || !decision.reason.trim() || reviewing}
            title={review.consolidated ? "Keep the consolidated label as it is" : "The annotators disagree: correct it with the label it should have"}
            onClick={() => void qa("confirmed")}
            data-testid="qa-confirm"
          >
            Confirm consolidated label &amp; next
          </button>
          <button
            type="button"
            className="btn h-9 justify-center"
            disabled={!ready || !decision.disagreementSource || reviewing}
            onClick={() => void qa("corrected")}
            data-testid="qa-correct"
          >
            Correct to the label above &amp; next
          </button>
        </div>
      ) : (
        <button
          type="button"
          className="btn btn-on h-9 justify-center"
          disabled={!ready || adjudicating}
          onClick={() => void decide()}
          data-testid="adjudicate"
        >
          Set consolidated label &amp; next
        </button>
      )}
      {review.item.state === "adjudicated" && (
        <WithdrawDecision campaignId={campaignId} trajectoryId={trajectoryId} reason={decision.reason} onError={setError} />
      )}
      {error && <p className="text-[12px] text-rose-700">{error}</p>}
    </div>
  );
}

/** The decision column beside the player: where the item stands, the label to set, and the buttons that set it. */
function DecisionPanel(props: DecisionInput & { setDecision: Dispatch<SetStateAction<Decision>>; current: number; count: number; go: (i: number) => void }) {
  const { review, decision, setDecision, current, count, go, campaignId, trajectoryId } = props;
  const input = { review, decision, campaignId, trajectoryId };
  const submit = useDecisionSubmit(input);
  return (
    <div className="flex flex-col gap-3 px-3 py-3" data-testid="decision-panel">
      <div className="section-title">{submit.qaPending ? "QA review" : "Consolidated label"}</div>
      <ConsolidatedNow review={review} />
      <DecisionFields schema={review.campaign.labelSchema} decision={decision} setDecision={setDecision} current={current} count={count} go={go} />
      <DecisionActions input={input} submit={submit} />
    </div>
  );
}

/** Withdraws an adjudication: the item goes back to disputed, the annotators' labels untouched. */
function WithdrawDecision({
  campaignId,
  trajectoryId,
  reason,
  onError,
}: {
  campaignId: number;
  trajectoryId: number;
  reason: string;
  onError: (e: string) => void;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const reopen = useMutation(trpc.campaigns.reopen.mutationOptions());
  return (
    <button
      type="button"
      className="btn justify-center"
      disabled={reopen.isPending}
      onClick={() =>
        sayingProblem(onError, async () => {
          await reopen.mutateAsync({ id: campaignId, trajectoryId, reason: reason || "reopened" });
          await queryClient.invalidateQueries({ queryKey: trpc.campaigns.review.queryKey({ id: campaignId, trajectoryId }) });
          router.refresh();
        })
      }
    >
      Withdraw the decision
    </button>
  );
}

export function ReviewWorkspace({ campaignId, trajectoryId }: { campaignId: number; trajectoryId: number }) {
  const trpc = useTRPC();
  const { data: review } = useSuspenseQuery(trpc.campaigns.review.queryOptions({ id: campaignId, trajectoryId }));
  const { data: traj } = useSuspenseQuery(trpc.trajectories.byId.queryOptions({ id: trajectoryId }));
  const [decision, setDecision] = useState<Decision>(() => {
    const c = review.consolidated;
    const meta = { confidence: null, disagreementSource: null };
    return c
      ? { verdict: c.verdict === "unsure" ? null : c.verdict, category: c.category, firstFailingStep: c.firstFailingStep, reason: "", ...meta }
      : { verdict: null, category: null, firstFailingStep: null, reason: "", ...meta };
  });
  const labels = review.labels;
  const stateNote: Record<string, string> = {
    open: "still being labelled",
    agreed: "the annotators agree",
    disputed: "the annotators disagree",
    adjudicated: "adjudicated",
  };
  return (
    // On desktop the page is exactly the window: the labels strip on top, the player filling the rest, so the
    // screenshot and filmstrip never fall below the fold.
    <div className="flex flex-1 flex-col lg:h-[calc(100dvh-2.75rem)] lg:flex-none">
      <div className="shrink-0 border-b border-zinc-200 bg-zinc-50 px-4 py-1.5 lg:max-h-[30%] lg:overflow-y-auto">
        <div className="mb-1 flex items-center gap-2 text-[12px] text-zinc-600">
          <Link className="link" href={`/campaigns/${campaignId}/adjudicate`}>
            ← {review.campaign.name}
          </Link>
          <span>·</span>
          <span>
            {labels.filter((l) => l.status === "active").length} label{labels.length === 1 ? "" : "s"}, {stateNote[review.item.state]}
          </span>
        </div>
        <div className="flex gap-2 overflow-x-auto pb-1" data-testid="labels-side-by-side">
          {labels.map((l, i) => (
            <LabelCard
              key={l.id}
              label={l}
              stepCount={traj.stepCount}
              colour={annotatorColour(i)}
              onTake={() =>
                setDecision((d) => ({
                  ...d,
                  verdict: l.verdict === "unsure" || l.verdict === "not_executable" ? null : l.verdict,
                  category: l.category,
                  firstFailingStep: l.firstFailingStep,
                  reason: d.reason || `Agree with ${l.annotatorName}${l.note ? `: ${l.note}` : ""}`,
                }))
              }
            />
          ))}
        </div>
      </div>
      <TrajectoryPlayer
        source={{ trajectoryId }}
        initialStep={1}
        sidePanelFirst
        fill="parent"
        evaluationsOpen
        // Every annotator's region marks on the step, in the colour of their label card.
        stageLayer={(p) => <AnnotatorMarksLayer labels={labels.map((l) => (l.status === "active" ? l : { ...l, marks: [] }))} {...p} />}
        sidePanel={(p) => (
          <>
            <DecisionPanel
              review={review}
              decision={decision}
              setDecision={setDecision}
              current={p.current}
              count={p.count}
              go={p.go}
              campaignId={campaignId}
              trajectoryId={trajectoryId}
            />
            <ReviewHistory review={review} />
          </>
        )}
      />
    </div>
  );
}

function ReviewHistory({ review }: { review: Review }) {
  return (
    <details className="border-t border-zinc-200 bg-white px-3 py-2 text-[12px] text-zinc-600">
      <summary className="cursor-pointer">History ({review.labelHistory.length + review.consolidationHistory.length})</summary>
      <ol className="mt-1 flex flex-col gap-0.5">
        {[
          ...review.labelHistory.map((h) => ({
            at: new Date(h.createdAt).getTime(),
            text: `${h.actorName} ${h.action === "undo" ? "undid a submit" : h.action === "import" ? "imported" : h.revision === 1 ? "labelled" : "revised"}: ${h.status === "withdrawn" ? "withdrawn" : `${h.values.verdict}${h.values.category ? ` · ${h.values.category}` : ""}`}${h.changes.length && h.revision > 1 ? ` (${h.changes.map((c) => c.field).join(", ")})` : ""}${h.afterReveal ? " — after seeing evaluations" : ""}`,
          })),
          ...review.consolidationHistory.map((e) => ({
            at: new Date(e.createdAt).getTime(),
            text: `${e.actorName ?? "automatically"}: ${e.state}${e.values ? ` → ${e.values.verdict}${e.values.category ? ` · ${e.values.category}` : ""}` : ""}${e.reason ? ` (${e.reason})` : ""}`,
          })),
        ]
          .sort((a, b) => a.at - b.at)
          .map((h, i) => (
            <li key={i}>
              <span className="text-zinc-400 tabular-nums">{new Date(h.at).toISOString().slice(0, 19).replace("T", " ")}</span> {h.text}
            </li>
          ))}
      </ol>
    </details>
  );
}

"use client";
/**
 * The evaluations panel beside the player: the consolidated label of each campaign (with who decided, when and
 * why), every annotator's latest label with its revisions, each judge verdict with the steps whose screenshots it
 * saw (also marked on the filmstrip), rule results beside the rule they checked, and imported verdicts.
 *
 * The server decides what may be shown (judge.verdicts.panel applies the blind rule); a viewer still to label the
 * trajectory blind gets only the message saying so. The panel does not depend on the step on screen, so stepping
 * never re-renders it.
 */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { inferRouterOutputs } from "@trpc/server";
import { memo, useMemo, useState, type ReactNode } from "react";
import { describeK } from "@/server/domain/evaluation/screenshot-window";
import type { CitationBox } from "@/server/domain/evaluation/citations";
import { EVALUATIONS_HIDDEN } from "@/server/domain/access/evaluations-hidden";
import type { AppRouter } from "@/server/api/root";
import { formatDate } from "../../../_components/ui";
import { useTRPC } from "../../../_trpc/client";

type PanelData = inferRouterOutputs<AppRouter>["judge"]["verdicts"]["panel"];
type Shown = Extract<PanelData, { hidden: false }>;
type VerdictView = Shown["verdicts"][number];
type LabelView = Shown["labels"][number];
type ConsolidatedView = Shown["consolidated"][number];

/** Per filmstrip position: which evaluators saw its screenshot, and whether the chosen one did. */
export interface EvaluationMark {
  seenBy: string[];
  chosen: boolean;
}

export function verdictTitle(v: Pick<VerdictView, "evaluatorName" | "k" | "promptVersion">): string {
  return `${v.evaluatorName}${v.k ? ` · k=${v.k}` : ""}`;
}

/**
 * The panel's data and the filmstrip marks it implies. Fetched only once the panel is opened; the chosen verdict
 * (whose steps the filmstrip outlines) defaults to the first one that saw any screenshot.
 */
export function useEvaluations(trajectoryId: number, open: boolean, stepCount: number) {
  const trpc = useTRPC();
  // A campaign item still to be labelled blind comes without its trajectory id (0): its evaluations are hidden, and
  // there is nothing to ask the server for.
  const blindItem = trajectoryId === 0;
  const query = useQuery({ ...trpc.judge.verdicts.panel.queryOptions({ trajectoryId }), enabled: open && !blindItem });
  const [chosenId, setChosenId] = useState<number | null>(null);
  const data = blindItem ? EVALUATIONS_HIDDEN : query.data;
  const withWindow = useMemo(
    () => (data && !data.hidden ? data.verdicts.filter((v) => v.window.kind === "steps" && v.window.positions.length > 0) : []),
    [data],
  );
  const chosen = withWindow.find((v) => v.id === chosenId) ?? withWindow[0] ?? null;
  const marks = useMemo<EvaluationMark[] | undefined>(() => {
    if (!open || withWindow.length === 0) return undefined;
    const out: EvaluationMark[] = Array.from({ length: stepCount }, () => ({ seenBy: [], chosen: false }));
    for (const v of withWindow) {
      if (v.window.kind !== "steps") continue;
      for (const p of v.window.positions) {
        const m = out[p];
        if (!m) continue;
        m.seenBy.push(verdictTitle(v));
        if (v === chosen) m.chosen = true;
      }
    }
    return out;
  }, [open, withWindow, chosen, stepCount]);
  const chosenIdNow = chosen?.id ?? null;
  const errorMessage = query.error?.message ?? null;
  // One stable object while nothing changes, so the memoised panel skips the player's per-step renders.
  return useMemo(
    () => ({ data, status: blindItem ? ("success" as const) : query.status, errorMessage, chosenId: chosenIdNow, choose: setChosenId, marks }),
    [data, blindItem, query.status, errorMessage, chosenIdNow, marks],
  );
}

export type EvaluationsState = ReturnType<typeof useEvaluations>;

export const EvaluationsPanel = memo(function EvaluationsPanel({
  state,
  go,
  cite,
  onClose,
}: {
  state: EvaluationsState;
  /** Moves the player to a 0-based step position. */
  go: (position: number) => void;
  /** Moves the player to a cited step and draws the cited region (in the stored screenshot's pixels) on it. */
  cite?: (position: number, box: CitationBox | null) => void;
  onClose: () => void;
}) {
  const { data, status, errorMessage, chosenId, choose } = state;
  return (
    <div className="flex flex-col gap-3 p-4" data-testid="evaluations-panel">
      <div className="flex items-baseline justify-between">
        <h2 className="text-[13px] font-semibold text-zinc-900">Evaluations</h2>
        <button
          type="button"
          className="text-2xs text-zinc-500 hover:text-zinc-800"
          onMouseDown={(e) => e.preventDefault()}
          onClick={onClose}
          title="Back to the step details (e)"
        >
          Step details ✕
        </button>
      </div>
      {status === "error" ? (
        <p className="text-[12px] text-rose-700" role="alert">
          {errorMessage}
        </p>
      ) : !data ? (
        <p className="text-[12px] text-zinc-500">Loading evaluations…</p>
      ) : data.hidden ? (
        <p className="rounded-md bg-amber-50 px-2.5 py-2 text-[12px] text-amber-900 ring-1 ring-amber-200 ring-inset" data-testid="evaluations-hidden">
          {data.message}
        </p>
      ) : (
        <Shown data={data} chosenId={chosenId} choose={choose} go={go} cite={cite ?? ((p) => go(p))} />
      )}
    </div>
  );
});

type Cite = (position: number, box: CitationBox | null) => void;

function Shown({
  data,
  chosenId,
  choose,
  go,
  cite,
}: {
  data: Shown;
  chosenId: number | null;
  choose: (id: number) => void;
  go: (p: number) => void;
  cite: Cite;
}) {
  const judges = data.verdicts.filter((v) => v.kind === "judge" && v.origin === "verdict");
  const rules = data.verdicts.filter((v) => v.kind === "rule" && v.origin === "verdict");
  const imported = data.verdicts.filter((v) => v.origin === "import");
  const nothing = !data.verdicts.length && !data.labels.length && !data.consolidated.length && !data.items.length;
  return (
    <>
      {nothing && <p className="text-[12px] text-zinc-500">No verdicts or labels for this trajectory yet.</p>}
      {data.items.length > 0 && (
        <Group title="In campaigns">
          {data.items.map((item) => (
            <ItemState key={item.campaignId} item={item} />
          ))}
        </Group>
      )}
      {data.consolidated.length > 0 && (
        <Group title="Consolidated label">
          {data.consolidated.map((c) => (
            <ConsolidatedCard key={c.campaignId} c={c} go={go} />
          ))}
        </Group>
      )}
      {data.labels.length > 0 && (
        <Group title={`Human labels (${data.labels.length})`}>
          {data.labels.map((l) => (
            <LabelCard key={l.id} l={l} go={go} />
          ))}
        </Group>
      )}
      {judges.length > 0 && (
        <Group title={`Judges (${judges.length})`}>
          {judges.map((v) => (
            <VerdictCard key={v.id} v={v} chosen={v.id === chosenId} choose={choose} go={go} cite={cite} />
          ))}
        </Group>
      )}
      {rules.length > 0 && (
        <Group title="Rules">
          {rules.map((v) => (
            <VerdictCard key={v.id} v={v} chosen={false} choose={choose} go={go} ruleConfig={data.ruleConfig} />
          ))}
        </Group>
      )}
      {imported.length > 0 && (
        <Group title={`Imported verdicts (${imported.length})`}>
          {imported.map((v) => (
            <VerdictCard key={v.id} v={v} chosen={v.id === chosenId} choose={choose} go={go} />
          ))}
        </Group>
      )}
    </>
  );
}

const ITEM_STATE: Record<string, { text: string; style: string }> = {
  open: { text: "still being labelled", style: "bg-zinc-100 text-zinc-700 ring-zinc-500/20" },
  agreed: { text: "agreed", style: "bg-emerald-50 text-emerald-800 ring-emerald-600/20" },
  disputed: { text: "disputed", style: "bg-amber-50 text-amber-800 ring-amber-600/20" },
  adjudicated: { text: "adjudicated", style: "bg-indigo-50 text-indigo-800 ring-indigo-600/20" },
};

/** Where the trajectory stands in one campaign (researchers), with the way to its adjudication page. */
function ItemState({ item }: { item: Shown["items"][number] }) {
  const state = ITEM_STATE[item.state] ?? { text: item.state, style: ITEM_STATE.open!.style };
  const href = `/campaigns/${item.campaignId}/review/${item.trajectoryId}`;
  return (
    <div className="flex items-center gap-2 text-[12px]" data-testid="evaluation-item-state">
      <span className="min-w-0 truncate text-zinc-700" title={item.campaignName}>
        {item.campaignName}
      </span>
      <span className={`shrink-0 rounded px-1.5 py-px text-2xs font-semibold ring-1 ring-inset ${state.style}`}>{state.text}</span>
      {item.state === "disputed" ? (
        <Link className="link ml-auto shrink-0" href={href}>
          Adjudicate →
        </Link>
      ) : item.state !== "open" ? (
        <Link className="ml-auto shrink-0 text-zinc-500 hover:text-zinc-800 hover:underline" href={href}>
          Review
        </Link>
      ) : null}
    </div>
  );
}

function Group({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="flex flex-col gap-1.5">
      <h3 className="text-2xs font-semibold tracking-wide text-zinc-500 uppercase">{title}</h3>
      {children}
    </section>
  );
}

const PILL: Record<string, string> = {
  success: "bg-emerald-50 text-emerald-800 ring-emerald-600/20",
  failure: "bg-rose-50 text-rose-800 ring-rose-600/20",
  unsure: "bg-amber-50 text-amber-800 ring-amber-600/20",
};

function VerdictPill({ verdict }: { verdict: string }) {
  return (
    <span
      className={`shrink-0 rounded px-1.5 py-px text-2xs font-medium ring-1 ring-inset ${PILL[verdict] ?? "bg-zinc-100 text-zinc-700 ring-zinc-500/20"}`}
      data-testid="verdict-pill"
    >
      {verdict.replace("_", " ")}
    </span>
  );
}

function StepLink({ position, go }: { position: number; go: (p: number) => void }) {
  return (
    <button
      type="button"
      className="link tabular-nums"
      onMouseDown={(e) => e.preventDefault()}
      onClick={() => go(position)}
      title={`Go to step ${position + 1}`}
    >
      {position + 1}
    </button>
  );
}

function Card({ children, testId, chosen, onClick }: { children: ReactNode; testId: string; chosen?: boolean; onClick?: () => void }) {
  return (
    <div
      className={`flex min-w-0 flex-col gap-1 rounded-md border px-2.5 py-2 text-[12px] ${chosen ? "border-violet-400 bg-violet-50/40" : "border-zinc-200 bg-white"}`}
      data-testid={testId}
      data-chosen={chosen || undefined}
      onClick={onClick}
    >
      {children}
    </div>
  );
}

function Raw({ summary, text }: { summary: string; text: string }) {
  return (
    <details className="min-w-0">
      <summary className="cursor-pointer text-zinc-500 select-none hover:text-zinc-800">{summary}</summary>
      <pre className="mt-1 max-h-48 overflow-auto rounded-md bg-zinc-900 px-2 py-1.5 font-mono text-[11px] break-words whitespace-pre-wrap text-zinc-100">
        {text}
      </pre>
    </details>
  );
}

function VerdictCard({
  v,
  chosen,
  choose,
  go,
  cite,
  ruleConfig,
}: {
  v: VerdictView;
  chosen: boolean;
  choose: (id: number) => void;
  go: (p: number) => void;
  cite?: Cite;
  ruleConfig?: unknown;
}) {
  const seen = v.window.kind === "steps" ? v.window.positions : null;
  return (
    <Card testId="evaluation-verdict" chosen={chosen} onClick={seen?.length ? () => choose(v.id) : undefined}>
      <div className="flex min-w-0 items-center gap-2">
        <span className="min-w-0 truncate font-medium text-zinc-900" title={v.evaluatorName}>
          {v.evaluatorName}
        </span>
        <span className="ml-auto" />
        <VerdictPill verdict={v.verdict} />
      </div>
      <div className="flex flex-wrap gap-x-2 text-2xs text-zinc-500">
        {v.config && <span className="font-mono">{v.model ?? v.config.model}</span>}
        {!v.config && v.model && <span className="font-mono">{v.model}</span>}
        {/* An imported judge's window is its recorded steps, or unknown: never "no screenshots" for want of a k. */}
        {v.kind === "judge" && !(v.origin === "import" && !v.k) && <span>{describeK(v.k)}</span>}
        {v.promptVersion && (
          <span>
            {v.kind === "rule" ? "rules" : "prompt"} {v.promptVersion}
          </span>
        )}
        {v.score !== null && <span>score {v.score}</span>}
        {v.origin === "import" && <span>imported</span>}
      </div>
      {seen && (
        <div className="text-2xs text-zinc-600" data-testid="verdict-saw-steps">
          {seen.length === 0 ? (
            "Saw no screenshots"
          ) : (
            <>
              Saw step{seen.length === 1 ? "" : "s"}{" "}
              {seen.map((p, i) => (
                <span key={p}>
                  {i > 0 && ", "}
                  <StepLink position={p} go={go} />
                </span>
              ))}
              {v.window.kind === "steps" && v.window.source === "from-k" && <span className="text-zinc-400"> (from k)</span>}
              {!chosen && (
                <button type="button" className="ml-1 text-violet-700 hover:underline" onMouseDown={(e) => e.preventDefault()} onClick={() => choose(v.id)}>
                  mark on filmstrip
                </button>
              )}
            </>
          )}
        </div>
      )}
      {v.origin === "import" && <JudgeEvidence details={v.details} go={go} />}
      {v.origin === "verdict" && <GradedCriteria v={v} go={go} />}
      {v.rationale && <p className="break-words whitespace-pre-wrap text-zinc-700">{v.rationale}</p>}
      {cite && v.citations.length > 0 && <Citations v={v} cite={cite} />}
      {v.kind === "rule" && ruleConfig != null && <Raw summary="Rule checked" text={JSON.stringify(ruleConfig, null, 2)} />}
      {v.rawReply && <Raw summary={v.origin === "import" ? "Source record" : "Raw reply"} text={v.rawReply} />}
      <span className="text-2xs text-zinc-400">{formatDate(v.updatedAt)}</span>
    </Card>
  );
}

/**
 * What an imported judge recorded beside its verdict: the key points it checked (WebJudge) and how it scored each
 * screenshot, the ones at or above its threshold being those its final judgment saw.
 */
function JudgeEvidence({ details, go }: { details: Record<string, unknown> | null; go: (p: number) => void }) {
  if (!details) return null;
  const keyPoints = Array.isArray(details.keyPoints) ? details.keyPoints.filter((k): k is string => typeof k === "string") : [];
  const threshold = typeof details.threshold === "number" ? details.threshold : null;
  const shots = Array.isArray(details.screenshots)
    ? details.screenshots
        .map((x) => (x && typeof x === "object" ? (x as { step?: unknown; score?: unknown; reasoning?: unknown }) : null))
        .filter((x) => x !== null)
        .map((x, i) => ({
          i,
          step: typeof x.step === "number" ? x.step : null,
          score: typeof x.score === "number" ? x.score : null,
          reasoning: typeof x.reasoning === "string" ? x.reasoning : null,
        }))
    : [];
  if (!keyPoints.length && !shots.length) return null;
  return (
    <div className="flex flex-col gap-1" data-testid="judge-evidence">
      {keyPoints.length > 0 && (
        <div>
          <div className="text-2xs font-semibold text-zinc-500">Key points</div>
          <ol className="list-decimal pl-4 text-zinc-700" data-testid="judge-key-points">
            {keyPoints.map((k, i) => (
              <li key={i} className="break-words">
                {k}
              </li>
            ))}
          </ol>
        </div>
      )}
      {shots.length > 0 && (
        <details>
          <summary className="cursor-pointer text-2xs text-zinc-500 select-none hover:text-zinc-800">
            Screenshot scores{threshold !== null ? ` (kept at ${threshold} or more)` : ""}
          </summary>
          <ul className="mt-1 flex flex-col gap-1 text-2xs text-zinc-600" data-testid="judge-screenshot-scores">
            {shots.map((s) => (
              <li key={s.i} className={threshold !== null && s.score !== null && s.score >= threshold ? "font-medium text-zinc-900" : undefined}>
                {s.step !== null ? (
                  <>
                    Step <StepLink position={s.step} go={go} />
                  </>
                ) : (
                  `Screenshot ${s.i + 1}`
                )}
                {s.score !== null && <span> · score {s.score}</span>}
                {s.reasoning && <p className="line-clamp-3 font-normal break-words whitespace-pre-wrap text-zinc-500">{s.reasoning}</p>}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

const RESULT: Record<string, { text: string; className: string }> = {
  met: { text: "met", className: "text-emerald-700" },
  not_met: { text: "not met", className: "text-rose-700" },
  unparseable: { text: "unreadable", className: "text-amber-700" },
};

function ResultMark({ result, pass }: { result: string; pass?: boolean }) {
  const r = RESULT[result] ?? { text: result, className: "text-zinc-600" };
  const text = pass && result !== "unparseable" ? (result === "met" ? "pass" : "fail") : r.text;
  return <span className={`shrink-0 text-2xs font-semibold ${r.className}`}>{text}</span>;
}

const CAUSE: Record<string, string> = {
  controllable: "controllable",
  uncontrollable: "uncontrollable (the environment)",
  none: "none",
  unparseable: "unreadable",
};

/**
 * What a staged protocol graded on its way to the verdict: key points met or not (with each screenshot's relevance
 * score and the threshold), or the rubric's outcome and process criteria with the process as a whole and the cause
 * of a failure.
 */
function GradedCriteria({ v, go }: { v: VerdictView; go: (p: number) => void }) {
  if (!v.criteria.length && !v.relevance) return null;
  const keyPoints = v.criteria.some((c) => c.kind === "key_point");
  return (
    <div className="flex flex-col gap-1" data-testid="verdict-criteria">
      <div className="text-2xs font-semibold text-zinc-500">{keyPoints ? "Key points" : "Criteria"}</div>
      <ol className="flex flex-col gap-0.5">
        {v.criteria.map((c) => (
          <li key={c.position} className="flex min-w-0 items-baseline gap-1.5" data-testid="verdict-criterion" data-kind={c.kind} data-result={c.result}>
            <span className="shrink-0 text-2xs text-zinc-400 tabular-nums">{c.position}.</span>
            {c.kind !== "key_point" && <span className="shrink-0 rounded bg-zinc-100 px-1 text-2xs text-zinc-600">{c.kind}</span>}
            <span className="min-w-0 flex-1 break-words text-zinc-700">{c.text}</span>
            <ResultMark result={c.result} pass={c.kind !== "key_point"} />
          </li>
        ))}
      </ol>
      {(v.process || v.failureCause) && (
        <div className="flex flex-wrap gap-x-3 text-2xs text-zinc-600" data-testid="verdict-process">
          {v.process && (
            <span>
              Process <ResultMark result={v.process} pass />
            </span>
          )}
          {v.failureCause && v.failureCause !== "none" && <span>Failure cause: {CAUSE[v.failureCause] ?? v.failureCause}</span>}
        </div>
      )}
      {v.relevance && v.relevance.length > 0 && (
        <details>
          <summary className="cursor-pointer text-2xs text-zinc-500 select-none hover:text-zinc-800">
            Screenshot relevance{v.threshold !== null ? ` (kept at ${v.threshold} or more)` : ""}
          </summary>
          <ul className="mt-1 flex flex-wrap gap-x-3 gap-y-0.5 text-2xs text-zinc-600" data-testid="verdict-relevance">
            {v.relevance.map((r, i) => (
              <li
                key={i}
                className={v.threshold !== null && r.score !== null && r.score >= v.threshold ? "font-semibold text-zinc-900" : undefined}
                title={r.problem ?? undefined}
              >
                {r.position !== null ? (
                  <>
                    step <StepLink position={r.position} go={go} />
                  </>
                ) : (
                  "a removed step"
                )}
                : {r.score ?? "?"}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

/** The player's address for a cited step, with the region to draw: opens in a new tab as well as in place. */
function citationHref(position: number, box: CitationBox | null): string {
  return `?step=${position + 1}&panel=evaluations${box ? `&region=${box.join(",")}` : ""}`;
}

/** The steps a judge cited: links that open the step with its region drawn; those Verdict could not check, flagged. */
function Citations({ v, cite }: { v: VerdictView; cite: Cite }) {
  return (
    <div className="flex flex-col gap-0.5" data-testid="verdict-citations">
      <div className="text-2xs font-semibold text-zinc-500">
        Evidence cited
        {v.unverifiableCitations > 0 && (
          <span className="ml-1 font-normal text-amber-700" data-testid="unverifiable-count">
            · {v.unverifiableCitations} of {v.citations.length} unverifiable
          </span>
        )}
      </div>
      <ul className="flex flex-col gap-0.5">
        {v.citations.map((c) => (
          <li key={c.position} className="min-w-0 break-words text-zinc-700" data-testid="citation" data-verifiable={c.problem === null ? "yes" : "no"}>
            {c.playerPosition !== null ? (
              <a
                href={citationHref(c.playerPosition, c.problem === null ? (c.box as CitationBox | null) : null)}
                className="link tabular-nums"
                data-testid="citation-link"
                onClick={(e) => {
                  if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
                  e.preventDefault();
                  cite(c.playerPosition!, c.problem === null ? (c.box as CitationBox | null) : null);
                }}
              >
                step {c.stepNumber}
                {c.box && c.problem === null ? " ▭" : ""}
              </a>
            ) : (
              <span className="text-zinc-500">{c.stepNumber !== null ? `step ${c.stepNumber}` : "no step"}</span>
            )}
            {c.note && <span className="text-zinc-600"> — {c.note}</span>}
            {c.problem && (
              <span className="ml-1 rounded bg-amber-50 px-1 text-2xs text-amber-800 ring-1 ring-amber-200 ring-inset" data-testid="citation-problem">
                unverifiable: {c.problem}
              </span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

function LabelFields({
  verdict,
  category,
  firstFailingStep,
  go,
}: {
  verdict: string;
  category: string | null;
  firstFailingStep: number | null;
  go: (p: number) => void;
}) {
  return (
    <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-0.5">
      <VerdictPill verdict={verdict} />
      {category && <span className="min-w-0 break-words text-zinc-700">{category}</span>}
      {firstFailingStep !== null && (
        <span className="text-2xs text-zinc-500">
          first failing step <StepLink position={firstFailingStep} go={go} />
        </span>
      )}
    </div>
  );
}

function LabelCard({ l, go }: { l: LabelView; go: (p: number) => void }) {
  return (
    <Card testId="evaluation-label">
      <div className="flex min-w-0 items-baseline gap-2">
        <span className="min-w-0 truncate font-medium text-zinc-900">
          {l.annotatorName}
          {l.own && <span className="font-normal text-zinc-500"> (you)</span>}
        </span>
        <span className="ml-auto shrink-0 text-2xs text-zinc-400">{formatDate(l.updatedAt)}</span>
      </div>
      <LabelFields verdict={l.verdict} category={l.category} firstFailingStep={l.firstFailingStep} go={go} />
      {l.note && <p className="break-words whitespace-pre-wrap text-zinc-700">“{l.note}”</p>}
      <span className="truncate text-2xs text-zinc-500" title={l.campaignName}>
        {l.campaignName}
        {l.origin === "import" ? " · imported" : ""}
      </span>
      {l.history.length > 1 && (
        <details>
          <summary className="cursor-pointer text-2xs text-zinc-500 select-none hover:text-zinc-800">{l.history.length} revisions</summary>
          <ol className="mt-1 flex flex-col gap-0.5 text-2xs text-zinc-600">
            {l.history.map((h) => (
              <li key={h.revision} className={h.undone ? "line-through" : undefined}>
                r{h.revision} {formatDate(h.createdAt)} {h.actorName}:{" "}
                {h.status === "withdrawn" ? "withdrawn" : `${h.values.verdict}${h.values.category ? ` · ${h.values.category}` : ""}`}
                {h.changedFields.length > 0 && h.revision > 1 ? ` (${h.changedFields.join(", ")})` : ""}
                {h.afterReveal ? " — after seeing evaluations" : ""}
              </li>
            ))}
          </ol>
        </details>
      )}
    </Card>
  );
}

function ConsolidatedCard({ c, go }: { c: ConsolidatedView; go: (p: number) => void }) {
  return (
    <Card testId="evaluation-consolidated">
      <LabelFields verdict={c.verdict} category={c.category} firstFailingStep={c.firstFailingStep} go={go} />
      <span className="text-2xs text-zinc-500">
        {c.method === "adjudicated" ? (c.adjudicatorName ? `Adjudicated by ${c.adjudicatorName}` : "Adjudicated") : "Annotators agreed"} ·{" "}
        {formatDate(c.updatedAt)}
      </span>
      {c.reason && <p className="break-words whitespace-pre-wrap text-zinc-700">{c.reason}</p>}
      <span className="truncate text-2xs text-zinc-500" title={c.campaignName}>
        {c.campaignName}
      </span>
      {c.history.length > 0 && (
        <details>
          <summary className="cursor-pointer text-2xs text-zinc-500 select-none hover:text-zinc-800">History ({c.history.length})</summary>
          <ol className="mt-1 flex flex-col gap-0.5 text-2xs text-zinc-600">
            {c.history.map((e, i) => (
              <li key={i}>
                {formatDate(e.createdAt)} {e.actorName ?? "automatically"}: {e.state}
                {e.values ? ` → ${e.values.verdict}${e.values.category ? ` · ${e.values.category}` : ""}` : ""}
                {e.reason ? ` (${e.reason})` : ""}
              </li>
            ))}
          </ol>
        </details>
      )}
    </Card>
  );
}

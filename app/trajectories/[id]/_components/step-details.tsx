"use client";
/**
 * The current step in words: action (parsed and raw), grounding and loop notes, thought, error, elements.
 */
import { useEffect, useState, type ReactNode } from "react";
import { hasHighlight, HighlightedText } from "@/app/_components/search-highlight";
import { describeAction } from "@/server/domain/player/action-text";
import type { PlayerStepData, StepAnalysis } from "./player";
import { SideSection } from "./side-section";

export function StepDetails({
  step,
  position,
  count,
  analysis,
  showingRaw,
}: {
  step: PlayerStepData;
  position: number;
  count: number;
  analysis: StepAnalysis;
  showingRaw: boolean;
}) {
  // A behaviour search opened the player here: its words are marked wherever this step holds them (?hl=…). Read
  // from the address once mounted, so server and client render the same first markup.
  const [terms, setTerms] = useState<string[]>([]);
  useEffect(() => setTerms(new URL(window.location.href).searchParams.getAll("hl")), []);
  const elements = step.elements;
  const elementHit = terms.length > 0 && !!elements?.some((e) => hasHighlight(e.text, terms));
  // The list opens by itself when the search matched an element's text; a click decides after that.
  const [elementsOpen, setShowElements] = useState<boolean | null>(null);
  const showElements = elementsOpen ?? elementHit;
  const { action } = step;
  const boxed = elements?.filter((e) => e.bbox).length ?? 0;
  return (
    <div className="flex flex-col gap-4 p-4" data-testid="step-details">
      <div className="flex items-baseline justify-between">
        <h2 className="text-[13px] font-semibold text-zinc-900">
          Step {position} <span className="font-normal text-zinc-400">of {count}</span>
        </h2>
        {step.durationMs != null && <span className="text-2xs text-zinc-500 tabular-nums">{(step.durationMs / 1000).toFixed(1)} s</span>}
      </div>

      <SideSection title="Action" heading="h3">
        <ActionText action={action} testId="parsed-action" />
        {action.type === "unparsed" && action.parseError && <p className="mt-1 text-[12px] text-amber-800">Could not parse: {action.parseError}</p>}
        {analysis.grounding && (
          <p className="mt-1.5 rounded-md bg-rose-600 px-2 py-1 text-[12px] font-medium text-white" role="status">
            ⚑ Grounding: {analysis.grounding.message}
          </p>
        )}
        {step.actionRaw && (
          <details className="mt-1.5 text-[12px]" open={action.type === "unparsed" || hasHighlight(step.actionRaw, terms)}>
            <summary className="cursor-pointer text-zinc-500 select-none hover:text-zinc-800">Raw action</summary>
            <pre
              className="mt-1 max-h-40 overflow-auto rounded-md bg-zinc-900 px-2 py-1.5 font-mono text-[11.5px] break-words whitespace-pre-wrap text-zinc-100"
              data-testid="raw-action"
            >
              <HighlightedText text={step.actionRaw} terms={terms} />
            </pre>
          </details>
        )}
      </SideSection>

      {(analysis.loops.repeatedAction || analysis.loops.revisitedUrl || analysis.loops.sameScreen) && (
        <SideSection title="Loop hints" heading="h3">
          <ul className="list-inside list-disc text-[12px] text-amber-900">
            {analysis.loops.repeatedAction && <li>Same action as the previous step ({analysis.loops.repeatRun} in a row)</li>}
            {analysis.loops.revisitedUrl && <li>Back on a URL first visited at step {(analysis.loops.firstSeenAt ?? 0) + 1}</li>}
            {analysis.loops.sameScreen && <li>Screenshot identical to the previous step</li>}
          </ul>
        </SideSection>
      )}

      <SideSection title="Thought" heading="h3">
        <ThoughtText thought={step.thought} terms={terms} testId="step-thought" className="text-[12.5px]" />
      </SideSection>

      {step.error && (
        <SideSection title="Error" heading="h3">
          <pre className="max-h-48 overflow-auto rounded-md border border-rose-200 bg-rose-50 px-2 py-1.5 font-mono text-[11.5px] break-words whitespace-pre-wrap text-rose-900">
            <HighlightedText text={step.error} terms={terms} />
          </pre>
        </SideSection>
      )}

      <SideSection title="Page" heading="h3">
        <p className="font-mono text-[11.5px] break-all text-zinc-700">
          {step.url ? <HighlightedText text={step.url} terms={terms} /> : <span className="font-sans text-zinc-400">URL not recorded</span>}
        </p>
        <p className="mt-1 text-[12px] text-zinc-500">
          {step.marksBurnedIn
            ? showingRaw
              ? "Showing the raw screenshot; the marked one has the marks burned in."
              : "Set-of-Marks are burned into this screenshot."
            : "Screenshot without burned-in marks."}
          {step.screenshot && ` ${step.screenshot.width}×${step.screenshot.height}.`}
        </p>
      </SideSection>

      <SideSection title={`Elements${elements ? ` (${elements.length})` : ""}`} heading="h3">
        {elements === null ? (
          <p className="text-zinc-400">No element list recorded for this step.</p>
        ) : (
          <>
            <p className="text-[12px] text-zinc-500">
              {boxed === elements.length ? "All with boxes." : boxed === 0 ? "Text only, no boxes (marks are in the image)." : `${boxed} with boxes.`}
            </p>
            {elements.length > 0 && (
              <button type="button" className="mt-1 text-[12px] text-indigo-700 hover:underline" onClick={() => setShowElements(!showElements)}>
                {showElements ? "Hide list" : "Show list"}
              </button>
            )}
            {showElements && (
              <ul className="mt-1 max-h-72 overflow-auto rounded-md border border-zinc-200 font-mono text-[11px]">
                {elements.map((e, i) => (
                  <li
                    key={`${e.label}-${i}`}
                    className={`flex gap-2 border-b border-zinc-100 px-2 py-0.5 last:border-0 ${action.target?.trim() === e.label.trim() ? "bg-rose-50 text-rose-900" : "text-zinc-700"}`}
                  >
                    <span className="w-8 shrink-0 text-right text-zinc-500">[{e.label}]</span>
                    {e.tag && <span className="shrink-0 text-zinc-400">&lt;{e.tag}&gt;</span>}
                    <span className="min-w-0 truncate" title={e.text ?? undefined}>
                      {e.text ? <HighlightedText text={e.text} terms={terms} /> : null}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </SideSection>
    </div>
  );
}

/**
 * The step's action in words, amber when it could not be parsed: the step details' (`compact`: a compare column's,
 * smaller and cut shorter).
 */
export function ActionText({ action, testId, compact = false }: { action: PlayerStepData["action"]; testId: string; compact?: boolean }) {
  const tone = action.type === "unparsed" ? "border-amber-300 bg-amber-50 text-amber-900" : "border-rose-200 bg-rose-50/60 text-rose-900";
  const size = compact ? "px-2 py-1 text-[11.5px]" : "px-2.5 py-1.5 text-[12px]";
  return (
    <div className={`rounded-md border font-mono break-words ${size} ${tone}`} data-testid={testId}>
      {describeAction(action, compact ? 300 : 400)}
    </div>
  );
}

/** What the agent thought at the step, with a behaviour search's words marked; says so when nothing was recorded. */
export function ThoughtText({ thought, terms = [], testId, className = "" }: { thought: string | null; terms?: string[]; testId: string; className?: string }) {
  if (!thought) return <p className={`text-zinc-400 ${className}`}>No thought recorded.</p>;
  return (
    <p className={`leading-5 break-words whitespace-pre-wrap text-zinc-800 ${className}`} data-testid={testId}>
      <HighlightedText text={thought} terms={terms} />
    </p>
  );
}

/**
 * Under a column's screenshot (side by side, pairwise): the step's action, error and thought, or that they are still
 * loading (`step` null), or why they could not be (`loadError`). `testIdPrefix`-action and -thought name the parts;
 * `children` follow the thought (the pairwise page's final answer).
 */
export function StepBrief({
  step,
  loadError,
  testIdPrefix,
  className,
  children,
}: {
  step: PlayerStepData | null;
  loadError?: string | null;
  testIdPrefix: string;
  className: string;
  children?: ReactNode;
}) {
  return (
    <div className={`shrink-0 overflow-y-auto border-t border-zinc-200 px-3 py-2 text-[12px] ${className}`}>
      {step ? (
        <>
          <ActionText action={step.action} testId={`${testIdPrefix}-action`} compact />
          {step.error && <p className="mt-1 break-words text-rose-700">Error: {step.error}</p>}
          <ThoughtText thought={step.thought} testId={`${testIdPrefix}-thought`} className="mt-1.5" />
          {children}
        </>
      ) : loadError ? (
        <p role="alert" className="text-rose-700">
          Could not load this step&apos;s details: {loadError}
        </p>
      ) : (
        <p className="text-zinc-500">Loading step details…</p>
      )}
    </div>
  );
}

"use client";
/**
 * The task the agent was given and what it answered: intent, start URL, input images, reference answers
 * (with their kind), final answer, and where the trajectory came from.
 */
import Link from "next/link";
import { memo } from "react";
import type { PlayerData } from "./player";
import { SideSection } from "./side-section";
import { WebLink } from "../../../_components/web-link";

const KIND_STYLE: Record<string, string> = {
  golden: "bg-amber-100 text-amber-900",
  possible: "bg-sky-100 text-sky-900",
};

/** Memoised: the task does not change while stepping, so it never re-renders on a key press. */
export const TaskPanel = memo(function TaskPanel({ data }: { data: PlayerData }) {
  const { task, trajectory, run } = data;
  return (
    <div className="flex flex-col gap-4 p-4" data-testid="task-panel">
      <SideSection title="Task" heading="h2">
        <p className="text-[13px] leading-5 break-words whitespace-pre-wrap text-zinc-900" data-testid="task-intent">
          {task.intent}
        </p>
        <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-[12px]">
          <dt className="text-zinc-500">Task</dt>
          <dd className="min-w-0 truncate font-mono">
            {/* Not prefetched: opening an item would otherwise also render the task page on the server, beside its screenshot. */}
            <Link className="link" href={`/tasks/${task.id}`} prefetch={false}>
              {task.externalId}
            </Link>
          </dd>
          {task.site && (
            <>
              <dt className="text-zinc-500">Site</dt>
              <dd className="min-w-0 truncate">{task.site}</dd>
            </>
          )}
          {task.startUrl && (
            <>
              <dt className="text-zinc-500">Start</dt>
              <dd className="min-w-0 truncate font-mono text-[11.5px]">
                <WebLink className="link" url={task.startUrl} />
              </dd>
            </>
          )}
          {task.difficulty?.overall && (
            <>
              <dt className="text-zinc-500">Difficulty</dt>
              <dd>
                {[
                  task.difficulty.overall,
                  task.difficulty.visual && `visual ${task.difficulty.visual}`,
                  task.difficulty.reasoning && `reasoning ${task.difficulty.reasoning}`,
                ]
                  .filter(Boolean)
                  .join(" · ")}
              </dd>
            </>
          )}
        </dl>
        {task.tags.length > 0 && (
          <div className="mt-2 flex flex-wrap gap-1">
            {task.tags.map((t) => (
              <span key={t} className="rounded bg-zinc-100 px-1.5 py-px text-2xs text-zinc-600">
                {t}
              </span>
            ))}
          </div>
        )}
      </SideSection>

      {task.inputImages.length > 0 && (
        <SideSection title={`Input image${task.inputImages.length === 1 ? "" : "s"}`} heading="h2">
          <ul className="flex flex-col gap-2">
            {task.inputImages.map((src, i) => (
              <li key={`${src}-${i}`} className="min-w-0">
                {/* Shown as a link the viewer clicks, never loaded by itself (an imported URL could be a beacon). */}
                <WebLink className="link block truncate font-mono text-2xs" url={src}>
                  Input image {i + 1}: {src}
                </WebLink>
              </li>
            ))}
          </ul>
        </SideSection>
      )}

      <SideSection title="Reference answer" heading="h2">
        {task.referenceAnswers.length ? (
          <ul className="flex flex-col gap-1.5" data-testid="reference-answers">
            {task.referenceAnswers.map((r, i) => (
              <li key={i} className="flex items-start gap-2">
                <span className={`mt-px shrink-0 rounded px-1.5 py-px text-2xs font-medium ${KIND_STYLE[r.kind] ?? "bg-zinc-100 text-zinc-700"}`}>
                  {r.kind.replace(/_/g, " ")}
                </span>
                <span className="min-w-0 break-words text-zinc-800">{r.text}</span>
              </li>
            ))}
          </ul>
        ) : data.agentHidden ? (
          // Said whether or not the task has one: "none recorded" here would tell annotators there is no reference.
          <p className="text-zinc-500" data-testid="reference-withheld">
            Withheld while you label blind.
          </p>
        ) : (
          <p className="text-zinc-400">None recorded{task.hasEvaluatorConfig ? " (the benchmark's evaluator config is stored)" : ""}.</p>
        )}
      </SideSection>

      <SideSection title="Final answer" heading="h2">
        {trajectory.finalAnswer ? (
          // Neutral whatever the answer: a coloured box would suggest it is right (or wrong) to the person grading it.
          <p className="rounded-md border border-zinc-300 bg-zinc-50 px-2.5 py-1.5 break-words whitespace-pre-wrap text-zinc-900" data-testid="final-answer">
            {trajectory.finalAnswer}
          </p>
        ) : (
          <p className="text-zinc-500" data-testid="final-answer">
            No final answer ({trajectory.outcome.replace("_", " ")}
            {trajectory.outcomeDetail ? `: ${trajectory.outcomeDetail}` : ""}).
          </p>
        )}
      </SideSection>

      <SideSection title="Source" heading="h2">
        <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-[12px]">
          <dt className="text-zinc-500">Agent</dt>
          <dd className="min-w-0 truncate">{run.agentName}</dd>
          <dt className="text-zinc-500">System</dt>
          <dd className="min-w-0 truncate">{run.sourceSystem}</dd>
          <dt className="text-zinc-500">Format</dt>
          <dd className="min-w-0 truncate">{trajectory.sourceFormat}</dd>
          {trajectory.sourcePath && (
            <>
              <dt className="text-zinc-500">Path</dt>
              <dd className="min-w-0 font-mono text-2xs break-all text-zinc-600">{trajectory.sourcePath}</dd>
            </>
          )}
        </dl>
      </SideSection>
    </div>
  );
});

"use client";
/**
 * The new-campaign form's blind → reveal → revise option: which evaluator (judge setting, rule, heuristic, import)
 * to show each annotator right after their blind label, so they keep or revise it with a reason.
 */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { evaluatorId } from "@/server/domain/analytics/measures";

export type EvaluatorChoice = inferRouterOutputs<AppRouter>["judge"]["verdicts"]["evaluators"][number];

export function RevealEvaluatorField({ evaluators }: { evaluators: EvaluatorChoice[] }) {
  return (
    <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
      Reveal an evaluator after the blind label
      <select name="revealEvaluator" defaultValue="" className="field h-8" data-testid="reveal-evaluator">
        <option value="">No reveal</option>
        {evaluators.map((e) => {
          const id = evaluatorId({ key: e.evaluatorKey, k: e.k, pv: e.promptVersion });
          return (
            <option key={id} value={id}>
              {[e.evaluatorName, e.k ? `k = ${e.k}` : null, e.promptVersion || null].filter(Boolean).join(" · ")} ({e.total} verdicts)
            </option>
          );
        })}
      </select>
      <span className="text-2xs font-normal text-zinc-500">
        After each blind submit, the annotator sees this evaluator&apos;s verdict, rationale and the screenshots it was sent, and keeps or revises their label
        with a reason. Both labels are kept; the blind one is final and is the one consolidated. Needs blind labelling.
      </span>
    </label>
  );
}

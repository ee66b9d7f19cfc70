"use client";
/**
 * A new prompt version from the calibration part: few-shot examples chosen among its items (the disagreements with
 * people first, with the judge's verdict and reason and people's label and notes), and/or a rubric in place of the
 * protocol's criteria, written here or proposed by the judge model from the disagreements. The form starts from
 * the latest version, which the new one builds on. The server refuses an example whose task (or a near-duplicate
 * task) is held out, naming it; the refusal is shown as it is worded.
 */
import { useMutation, useQueryClient, useSuspenseQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useId, useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { formatCount, PanelSection, TrajectoryLink } from "../../../_components/ui";
import { useTRPC } from "../../../_trpc/client";
import { errorText } from "../_lib/error-text";
import type { AlignmentView } from "../_lib/improvement";
import { DenseTable } from "../../../_components/table";

type Suggestion = inferRouterOutputs<AppRouter>["judge"]["alignment"]["suggest"];
type Disagreement = inferRouterOutputs<AppRouter>["judge"]["alignment"]["disagreements"]["disagreements"][number];

export function AlignmentVersionForm({ view }: { view: AlignmentView }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const id = view.alignment.id;
  const latest = view.versions[view.versions.length - 1]!.version;
  const [examples, setExamples] = useState<Set<number>>(() => new Set(latest.examples.map((e) => e.trajectoryId)));
  const [useRubric, setUseRubric] = useState(latest.rubric !== null);
  const [rubric, setRubric] = useState(latest.rubric ?? "");
  const [suggestion, setSuggestion] = useState<Suggestion | null>(null);
  const [note, setNote] = useState("");
  const f = useId();
  const suggest = useMutation(
    trpc.judge.alignment.suggest.mutationOptions({
      onSuccess: (s) => {
        setSuggestion(s);
        setRubric(s.rubric);
        setUseRubric(true);
      },
    }),
  );
  const create = useMutation(
    trpc.judge.alignment.createVersion.mutationOptions({
      onSuccess: () => {
        setNote("");
        setSuggestion(null);
        void queryClient.invalidateQueries(trpc.judge.alignment.versions.queryFilter({ id }));
        void queryClient.invalidateQueries(trpc.judge.alignment.list.queryFilter());
      },
    }),
  );
  const rubricChanged = useRubric ? rubric.trim() !== (latest.rubric ?? "").trim() : latest.rubric !== null;
  const source = suggestion ? (rubric.trim() === suggestion.rubric.trim() ? "judge-model" : "judge-model-edited") : "researcher";
  const record = suggestion
    ? {
        reply: suggestion.reply,
        rubric: suggestion.rubric,
        warning: suggestion.warning,
        model: suggestion.model,
        inputTokens: suggestion.inputTokens,
        outputTokens: suggestion.outputTokens,
        costUsd: suggestion.costUsd,
      }
    : null;
  const submit = () =>
    create.mutate({
      id,
      examples: [...examples],
      ...(rubricChanged ? { rubric: useRubric ? rubric : null, rubricSource: source, suggestion: record } : {}),
      note: note.trim() || null,
    });
  return (
    <PanelSection title={`New version (builds on v${latest.number})`} label="New version">
      <ExamplePicker id={id} chosen={examples} onChange={setExamples} />
      <div className="flex flex-col gap-1.5">
        <label className="flex items-center gap-2 text-[13px] text-zinc-700">
          <input type="checkbox" checked={useRubric} onChange={(ev) => setUseRubric(ev.target.checked)} data-testid="use-rubric" />
          Replace the protocol&apos;s criteria with this rubric (one criterion a line)
        </label>
        <textarea
          id={`${f}-rubric`}
          aria-label="Rubric"
          className="field min-h-28 font-mono text-[12px]"
          value={rubric}
          disabled={!useRubric}
          onChange={(ev) => setRubric(ev.target.value)}
          data-testid="rubric"
        />
        <div className="flex flex-wrap items-center gap-2">
          <button type="button" className="btn" disabled={suggest.isPending} onClick={() => suggest.mutate({ id })} data-testid="suggest-rubric">
            {suggest.isPending ? "Asking the judge model…" : "Ask the judge model for a rubric"}
          </button>
          <span className="text-2xs text-zinc-500">One call; it sees the calibration part&apos;s disagreements only, never a held-out item.</span>
        </div>
        {suggest.isError && (
          <p className="text-[12px] text-rose-700" role="alert">
            {errorText(suggest.error)}
          </p>
        )}
        {suggestion && <SuggestionNote suggestion={suggestion} edited={source === "judge-model-edited"} />}
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <input
          aria-label="Note"
          className="field w-80"
          placeholder="Note (what this version tries)"
          maxLength={2000}
          value={note}
          onChange={(ev) => setNote(ev.target.value)}
        />
        <button type="button" className="btn btn-on" disabled={create.isPending} onClick={submit} data-testid="create-version">
          {create.isPending ? "Saving…" : "Create version"}
        </button>
      </div>
      {create.isError && (
        <p className="rounded-md bg-rose-50 px-3 py-2 text-[12px] text-rose-800" role="alert" data-testid="version-error">
          {errorText(create.error)}
        </p>
      )}
      {create.isSuccess && (
        <p className="text-[12px] text-emerald-700" data-testid="version-created">
          Version {create.data.number} saved. Run it on the held-out part above.
        </p>
      )}
    </PanelSection>
  );
}

function SuggestionNote({ suggestion: s, edited }: { suggestion: Suggestion; edited: boolean }) {
  return (
    <div className="rounded-md bg-indigo-50 px-3 py-2 text-[12px] text-indigo-900" data-testid="suggestion">
      The judge model ({s.model ?? "model"}) proposed the rubric above from {formatCount(s.cases)} disagreement{s.cases === 1 ? "" : "s"}
      {s.costUsd !== null && ` for $${s.costUsd.toFixed(4)}`}
      {edited ? "; you edited it." : "."}
      {s.warning && <span className="block text-amber-800">{s.warning}</span>}
    </div>
  );
}

function ExamplePicker({ id, chosen, onChange }: { id: number; chosen: Set<number>; onChange: (s: Set<number>) => void }) {
  const trpc = useTRPC();
  const { data: split } = useSuspenseQuery(trpc.judge.alignment.splitItems.queryOptions({ id }));
  const { data: d } = useSuspenseQuery(trpc.judge.alignment.disagreements.queryOptions({ id }));
  const disagreement = new Map<number, Disagreement>(d.disagreements.map((x) => [x.trajectoryId, x]));
  const calibration = split.items
    .filter((i) => i.part === "calibration")
    .sort((a, b) => Number(disagreement.has(b.trajectoryId)) - Number(disagreement.has(a.trajectoryId)));
  const toggle = (tid: number, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(tid);
    else next.delete(tid);
    onChange(next);
  };
  return (
    <div className="flex flex-col gap-1">
      <p className="text-[12px] text-zinc-600" data-testid="disagreement-summary">
        {d.judged === 0
          ? "Version 1 has not judged the calibration part yet: run it above to see where the judge and people disagree."
          : `${formatCount(d.disagreements.length)} disagreement${d.disagreements.length === 1 ? "" : "s"} among ${formatCount(d.judged)} judged calibration item${d.judged === 1 ? "" : "s"}${d.missing ? ` (${formatCount(d.missing)} not judged yet)` : ""}. Tick the items to show the judge as worked examples, with people's verdict and notes.`}
      </p>
      <div className="max-h-80 overflow-auto">
        <DenseTable columns={["Example", "Trajectory", "Task", "People", "Judge (v1)", "Notes and the judge's reason"]} testId="calibration-items">
          {calibration.map((i) => {
            const x = disagreement.get(i.trajectoryId);
            return (
              <tr key={i.trajectoryId} className={x ? "bg-amber-50/60" : undefined} data-testid={x ? "disagreement" : "calibration-item"}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Use trajectory ${i.trajectoryId} as an example`}
                    checked={chosen.has(i.trajectoryId)}
                    onChange={(ev) => toggle(i.trajectoryId, ev.target.checked)}
                  />
                </td>
                <td>
                  <TrajectoryLink id={i.trajectoryId} />
                </td>
                <td className="max-w-sm text-[12px]">{i.intent}</td>
                <td>{i.human ?? "–"}</td>
                <td className={x ? "text-rose-700" : "text-zinc-500"}>{x ? x.judge : "agrees or not judged"}</td>
                <td className="max-w-md text-[12px] text-zinc-600">
                  {x?.notes.map((n) => (
                    <span key={n} className="block">
                      “{n}”
                    </span>
                  ))}
                  {x?.rationale && <span className="block text-zinc-500">Judge: {x.rationale}</span>}
                </td>
              </tr>
            );
          })}
        </DenseTable>
      </div>
    </div>
  );
}

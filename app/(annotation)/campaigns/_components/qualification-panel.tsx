"use client";
/**
 * A campaign page's qualification phase (researchers): which gold items an annotator answers first, with the known
 * answer and its explanation shown after each, the share of right answers that lets their labels count, and each
 * annotator's result (passed, failed, in progress) with their score. Errors show beside the field they are about.
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import { rightAnswersToPass } from "@/server/domain/annotation/qualification";
import { useTRPC } from "../../../_trpc/client";
import { DenseTable, right } from "../../../_components/table";

type Errors = { items?: string; passAt?: string; form?: string };

const RESULT = {
  passed: { text: "passed", tone: "text-emerald-700" },
  failed: { text: "failed: gets no trajectories", tone: "font-medium text-rose-700" },
  in_progress: { text: "in progress", tone: "text-zinc-600" },
  off: { text: "off", tone: "text-zinc-500" },
} as const;

/** The server's refusal, put beside the field it names (`passAt: …`, `trajectoryIds: …`). */
function errorsFrom(message: string): Errors {
  if (message.startsWith("passAt")) return { passAt: message.replace(/^passAt:\s*/, "") };
  if (message.startsWith("trajectoryIds")) return { items: message.replace(/^trajectoryIds:\s*/, "") };
  return { form: message };
}

export function QualificationPanel({ campaignId }: { campaignId: number }) {
  const trpc = useTRPC();
  const router = useRouter();
  const gold = useQuery(trpc.quality.gold.queryOptions({ campaignId }));
  const q = useQuery(trpc.quality.qualification.queryOptions({ campaignId }));
  const save = useMutation(trpc.quality.setQualification.mutationOptions());
  const [chosen, setChosen] = useState<Set<number> | null>(null);
  const [errors, setErrors] = useState<Errors>({});
  const [saved, setSaved] = useState("");
  // Start from what is stored once it has loaded (and again after each save).
  useEffect(() => {
    if (q.data) setChosen(new Set(q.data.items.map((i) => i.trajectoryId)));
  }, [q.data]);

  if (gold.isPending || q.isPending) return <section className="panel px-4 py-3 text-[12.5px] text-zinc-500">Loading the qualification…</section>;
  if (gold.isError || q.isError)
    return (
      <section className="panel px-4 py-3 text-[12.5px] text-rose-700" role="alert">
        Could not load the qualification: {(gold.error ?? q.error)?.message}
      </section>
    );
  const items = gold.data.items;
  const picked = chosen ?? new Set<number>();
  const on = q.data.passAt !== null;

  const submit = async (passAt: number | null, trajectoryIds: number[]) => {
    setErrors({});
    setSaved("");
    try {
      await save.mutateAsync({ campaignId, passAt, trajectoryIds });
      await Promise.all([q.refetch(), gold.refetch()]);
      setSaved(passAt === null ? "Qualification turned off." : "Qualification saved.");
      router.refresh();
    } catch (e) {
      setErrors(errorsFrom((e as Error).message));
    }
  };
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const text = String(new FormData(e.currentTarget).get("passAt") ?? "").trim();
    const share = Number(text);
    const found: Errors = {};
    if (text === "" || !Number.isFinite(share) || share <= 0 || share > 100) found.passAt = "A share of right answers above 0 and at most 100 %";
    if (picked.size === 0) found.items = "Choose at least one gold item";
    if (found.passAt || found.items) return setErrors(found);
    void submit(share / 100, [...picked]);
  };

  return (
    <section className="panel flex flex-col gap-3 px-4 py-3" data-testid="qualification-panel" aria-labelledby="qualification-title">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 className="section-title" id="qualification-title">
          Qualification
        </h2>
        <span className={`text-[12px] ${on ? "text-emerald-700" : "text-zinc-500"}`} data-testid="qualification-state">
          {on ? `On: ${q.data.items.length} item${q.data.items.length === 1 ? "" : "s"}, pass at ${Math.round(q.data.passAt! * 100)} %` : "Off"}
        </span>
      </div>
      <p className="text-[12.5px] text-zinc-600">
        Annotators answer these gold items first, one at a time, and see the known answer and your explanation (the gold note) after each. Their labels count
        only once they get at least the share below right; an annotator who falls short gets no trajectories and is told to ask you.
      </p>
      <form className="flex flex-col gap-3" onSubmit={onSubmit} noValidate>
        <fieldset className="flex flex-col gap-1" aria-describedby={errors.items ? "qualification-items-error" : undefined}>
          <legend className="mb-1 text-[12px] font-medium text-zinc-700">Gold items to answer first</legend>
          {items.length === 0 && <p className="text-[12.5px] text-zinc-500">No gold items yet: mark some above (Gold items and assignment) first.</p>}
          <div className="grid gap-x-4 gap-y-0.5 sm:grid-cols-2">
            {items.map((g) => (
              <label key={g.itemId} className="flex min-w-0 items-center gap-2 rounded px-1 py-0.5 text-[12.5px] hover:bg-zinc-50">
                <input
                  type="checkbox"
                  checked={picked.has(g.trajectoryId)}
                  onChange={(e) => {
                    const next = new Set(picked);
                    if (e.target.checked) next.add(g.trajectoryId);
                    else next.delete(g.trajectoryId);
                    setChosen(next);
                  }}
                />
                <span className="shrink-0 tabular-nums">#{g.itemNo}</span>
                <span className="truncate" title={g.intent}>
                  {g.taskId}
                </span>
                <span className="shrink-0 text-zinc-500">
                  {g.verdict.replace("_", " ")}
                  {g.category ? ` · ${g.category}` : ""}
                </span>
                {!g.note && (
                  <span className="shrink-0 text-2xs text-amber-700" title="Annotators see the known answer without an explanation">
                    no explanation
                  </span>
                )}
              </label>
            ))}
          </div>
          {errors.items && (
            <p id="qualification-items-error" className="text-[12px] text-rose-700" role="alert">
              {errors.items}
            </p>
          )}
        </fieldset>
        <div className="flex flex-wrap items-start gap-2">
          <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
            Pass at % right
            <input
              name="passAt"
              type="number"
              min={1}
              max={100}
              step={1}
              defaultValue={on ? Math.round(q.data.passAt! * 100) : 80}
              key={q.data.passAt ?? "off"}
              className="field w-24"
              aria-invalid={!!errors.passAt}
              aria-describedby={errors.passAt ? "qualification-pass-error" : undefined}
            />
            {errors.passAt && (
              <span id="qualification-pass-error" className="max-w-56 font-normal text-rose-700" role="alert">
                {errors.passAt}
              </span>
            )}
          </label>
          <button className="btn btn-on mt-5" type="submit" disabled={save.isPending}>
            {on ? "Save qualification" : "Turn qualification on"}
          </button>
          {on && (
            <button className="btn mt-5" type="button" disabled={save.isPending} onClick={() => void submit(null, [])}>
              Turn off
            </button>
          )}
          {saved && (
            <span className="mt-6 text-[12px] text-emerald-700" role="status">
              {saved}
            </span>
          )}
        </div>
        {errors.form && (
          <p className="text-[12px] text-rose-700" role="alert">
            {errors.form}
          </p>
        )}
      </form>
      <QualificationResults annotators={q.data.annotators} on={on} />
    </section>
  );
}

type Standing = { annotatorKey: string; name: string; status: keyof typeof RESULT; items: number; answered: number; correct: number; passAt: number | null };

/** Each annotator's result on the qualification: passed, failed or in progress, with their score and the bar to pass. */
function QualificationResults({ annotators, on }: { annotators: Standing[]; on: boolean }) {
  return (
    <DenseTable columns={["Annotator", "Result", right("Right"), right("Answered"), right("Needed to pass")]} testId="qualification-results">
      {annotators.length === 0 && (
        <tr>
          <td colSpan={5} className="py-3 text-center text-zinc-500">
            {on ? "Nobody has answered a qualification item yet." : "Turn the qualification on to see each annotator's result here."}
          </td>
        </tr>
      )}
      {annotators.map((a) => (
        <tr key={a.annotatorKey}>
          <td>{a.name}</td>
          <td className={RESULT[a.status].tone}>{RESULT[a.status].text}</td>
          <td className="text-right tabular-nums">
            {a.correct} of {a.answered} ({a.answered ? Math.round((a.correct / a.answered) * 100) : 0} %)
          </td>
          <td className="text-right tabular-nums">
            {a.answered} of {a.items}
          </td>
          <td className="text-right tabular-nums">{a.passAt === null ? "–" : `${rightAnswersToPass(a.passAt, a.items)} of ${a.items}`}</td>
        </tr>
      ))}
    </DenseTable>
  );
}

"use client";
/**
 * The labelling page during a campaign's qualification phase: a banner saying where the annotator is in the training
 * ("Training: 2 of 3"), and, once an answer to a training item is stored, its feedback in place of the label form:
 * whether it matched the known answer, the known answer and the researcher's explanation, then Next (Ctrl/Cmd+Enter).
 * After the last item it says whether they passed (the real trajectories begin) or not (whom to ask). The feedback
 * is read from the server with the item (labelling.mine), so a reload shows it again; the answer cannot change.
 */
import { useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { labelCommandForKey } from "@/server/domain/annotation/label-keys";
import { rightAnswersToPass } from "@/server/domain/annotation/qualification";
import { useTRPC } from "../../../_trpc/client";
import type { LabelCampaign, MyLabel } from "./label-panel";

type Outputs = inferRouterOutputs<AppRouter>;
export type MyQualification = Outputs["labelling"]["qualification"];
type Feedback = NonNullable<MyLabel["qualification"]>;

const verdictText = (verdict: string, category: string | null) => `${verdict.replace("_", " ")}${category ? ` · ${category}` : ""}`;

/**
 * The banner above a training item: "Training: x of n" while one is open (x counts the one on screen), and on an
 * answered one "Training: x of n done" (x counts every answer given so far, whichever item is on screen).
 */
export function QualificationBanner({ standing, answeredHere }: { standing: NonNullable<MyQualification>; answeredHere: boolean }) {
  if (standing.status !== "in_progress" && !answeredHere) return null;
  return (
    <div className="mx-3 mt-3 rounded-md border border-sky-200 bg-sky-50 px-2.5 py-2 text-[12.5px] text-sky-900" data-testid="qualification-banner" role="note">
      <div className="font-semibold">
        {answeredHere
          ? `Training: ${standing.answered} of ${standing.items} done`
          : `Training: ${Math.min(standing.items, standing.answered + 1)} of ${standing.items}`}
      </div>
      <div className="text-sky-800">
        Answer as you would any trajectory; after each you see the known answer. Your labels count once you get{" "}
        {standing.passAt === null ? "enough" : `${rightAnswersToPass(standing.passAt, standing.items)} of ${standing.items}`} right.
      </div>
    </div>
  );
}

/** The feedback on a stored training answer, in place of the label form. */
export function QualificationFeedbackPanel({
  campaign,
  mine,
  feedback,
  askName,
}: {
  campaign: LabelCampaign;
  mine: MyLabel;
  feedback: Feedback;
  askName: string | null;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const { standing, expected, correct } = feedback;
  const next = useCallback(async () => {
    if (busy) return;
    setBusy(true);
    setError("");
    await queryClient.invalidateQueries({ queryKey: trpc.labelling.qualification.queryKey({ campaignId: campaign.id }) });
    // The queue page hands out the next training item, the first real one after passing, or says why there is none.
    router.push(`/annotate/${campaign.id}`);
  }, [busy, queryClient, trpc, campaign.id, router]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const cmd = labelCommandForKey(e, e.target as HTMLElement | null, { categories: 0, allowUnsure: false });
      if (cmd?.kind !== "submitAndNext") return;
      e.preventDefault();
      void next().catch((err: unknown) => setError((err as Error).message));
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [next]);

  const mineText = mine.label ? verdictText(mine.label.verdict, mine.label.category) : "–";
  const needed = standing.passAt === null ? standing.items : rightAnswersToPass(standing.passAt, standing.items);
  return (
    <div className="flex flex-col gap-3 px-3 py-3" data-testid="qualification-feedback">
      <div className="section-title">Training feedback</div>
      <p
        className={`rounded-md px-2.5 py-2 text-[13px] font-semibold ${correct ? "bg-emerald-50 text-emerald-800" : "bg-rose-50 text-rose-800"}`}
        data-testid="qualification-match"
      >
        {correct ? "✓ Your answer matches the known answer." : "✗ Your answer differs from the known answer."}
      </p>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-[12.5px]">
        <dt className="text-zinc-500">Your answer</dt>
        <dd>{mineText}</dd>
        <dt className="text-zinc-500">Known answer</dt>
        <dd className="font-medium" data-testid="qualification-known">
          {verdictText(expected.verdict, expected.category)}
        </dd>
      </dl>
      <div className="text-[12.5px]">
        <div className="text-zinc-500">Why</div>
        <p className="whitespace-pre-wrap text-zinc-800" data-testid="qualification-explanation">
          {expected.note ?? "The researcher gave no explanation for this one."}
        </p>
      </div>
      <p className="text-[12px] text-zinc-600">
        {standing.correct} of {standing.answered} right so far; {needed} of {standing.items} needed to pass.
      </p>
      {standing.status === "passed" && (
        <p
          className="rounded-md border border-emerald-300 bg-emerald-50 px-2.5 py-2 text-[12.5px] text-emerald-900"
          role="status"
          data-testid="qualification-passed"
        >
          <strong>Training passed</strong> ({standing.correct} of {standing.items} right). Your labels now count: the real trajectories begin next.
        </p>
      )}
      {standing.status === "failed" ? (
        <div className="rounded-md border border-rose-300 bg-rose-50 px-2.5 py-2 text-[12.5px] text-rose-900" role="alert" data-testid="qualification-failed">
          <strong>Training not passed</strong> ({standing.correct} of {standing.items} right, {needed} needed). You get no trajectories in this campaign and
          your labels do not count. Ask {askName ? <strong>{askName}</strong> : "the researcher who runs the campaign"} to go through your answers with you.
        </div>
      ) : (
        <button
          type="button"
          className="btn btn-on h-9 justify-center text-[13px]"
          disabled={busy}
          onClick={() => void next()}
          data-testid="qualification-next"
        >
          {standing.status === "passed" ? "Start labelling" : "Next"} <kbd className="kbd">Ctrl</kbd>
          <kbd className="kbd">Enter</kbd>
        </button>
      )}
      {error && (
        <p className="text-[12px] text-rose-700" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

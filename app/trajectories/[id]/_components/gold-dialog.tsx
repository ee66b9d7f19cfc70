"use client";
/**
 * "Mark gold" from the player (researchers): the campaigns this trajectory is an item of, and for the chosen one the
 * gold form asking what its protocol asks, with the failure point starting on the step on screen. Opened from the
 * player's header, or by `?gold=1` (the trajectory list's "Mark gold…").
 */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { lazy, Suspense, useCallback, useState, type ReactNode } from "react";
import { Dialog } from "../../../_components/dialog";
import { useTRPC } from "../../../_trpc/client";

// The gold form (its protocol's questions, the guidelines) loads when the dialog opens: the player's viewers
// rarely mark gold, and it was about 10 kB of script on every opening of the player.
const GoldForm = lazy(() => import("../../../(annotation)/campaigns/_components/gold-form").then((m) => ({ default: m.GoldForm })));

/** Who may mark gold: absent for viewers who may not; "open" starts with the dialog open. */
export type GoldAccess = "closed" | "open";

/** The header's "Gold…" action (absent when the viewer may not mark gold, or plays a blind item) and its dialog. */
export function useGoldDialog(access: GoldAccess | undefined, trajectoryId: number, step: number): { open?: () => void; dialog: ReactNode } {
  const [shown, setShown] = useState(access === "open");
  const open = useCallback(() => setShown(true), []);
  const allowed = !!access && trajectoryId !== 0;
  return {
    open: allowed ? open : undefined,
    dialog: allowed && shown ? <GoldDialog trajectoryId={trajectoryId} step={step} onClose={() => setShown(false)} /> : null,
  };
}

export function GoldDialog({ trajectoryId, step, onClose }: { trajectoryId: number; step: number; onClose: () => void }) {
  const trpc = useTRPC();
  const choices = useQuery(trpc.quality.goldChoices.queryOptions({ trajectoryId }));
  const [chosen, setChosen] = useState<number | null>(null);
  const campaigns = choices.data?.campaigns ?? [];
  const campaign = campaigns.find((c) => c.id === chosen) ?? campaigns[0];
  return (
    <Dialog title={`Mark trajectory #${trajectoryId} as gold`} width="xl" testId="gold-dialog" onClose={onClose}>
      {choices.isPending ? (
        <p className="text-[12px] text-zinc-500">Loading campaigns…</p>
      ) : choices.isError ? (
        <p className="text-[12px] text-rose-700" role="alert">
          {choices.error.message}
        </p>
      ) : !campaign ? (
        <p className="text-[12px] text-zinc-600" data-testid="gold-no-campaign">
          This trajectory is in no campaign yet. Gold answers belong to a campaign:{" "}
          <Link className="link" href={`/campaigns/new?ids=${trajectoryId}`}>
            start a campaign with it
          </Link>{" "}
          or add it to one first.
        </p>
      ) : (
        <>
          <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
            Campaign
            <select className="field h-8" value={campaign.id} onChange={(e) => setChosen(Number(e.target.value))}>
              {campaigns.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name} (item #{c.itemNo}){c.gold ? ` · gold: ${c.gold.verdict.replace("_", " ")}` : ""}
                </option>
              ))}
            </select>
          </label>
          {campaign.gold && (
            <p className="text-2xs text-zinc-500">
              Already gold here ({campaign.gold.verdict.replace("_", " ")}
              {campaign.gold.firstFailingStep !== null ? `, from step ${campaign.gold.firstFailingStep + 1}` : ""}); marking again replaces the answer.
            </p>
          )}
          <Suspense fallback={<p className="text-[12px] text-zinc-500">Loading the form…</p>}>
            <GoldForm
              key={campaign.id}
              campaignId={campaign.id}
              schema={campaign.schema}
              trajectoryId={trajectoryId}
              stepCount={choices.data.stepCount}
              initialStep={step}
              onMarked={() => choices.refetch()}
            />
          </Suspense>
          <Link className="link text-2xs" href={`/campaigns/${campaign.id}`}>
            This campaign&apos;s gold items and annotators&apos; accuracy →
          </Link>
        </>
      )}
    </Dialog>
  );
}

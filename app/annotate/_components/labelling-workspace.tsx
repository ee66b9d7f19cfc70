"use client";
/**
 * The labelling page's client side: the trajectory player with the label panel first in its right column.
 */
import { useSuspenseQuery } from "@tanstack/react-query";
import { TrajectoryPlayer } from "../../trajectories/[id]/_components/player";
import { useTRPC } from "../../_trpc/client";
import { LabelPanel } from "./label-panel";

export function LabellingWorkspace({ campaignId, trajectoryId }: { campaignId: number; trajectoryId: number }) {
  const trpc = useTRPC();
  const { data: campaign } = useSuspenseQuery(trpc.labelling.campaign.queryOptions({ id: campaignId }));
  const { data: mine } = useSuspenseQuery(trpc.labelling.mine.queryOptions({ campaignId, trajectoryId }));
  return (
    <TrajectoryPlayer
      id={trajectoryId}
      initialStep={1}
      sidePanelFirst
      // Back to the queue the annotator works from, not the trajectory list.
      back={{ href: `/annotate/${campaignId}`, label: campaign.name }}
      sidePanel={(p) => (
        // Keyed by trajectory so moving to the next one starts a fresh form, timer and steps-viewed set.
        <LabelPanel key={`${campaignId}:${trajectoryId}`} campaign={campaign} trajectoryId={trajectoryId} mine={mine} current={p.current} count={p.count} go={p.go} />
      )}
    />
  );
}

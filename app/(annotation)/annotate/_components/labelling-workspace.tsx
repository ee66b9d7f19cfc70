"use client";
/**
 * The labelling page's client side: the trajectory player with the label panel first in its right column.
 */
import { useSuspenseQuery } from "@tanstack/react-query";
import { TrajectoryPlayer } from "../../../trajectories/[id]/_components/player";
import { useTRPC } from "../../../_trpc/client";
import { LabelPanel } from "./label-panel";
import { RevealPanel } from "./reveal-panel";

export function LabellingWorkspace({ campaignId, itemNo, initialStep = 1 }: { campaignId: number; itemNo: number; initialStep?: number }) {
  const trpc = useTRPC();
  const { data: campaign } = useSuspenseQuery(trpc.labelling.campaign.queryOptions({ id: campaignId }));
  const { data: mine } = useSuspenseQuery(trpc.labelling.mine.queryOptions({ campaignId, itemNo }));
  return (
    <TrajectoryPlayer
      source={{ campaignId, itemNo }}
      initialStep={initialStep}
      sidePanelFirst
      // Back to the queue the annotator works from, not the trajectory list.
      back={{ href: `/annotate/${campaignId}`, label: campaign.name }}
      sidePanel={(p) =>
        // A reveal campaign shows its evaluator once the blind label is in (never before: the server refuses it).
        campaign.reveal && mine.label && campaign.isAnnotator ? (
          <RevealPanel key={`reveal:${campaignId}:${itemNo}`} campaign={campaign} itemNo={itemNo} mine={mine} current={p.current} count={p.count} go={p.go} />
        ) : (
          // Keyed by item so moving to the next one starts a fresh form, timer and steps-viewed set.
          <LabelPanel key={`${campaignId}:${itemNo}`} campaign={campaign} itemNo={itemNo} mine={mine} current={p.current} count={p.count} go={p.go} />
        )
      }
    />
  );
}

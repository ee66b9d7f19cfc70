import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requirePageUser } from "../../../_lib/session";
import { getQueryClient, HydrateClient, orNotFound, trpc } from "../../../_trpc/server";
import { LabellingWorkspace } from "../../_components/labelling-workspace";

export const metadata: Metadata = { title: "Label" };

type Props = { params: Promise<{ campaignId: string; trajectoryId: string }> };

function parseId(raw: string): number | null {
  return /^\d{1,12}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
}

export default async function LabelPage({ params }: Props) {
  await requirePageUser();
  const p = await params;
  const campaignId = parseId(p.campaignId);
  const trajectoryId = parseId(p.trajectoryId);
  if (campaignId === null || trajectoryId === null) notFound();
  const qc = getQueryClient();
  // Resolved on the server so a trajectory outside the campaign is a 404, then handed to the client cache.
  await orNotFound(qc.fetchQuery(trpc.labelling.mine.queryOptions({ campaignId, trajectoryId })));
  await Promise.all([
    orNotFound(qc.fetchQuery(trpc.labelling.campaign.queryOptions({ id: campaignId }))),
    orNotFound(qc.fetchQuery(trpc.trajectories.byId.queryOptions({ id: trajectoryId }))),
  ]);
  return (
    <HydrateClient>
      <LabellingWorkspace key={`${campaignId}:${trajectoryId}`} campaignId={campaignId} trajectoryId={trajectoryId} />
    </HydrateClient>
  );
}

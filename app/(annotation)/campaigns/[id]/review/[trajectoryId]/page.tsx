import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requirePageRole } from "../../../../../_lib/session";
import { getQueryClient, HydrateClient, orNotFound, trpc } from "../../../../../_trpc/server";
import { ResearchersOnly } from "../../../_components/forbidden";
import { ReviewWorkspace } from "../../../_components/review-workspace";

export const metadata: Metadata = { title: "Adjudicate" };

type Props = { params: Promise<{ id: string; trajectoryId: string }> };

export default async function ReviewPage({ params }: Props) {
  const { allowed } = await requirePageRole("researcher");
  if (!allowed) return <ResearchersOnly />;
  const p = await params;
  if (!/^\d{1,9}$/.test(p.id) || !/^\d{1,12}$/.test(p.trajectoryId)) notFound();
  const id = Number(p.id);
  const trajectoryId = Number(p.trajectoryId);
  const qc = getQueryClient();
  await orNotFound(qc.fetchQuery(trpc.campaigns.review.queryOptions({ id, trajectoryId })));
  await orNotFound(qc.fetchQuery(trpc.trajectories.byId.queryOptions({ id: trajectoryId })));
  return (
    <HydrateClient>
      <ReviewWorkspace key={`${id}:${trajectoryId}`} campaignId={id} trajectoryId={trajectoryId} />
    </HydrateClient>
  );
}

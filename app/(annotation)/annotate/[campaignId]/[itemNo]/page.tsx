import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { STEP_WINDOW, windowStart } from "@/server/domain/player/paging";
import { requirePageUser } from "../../../../_lib/session";
import { getQueryClient, HydrateClient, orNotFound, trpc } from "../../../../_trpc/server";
import { LabellingItems } from "../../_components/labelling-workspace";
import { PairwiseWorkspace } from "../../_components/pairwise-workspace";

export const metadata: Metadata = { title: "Label" };

/** `/annotate/<campaign>/<item number>`: annotators address items by their campaign-local number, never by trajectory id. */
type Props = { params: Promise<{ campaignId: string; itemNo: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

function parseId(raw: string): number | null {
  return /^\d{1,12}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
}

export default async function LabelPage({ params, searchParams }: Props) {
  await requirePageUser();
  const p = await params;
  const campaignId = parseId(p.campaignId);
  const itemNo = parseId(p.itemNo);
  if (campaignId === null || itemNo === null) notFound();
  const qc = getQueryClient();
  const campaign = await orNotFound(qc.fetchQuery(trpc.labelling.campaign.queryOptions({ id: campaignId })));
  if (campaign.kind === "pairwise") {
    // A pair: two attempts side by side, answered left / right / tie / both fail (never named by agent or A/B).
    await Promise.all([
      orNotFound(qc.fetchQuery(trpc.pairwise.item.queryOptions({ campaignId, itemNo }))),
      qc.fetchQuery(trpc.pairwise.campaign.queryOptions({ campaignId })),
    ]);
    return (
      <HydrateClient>
        <PairwiseWorkspace key={`${campaignId}:${itemNo}`} campaignId={campaignId} itemNo={itemNo} />
      </HydrateClient>
    );
  }
  // Resolved on the server so an item number outside the campaign is a 404, then handed to the client cache.
  await orNotFound(qc.fetchQuery(trpc.labelling.mine.queryOptions({ campaignId, itemNo })));
  const [item] = await Promise.all([
    orNotFound(qc.fetchQuery(trpc.labelling.item.queryOptions({ campaignId, itemNo }))),
    // The training banner's standing (null without a qualification), so it shows with the page, not after it.
    qc.prefetchQuery(trpc.labelling.qualification.queryOptions({ campaignId })),
  ]);
  // The step is kept in the address (?step=N) as in the researchers' player, so a reload or a link reopens it.
  const sp = await searchParams;
  const raw = sp.step;
  const step = Number(Array.isArray(raw) ? raw[0] : raw);
  const initialStep = Number.isInteger(step) && step > 0 ? Math.min(step, Math.max(1, item.trajectory.stepCount)) : 1;
  if (initialStep > STEP_WINDOW) await qc.fetchQuery(trpc.labelling.itemSteps.queryOptions({ campaignId, itemNo, from: windowStart(initialStep - 1) }));
  return (
    <HydrateClient>
      <LabellingItems campaignId={campaignId} itemNo={itemNo} initialStep={initialStep} commentsOpen={sp.panel === "comments"} />
    </HydrateClient>
  );
}

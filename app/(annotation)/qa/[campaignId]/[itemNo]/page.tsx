import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requirePageUser } from "../../../../_lib/session";
import { getQueryClient, HydrateClient, orNotFound, trpc } from "../../../../_trpc/server";
import { QaWorkspace } from "../../_components/qa-workspace";

export const metadata: Metadata = { title: "QA review" };

type Props = { params: Promise<{ campaignId: string; itemNo: string }> };

function parseId(raw: string): number | null {
  return /^\d{1,12}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
}

/** `/qa/<campaign>/<item number>`: one item's QA review, addressed by number like the labelling page. */
export default async function QaItemPage({ params }: Props) {
  await requirePageUser();
  const p = await params;
  const campaignId = parseId(p.campaignId);
  const itemNo = parseId(p.itemNo);
  if (campaignId === null || itemNo === null) notFound();
  const qc = getQueryClient();
  // Checked on the server (QA reviewer of this campaign, item out of labelling, blind rule) before anything renders.
  await orNotFound(qc.fetchQuery(trpc.qa.item.queryOptions({ campaignId, itemNo })));
  await orNotFound(qc.fetchQuery(trpc.qa.trajectory.queryOptions({ campaignId, itemNo })));
  return (
    <HydrateClient>
      <QaWorkspace key={`${campaignId}:${itemNo}`} campaignId={campaignId} itemNo={itemNo} />
    </HydrateClient>
  );
}

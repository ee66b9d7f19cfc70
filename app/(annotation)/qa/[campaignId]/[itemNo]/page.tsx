import type { Metadata } from "next";
import { requirePageUser } from "../../../../_lib/session";
import { getQueryClient, HydrateClient, orNotFound, pageIds, trpc } from "../../../../_trpc/server";
import { QaWorkspace } from "../../_components/qa-workspace";

export const metadata: Metadata = { title: "QA review" };

type Props = { params: Promise<{ campaignId: string; itemNo: string }> };

/** `/qa/<campaign>/<item number>`: one item's QA review, addressed by number like the labelling page. */
export default async function QaItemPage({ params }: Props) {
  await requirePageUser();
  const { campaignId, itemNo } = pageIds(await params);
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

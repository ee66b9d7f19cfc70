import type { Metadata } from "next";
import { JudgesPageHeader } from "../_components/judges-header";
import { getQueryClient, HydrateClient, trpc } from "../../../_trpc/server";
import { AlignmentCreate } from "../_components/alignment-create";
import { AlignmentList } from "../_components/alignment-list";

export const metadata: Metadata = { title: "Aligning judges" };

export default async function AlignmentStudiesPage() {
  const queryClient = getQueryClient();
  await Promise.all([
    queryClient.prefetchQuery(trpc.judge.alignment.list.queryOptions()),
    queryClient.prefetchQuery(trpc.judge.configs.list.queryOptions()),
    queryClient.prefetchQuery(trpc.campaigns.list.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <JudgesPageHeader
        title="Aligning judges"
        subtitle="Make a judge agree better with people: versions of its prompt learn from a calibration part and are measured on a held-out part"
      />
      <div className="flex flex-col gap-4 px-6 py-4">
        <AlignmentList />
        <AlignmentCreate />
      </div>
    </HydrateClient>
  );
}

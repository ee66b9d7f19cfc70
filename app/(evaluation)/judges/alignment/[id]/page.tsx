import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getQueryClient, HydrateClient, orNotFound, trpc } from "../../../../_trpc/server";
import { AlignmentStudyView } from "../../_components/alignment-study";
import { parseId } from "../../_lib/improvement";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const id = parseId((await params).id);
  return { title: id ? `Alignment study ${id}` : "Alignment study" };
}

export default async function AlignmentStudyPage({ params }: Props) {
  const id = parseId((await params).id);
  if (id === null) notFound();
  const queryClient = getQueryClient();
  await orNotFound(queryClient.fetchQuery(trpc.judge.alignment.versions.queryOptions({ id })));
  await Promise.all([
    queryClient.prefetchQuery(trpc.judge.alignment.splitItems.queryOptions({ id })),
    queryClient.prefetchQuery(trpc.judge.alignment.disagreements.queryOptions({ id })),
  ]);
  return (
    <HydrateClient>
      <AlignmentStudyView id={id} />
    </HydrateClient>
  );
}

import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getQueryClient, HydrateClient, orNotFound, trpc } from "../../../../_trpc/server";
import { BatchProgressView } from "../../_components/batch-progress";

type Props = { params: Promise<{ id: string }> };

function parseId(raw: string): number | null {
  return /^\d{1,12}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const id = parseId((await params).id);
  return { title: id ? `Judge batch ${id}` : "Judge batch" };
}

export default async function JudgeBatchPage({ params }: Props) {
  const id = parseId((await params).id);
  if (id === null) notFound();
  const queryClient = getQueryClient();
  await orNotFound(queryClient.fetchQuery(trpc.judge.batches.progress.queryOptions({ id })));
  await queryClient.prefetchQuery(trpc.judge.configs.list.queryOptions());
  return (
    <HydrateClient>
      <BatchProgressView id={id} />
    </HydrateClient>
  );
}

import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getQueryClient, HydrateClient, orNotFound, trpc } from "../../_trpc/server";
import { LiveRunView } from "../_components/live-run-view";

type Props = { params: Promise<{ id: string }> };

function parseId(raw: string): number | null {
  return /^\d{1,12}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const id = parseId((await params).id);
  return { title: id ? `Live run ${id}` : "Live run" };
}

export default async function LiveRunPage({ params }: Props) {
  const id = parseId((await params).id);
  if (id === null) notFound();
  await orNotFound(getQueryClient().fetchQuery(trpc.liveRuns.byId.queryOptions({ id })));
  return (
    <HydrateClient>
      <LiveRunView id={id} />
    </HydrateClient>
  );
}

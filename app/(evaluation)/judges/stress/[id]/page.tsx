import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getQueryClient, HydrateClient, orNotFound, trpc } from "../../../../_trpc/server";
import { StressReportView } from "../../_components/stress-report";
import { parseId } from "../../_lib/improvement";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const id = parseId((await params).id);
  return { title: id ? `Stress test ${id}` : "Stress test" };
}

export default async function StressTestPage({ params }: Props) {
  const id = parseId((await params).id);
  if (id === null) notFound();
  await orNotFound(getQueryClient().fetchQuery(trpc.judge.stress.report.queryOptions({ id })));
  return (
    <HydrateClient>
      <StressReportView id={id} />
    </HydrateClient>
  );
}

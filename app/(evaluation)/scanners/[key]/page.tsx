import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getQueryClient, HydrateClient, orNotFound, trpc } from "../../../_trpc/server";
import { ScannerDetailView } from "../_components/scanner-detail";

type Props = { params: Promise<{ key: string }> };

function parseKey(raw: string): string | null {
  return /^[a-z][a-z0-9_]{1,39}$/.test(raw) ? raw : null;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const key = parseKey((await params).key);
  return { title: key ? `Scanner ${key}` : "Scanner" };
}

export default async function ScannerPage({ params }: Props) {
  const key = parseKey((await params).key);
  if (key === null) notFound();
  const queryClient = getQueryClient();
  await orNotFound(queryClient.fetchQuery(trpc.scanners.detail.queryOptions({ key })));
  return (
    <HydrateClient>
      <ScannerDetailView scannerKey={key} />
    </HydrateClient>
  );
}

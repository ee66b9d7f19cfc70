import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "../_components/ui";
import { HydrateClient, getQueryClient, trpc } from "../_trpc/server";
import { LiveRunList } from "./_components/live-run-list";

export const metadata: Metadata = { title: "Live runs" };

export default async function LiveRunsPage() {
  await getQueryClient().prefetchQuery(trpc.liveRuns.list.queryOptions());
  return (
    <HydrateClient>
      <PageHeader
        title="Live runs"
        subtitle="Agents run by Verdict's own runner in Chromium; steps arrive here as they are recorded"
        actions={
          <Link href="/live/new" className="btn btn-on" data-testid="new-run">
            New run
          </Link>
        }
      />
      <LiveRunList />
    </HydrateClient>
  );
}

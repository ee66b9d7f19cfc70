import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "../_components/ui";
import { requirePageRole } from "../_lib/session";
import { HydrateClient, getQueryClient, trpc } from "../_trpc/server";
import { LiveRunList } from "./_components/live-run-list";

export const metadata: Metadata = { title: "Live runs" };

export default async function LiveRunsPage() {
  await getQueryClient().prefetchQuery(trpc.liveRuns.list.queryOptions());
  const admin = (await requirePageRole("admin")).allowed;
  return (
    <HydrateClient>
      <PageHeader
        title="Live runs"
        subtitle="Agents run by Verdict's own runner in Chromium; steps arrive here as they are recorded"
        actions={
          <>
            {admin && (
              <Link href="/live/deployments" className="btn" data-testid="deployments">
                Deployments
              </Link>
            )}
            <Link href="/live/new" className="btn btn-on" data-testid="new-run">
              New run
            </Link>
          </>
        }
      />
      <LiveRunList />
    </HydrateClient>
  );
}

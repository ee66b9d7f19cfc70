import type { Metadata } from "next";
import Link from "next/link";
import { JudgesPageHeader } from "../_components/judges-header";
import { getQueryClient, HydrateClient, trpc } from "../../../_trpc/server";
import { StressList } from "../_components/stress-list";

export const metadata: Metadata = { title: "Stress tests" };

export default async function StressTestsPage() {
  await getQueryClient().prefetchQuery(trpc.judge.stress.list.queryOptions());
  return (
    <HydrateClient>
      <JudgesPageHeader
        title="Stress tests"
        subtitle="How much a judge's verdicts depend on what it is shown: screenshot order, which screenshots, the agent's answer, the action history"
        actions={
          <Link href="/judges/stress/new" className="btn btn-on" data-testid="new-stress-test">
            New stress test
          </Link>
        }
      />
      <div className="flex flex-col gap-4 px-6 py-4">
        <StressList />
      </div>
    </HydrateClient>
  );
}

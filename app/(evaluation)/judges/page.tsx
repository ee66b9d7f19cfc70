import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "../../_components/ui";
import { getQueryClient, HydrateClient, trpc } from "../../_trpc/server";
import { BatchList } from "./_components/batch-list";
import { JudgeConfigs } from "./_components/judge-configs";

export const metadata: Metadata = { title: "Judges" };

export default async function JudgesPage() {
  const queryClient = getQueryClient();
  await Promise.all([queryClient.prefetchQuery(trpc.judge.configs.list.queryOptions()), queryClient.prefetchQuery(trpc.judge.batches.list.queryOptions())]);
  return (
    <HydrateClient>
      <PageHeader
        title="Judges"
        subtitle="Model judges that grade trajectories: their configurations and the batches they ran"
        actions={
          <>
            <Link href="/judges/stress" className="btn" data-testid="stress-tests-link">
              Stress tests
            </Link>
            <Link href="/judges/alignment" className="btn" data-testid="alignment-link">
              Aligning judges
            </Link>
            <Link href="/judges/batch" className="btn btn-on" data-testid="new-batch">
              New batch
            </Link>
          </>
        }
      />
      <div className="flex flex-col gap-4 px-6 py-4">
        <JudgeConfigs />
        <BatchList />
      </div>
    </HydrateClient>
  );
}

import type { Metadata } from "next";
import { LinkButtons, PageHeader } from "../../_components/ui";
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
          <LinkButtons
            links={[
              { href: "/judges/stress", label: "Stress tests", testId: "stress-tests-link" },
              { href: "/judges/alignment", label: "Aligning judges", testId: "alignment-link" },
              { href: "/judges/batch", label: "New batch", testId: "new-batch", on: true },
            ]}
          />
        }
      />
      <div className="flex flex-col gap-4 px-6 py-4">
        <JudgeConfigs />
        <BatchList />
      </div>
    </HydrateClient>
  );
}

import type { Metadata } from "next";
import { PageHeader } from "../../../../_components/ui";
import { getQueryClient, HydrateClient, trpc } from "../../../../_trpc/server";
import { StressForm } from "../../_components/stress-form";

export const metadata: Metadata = { title: "New stress test" };

export default async function NewStressTestPage() {
  const queryClient = getQueryClient();
  await Promise.all([queryClient.prefetchQuery(trpc.judge.configs.list.queryOptions()), queryClient.prefetchQuery(trpc.campaigns.list.queryOptions())]);
  return (
    <HydrateClient>
      <PageHeader
        crumbs={[
          { href: "/judges", label: "Judges" },
          { href: "/judges/stress", label: "Stress tests" },
        ]}
        title="New stress test"
        subtitle="Ask a judge about a labelled campaign again, with what it is shown changed one way at a time; a dry run shows calls and cost first"
      />
      <StressForm />
    </HydrateClient>
  );
}

import type { Metadata } from "next";
import { PageHeader } from "../../_components/ui";
import { getQueryClient, HydrateClient, trpc } from "../../_trpc/server";
import { RulesWorkspace } from "./_components/rules-workspace";

export const metadata: Metadata = { title: "Automation rules" };

export default async function RulesPage() {
  const queryClient = getQueryClient();
  // A researcher labelling blind is refused the list: the prefetch keeps the refusal and the page says it in words.
  await queryClient.prefetchQuery(trpc.automation.list.queryOptions());
  return (
    <HydrateClient>
      <PageHeader
        title="Automation rules"
        subtitle="New trajectories that match a rule's filter, as they arrive from an import, the push API or a live run, join a campaign or a judge batch"
      />
      <RulesWorkspace />
    </HydrateClient>
  );
}

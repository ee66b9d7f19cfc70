import type { Metadata } from "next";
import { JudgesPageHeader } from "../../_components/judges-header";
import { api, getQueryClient, HydrateClient, trpc } from "../../../../_trpc/server";
import { StressForm, type StressPreset } from "../../_components/stress-form";

export const metadata: Metadata = { title: "New stress test" };

const whole = (v: string | string[] | undefined) => (typeof v === "string" && /^\d+$/.test(v) ? Number(v) : undefined);

/**
 * `?study=ID&version=N` (the alignment versions view's "Stress this version"): the form opens on the study's judge
 * configuration, campaign and k, asking with that prompt version (version 1 is the configuration's own prompt).
 */
async function presetOf(sp: Record<string, string | string[] | undefined>): Promise<StressPreset | undefined> {
  const study = whole(sp.study);
  const number = whole(sp.version);
  if (study === undefined) return undefined;
  const view = await (await api()).judge.alignment.versions({ id: study });
  const version = view.versions.find((v) => v.version.number === (number ?? 1))?.version;
  const a = view.alignment;
  return {
    configId: a.judgeConfigId,
    campaignId: a.campaignId,
    k: a.k,
    promptVersion: version && version.number > 1 ? { id: version.id, label: `v${version.number} of the alignment study ${a.name}` } : null,
  };
}

export default async function NewStressTestPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const queryClient = getQueryClient();
  const [preset] = await Promise.all([
    presetOf(await searchParams),
    queryClient.prefetchQuery(trpc.judge.configs.list.queryOptions()),
    queryClient.prefetchQuery(trpc.campaigns.list.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <JudgesPageHeader
        crumbs={[{ href: "/judges/stress", label: "Stress tests" }]}
        title="New stress test"
        subtitle="Ask a judge about a labelled campaign again, with what it is shown changed one way at a time; a dry run shows calls and cost first"
      />
      <StressForm preset={preset} />
    </HydrateClient>
  );
}

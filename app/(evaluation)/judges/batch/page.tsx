import type { Metadata } from "next";
import { activeFilterCount, parseTrajectoryListParams, trajectoryListSearch } from "@/server/domain/trajectory-list-query";
import { JudgesPageHeader } from "../_components/judges-header";
import { getQueryClient, HydrateClient, trpc } from "../../../_trpc/server";
import { BatchForm } from "../_components/batch-form";

export const metadata: Metadata = { title: "New judge batch" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * The batch form. The trajectory list's "Judge these" links here with its filters in the address (same parameter
 * names as /trajectories); `config` preselects a configuration.
 */
export default async function NewBatchPage({ searchParams }: Props) {
  const sp = await searchParams;
  const { sort: _sort, dir: _dir, page: _page, pageSize: _size, ...filter } = parseTrajectoryListParams(sp);
  const configParam = Number(Array.isArray(sp.config) ? sp.config[0] : sp.config);
  await getQueryClient().prefetchQuery(trpc.judge.configs.list.queryOptions());
  const filterCount = activeFilterCount({ ...filter, sort: "id", dir: "desc", page: 1, pageSize: 50 });
  return (
    <HydrateClient>
      <JudgesPageHeader
        title="New judge batch"
        subtitle="Grade the trajectories a list filter selects with one configuration, for each k value; a dry run shows calls, images, tokens and cost first"
      />
      <BatchForm
        filter={Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined))}
        filterSearch={trajectoryListSearch(filter)}
        filterCount={filterCount}
        initialConfigId={Number.isInteger(configParam) && configParam > 0 ? configParam : null}
      />
    </HydrateClient>
  );
}

import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { hasRole } from "@/server/auth/roles";
import { parseTrajectoryListParams, trajectoryListSearch, activeFilterCount } from "@/server/domain/trajectory-list-query";
import { EmptyState, formatCount, PageHeader, Pagination } from "../_components/ui";
import { currentUser } from "../_lib/session";
import { api } from "../_trpc/server";
import { FilterBar } from "./_components/filter-bar";
import { TrajectoryListLoading } from "./_components/list-loading";
import { TrajectoryTable } from "./_components/trajectory-table";

export const metadata: Metadata = { title: "Trajectories" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default function TrajectoriesPage(props: Props) {
  return (
    <Suspense fallback={<TrajectoryListLoading />}>
      <TrajectoryList {...props} />
    </Suspense>
  );
}

async function TrajectoryList({ searchParams }: Props) {
  const query = parseTrajectoryListParams(await searchParams);
  const caller = await api();
  const [list, options] = await Promise.all([caller.trajectories.list(query), caller.trajectories.filterOptions()]);
  const nothingImported = list.total === 0 && activeFilterCount(query) === 0;
  const user = await currentUser();
  const { sort: _sort, dir: _dir, page: _page, pageSize: _size, ...filters } = query;

  return (
    <>
      <PageHeader
        title="Trajectories"
        actions={
          user && hasRole(user, "researcher") && list.total > 0 ? (
            <>
              <Link className="btn" href={`/judges/batch${trajectoryListSearch(filters)}`} title="A judge batch over every trajectory these filters select" data-testid="judge-these">
                Judge these
              </Link>
              <Link className="btn" href={`/campaigns/new${trajectoryListSearch(filters)}`} title="A labelling campaign over every trajectory these filters select">
                New campaign from these filters
              </Link>
            </>
          ) : undefined
        }
        subtitle={
          nothingImported
            ? "Nothing imported yet"
            : `${formatCount(list.total)} trajector${list.total === 1 ? "y" : "ies"}${activeFilterCount(query) ? " match the filters" : ""}${
                query.ids ? ` (limited to ${formatCount(query.ids.length)} chosen trajector${query.ids.length === 1 ? "y" : "ies"})` : ""
              }`
        }
      />
      {nothingImported ? (
        <EmptyState title="No trajectories yet" command={"npm run cli -- import <path>\n# or record the bundled demo data:\nnpm run cli -- demo"}>
          Import agent output (WebVoyager result folders, VisualWebArena renders, Verdict bundles…) with the CLI, then reload this page.
        </EmptyState>
      ) : (
        <div className="flex min-h-0 flex-1 flex-col gap-3 px-6 py-3">
          <FilterBar query={query} options={options} />
          <div className="panel overflow-x-auto">
            {list.rows.length ? (
              <TrajectoryTable rows={list.rows} query={query} />
            ) : (
              <p className="px-4 py-10 text-center text-zinc-500">
                No trajectory matches these filters{query.page > 1 && list.total > 0 ? " on this page" : ""}.
              </p>
            )}
          </div>
          <Pagination
            page={query.page}
            pageCount={list.pageCount}
            total={list.total}
            pageSize={query.pageSize}
            href={(p) => `/trajectories${trajectoryListSearch({ ...query, page: p })}`}
          />
        </div>
      )}
    </>
  );
}

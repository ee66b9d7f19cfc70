import type { Metadata } from "next";
import Link from "next/link";
import { forbidden } from "next/navigation";
import { Suspense } from "react";
import { TRPCError } from "@trpc/server";
import { hasRole } from "@/server/domain/access/actor";
import { activeFilterCount, evaluatorLabel, parseTrajectoryListParams, trajectoryListSearch, usesTriage } from "@/server/domain/trajectory-list-query";
import { EmptyState, formatCount, LinkButtons, PageHeader, Pagination } from "../_components/ui";
import { currentUser } from "../_lib/session";
import { api, orNotFound } from "../_trpc/server";
import { BehaviourSearch } from "./_components/behaviour-search";
import { FilterBar } from "./_components/filter-bar";
import { ReportButton } from "../_components/report-dialog";
import { TrajectoryListLoading } from "./_components/list-loading";
import { TrajectoryTable } from "./_components/trajectory-table";

export const metadata: Metadata = { title: "Trajectories" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function TrajectoriesPage(props: Props) {
  // Triage shows labels and verdicts: an annotator's link with triage filters is a 403 (decided before the list
  // streams, so the status is real); the API refuses them too, and researchers labelling blind.
  const query = parseTrajectoryListParams(await props.searchParams);
  if (usesTriage(query) || query.sample !== undefined) {
    const user = await currentUser();
    if (!user || !hasRole(user, "researcher")) forbidden();
  }
  return (
    <Suspense fallback={<TrajectoryListLoading />}>
      <TrajectoryList {...props} />
    </Suspense>
  );
}

type Caller = Awaited<ReturnType<typeof api>>;

/**
 * The list for the query; a behaviour search the server cannot read (syntax) or will not run for this viewer
 * (judges' verdicts for an annotator) comes back as its message, with the list's figures without the search.
 */
async function listWithSearch(caller: Caller, query: ReturnType<typeof parseTrajectoryListParams>) {
  try {
    return { list: await caller.trajectories.list(query), searchError: undefined };
  } catch (e) {
    const searchProblem = !!query.search && e instanceof TRPCError && (e.code === "BAD_REQUEST" || e.code === "FORBIDDEN") && e.message.startsWith("search: ");
    if (!searchProblem) return { list: await orNotFound(Promise.reject(e as Error)), searchError: undefined };
    const list = await orNotFound(caller.trajectories.list({ ...query, search: undefined, sort: query.sort === "relevance" ? "id" : query.sort }));
    return { list, searchError: (e as Error).message.slice("search: ".length) };
  }
}

async function TrajectoryList({ searchParams }: Props) {
  const query = parseTrajectoryListParams(await searchParams);
  const caller = await api();
  const [{ list, searchError }, options] = await Promise.all([listWithSearch(caller, query), caller.trajectories.filterOptions()]);
  const filtered = activeFilterCount(query) > 0;
  // With a search in the link the box stays, so its message (a viewer may not search verdicts) can be read.
  const nothingImported = list.all === 0 && !query.search;
  const user = await currentUser();
  const { sort: _sort, dir: _dir, page: _page, pageSize: _size, ...filters } = query;
  const evaluator = options.evaluators?.find((e) => e.ref === query.evaluator);
  const clearHref = `/trajectories${trajectoryListSearch({ sort: query.sort, dir: query.dir, pageSize: query.pageSize, evaluator: query.evaluator })}`;

  return (
    <>
      <PageHeader
        title="Trajectories"
        actions={
          user && hasRole(user, "researcher") && list.total > 0 ? (
            <>
              <LinkButtons
                links={[
                  {
                    href: `/judges/batch${trajectoryListSearch(filters)}`,
                    label: "Judge these",
                    title: "A judge batch over every trajectory these filters select",
                    testId: "judge-these",
                  },
                  {
                    href: `/analytics/clusters${trajectoryListSearch(filters)}`,
                    label: "Cluster failures",
                    title: "Group the failed or disputed trajectories these filters select by what went wrong",
                  },
                  {
                    href: `/campaigns/new${trajectoryListSearch(filters)}`,
                    label: "New campaign from these filters",
                    title: "A labelling campaign over every trajectory these filters select",
                  },
                ]}
              />
              <ReportButton
                selection={filters}
                described={filtered ? `the ${formatCount(list.total)} trajectories these filters select` : `all ${formatCount(list.total)} trajectories`}
                evaluators={(options.evaluators ?? []).map((e) => ({ ref: e.ref, label: evaluatorLabel(e) }))}
                title={query.search ? `Trajectories matching ${query.search}` : "Verdict report"}
              />
            </>
          ) : undefined
        }
        subtitle={
          nothingImported ? (
            "Nothing imported yet"
          ) : (
            <span data-testid="match-count">
              {filtered
                ? `${formatCount(list.total)} of ${formatCount(list.all)} match${list.total === 1 ? "es" : ""}`
                : `${formatCount(list.total)} trajector${list.total === 1 ? "y" : "ies"}`}
              {query.ids ? ` (limited to ${formatCount(query.ids.length)} chosen trajector${query.ids.length === 1 ? "y" : "ies"})` : ""}
            </span>
          )
        }
      />
      {nothingImported ? (
        <EmptyState title="No trajectories yet" command={"npm run cli -- import <path>\n# or record the bundled demo data:\nnpm run cli -- demo"}>
          Import agent output (WebVoyager result folders, VisualWebArena renders, Verdict bundles…) with the CLI, then reload this page.
        </EmptyState>
      ) : (
        <div className="flex min-h-0 flex-1 flex-col gap-3 px-6 py-3">
          <BehaviourSearch query={query} error={searchError} researcher={!!user && hasRole(user, "researcher")} />
          <FilterBar query={query} options={options} triage={list.triage} />
          {list.sample && (
            <p className="text-[12.5px] text-zinc-700" data-testid="sample-banner">
              A random sample of <strong className="tabular-nums">{formatCount(list.total)}</strong> drawn from {formatCount(list.sample.from)} matching
              {list.sample.strata ? `, in proportion to each ${list.sample.strata}` : ""} with seed <code className="font-mono">{list.sample.seed}</code>: the
              same seed and filters always draw the same trajectories.{" "}
              <Link
                className="link"
                href={`/trajectories${trajectoryListSearch({ ...query, sample: undefined, seed: undefined, strata: undefined, page: 1 })}`}
              >
                Back to all matching
              </Link>
            </p>
          )}
          <FlaggedListNote query={query} hidden={list.flaggedHidden} triage={list.triage} />
          {searchError ? (
            <div className="panel flex flex-col items-center gap-2 px-4 py-10 text-center text-zinc-500" data-testid="list-empty">
              <p className="font-medium text-zinc-700">The search could not be run</p>
              <p className="text-[12.5px]">Change it above (the Syntax button lists what it understands), or clear it.</p>
            </div>
          ) : list.rows.length ? (
            <TrajectoryTable
              rows={list.rows}
              query={query}
              total={list.total}
              triage={list.triage}
              evaluatorName={evaluator ? evaluatorLabel(evaluator) : undefined}
            />
          ) : (
            <div className="panel flex flex-col items-center gap-3 px-4 py-10 text-center text-zinc-500" data-testid="list-empty">
              {list.total > 0 ? (
                <p>
                  Nothing on this page: the list has {formatCount(list.pageCount)} page{list.pageCount === 1 ? "" : "s"}.
                </p>
              ) : (
                <>
                  <p className="font-medium text-zinc-700">No trajectories match</p>
                  <p className="text-[12.5px]">None of the {formatCount(list.all)} trajectories passes every filter. Loosen or clear them.</p>
                  {filtered && (
                    <Link className="btn" href={clearHref}>
                      Clear filters
                    </Link>
                  )}
                </>
              )}
            </div>
          )}
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

/**
 * What the validity ledger does to the list (researchers): how many trajectories of flagged tasks it leaves out, with
 * links to show them or only them; or, when they are shown, a way back.
 */
function FlaggedListNote({ query, hidden, triage }: { query: ReturnType<typeof parseTrajectoryListParams>; hidden: number | null; triage: boolean }) {
  const href = (flagged: typeof query.flagged) => `/trajectories${trajectoryListSearch({ ...query, flagged, page: 1 })}`;
  if (!triage || (hidden === 0 && !query.flagged)) return null;
  return (
    <p className="text-[12.5px] text-amber-900" data-testid="flagged-list-note">
      {query.flagged === "only"
        ? "Only trajectories of tasks flagged in the task validity ledger. "
        : query.flagged === "include"
          ? "Trajectories of flagged tasks are listed (marked ⚑); analytics leave them out by default. "
          : `${formatCount(hidden ?? 0)} trajector${hidden === 1 ? "y" : "ies"} of tasks flagged in the task validity ledger left out. `}
      {query.flagged !== "include" && (
        <Link className="link" href={href("include")} data-testid="flagged-show">
          Show them
        </Link>
      )}
      {query.flagged !== "include" && query.flagged !== "only" && " · "}
      {query.flagged !== "only" && (
        <Link className="link" href={href("only")}>
          Only them
        </Link>
      )}
      {query.flagged && (
        <>
          {" · "}
          <Link className="link" href={href(undefined)}>
            Leave them out
          </Link>
        </>
      )}
    </p>
  );
}

import type { Metadata } from "next";
import { NothingImportedPage, startAnalyticsPage, type AnalyticsPageProps } from "../_components/page-start";
import Link from "next/link";
import { TRPCError } from "@trpc/server";
import { evaluatorLabel, formatIdList, MAX_IDS, trajectoryListSearch } from "@/server/domain/trajectory-list-query";
import { EmptyState, ErrorPanel, formatCount, formatDate, PageHeader } from "../../_components/ui";
import type { api } from "../../_trpc/server";
import { BASIS_LABEL, clusterSliceHref, clusterSliceOfParams, savedRunHref, sliceFilterText } from "../_lib/clusters";
import { getParam } from "../_lib/params";
import { ClusterLauncher } from "./_components/cluster-launcher";
import { ClusterRunView } from "./_components/cluster-run";

export const metadata: Metadata = { title: "Failure clusters" };

const TITLE = "Failure clusters";
const SUBTITLE = "Failed or disputed trajectories grouped by what their notes, rationales and last steps say went wrong";

type Caller = Awaited<ReturnType<typeof api>>;
type Slice = ReturnType<typeof clusterSliceOfParams>;

function SliceLine({ slice }: { slice: Slice }) {
  const filters = sliceFilterText(slice);
  return (
    <p className="text-[12.5px] text-zinc-600" data-testid="cluster-slice">
      Trajectories {BASIS_LABEL[slice.basis]}
      {filters.length ? (
        <>
          {" "}
          among those the list selects with <span className="font-mono text-[12px] text-zinc-800">{filters.join(" ")}</span>
        </>
      ) : (
        " among all trajectories"
      )}
      {" · "}
      <Link className="link" href={`/trajectories${trajectoryListSearch(slice.filter)}`}>
        change the slice in the trajectory list
      </Link>
    </p>
  );
}

async function SavedRun({ caller, id }: { caller: Caller; id: number }) {
  let run;
  try {
    run = await caller.analytics.clusterRun({ id });
  } catch (e) {
    if (e instanceof TRPCError && e.code === "NOT_FOUND") {
      return <ErrorPanel title="No such cluster run" message={`There is no saved run ${id}. Runs are listed on the clusters page.`} />;
    }
    throw e;
  }
  const chosen =
    run.chosenBy === "given"
      ? run.requestedK !== undefined
        ? `(${run.requestedK} asked for, more than the failures with words to group)`
        : "as asked"
      : run.chosenBy === "too few"
        ? "(too few failures to split)"
        : `chosen by silhouette (${run.candidates.map((c) => `k=${c.k}: ${c.silhouette.toFixed(2)}`).join(", ")})`;
  const unclustered = run.unclustered.length && run.unclustered.length <= MAX_IDS ? `/trajectories?ids=${formatIdList(run.unclustered)}&flagged=include` : null;
  return (
    <>
      <SliceLine slice={run.slice} />
      <p className="text-[12.5px] text-zinc-600" data-testid="cluster-summary">
        {run.documents === 0
          ? "No failures in this slice"
          : `${formatCount(run.documents)} failure${run.documents === 1 ? "" : "s"} in ${run.clusters.length} cluster${run.clusters.length === 1 ? "" : "s"}, k ${chosen}`}
        {run.unclustered.length ? (
          <>
            {"; "}
            {unclustered ? (
              <Link className="link" href={unclustered}>
                {formatCount(run.unclustered.length)} with no words shared with another failure
              </Link>
            ) : (
              `${formatCount(run.unclustered.length)} with no words shared with another failure`
            )}
          </>
        ) : null}
        . Computed by {run.createdByName} on {formatDate(run.createdAt)} ·{" "}
        <Link className="link" href={clusterSliceHref(run.slice)}>
          compute this slice again
        </Link>
      </p>
      {run.documents === 0 ? (
        <EmptyState title="No failures in this slice">
          Nothing the slice selects is {BASIS_LABEL[run.slice.basis]}. Widen the slice, or label or judge more trajectories.
        </EmptyState>
      ) : (
        <ClusterRunView run={run} />
      )}
    </>
  );
}

async function Launcher({ caller, slice }: { caller: Caller; slice: Slice }) {
  const [options, runs] = await Promise.all([caller.trajectories.filterOptions(), caller.analytics.clusterRuns()]);
  const evaluators = (options.evaluators ?? []).map((e) => ({
    ref: e.ref,
    label: evaluatorLabel({ name: e.name, k: e.k, promptVersion: e.promptVersion, kind: e.kind }),
  }));
  return (
    <>
      <SliceLine slice={slice} />
      <ClusterLauncher slice={slice} evaluators={evaluators} />
      <section className="panel p-4" aria-labelledby="cluster-runs-title">
        <h2 id="cluster-runs-title" className="section-title">
          Saved runs
        </h2>
        {runs.length === 0 ? (
          <p className="mt-2 text-[12.5px] text-zinc-600">No clusters computed yet: pick which failures above and press Find clusters.</p>
        ) : (
          <ul className="mt-2 flex flex-col gap-1 text-[12.5px]">
            {runs.map((r) => (
              <li key={r.id} className="flex flex-wrap items-baseline gap-2">
                <Link className="link" href={savedRunHref(r.id)}>
                  Run {r.id}
                </Link>
                <span className="text-zinc-700">{BASIS_LABEL[r.slice.basis]}</span>
                <span className="font-mono text-[12px] text-zinc-500">{sliceFilterText(r.slice).join(" ")}</span>
                <span className="text-zinc-500">
                  {r.createdByName}, {formatDate(r.createdAt)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

/**
 * Failure clusters of any trajectory-list slice (its filters in the address, as the list writes them): the launcher
 * with the saved runs, or one saved run (`?saved=`).
 */
export default async function ClustersPage(props: AnalyticsPageProps) {
  const { sp, caller, options } = await startAnalyticsPage(props);
  if (options.trajectories === 0) return <NothingImportedPage title={TITLE} />;
  const saved = Number(getParam(sp, "saved"));
  return (
    <>
      <PageHeader title={TITLE} subtitle={SUBTITLE} />
      <div className="flex flex-col gap-4 px-6 py-3">
        {Number.isInteger(saved) && saved > 0 ? <SavedRun caller={caller} id={saved} /> : <Launcher caller={caller} slice={clusterSliceOfParams(sp)} />}
      </div>
    </>
  );
}

import { PageHeader } from "../../_components/ui";

/**
 * The list's skeleton while it loads. A Suspense boundary in the list page, not a loading.tsx for the whole
 * section: that would start streaming (status 200) before a trajectory page's access check could answer 403.
 */
export function TrajectoryListLoading() {
  return (
    <>
      <PageHeader title="Trajectories" subtitle="Loading…" />
      <div className="flex flex-col gap-3 px-6 py-3" aria-busy="true" aria-label="Loading trajectories">
        <div className="h-7 w-2/3 animate-pulse rounded-md bg-zinc-200/70" />
        <div className="panel divide-y divide-zinc-100">
          {Array.from({ length: 12 }, (_, i) => (
            <div key={i} className="flex items-center gap-4 px-3 py-2.5">
              <div className="h-3 w-10 animate-pulse rounded bg-zinc-200/70" />
              <div className="h-3 flex-1 animate-pulse rounded bg-zinc-200/70" />
              <div className="h-3 w-24 animate-pulse rounded bg-zinc-200/70" />
              <div className="h-3 w-16 animate-pulse rounded bg-zinc-200/70" />
            </div>
          ))}
        </div>
      </div>
    </>
  );
}

/** While the trajectories to compare are fetched: the page's frame, so nothing jumps when the columns arrive. */
export default function Loading() {
  return (
    <div
      className="flex flex-1 flex-col lg:h-[calc(100dvh-2.75rem)]"
      aria-busy="true"
      aria-label="Loading the trajectories to compare"
      data-testid="compare-loading"
    >
      <div className="h-10 border-b border-zinc-200 bg-white" />
      <div className="h-10 border-b border-zinc-200 bg-white" />
      <div className="grid flex-1 grid-cols-2 gap-px bg-zinc-200">
        {[0, 1].map((i) => (
          <div key={i} className="flex flex-col bg-white">
            <div className="flex flex-col gap-2 border-b border-zinc-200 p-3">
              <div className="h-3 w-2/3 animate-pulse rounded bg-zinc-200/70" />
              <div className="h-3 w-1/3 animate-pulse rounded bg-zinc-200/70" />
            </div>
            <div className="grid flex-1 place-items-center bg-zinc-100">
              <div className="aspect-[4/3] w-2/3 animate-pulse rounded bg-zinc-200" />
            </div>
          </div>
        ))}
      </div>
    </div>
  );
}

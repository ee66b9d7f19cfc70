export default function Loading() {
  return (
    <div className="flex flex-1 flex-col lg:h-[calc(100dvh-2.75rem)]" aria-busy="true" aria-label="Loading trajectory">
      <div className="h-10 border-b border-zinc-200 bg-white" />
      <div className="flex min-h-0 flex-1">
        <div className="hidden w-[300px] flex-col gap-3 border-r border-zinc-200 bg-white p-4 lg:flex">
          {[90, 70, 80, 40].map((w, i) => (
            <div key={i} className="h-3 animate-pulse rounded bg-zinc-200/70" style={{ width: `${w}%` }} />
          ))}
        </div>
        <div className="flex flex-1 flex-col">
          <div className="h-10 border-b border-zinc-200 bg-white" />
          <div className="grid flex-1 place-items-center bg-zinc-100">
            <div className="aspect-[4/3] w-1/2 animate-pulse rounded bg-zinc-200" />
          </div>
          <div className="h-24 border-t border-zinc-200 bg-white" />
        </div>
        <div className="hidden w-[320px] border-l border-zinc-200 bg-white lg:block" />
      </div>
    </div>
  );
}

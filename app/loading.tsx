/** Fallback while a page's data loads (pages with a better-shaped skeleton have their own loading.tsx). */
export default function Loading() {
  return (
    <div className="flex flex-1 items-start justify-center p-12" aria-busy="true">
      <span className="flex items-center gap-2 text-[12.5px] text-zinc-500">
        <span className="size-3.5 animate-spin rounded-full border-2 border-indigo-400 border-t-transparent" aria-hidden />
        Loading…
      </span>
    </div>
  );
}

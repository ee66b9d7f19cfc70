/**
 * Fallback while a page's data loads. Each section has its own loading.tsx (there is none at the root): a
 * loading fallback starts streaming the response with status 200, so a section's role check in its layout
 * must run before any fallback is sent for a refusal to reach the browser as a real 403.
 */
export function PageLoading() {
  return (
    <div className="flex flex-1 items-start justify-center p-12" aria-busy="true">
      <span className="flex items-center gap-2 text-[12.5px] text-zinc-500">
        <span className="size-3.5 animate-spin rounded-full border-2 border-indigo-400 border-t-transparent" aria-hidden />
        Loading…
      </span>
    </div>
  );
}

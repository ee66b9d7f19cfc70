"use client";
import { useEffect } from "react";

/** Segment error boundary: a readable message and a retry, never a blank page. */
export default function ErrorBoundary({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <div role="alert" className="mx-auto my-12 max-w-xl rounded-lg border border-rose-200 bg-rose-50 px-6 py-5">
      <h2 className="text-sm font-semibold text-rose-800">Something went wrong loading this page</h2>
      <p className="mt-1 font-mono text-[12px] break-words whitespace-pre-wrap text-rose-700">{error.message || "Unknown error"}</p>
      {error.digest && <p className="mt-1 text-2xs text-rose-600">Reference: {error.digest} (details are in the server log)</p>}
      <button type="button" className="btn mt-3" onClick={reset}>
        Try again
      </button>
    </div>
  );
}

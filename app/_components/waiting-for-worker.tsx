"use client";
/**
 * Said under work that is queued but not started: the web server only queues imports and judge calls, and a worker
 * process runs them. Once the work has waited longer than a worker takes to notice it, the note says what to check.
 */
import { useEffect, useState } from "react";

/** A worker claims new work within a second or two; past this, none is probably running. */
const PATIENCE_MS = 15_000;

export function WaitingForWorker({ since, what }: { since: Date; what: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, []);
  if (now - new Date(since).getTime() < PATIENCE_MS) return null;
  return (
    <p className="mt-2 text-[12px] text-amber-800" role="status" data-testid="waiting-for-worker">
      No worker has started {what} yet. Workers run every import and judge call: the quick start (<code>scripts/start.sh</code>) runs one beside the server;
      otherwise start one with <code>npm run worker</code>. Each worker picks up queued work as soon as it starts.
    </p>
  );
}

import type { ReactNode } from "react";
import { notFound } from "next/navigation";
import { getQueryClient, orNotFound, trpc } from "../../_trpc/server";

/**
 * Decides whether the trajectory may be shown before the page's loading skeleton streams, so a trajectory
 * outside an annotator's campaigns answers with the 403 view and status 403 (and an unknown one with 404).
 */
export default async function TrajectoryLayout({ children, params }: { children: ReactNode; params: Promise<{ id: string }> }) {
  const raw = (await params).id;
  if (!/^\d{1,12}$/.test(raw) || Number(raw) <= 0) notFound();
  await orNotFound(getQueryClient().fetchQuery(trpc.trajectories.byId.queryOptions({ id: Number(raw) })));
  return children;
}

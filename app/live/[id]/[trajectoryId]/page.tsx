import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getQueryClient, HydrateClient, orNotFound, pageId, pageIds, trpc } from "../../../_trpc/server";
import { LiveTrajectoryView } from "../../_components/live-trajectory-view";

type Props = { params: Promise<{ id: string; trajectoryId: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const p = await params;
  return { title: `Live trajectory ${pageId(p.trajectoryId) ?? ""}`.trim() };
}

export default async function LiveTrajectoryPage({ params }: Props) {
  const { id: runId, trajectoryId } = pageIds(await params);
  const qc = getQueryClient();
  const [run, trajectory] = await Promise.all([
    orNotFound(qc.fetchQuery(trpc.liveRuns.byId.queryOptions({ id: runId }))),
    orNotFound(qc.fetchQuery(trpc.trajectories.byId.queryOptions({ id: trajectoryId }))),
  ]);
  if (!run.tasks.some((t) => t.trajectoryId === trajectory.trajectory.id)) notFound();
  return (
    <HydrateClient>
      <LiveTrajectoryView runId={runId} trajectoryId={trajectoryId} />
    </HydrateClient>
  );
}

import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getQueryClient, HydrateClient, orNotFound, trpc } from "../../../_trpc/server";
import { LiveTrajectoryView } from "../../_components/live-trajectory-view";

type Props = { params: Promise<{ id: string; trajectoryId: string }> };

function parseId(raw: string): number | null {
  return /^\d{1,12}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const p = await params;
  return { title: `Live trajectory ${parseId(p.trajectoryId) ?? ""}`.trim() };
}

export default async function LiveTrajectoryPage({ params }: Props) {
  const p = await params;
  const runId = parseId(p.id);
  const trajectoryId = parseId(p.trajectoryId);
  if (runId === null || trajectoryId === null) notFound();
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

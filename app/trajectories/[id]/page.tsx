import { parseRegionParam } from "@/server/domain/evaluation/citations";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { hasRole } from "@/server/domain/access/actor";
import { STEP_WINDOW, windowStart } from "@/server/domain/player/paging";
import { currentUser } from "../../_lib/session";
import { getQueryClient, HydrateClient, orNotFound, pageId, trpc } from "../../_trpc/server";
import { TrajectoryPlayer } from "./_components/player";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const id = pageId((await params).id);
  if (id === null) return { title: "Trajectory" };
  try {
    const t = await getQueryClient().fetchQuery(trpc.trajectories.byId.queryOptions({ id }));
    return { title: `${t.task.externalId} #${id}` };
  } catch {
    return { title: `Trajectory ${id}` };
  }
}

export default async function TrajectoryPage({ params, searchParams }: Props) {
  const id = pageId((await params).id);
  if (id === null) notFound();
  const sp = await searchParams;
  const stepParam = sp.step;
  const step = Number(Array.isArray(stepParam) ? stepParam[0] : stepParam);

  // Resolve on the server so an unknown id is a real 404, then hand the data to the client cache.
  const t = await orNotFound(getQueryClient().fetchQuery(trpc.trajectories.byId.queryOptions({ id })));
  const initialStep = Number.isInteger(step) && step > 0 ? Math.min(step, Math.max(1, t.stepCount)) : 1;
  const user = await currentUser();
  // A link into a long trajectory opens on its step: that step's window of details comes with the page too.
  if (initialStep > STEP_WINDOW) await getQueryClient().fetchQuery(trpc.trajectories.steps.queryOptions({ id, from: windowStart(initialStep - 1) }));
  return (
    <HydrateClient>
      <TrajectoryPlayer
        source={{ trajectoryId: id }}
        initialStep={initialStep}
        evaluationsOpen={sp.panel === "evaluations"}
        commentsOpen={sp.panel === "comments"}
        initialRegion={parseRegionParam(Array.isArray(sp.region) ? sp.region[0] : sp.region)}
        // The download names the run and carries verdicts: researchers' and admins' (the route checks the blind).
        download={user && hasRole(user, "researcher") ? `/api/trajectories/${id}/atif` : undefined}
        gold={user && hasRole(user, "researcher") ? (sp.gold === "1" ? "open" : "closed") : undefined}
      />
    </HydrateClient>
  );
}

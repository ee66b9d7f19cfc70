import { notFound, redirect } from "next/navigation";
import { parseRegion, regionCorners } from "@/server/domain/trajectories/step-links";
import { api, orNotFound } from "../../_trpc/server";

type Props = { params: Promise<{ key: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * A stable link to a step (server/domain/trajectories/step-links.ts): finds the trajectory's row as it is stored
 * now and opens the player there, at the step and region the link names. A link gives its region as x,y,w,h; the
 * player draws regions by their corners, so it is handed on as x1,y1,x2,y2 (a region that does not parse is dropped).
 */
export default async function StepLinkPage({ params, searchParams }: Props) {
  const { key } = await params;
  if (!/^[0-9a-fA-F]{16,128}$/.test(key)) notFound();
  const sp = await searchParams;
  const rowId = Number(one(sp.id));
  const { id } = await orNotFound((await api()).trajectories.resolveLink({ key, id: Number.isInteger(rowId) && rowId > 0 ? rowId : undefined }));
  const q = new URLSearchParams();
  for (const name of ["step", "panel"]) {
    const v = one(sp[name]);
    if (v) q.set(name, v);
  }
  const region = parseRegion(one(sp.region));
  if (region) q.set("region", regionCorners(region).join(","));
  redirect(`/trajectories/${id}${q.size ? `?${q.toString()}` : ""}`);
}

/**
 * GET /api/trajectories/<id>/atif: one trajectory as ATIF, for the player's download: a zip holding
 * `trajectory-<id>.atif.json` and its screenshots under `images/` (server/services/trajectories/atif-export.ts).
 * For researchers and admins who see the whole catalog: the file names the run and carries the verdicts, which
 * annotators labelling blind must not see.
 */
import { assertTrajectoryBrowsable, seesWholeCatalog } from "@/server/services/access";
import { atifDownload } from "@/server/services/trajectories";
import { attachment, downloadRoute, plainText, routeId } from "../../../_lib/download";

export const GET = downloadRoute("download trajectories", async (_req, { app, actor }, { params }: { params: Promise<{ id: string }> }) => {
  const id = routeId((await params).id, "trajectory id", 12);
  if (id instanceof Response) return id;
  await assertTrajectoryBrowsable(app.db, actor, id);
  if (!(await seesWholeCatalog(app.db, actor))) return plainText(403, "ATIF downloads are for researchers and admins who are not labelling blind");
  const file = await atifDownload(app, id, { withVerdicts: true });
  return attachment(new Uint8Array(file.body), { fileName: file.fileName, contentType: "application/zip", size: file.body.byteLength });
});

/**
 * GET /api/campaigns/<id>/reveal-stages?format=csv|jsonl: a reveal campaign's blind and informed labels, one row per
 * trajectory, reviewer and stage (CUAVerifierBench-like; server/domain/agreement/reveal-export.ts), as a download
 * for researchers and admins.
 */
import { exportRevealStages } from "@/server/services/annotation";
import { attachment, downloadRoute, plainText, routeId } from "../../../_lib/download";

export const GET = downloadRoute("export labels", async (req, { app, actor }, { params }: { params: Promise<{ id: string }> }) => {
  const id = routeId((await params).id, "campaign id", 9);
  if (id instanceof Response) return id;
  const format = new URL(req.url).searchParams.get("format") ?? "csv";
  if (format !== "csv" && format !== "jsonl") return plainText(400, `format: csv or jsonl, got ${JSON.stringify(format)}`);
  const file = await exportRevealStages(app.db, actor, id, format);
  return attachment(file.body, file);
});

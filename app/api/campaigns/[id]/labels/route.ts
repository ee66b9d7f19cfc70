/**
 * GET /api/campaigns/<id>/labels?format=…: a campaign's labels as a download (researchers and admins). csv / jsonl:
 * one record per annotation plus one per consolidated label, keyed by trajectory id; online-mind2web,
 * agentrewardbench, cuaverifierbench: the benchmarks' own shapes (server/domain/annotation/label-formats.ts).
 */
import { LABEL_FORMATS } from "@/server/domain/annotation/label-formats";
import { exportCampaignLabels, exportLabelsAs } from "@/server/services/annotation";
import { attachment, downloadRoute, plainText, routeId } from "../../../_lib/download";

export const GET = downloadRoute("export labels", async (req, { app, actor }, { params }: { params: Promise<{ id: string }> }) => {
  const id = routeId((await params).id, "campaign id", 9);
  if (id instanceof Response) return id;
  const format = new URL(req.url).searchParams.get("format") ?? "csv";
  const benchmark = format !== "csv" && format !== "jsonl";
  if (benchmark && !(LABEL_FORMATS as readonly string[]).includes(format))
    return plainText(400, `format: csv, jsonl or one of ${LABEL_FORMATS.join(", ")}, got ${JSON.stringify(format)}`);
  const file = benchmark ? await exportLabelsAs(app.db, actor, id, format) : await exportCampaignLabels(app.db, actor, id, format);
  return attachment(file.body, file);
});

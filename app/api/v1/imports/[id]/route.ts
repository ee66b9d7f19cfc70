/**
 * GET /api/v1/imports/<job id>: where a pushed import stands (queued, running with progress, done with its report,
 * failed with why), as the Import page shows it. Researchers and admins.
 */
import { idParam, json, v1Route } from "../../../_lib/v1";

export const GET = v1Route(async ({ api }, { params }: { params: Promise<{ id: string }> }) => {
  const id = idParam((await params).id, "import");
  return json(200, await api.imports.status({ id }));
});

/**
 * POST /api/v1/trajectories/<id>/verdicts with a read-write token (researchers and admins): a verdict from an
 * evaluator that runs outside Verdict. Body: `{ evaluator, verdict, score?, rationale?, firstFailingStep?, k?,
 * promptVersion?, model?, key? }` (docs/guide/api.md). Answers 201 when stored, 200 when it replaced or matched the
 * stored one (`status`: created, replaced, unchanged), 400 naming the field that is wrong.
 */
import { idParam, json, jsonBody, V1InputError, v1Route } from "../../../../_lib/v1";

export const POST = v1Route(async ({ req, api }, { params }: { params: Promise<{ id: string }> }) => {
  const trajectoryId = idParam((await params).id, "trajectory");
  const body = await jsonBody(req);
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new V1InputError("The body must be a JSON object");
  const recorded = await api.judge.verdicts.record({ ...(body as Record<string, unknown>), trajectoryId } as never);
  return json(recorded.status === "created" ? 201 : 200, recorded);
});

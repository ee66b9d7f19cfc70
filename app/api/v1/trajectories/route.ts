/**
 * GET /api/v1/trajectories?run=<id>&site=…&q=…&page=…&pageSize=…: the trajectories the token's owner may browse, with
 * the same filters as the dashboard's list (its URL parameters). Researchers and admins get each row's
 * consolidated label and verdicts as the list shows them; annotators only what their list shows them.
 */
import { parseTrajectoryListParams } from "@/server/domain/trajectory-list-query";
import { json, v1Route } from "../../_lib/v1";

export const GET = v1Route(async ({ req, api }) => {
  const query = parseTrajectoryListParams(new URL(req.url).searchParams);
  return json(200, await api.trajectories.list(query));
});

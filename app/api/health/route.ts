/**
 * GET /api/health: whether this web server can serve (its database answers), for load balancers and container
 * healthchecks. No sign-in. 200 `{ ok: true, database, storage }`, or 503 with `reason` when the database does
 * not answer.
 */
import { getAppContext } from "@/server/context";
import { installationHealth } from "@/server/services/health";
import { guardedRoute } from "../_lib/guarded-route";

export const dynamic = "force-dynamic";

async function health(): Promise<Response> {
  let status = 200;
  let body: unknown;
  try {
    const report = await installationHealth(getAppContext());
    status = report.ok ? 200 : 503;
    body = report;
  } catch {
    // The configuration could not be read or the database opened: not ready, without saying more to strangers.
    status = 503;
    body = { ok: false, reason: "installation not configured or database unreachable" };
  }
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", "Cache-Control": "no-store" } });
}

export const GET = guardedRoute(health);

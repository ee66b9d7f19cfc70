/**
 * GET /api/screenshots/<sha256>[?w=<width>][&f=webp|avif]
 *
 * Serves a stored screenshot by content hash. The hash must be a known row in `screenshots`; anything else is
 * a 404 (request text never becomes a filesystem path); a stored file that no longer decodes is a 422. Content
 * never changes for a URL, so responses are cached forever; privately, because only signed-in users may fetch
 * them (401 otherwise), and annotators only the screenshots of trajectories in their campaigns (404 otherwise, see
 * mayFetchScreenshot). With screenshots in a bucket and VERDICT_S3_PRESIGN=1, a request that passed those checks is
 * redirected to a presigned URL of the bucket (valid a few minutes), so image bytes do not pass through the web server.
 */
import { sessionFromHeaders } from "@/server/auth/auth";
import { getAppContext } from "@/server/context";
import { parseVariantRequest } from "@/server/domain/image-variants";
import { AppError, HTTP_STATUS } from "@/server/errors";
import { mayFetchScreenshot } from "@/server/services/access";
import { CorruptImageError, getScreenshotImage, presignedScreenshotUrl } from "@/server/services/images";
import { guardedRoute } from "../../_lib/guarded-route";

const IMMUTABLE = "private, max-age=31536000, immutable";

function notFound(): Response {
  return new Response("Screenshot not found\n", {
    status: 404,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });
}

async function screenshot(req: Request, { params }: { params: Promise<{ hash: string }> }): Promise<Response> {
  const { hash } = await params;
  const parsed = parseVariantRequest(new URL(req.url).searchParams);
  if (!parsed.ok) {
    return new Response(`${parsed.error}\n`, { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  const app = await getAppContext();
  const session = await sessionFromHeaders(app, req.headers);
  if (!session) {
    return new Response("Sign in to see screenshots\n", { status: 401, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
  }
  if (!(await mayFetchScreenshot(app.db, session, hash))) return notFound();
  try {
    if (app.config.objectStorage?.presign) {
      const location = await presignedScreenshotUrl(app, hash, parsed.value);
      // The redirect is not cached: the URL expires, and the next request checks access again.
      if (location) return new Response(null, { status: 302, headers: { Location: location, "Cache-Control": "private, no-store" } });
    }
    const image = await getScreenshotImage(app, hash, parsed.value);
    const headers = { "Cache-Control": IMMUTABLE, ETag: image.etag };
    const ifNoneMatch = req.headers.get("if-none-match");
    if (ifNoneMatch && ifNoneMatch.split(/\s*,\s*/).some((t) => t === image.etag || t === `W/${image.etag}`)) {
      return new Response(null, { status: 304, headers });
    }
    return new Response(new Uint8Array(image.body), {
      headers: { ...headers, "Content-Type": image.mime, "Content-Length": String(image.body.byteLength) },
    });
  } catch (e) {
    if (e instanceof AppError && HTTP_STATUS[e.code] === 404) return notFound();
    // A damaged file on disk: say so (briefly cacheable), instead of failing with a server error on every view.
    if (e instanceof CorruptImageError) {
      return new Response(`${e.message}\n`, { status: 422, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "private, max-age=60" } });
    }
    throw e;
  }
}

export const GET = guardedRoute(screenshot);

/**
 * Receiving a .zip to import, for the Import page's upload (/api/imports) and scripts' pushes (/api/v1/imports):
 * the body is streamed to disk under the data folder and refused with 413 past the configured size
 * (VERDICT_IMPORT_MAX_UPLOAD_MB) or 409 past the sender's share of the waiting room (VERDICT_IMPORT_QUEUED_MB*);
 * the import then runs as a job. Answers 202 `{ jobId }`; errors are `{ error }` with a message for the sender.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { hasRole } from "@/server/domain/access/actor";
import type { Role } from "@/server/domain/access/roles";
import { importLimitsFromEnv } from "@/server/config";
import { getAppContext } from "@/server/context";
import { AppError, HTTP_STATUS } from "@/server/errors";
import { newUploadPath, startImport } from "@/server/services/imports";
import { receiveUpload, type UploadReceipt } from "@/server/services/jobs";

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", "Cache-Control": "no-store" } });
}

const mb = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;

class TooLarge extends Error {}
/** The upload would take more room than its sender (or everyone) may have waiting: VERDICT_IMPORT_QUEUED_MB*. */
class OverQuota extends Error {}

/**
 * Receives the zip of `req` for `user` (already identified: by the session cookie on the Import page, by an API
 * token on /api/v1/imports) and starts its import job.
 */
export async function receiveZipUpload(req: Request, user: { userId: string; role: Role } | null, via: "page" | "push" = "page"): Promise<Response> {
  const app = getAppContext();
  if (!user) return json(401, { error: "Sign in to import trajectories" });
  if (!hasRole(user, "researcher")) return json(403, { error: "Importing is for researchers and admins" });
  const limit = (app.config.importLimits ?? importLimitsFromEnv({} as NodeJS.ProcessEnv)).maxUploadBytes;
  const tooLarge = (size?: number) =>
    json(413, {
      error: `${size ? `The file is ${mb(size)}; u` : "U"}ploads are limited to ${mb(limit)} (VERDICT_IMPORT_MAX_UPLOAD_MB). Larger sources can be imported with the CLI.`,
    });
  const declared = Number(req.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) return tooLarge(declared);
  const url = new URL(req.url);
  const name = path.basename(url.searchParams.get("name")?.trim() || "upload.zip").slice(0, 200);
  if (!name.toLowerCase().endsWith(".zip")) return json(400, { error: `${name}: only .zip files can be uploaded` });
  if (!req.body) return json(400, { error: `${name}: the upload is empty` });

  // Uploads wait on disk until a worker has imported them: each person, and everyone together, may have only so
  // much waiting. A declared size that does not fit is refused before a byte is read.
  let receipt: UploadReceipt;
  try {
    receipt = await receiveUpload(app, user.userId, Number.isFinite(declared) ? declared : 0);
  } catch (e) {
    if (e instanceof AppError) return json(HTTP_STATUS[e.code], { error: e.message });
    throw e;
  }
  let answer: Response | undefined;
  try {
    answer = await receive(app, req, {
      name,
      file: await newUploadPath(app),
      limit,
      receipt,
      tooLarge,
      format: url.searchParams.get("format") ?? undefined,
      userId: user.userId,
      via,
    });
    return answer;
  } finally {
    receipt.end(answer?.status === 202);
  }
}

async function receive(
  app: Awaited<ReturnType<typeof getAppContext>>,
  req: Request,
  opts: {
    name: string;
    file: string;
    limit: number;
    receipt: UploadReceipt;
    tooLarge: () => Response;
    format: string | undefined;
    userId: string;
    via: "page" | "push";
  },
): Promise<Response> {
  const { name, file, limit, receipt, tooLarge } = opts;
  await fsp.mkdir(path.dirname(file), { recursive: true });
  let received = 0;
  const head: Buffer[] = [];
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      received += chunk.length;
      if (received > limit) return done(new TooLarge());
      const overQuota = receipt.add(chunk.length);
      if (overQuota) return done(new OverQuota(overQuota));
      if (head.length < 1) head.push(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(req.body as unknown as WebReadableStream), counter, fs.createWriteStream(file, { flags: "wx" }));
  } catch (e) {
    await fsp.rm(file, { force: true });
    if (e instanceof TooLarge) return tooLarge();
    if (e instanceof OverQuota) return json(409, { error: e.message });
    return json(400, { error: `${name}: the upload was interrupted (${(e as Error).message})` });
  }
  const magic = head[0]?.subarray(0, 4).toString("latin1") ?? "";
  if (magic !== "PK\x03\x04" && magic !== "PK\x05\x06") {
    await fsp.rm(file, { force: true });
    return json(400, { error: `${name}: is not a .zip archive` });
  }
  try {
    const jobId = await startImport(app, { kind: "upload", file, name }, { format: opts.format, requestedBy: opts.userId, via: opts.via });
    return json(202, { jobId });
  } catch (e) {
    await fsp.rm(file, { force: true });
    if (e instanceof AppError) return json(HTTP_STATUS[e.code], { error: e.message });
    throw e;
  }
}

/**
 * Jobs a person started from the dashboard and waits for (an agreement CSV, a label import): queued by the web
 * server, run by a worker, and read back by the page that started them, which polls until the job has ended. Only
 * the person who started a job (or an admin) may read it; anyone else is told there is no such job.
 */
import crypto from "node:crypto";
import { getJob } from "../../../db/repositories/jobs";
import type { JobStatus } from "../../../db/schema/index";
import type { Actor } from "../../domain/access/actor";
import type { AppContext } from "../../context";
import { NotFoundError } from "../../errors";
import { removeUploadedText, stageUploadedText, type StagedText } from "../../storage/uploaded-text";
import { enqueueJobs, jobsOfGroup } from "./queue";
import { checkUploadRoom } from "./upload-quota";

export interface RequestedJobPayload {
  /** The user who started it: the only one (with admins) who may read it. */
  requestedBy: string;
  /** Size of the file it reads, counted against the upload quotas until the job has ended (./upload-quota.ts). */
  uploadBytes: number;
}

export interface RequestedJobView<Result> {
  id: number;
  status: JobStatus;
  /** The job's answer once it succeeded. */
  result: Result | null;
  /** Why it failed, in words for the person who started it. */
  error: string | null;
  /** What the handler last reported while it ran (a progress bar's figures), or null. */
  progress: unknown;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** Queues one job that `payload.requestedBy` will read back; resolves to its id. Never retried: a failure is reported. */
export async function enqueueRequestedJob<P extends RequestedJobPayload>(ctx: Pick<AppContext, "db">, type: string, payload: P): Promise<number> {
  const groupKey = `${type}:${crypto.randomUUID()}`;
  await enqueueJobs(ctx.db, [{ type, payload, groupKey, maxAttempts: 1 }]);
  return (await jobsOfGroup(ctx.db, groupKey))[0]!.id;
}

/**
 * Queues a requested job that reads an uploaded text: checks the requester's upload room for the file's `bytes`,
 * keeps the text where a worker reads it, and queues `payloadOf(file)`; the kept file is removed again when the job
 * cannot be queued. Resolves to the job's id.
 */
export async function enqueueUploadedTextJob<P extends RequestedJobPayload>(
  ctx: Pick<AppContext, "db" | "config">,
  actor: Pick<Actor, "userId">,
  type: string,
  upload: { text: string; bytes: number },
  payloadOf: (file: StagedText) => Omit<P, keyof RequestedJobPayload>,
): Promise<number> {
  await checkUploadRoom(ctx, actor.userId, upload.bytes);
  const file = await stageUploadedText(ctx.config, upload.text);
  try {
    return await enqueueRequestedJob(ctx, type, { ...payloadOf(file), requestedBy: actor.userId, uploadBytes: file.bytes } as P);
  } catch (e) {
    await removeUploadedText(ctx.config, file).catch(() => undefined);
    throw e;
  }
}

/** The job `id` of `type` as its requester sees it; NotFound for anyone else and for other kinds of job. */
export async function requestedJob<Result>(
  ctx: Pick<AppContext, "db">,
  actor: Pick<Actor, "userId" | "role">,
  type: string,
  id: number,
): Promise<RequestedJobView<Result>> {
  const job = await getJob(ctx.db, id);
  const payload = job?.payload as Partial<RequestedJobPayload> | undefined;
  if (!job || job.type !== type || (payload?.requestedBy !== actor.userId && actor.role !== "admin")) throw new NotFoundError("job", id);
  return {
    id: job.id,
    status: job.status,
    result: job.status === "succeeded" ? (job.result as Result) : null,
    error: job.status === "failed" ? (job.error ?? "The job failed") : job.status === "cancelled" ? "The job was cancelled" : null,
    progress: job.progress ?? null,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
  };
}

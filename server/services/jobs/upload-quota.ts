/**
 * How much uploaded data may wait for the workers (review 2, L2). Every upload a job will read (an import zip, the
 * CSV of an agreement analysis or a label import) takes disk space from the moment it arrives until its job has
 * ended; with the workers busy or stopped, uploads would pile up without bound. Each person may have
 * `queuedBytesPerUser` waiting and the installation `queuedBytesTotal` (VERDICT_IMPORT_QUEUED_MB_PER_USER,
 * VERDICT_IMPORT_QUEUED_MB), counted from:
 * - the queue: jobs that have not ended carry their upload's size (`uploadBytes`) and who sent it (`requestedBy`);
 * - the uploads this web server is receiving, and those it has queued since a receiving upload last read the queue,
 *   so that parallel uploads cannot each pass the check before any of them is queued.
 */
import { unfinishedUploadBytes } from "../../../db/repositories/jobs";
import { importLimitsFromEnv, type ImportLimits } from "../../config";
import type { AppContext } from "../../context";
import { AppError } from "../../errors";

export type UploadQuota = Pick<ImportLimits, "queuedBytesPerUser" | "queuedBytesTotal">;

function quotaOf(ctx: Pick<AppContext, "config">): UploadQuota {
  return ctx.config.importLimits ?? importLimitsFromEnv({});
}

const mb = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;

/** Refused for want of room: too much of this person's (or everyone's) uploads waits already. */
export class UploadQuotaError extends AppError {
  constructor(message: string) {
    super("CONFLICT", message);
    this.name = "UploadQuotaError";
  }
}

/** Bytes per person (and under "" in all): being received by this server, and handed to the queue by it so far. */
const receiving = new Map<string, number>();
const handedOver = new Map<string, number>();
const ALL = "";

function bump(map: Map<string, number>, userId: string, n: number): void {
  for (const key of [userId, ALL]) {
    const v = (map.get(key) ?? 0) + n;
    if (v === 0) map.delete(key);
    else map.set(key, v);
  }
}

function problem(quota: UploadQuota, mine: number, all: number): string | null {
  if (mine > quota.queuedBytesPerUser) {
    return `Your uploads waiting to be imported or analysed would take ${mb(mine)}, more than the ${mb(quota.queuedBytesPerUser)} one person may have waiting (VERDICT_IMPORT_QUEUED_MB_PER_USER). Upload again once your earlier uploads have been imported.`;
  }
  if (all > quota.queuedBytesTotal) {
    return `Uploads waiting on this installation would take ${mb(all)}, more than the ${mb(quota.queuedBytesTotal)} it keeps (VERDICT_IMPORT_QUEUED_MB). Upload again once the queued imports have run.`;
  }
  return null;
}

/** What waits for `userId` and for everyone: the queue as read just now, plus what this server is receiving. */
async function waiting(ctx: Pick<AppContext, "db">, userId: string) {
  const queued = await unfinishedUploadBytes(ctx.db, userId);
  const handedAtRead = { mine: handedOver.get(userId) ?? 0, all: handedOver.get(ALL) ?? 0 };
  return {
    /** Bytes waiting now; uploads this server queued after the read count through `handedOver`. */
    now: () => ({
      mine: queued.mine + (receiving.get(userId) ?? 0) + (handedOver.get(userId) ?? 0) - handedAtRead.mine,
      all: queued.all + (receiving.get(ALL) ?? 0) + (handedOver.get(ALL) ?? 0) - handedAtRead.all,
    }),
  };
}

/** Throws UploadQuotaError when `bytes` more from `userId` would not fit beside what waits and is being received. */
export async function checkUploadRoom(ctx: Pick<AppContext, "db" | "config">, userId: string, bytes: number): Promise<void> {
  const w = (await waiting(ctx, userId)).now();
  const why = problem(quotaOf(ctx), w.mine + bytes, w.all + bytes);
  if (why) throw new UploadQuotaError(why);
}

export interface UploadReceipt {
  /** Counts `n` more bytes received; answers why the upload must stop, or null. */
  add(n: number): string | null;
  /** The upload has ended: `queued` when its job now waits in the queue (and counts there), not when it was refused. */
  end(queued: boolean): void;
}

/**
 * Starts receiving an upload of `declaredBytes` (its Content-Length; 0 when not known ahead). The declared size is
 * reserved at once, so that of several parallel uploads those that fit go through and the others are refused before
 * a byte is read; bytes beyond it are counted as they arrive. An upload refused half-way gives its room back at once.
 */
export async function receiveUpload(ctx: Pick<AppContext, "db" | "config">, userId: string, declaredBytes = 0): Promise<UploadReceipt> {
  const quota = quotaOf(ctx);
  const w = await waiting(ctx, userId);
  // From here to the reservation nothing waits: parallel uploads check and reserve one after the other.
  const start = w.now();
  const refused = problem(quota, start.mine + declaredBytes, start.all + declaredBytes);
  if (refused) throw new UploadQuotaError(refused);
  let counted = declaredBytes;
  let received = 0;
  let ended = false;
  bump(receiving, userId, counted);
  const end = (queued: boolean) => {
    if (ended) return;
    ended = true;
    bump(receiving, userId, -counted);
    if (queued) bump(handedOver, userId, received);
  };
  return {
    add(n) {
      received += n;
      if (ended || received <= counted) return null;
      bump(receiving, userId, received - counted);
      counted = received;
      const now = w.now();
      const why = problem(quota, now.mine, now.all);
      if (why) end(false);
      return why;
    },
    end,
  };
}

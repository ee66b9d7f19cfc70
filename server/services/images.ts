/**
 * Screenshots as the browser gets them: the original bytes (for zoom) or a resized WebP/AVIF variant made
 * with sharp on first request and cached in the store's variants (`<dataDir>/variants/<first two hex>/<hash>-w<width>.<format>`,
 * or `<prefix>variants/…` in the bucket), so every web server finds what another one encoded.
 *
 * Variants are derived data: deleting them is always safe. The store writes them whole or not at all (a folder
 * store renames a temporary file into place), and concurrent requests for the same variant share one encode. All encodes of the process share
 * ENCODE_CONCURRENCY slots, so no number of viewers or warm-up calls makes the web server encode more at once.
 * A free slot goes first to a screenshot a viewer is waiting for at stage size, then to thumbnails, and only then to
 * warm-up work (see encodePriority), so a step reached before its warm-up turn is encoded next, not after the backlog.
 * A stored file that cannot be decoded is a CorruptImageError (the route answers 422), remembered for a minute so
 * repeated requests do not decode it again.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import type Sharp from "sharp";
import { dialectOf, sqliteClient, type Db } from "../../db/database";
import { getScreenshot } from "../../db/repositories/screenshots";
import { VARIANT_MIME, type VariantRequest } from "../domain/image-variants";
import { NotFoundError } from "../errors";
import { isScreenshotHash, type ScreenshotStore } from "../storage/screenshot-store";

export interface ImageDeps {
  db: Db;
  store: ScreenshotStore;
  config: { dataDir: string };
}

export interface ServedImage {
  body: Buffer;
  mime: string;
  /** Strong validator: the content is fully determined by hash + variant. */
  etag: string;
}

/**
 * Who is waiting for an encode, most urgent first: a viewer waiting for a stage-sized screenshot, a viewer waiting
 * for a thumbnail (the filmstrip's, fetched at low priority by the browser too), warm-up work nobody waits for yet.
 */
export type EncodePriority = "view" | "thumbnail" | "warm-up";
const PRIORITY_RANK: Record<EncodePriority, number> = { view: 2, thumbnail: 1, "warm-up": 0 };

/** The priority of a request a viewer makes for a variant `width` pixels wide. */
export function encodePriority(width: number): EncodePriority {
  return width <= SMALL_VARIANT_WIDTH ? "thumbnail" : "view";
}
/** Variants this wide or narrower are thumbnails and small previews. */
const SMALL_VARIANT_WIDTH = 320;

/** A place in the line for an encode slot; raised when a more urgent request comes to share its encode. */
interface SlotTicket {
  rank: number;
  grant?: () => void;
}

const inFlight = new Map<string, { body: Promise<Buffer>; ticket: SlotTicket }>();

/** Encodes running at once in this process, whoever asked for them. */
export const ENCODE_CONCURRENCY = 2;
let encodesRunning = 0;
const waitingForSlot: SlotTicket[] = [];

async function withEncodeSlot<T>(ticket: SlotTicket, work: () => Promise<T>): Promise<T> {
  if (encodesRunning >= ENCODE_CONCURRENCY) {
    await new Promise<void>((resolve) => {
      ticket.grant = resolve;
      waitingForSlot.push(ticket);
    });
  } else encodesRunning++;
  try {
    return await work();
  } finally {
    // Hand the slot straight to the most urgent waiter (the longest waiting among equals), or free it.
    let pick = -1;
    for (let i = 0; i < waitingForSlot.length; i++) if (pick < 0 || waitingForSlot[i]!.rank > waitingForSlot[pick]!.rank) pick = i;
    const next = pick < 0 ? undefined : waitingForSlot.splice(pick, 1)[0];
    if (next) next.grant!();
    else encodesRunning--;
  }
}

/** Encodes running now (for tests and diagnostics). */
export function encodesInProgress(): number {
  return encodesRunning;
}

/** The ranks of the encodes waiting for a slot, in the order they joined the line (for tests and diagnostics). */
export function encodesWaitingByRank(): number[] {
  return waitingForSlot.map((ticket) => ticket.rank);
}

/**
 * Runs `work` in one of the encode slots the screenshot encodes share, taking its turn at `priority`: other CPU-heavy
 * image work (and a test that must hold the slots while it lines requests up) waits for a slot like an encode does.
 */
export function runInEncodeSlot<T>(priority: EncodePriority, work: () => Promise<T>): Promise<T> {
  return withEncodeSlot({ rank: PRIORITY_RANK[priority] }, work);
}

/** A stored screenshot whose bytes no longer decode as an image (damaged on disk). */
export class CorruptImageError extends Error {
  constructor(readonly hash: string) {
    super(`Screenshot ${hash} is damaged and cannot be shown`);
    this.name = "CorruptImageError";
  }
}

const CORRUPT_MEMORY_MS = 60_000;
const knownCorrupt = new Map<string, number>();

export function variantPath(dataDir: string, hash: string, width: number, format: string): string {
  return path.join(dataDir, "variants", hash.slice(0, 2), variantName(hash, width, format));
}

/** The variant's object name in the store. */
export function variantName(hash: string, width: number, format: string): string {
  if (!isScreenshotHash(hash)) throw new Error(`Not a screenshot hash: ${JSON.stringify(hash)}`);
  return `${hash}-w${width}.${format}`;
}

let sharpLoading: Promise<typeof Sharp> | undefined;

/**
 * sharp, loaded the first time an image is decoded or encoded: its native library is a large part of a cold start of
 * the web server, a worker or the CLI, and most of them serve many requests before (or without ever) touching an image.
 */
export function loadSharp(): Promise<typeof Sharp> {
  return (sharpLoading ??= import("sharp").then((m) => m.default));
}

async function encodeVariant(source: Buffer, width: number, resize: boolean, format: "webp" | "avif"): Promise<Buffer> {
  const sharp = await loadSharp();
  let img = sharp(source, { failOn: "none" });
  // Mitchell rather than sharp's default Lanczos: text and Set-of-Marks numbers stay as legible (crops of real
  // WebVoyager screenshots at 720 px compared side by side, magnified), and the softer edges, without Lanczos' ringing,
  // cost WebP about 8 % fewer bytes for the same encode time.
  if (resize) img = img.resize({ width, withoutEnlargement: true, kernel: "mitchell" });
  // Screenshots are mostly text and flat colour: WebP at quality 70 keeps small text as legible as 80 did (crops of
  // real WebVoyager screenshots compared side by side at the size the player draws them) for 15 % fewer bytes.
  // Effort 2 encodes about twice as fast as the default 4 for a few percent more bytes: variants are made on
  // first view, so encode time is latency.
  if (format === "avif") return img.avif({ quality: width <= 320 ? 45 : 55, effort: 2 }).toBuffer();
  return img.webp({ quality: 70, effort: 2 }).toBuffer();
}

/**
 * The bytes to serve for `hash` as `req` asks. Unknown, malformed or missing hashes are a NotFoundError
 * (the route answers 404): nothing here ever turns request text into a filesystem path.
 */
export async function getScreenshotImage(
  deps: ImageDeps,
  hash: string,
  req: VariantRequest,
  priority: EncodePriority = req.kind === "variant" ? encodePriority(req.width ?? Infinity) : "view",
): Promise<ServedImage> {
  if (!isScreenshotHash(hash)) throw new NotFoundError("screenshot", hash);
  const row = await getScreenshot(deps.db, hash);
  if (!row) throw new NotFoundError("screenshot", hash);

  const readOriginal = async () => {
    try {
      return await deps.store.read(hash);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") throw new NotFoundError("screenshot file", hash);
      throw e;
    }
  };

  if (req.kind === "original") {
    return { body: await readOriginal(), mime: row.mime, etag: `"${hash}"` };
  }

  // A width at or beyond the original's is the original's width: one file for all of them.
  const width = req.width === null ? row.width : Math.min(req.width, row.width);
  const name = variantName(hash, width, req.format);
  const etag = `"${hash}-w${width}.${req.format}"`;
  const mime = VARIANT_MIME[req.format];

  const cached = await deps.store.variants.read(name);
  if (cached) return { body: cached, mime, etag };

  const corruptUntil = knownCorrupt.get(hash);
  if (corruptUntil !== undefined) {
    if (corruptUntil > Date.now()) throw new CorruptImageError(hash);
    knownCorrupt.delete(hash);
  }

  const flightKey = `${deps.store.variants.location}\0${name}`;
  const rank = PRIORITY_RANK[priority];
  let pending = inFlight.get(flightKey);
  if (pending) pending.ticket.rank = Math.max(pending.ticket.rank, rank);
  else {
    const ticket: SlotTicket = { rank };
    const encoded = withEncodeSlot(ticket, async () => {
      const source = await readOriginal();
      let body: Buffer;
      try {
        body = await encodeVariant(source, width, width < row.width, req.format);
      } catch (e) {
        console.error(`screenshot ${hash} cannot be decoded:`, (e as Error).message);
        knownCorrupt.set(hash, Date.now() + CORRUPT_MEMORY_MS);
        throw new CorruptImageError(hash);
      }
      try {
        await deps.store.variants.put(name, body, mime);
      } catch (e) {
        // The variant is only a cache: serve this encode anyway (e.g. disk full, bucket unreachable).
        console.error(`caching variant ${name} in ${deps.store.variants.location} failed:`, (e as Error).message);
      }
      return body;
    }).finally(() => inFlight.delete(flightKey));
    pending = { body: encoded, ticket };
    inFlight.set(flightKey, pending);
  }
  return { body: await pending.body, mime, etag };
}

/** How long a presigned screenshot URL works: long enough to load a page of them, short for a leaked link. */
export const PRESIGNED_URL_SECONDS = 300;

/**
 * A short-lived URL of the bucket for `hash` as `req` asks (the variant made first when it is not stored yet),
 * or null when the store cannot hand out such URLs (a folder). Only for a viewer who passed the access check: the
 * URL itself is the permission. Unknown hashes are a NotFoundError, as in getScreenshotImage.
 */
export async function presignedScreenshotUrl(deps: ImageDeps, hash: string, req: VariantRequest): Promise<string | null> {
  if (!isScreenshotHash(hash)) throw new NotFoundError("screenshot", hash);
  const row = await getScreenshot(deps.db, hash);
  if (!row) throw new NotFoundError("screenshot", hash);
  if (req.kind === "original") return deps.store.originals.presignedUrl(hash, PRESIGNED_URL_SECONDS);
  const width = req.width === null ? row.width : Math.min(req.width, row.width);
  const name = variantName(hash, width, req.format);
  if (!(await deps.store.variants.has(name))) await getScreenshotImage(deps, hash, req);
  return deps.store.variants.presignedUrl(name, PRESIGNED_URL_SECONDS);
}

/** False once an embedded database is closed (a pool that was ended fails its next query instead, and is logged). */
function databaseOpen(db: Db): boolean {
  return dialectOf(db) !== "sqlite" || sqliteClient(db).open;
}

/** Warm-up requests waiting for the warm-up workers, at most WARM_QUEUE_MAX (older ones are dropped first). */
const WARM_QUEUE_MAX = 2_000;
const warmQueue: { deps: ImageDeps; hash: string; req: Extract<VariantRequest, { kind: "variant" }> }[] = [];
let warmWorkers = 0;

/**
 * Makes the variants a viewer is about to ask for, in order, in the background. The player calls this once it
 * knows its display width, so stepping finds each next image already encoded. All calls feed one queue served
 * by ENCODE_CONCURRENCY workers, so repeated calls (other widths, other viewers) add work, never parallelism.
 * Returns at once with the number queued; failures are logged, never thrown (a missing file is a 404 when
 * actually requested).
 */
export async function warmVariants(deps: ImageDeps, hashes: string[], req: Extract<VariantRequest, { kind: "variant" }>): Promise<number> {
  const fresh = [...new Set(hashes)].filter((h) => isScreenshotHash(h));
  for (const hash of fresh) warmQueue.push({ deps, hash, req });
  if (warmQueue.length > WARM_QUEUE_MAX) warmQueue.splice(0, warmQueue.length - WARM_QUEUE_MAX);
  const work = async () => {
    try {
      for (let item = warmQueue.shift(); item !== undefined; item = warmQueue.shift()) {
        // Its database was closed (the process is shutting down, or an import's throwaway context ended): nobody
        // will view these variants through it.
        if (!databaseOpen(item.deps.db)) continue;
        await getScreenshotImage(item.deps, item.hash, item.req, "warm-up").catch((e: unknown) => {
          if (!(e instanceof NotFoundError) && !(e instanceof CorruptImageError)) console.error(`warming variant of ${item!.hash} failed:`, e);
        });
      }
    } finally {
      warmWorkers--;
    }
  };
  while (warmWorkers < ENCODE_CONCURRENCY && warmQueue.length > 0) {
    warmWorkers++;
    void work();
  }
  return fresh.length;
}

/** Warm-up requests not yet started or still encoding. */
export function warmingBacklog(): number {
  return warmQueue.length + warmWorkers;
}

/**
 * Resolves once the warm-up queue is empty and its workers are done (a command-line import waits for the
 * variants it queued before the process exits). `onProgress` gets the backlog as it shrinks.
 */
export async function warmingSettled(onProgress?: (backlog: number) => void): Promise<void> {
  for (let backlog = warmingBacklog(); backlog > 0; backlog = warmingBacklog()) {
    onProgress?.(backlog);
    await new Promise((r) => setTimeout(r, 50));
  }
  onProgress?.(0);
}

/** Removes every cached variant (they are rebuilt on demand). */
export async function clearVariants(dataDir: string): Promise<void> {
  await fsp.rm(path.join(dataDir, "variants"), { recursive: true, force: true });
}

/** True when a variant is already on disk (used by tests and warm-up). */
export function hasVariant(dataDir: string, hash: string, width: number, format: string): boolean {
  return fs.existsSync(variantPath(dataDir, hash, width, format));
}

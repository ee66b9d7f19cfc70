/**
 * Reading a Verdict bundle's manifest.json as a stream: a manifest is someone else's file, and holding it whole (and
 * validating it whole) lets a few megabytes of zip cost gigabytes. Here the manifest is tokenized (stream-json) and
 * never held: one pass reads the fields beside `trajectories` and counts the trajectories, a second hands out one
 * trajectory at a time, assembled from its tokens, for the importer to validate and import before the next is read.
 * The manifest's size is checked against the limit before the first byte is read (from the size the file has or
 * the zip declares) and while reading.
 */
import { Transform, type Readable } from "node:stream";
import { parser } from "stream-json";
import Assembler from "stream-json/assembler.js";
import batch from "stream-json/utils/batch.js";
import { ImportError } from "./types";

interface Token {
  name: string;
  value?: unknown;
}

const mb = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;

export interface ManifestSource {
  /** Names the manifest in messages ("runs.zip:manifest.json"). */
  where: string;
  /** Its size in bytes as the file system or the zip's directory states it. */
  size: number;
  /** A fresh stream of its bytes (the manifest is read twice). */
  open(): Promise<NodeJS.ReadableStream>;
}

export function refuseOversizedManifest(source: ManifestSource, maxBytes: number): void {
  if (source.size > maxBytes) {
    throw new ImportError(
      source.where,
      `is ${mb(source.size)}, more than the ${mb(maxBytes)} a bundle manifest may have (VERDICT_BUNDLE_MANIFEST_MAX_MB); split the bundle into several`,
    );
  }
}

/** The manifest's tokens in batches; stops (and says so) past `maxBytes`, and names the file in JSON errors. */
async function* tokenBatches(source: ManifestSource, maxBytes: number): AsyncGenerator<Token[]> {
  const input = (await source.open()) as Readable;
  let seen = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > maxBytes)
        return done(new ImportError(source.where, `is larger than the ${mb(maxBytes)} a bundle manifest may have (VERDICT_BUNDLE_MANIFEST_MAX_MB)`));
      done(null, chunk);
    },
  });
  const tokens = parser.asStream({ packValues: true, streamValues: false });
  const batches = batch.asStream({ batchSize: 2048 });
  const fail = (e: unknown) => batches.destroy(e instanceof Error ? e : new Error(String(e)));
  input.on("error", fail);
  meter.on("error", fail);
  tokens.on("error", fail);
  input.pipe(meter).pipe(tokens).pipe(batches);
  try {
    for await (const b of batches as AsyncIterable<Token[]>) yield b;
  } catch (e) {
    if (e instanceof ImportError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new ImportError(source.where, "file is missing");
    throw new ImportError(source.where, `is not valid JSON (${(e as Error).message})`);
  } finally {
    input.destroy();
    batches.destroy();
  }
}

function scalar(t: Token): unknown {
  switch (t.name) {
    case "stringValue":
      return t.value;
    case "numberValue":
      return Number(t.value);
    case "trueValue":
      return true;
    case "falseValue":
      return false;
    default:
      return null;
  }
}

const OPENS = new Set(["startObject", "startArray"]);
const CLOSES = new Set(["endObject", "endArray"]);

/**
 * Walks the manifest's tokens: the top-level object's fields, and the elements of its `trajectories` list. With
 * `keepTrajectories` each element is assembled and handed to `onTrajectory` (with the number of tokens it took);
 * without, elements are only counted and the other fields assembled.
 */
async function* walk(source: ManifestSource, maxBytes: number, keepTrajectories: boolean) {
  const fields: Record<string, unknown> = {};
  let trajectories: "missing" | "not a list" | number = "missing";
  let depth = 0;
  let key: string | null = null;
  /** Inside the `trajectories` list (depth 2 holds its elements). */
  let inList = false;
  /** A value being assembled (a field, or one trajectory), or skipped (`skip` levels deep). */
  let asm: Assembler | null = null;
  let skip = 0;
  let tokensOfElement = 0;
  let ended = false;
  for await (const tokens of tokenBatches(source, maxBytes)) {
    for (const t of tokens) {
      if (ended) throw new ImportError(source.where, "is not valid JSON (text after the manifest's object)");
      if (skip > 0) {
        if (OPENS.has(t.name)) skip++;
        else if (CLOSES.has(t.name)) skip--;
        continue;
      }
      if (asm) {
        tokensOfElement++;
        asm.consume(t as never);
        if (asm.done) {
          const value = asm.current as unknown;
          asm = null;
          if (inList) yield { index: (trajectories as number) - 1, value, tokens: tokensOfElement };
          else if (key !== null) fields[key] = value;
        }
        continue;
      }
      if (depth === 0) {
        if (t.name !== "startObject") throw new ImportError(source.where, "is not a JSON object (expected a Verdict bundle manifest)");
        depth = 1;
        continue;
      }
      if (inList) {
        if (t.name === "endArray") {
          inList = false;
          continue;
        }
        trajectories = (trajectories as number) + 1;
        if (OPENS.has(t.name)) {
          if (keepTrajectories) {
            asm = new Assembler();
            tokensOfElement = 1;
            asm.consume(t as never);
          } else {
            skip = 1;
          }
        } else if (keepTrajectories) {
          yield { index: trajectories - 1, value: scalar(t), tokens: 1 };
        }
        continue;
      }
      switch (t.name) {
        case "keyValue":
          key = String(t.value);
          break;
        case "startObject":
        case "startArray":
          if (key === "trajectories" && t.name === "startArray") {
            inList = true;
            trajectories = 0;
          } else {
            if (key === "trajectories") trajectories = "not a list";
            if (keepTrajectories) {
              skip = 1;
            } else {
              asm = new Assembler();
              asm.consume(t as never);
            }
          }
          break;
        case "endObject":
          ended = true;
          break;
        default:
          if (key === "trajectories") trajectories = "not a list";
          if (!keepTrajectories && key !== null) fields[key] = scalar(t);
      }
    }
  }
  if (!ended) throw new ImportError(source.where, "is not valid JSON (the file ends early)");
  return { fields, trajectories };
}

export interface ManifestHeader {
  /** Every field of the manifest except `trajectories`. */
  fields: Record<string, unknown>;
  /** How many trajectories the list holds, or why there is no list. */
  trajectories: "missing" | "not a list" | number;
}

/** First pass: the manifest's own fields, and how many trajectories it lists (none of them is kept). */
export async function readManifestHeader(source: ManifestSource, maxBytes: number): Promise<ManifestHeader> {
  const walker = walk(source, maxBytes, false);
  for (;;) {
    const next = await walker.next();
    if (next.done) return next.value;
  }
}

/** Second pass: the trajectories, one at a time, each with the number of JSON tokens it took (its size). */
export async function* manifestTrajectories(source: ManifestSource, maxBytes: number): AsyncGenerator<{ index: number; value: unknown; tokens: number }> {
  const walker = walk(source, maxBytes, true);
  for (;;) {
    const next = await walker.next();
    if (next.done) return;
    yield next.value;
  }
}

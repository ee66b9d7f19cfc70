/**
 * The data the analytics views start from (trajectory facts, references, verdict sets, a campaign's labels), stored
 * in the table analytics_snapshots so that the first view after a restart reads it instead of recomputing it (issue
 * 32: a cold overview spent most of its 600 ms reading and packing 100,000 trajectories and 300,000 verdicts).
 *
 * A row is exact for the change counters it was read at: dataset.ts uses it as it is while the counters of the tables
 * it depends on are unchanged, brings it up to date with the rows written since where it can (labels, verdicts) and
 * reads everything again otherwise, then stores what it read. Writes happen in the background after the view that
 * read the data (a failed write costs a read later, never a wrong figure); closing the database waits for them. A
 * read-only database (a PostgreSQL replica, a SQLite file with query_only) is told once in the log and never asked
 * to store again.
 *
 * The encoding: a JSON header describing the value, then every typed array's bytes, each at a multiple of 8.
 */
import { isDatabaseReadOnly } from "../../../db/client";
import zlib from "node:zlib";
import { dialectOf, onDatabaseClose, withTransaction, type Db } from "../../../db/database";
import {
  deleteSnapshots,
  pruneSnapshots,
  readSnapshotHead,
  readSnapshotValue,
  writeSnapshot,
  type SnapshotHead,
} from "../../../db/repositories/analytics-snapshots";
import type { ChangeCounter } from "../../../db/schema/changes";

/** Changes whenever the encoding, or what a cache key holds, changes: rows of another format are read again. */
export const SNAPSHOT_FORMAT = "2";

/** Rows kept (the most recently written): facts, references and verdict sets per campaign and judge, labels per campaign. */
const MAX_STORED = 64;

const TYPED = {
  Int8Array,
  Uint8Array,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
} as const;
type TypedName = keyof typeof TYPED;
type Typed = InstanceType<(typeof TYPED)[TypedName]>;

function typedName(v: unknown): TypedName | undefined {
  if (!ArrayBuffer.isView(v) || v instanceof DataView) return undefined;
  const name = v.constructor.name as TypedName;
  return name in TYPED ? name : undefined;
}

const align = (n: number) => (n + 7) & ~7;

/**
 * `value` as bytes: plain objects, arrays, Maps, strings, numbers (NaN and ±Infinity too), booleans, null, undefined
 * and typed arrays. Anything else (a function, a class instance) is refused, naming where it sits.
 */
export function encodeSnapshot(value: unknown): Buffer {
  const arrays: Typed[] = [];
  let offset = 0;
  const walk = (v: unknown, at: string): unknown => {
    if (v === undefined) return { $u: 1 };
    if (v === null || typeof v === "string" || typeof v === "boolean") return v;
    if (typeof v === "number") return Number.isFinite(v) ? v : { $n: String(v) };
    const typed = typedName(v);
    if (typed) {
      const a = v as Typed;
      arrays.push(a);
      const out = { $t: typed, o: offset, n: a.length };
      offset = align(offset + a.byteLength);
      return out;
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${at}[${i}]`));
    if (v instanceof Map) return { $m: [...v.entries()].map(([k, x]) => [walk(k, `${at} key`), walk(x, `${at}.get(${String(k)})`)]) };
    if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x, `${at}.${k}`);
      // A plain object whose own keys look like a tag is wrapped, so it cannot be read back as one.
      return Object.keys(out).some((k) => k.startsWith("$")) ? { $o: out } : out;
    }
    throw new Error(`analytics snapshot: cannot store ${typeof v === "function" ? "a function" : String(v)} at ${at || "the top"}`);
  };
  const header = Buffer.from(JSON.stringify(walk(value, "")), "utf8");
  const start = align(4 + header.length);
  const out = Buffer.alloc(start + offset);
  out.writeUInt32LE(header.length, 0);
  header.copy(out, 4);
  let o = start;
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), o);
    o = align(o + a.byteLength);
  }
  return out;
}

/** The value `encodeSnapshot` was given, with typed arrays of their own (not views of `bytes`). */
export function decodeSnapshot(bytes: Buffer): unknown {
  const headerLength = bytes.readUInt32LE(0);
  const start = align(4 + headerLength);
  const header: unknown = JSON.parse(bytes.toString("utf8", 4, 4 + headerLength));
  const walk = (v: unknown): unknown => {
    if (v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map(walk);
    const o = v as Record<string, unknown>;
    if ("$u" in o) return undefined;
    if ("$n" in o) return Number(o.$n);
    if ("$t" in o) {
      const Ctor = TYPED[o.$t as TypedName];
      const n = o.n as number;
      const from = start + (o.o as number);
      const copy = new Uint8Array(n * Ctor.BYTES_PER_ELEMENT);
      copy.set(bytes.subarray(from, from + copy.length));
      return new Ctor(copy.buffer);
    }
    if ("$m" in o) return new Map((o.$m as [unknown, unknown][]).map(([k, x]) => [walk(k), walk(x)]));
    const plain = "$o" in o ? (o.$o as Record<string, unknown>) : o;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(plain)) out[k] = walk(x);
    return out;
  };
  return walk(header);
}

const RAW = 0x52; // "R"
const DEFLATED = 0x5a; // "Z"

/**
 * An encoded value as stored: a first byte saying whether the rest is deflated. PostgreSQL hands a bytea over as hex
 * text twice its size, and turning 7 MB of it back into bytes cost the client more than inflating 1–2 MB of deflated
 * packed integers (4–14× smaller) does, so values are deflated there; SQLite hands the bytes over as they are.
 */
export function packSnapshot(encoded: Buffer, deflate: boolean): Buffer {
  const body = deflate ? zlib.deflateRawSync(encoded, { level: 1 }) : encoded;
  return Buffer.concat([Buffer.of(deflate ? DEFLATED : RAW), body]);
}

export function unpackSnapshot(stored: Buffer): Buffer {
  const body = stored.subarray(1);
  if (stored[0] === DEFLATED) return zlib.inflateRawSync(body);
  if (stored[0] === RAW) return body;
  throw new Error(`analytics snapshot: unknown packing ${stored[0]}`);
}

export interface StoredSnapshot {
  /** The counters of the tables the value depends on, when it was read (dataset.ts's cache stamp). */
  stamp: string;
  /** Every counter when it was read. */
  versions: Record<ChangeCounter, number>;
  /** Reads and decodes the value; undefined when another process replaced the row meanwhile. */
  value(): Promise<unknown>;
}

/** What a database's store did in this process, for tests and benchmarks (recomputations are counted, not timed). */
export interface SnapshotStats {
  /** Values read from the database's tables (recomputed), by cache key. */
  loads: Map<string, number>;
  /** Values taken from a stored row as they were. */
  reused: number;
  /** Values taken from a stored row and brought up to date with the rows written since. */
  patched: number;
  /** Rows written. */
  written: number;
}

interface DbSnapshots {
  stats: SnapshotStats;
  /** Rows to write, by key (the newest value of each key wins). */
  unwritten: Map<string, { head: SnapshotHead; value: () => unknown }>;
  writing: Promise<void> | null;
  readOnly: boolean;
  /** Counters of each key's row as stored by this process or read from the store. */
  storedAt: Map<string, Record<ChangeCounter, number>>;
  /** When this process last wrote each key's row (ms since the epoch). */
  lastWritten: Map<string, number>;
  /** The wake-up for rows that wait for their interval. */
  timer: NodeJS.Timeout | null;
}

/**
 * A key's row is written again at most this often by one process: values read again after each write (a reference
 * after each consolidated label) would otherwise be encoded and written after every label an annotator submits. Each
 * waiting row is replaced by the newest value of its key, and closing the database writes what waits.
 */
export const STORE_INTERVAL_MS = 30_000;

const stores = new WeakMap<object, DbSnapshots>();

function storeOf(db: Db): DbSnapshots {
  let s = stores.get(db);
  if (!s) {
    s = {
      stats: { loads: new Map(), reused: 0, patched: 0, written: 0 },
      unwritten: new Map(),
      writing: null,
      readOnly: false,
      storedAt: new Map(),
      lastWritten: new Map(),
      timer: null,
    };
    stores.set(db, s);
    onDatabaseClose(db, () => flushAnalyticsSnapshots(db));
  }
  return s;
}

export function snapshotStats(db: Db): SnapshotStats {
  return storeOf(db).stats;
}

export function countLoad(db: Db, key: string): void {
  const loads = storeOf(db).stats.loads;
  loads.set(key, (loads.get(key) ?? 0) + 1);
}

export function countReuse(db: Db, patched: boolean): void {
  const stats = storeOf(db).stats;
  if (patched) stats.patched++;
  else stats.reused++;
}

/**
 * The stored row of `key`, if one of this format exists. A database without the table (an old schema in a test)
 * or that cannot be read has none: the store is an optimisation.
 */
export async function storedSnapshot(db: Db, key: string): Promise<StoredSnapshot | undefined> {
  let head: SnapshotHead | undefined;
  try {
    head = await readSnapshotHead(db, key);
  } catch {
    return undefined;
  }
  if (!head || head.format !== SNAPSHOT_FORMAT) return undefined;
  const versions = JSON.parse(head.versions) as Record<ChangeCounter, number>;
  const stamp = head.stamp;
  storeOf(db).storedAt.set(key, versions);
  return {
    stamp,
    versions,
    value: async () => {
      const bytes = await readSnapshotValue(db, key, stamp);
      return bytes ? decodeSnapshot(unpackSnapshot(bytes)) : undefined;
    },
  };
}

/**
 * The counters `key`'s stored row was read at, as far as this process knows (it stored or read the row), so a
 * caller can tell how far behind the row is.
 */
export function storedVersions(db: Db, key: string): Record<ChangeCounter, number> | undefined {
  return storeOf(db).storedAt.get(key);
}

/**
 * Stores `value` (encoded when the write runs, after the view that asked has its answer) for `key`: at once the first
 * time this process stores the key, then at most once per STORE_INTERVAL_MS.
 */
export function storeSnapshot(db: Db, key: string, stamp: string, versions: Record<ChangeCounter, number>, value: () => unknown): void {
  const s = storeOf(db);
  if (s.readOnly) return;
  s.unwritten.set(key, { head: { format: SNAPSHOT_FORMAT, stamp, versions: JSON.stringify(versions) }, value });
  s.storedAt.set(key, versions);
  scheduleWrite(db, s, false);
}

/** When the row waiting for `key` may be written. */
function dueAt(s: DbSnapshots, key: string): number {
  const last = s.lastWritten.get(key);
  return last === undefined ? 0 : last + STORE_INTERVAL_MS;
}

/** Writes the waiting rows that are due (all of them with `all`), then sets a wake-up for the rest. */
function scheduleWrite(db: Db, s: DbSnapshots, all: boolean): void {
  if (s.writing) return;
  if (s.timer) {
    clearTimeout(s.timer);
    s.timer = null;
  }
  s.writing = (async () => {
    // After the computation that read the data has finished its synchronous part.
    await new Promise((resolve) => setImmediate(resolve));
    for (;;) {
      const now = Date.now();
      const key = [...s.unwritten.keys()].find((k) => all || dueAt(s, k) <= now);
      if (key === undefined) break;
      const row = s.unwritten.get(key)!;
      s.unwritten.delete(key);
      const bytes = packSnapshot(encodeSnapshot(row.value()), dialectOf(db) === "postgres");
      await withTransaction(db, async (tx) => {
        await writeSnapshot(tx, key, row.head, bytes, Date.now());
        await pruneSnapshots(tx, MAX_STORED);
      });
      s.lastWritten.set(key, Date.now());
      s.stats.written++;
    }
  })()
    .catch((error: unknown) => {
      s.unwritten.clear();
      if (!isDatabaseReadOnly(error)) {
        // A closed database or a missing table: the next read reads the tables again, nothing is wrong.
        if (!/closed|does not exist|no such table/i.test((error as Error).message ?? ""))
          console.warn(`analytics: storing a snapshot failed: ${(error as Error).message}`);
        return;
      }
      if (s.readOnly) return;
      s.readOnly = true;
      console.warn(`analytics: the database is read-only (${(error as Error).message}); the analytics' starting data are kept in this process's memory only`);
    })
    .finally(() => {
      s.writing = null;
      if (s.readOnly) s.unwritten.clear();
      if (!s.unwritten.size) return;
      const next = Math.min(...[...s.unwritten.keys()].map((k) => dueAt(s, k)));
      if (next <= Date.now()) scheduleWrite(db, s, false);
      else {
        s.timer = setTimeout(() => scheduleWrite(db, s, false), next - Date.now());
        // A process with nothing else to do may end; closing the database writes what waits.
        s.timer.unref();
      }
    });
}

/** Writes every value stored so far, waiting ones included, and waits until they are written. */
export async function flushAnalyticsSnapshots(db: Db): Promise<void> {
  const s = stores.get(db);
  if (!s) return;
  for (;;) {
    if (s.writing) await s.writing;
    else if (s.unwritten.size && !s.readOnly) scheduleWrite(db, s, true);
    else break;
  }
}

/**
 * Forgets what this process knows of the store (after writing what is pending); with `stored`, deletes the stored
 * rows too, so the next view reads everything from the tables (a first start on this database).
 */
export async function forgetAnalyticsSnapshots(db: Db, options: { stored?: boolean } = {}): Promise<void> {
  await flushAnalyticsSnapshots(db);
  const s = stores.get(db);
  if (s) s.storedAt.clear();
  if (options.stored) await deleteSnapshots(db).catch(() => undefined);
}

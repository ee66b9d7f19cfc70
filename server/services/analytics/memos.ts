/**
 * Bootstrap results of the analytics (intervals of Fleiss' κ and α, clustered judge error rates), kept in memory per
 * database and in the table analytics_memos, so a restarted server, another web server on the same PostgreSQL
 * database or the CLI draws none of them again (issue 32: human agreement split by site spent 60 % of a cold call,
 * about 500 ms at 100,000 trajectories, drawing intervals it had drawn before the restart).
 *
 * A result depends only on its input, which its memo key spells out in full, so a stored row needs no change counter
 * to stay right; MEMO_FORMAT starts every key and changes whenever a drawing's code changes what it returns. New
 * results are written in the background after the computation that drew them (a failed write costs a draw later,
 * never a wrong figure), and closing the database waits for them. A database that refuses writes because it is
 * read-only (a PostgreSQL read replica, a SQLite file opened read-only) is told once in the log and never asked again:
 * the results stay in this process's memory and every view reads as on a writable database.
 */
import crypto from "node:crypto";
import { LRUCache } from "lru-cache";
import superjson from "superjson";
import { isDatabaseReadOnly } from "../../../db/client";
import { onDatabaseClose, type Db } from "../../../db/database";
import { pruneMemos, readMemos, writeMemos, type MemoRow } from "../../../db/repositories/analytics-memos";

/** Part of every stored key: change it when a bootstrap's code changes what it returns for the same input. */
export const MEMO_FORMAT = "1";

/** In memory per kind, and rows kept in the table (the newest). Each result is a few hundred bytes. */
const MAX_IN_MEMORY = 4000;
export const MAX_STORED = 8000;

export interface Memo<T> {
  get(key: string): T | undefined;
  set(key: string, value: T): void;
}

interface DbMemos {
  /** Kind → its results in memory, least recently used out. */
  kinds: Map<string, LRUCache<string, object>>;
  /** The stored rows' read, once per database (until cleared). */
  loaded: Promise<void>;
  /** Results drawn and not written yet, by row id. */
  unwritten: Map<string, MemoRow>;
  /** The background write under way, if any. */
  writing: Promise<void> | null;
  /** The database refused a write as read-only: results are kept in memory only from then on. */
  readOnly: boolean;
}

const memos = new WeakMap<object, DbMemos>();
const closeHooked = new WeakSet<object>();

function rowId(kind: string, key: string): string {
  return crypto.createHash("sha256").update(`${MEMO_FORMAT}\u0000${kind}\u0000${key}`).digest("hex");
}

function kindOf(m: DbMemos, kind: string): LRUCache<string, object> {
  let c = m.kinds.get(kind);
  if (!c) m.kinds.set(kind, (c = new LRUCache<string, object>({ max: MAX_IN_MEMORY })));
  return c;
}

async function load(db: Db, m: DbMemos): Promise<void> {
  const rows = await readMemos(db, MAX_STORED);
  // Oldest first, so the newest end up the most recently used.
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i]!;
    // A row of another format version has another id; one whose digest does not match is not this version's.
    if (r.id !== rowId(r.kind, r.memoKey)) continue;
    const c = kindOf(m, r.kind);
    if (!c.has(r.memoKey)) c.set(r.memoKey, superjson.parse(r.value));
  }
}

function memosOf(db: Db): DbMemos {
  let m = memos.get(db);
  if (!m) {
    const fresh: DbMemos = { kinds: new Map(), loaded: Promise.resolve(), unwritten: new Map(), writing: null, readOnly: false };
    // A database that cannot be read (an old schema in a test) starts empty: the memo is an optimisation.
    fresh.loaded = load(db, fresh).catch(() => undefined);
    memos.set(db, (m = fresh));
  }
  if (!closeHooked.has(db)) {
    closeHooked.add(db);
    onDatabaseClose(db, () => flushAnalyticsMemos(db));
  }
  return m;
}

function scheduleWrite(db: Db, m: DbMemos): void {
  if (m.writing) return;
  m.writing = (async () => {
    // After the computation that drew them has finished its synchronous part.
    await new Promise((resolve) => setImmediate(resolve));
    while (m.unwritten.size) {
      const rows = [...m.unwritten.values()];
      m.unwritten.clear();
      await writeMemos(db, rows, Date.now());
      await pruneMemos(db, MAX_STORED);
    }
  })()
    .catch((error: unknown) => {
      m.unwritten.clear();
      if (!isDatabaseReadOnly(error) || m.readOnly) return;
      m.readOnly = true;
      console.warn(`analytics: the database is read-only (${(error as Error).message}); bootstrap results are kept in this process's memory only`);
    })
    .finally(() => {
      m.writing = null;
      // A result drawn between the last write and now.
      if (m.readOnly) m.unwritten.clear();
      else if (m.unwritten.size) scheduleWrite(db, m);
    });
}

/**
 * The memo of one kind of result for `db`, with what earlier processes stored: resolves once the stored rows are
 * read (the first call per database reads them, later ones wait for nothing).
 */
export async function persistedMemo<T extends object>(db: Db, kind: string): Promise<Memo<T>> {
  const m = memosOf(db);
  await m.loaded;
  const c = kindOf(m, kind);
  return {
    get: (key) => c.get(key) as T | undefined,
    set: (key, value) => {
      c.set(key, value);
      if (m.readOnly) return;
      const id = rowId(kind, key);
      m.unwritten.set(id, { id, kind, memoKey: key, value: superjson.stringify(value) });
      scheduleWrite(db, m);
    },
  };
}

/** False once the database has refused a memo write as read-only (nothing is written to it from then on). */
export function analyticsMemosWritable(db: Db): boolean {
  return !memos.get(db)?.readOnly;
}

/** Waits until every result drawn so far is written. */
export async function flushAnalyticsMemos(db: Db): Promise<void> {
  const m = memos.get(db);
  while (m?.writing) await m.writing;
}

/** Forgets the results in memory (after writing what is pending); the next use reads the stored rows again. */
export async function forgetAnalyticsMemos(db: Db): Promise<void> {
  await flushAnalyticsMemos(db);
  memos.delete(db);
}

/**
 * Rows describing the files the screenshot store holds.
 */
import { count, eq, inArray } from "drizzle-orm";
import { first, tablesOf, type Db } from "../database";
import type { ScreenshotRow } from "../schema/index";

export interface ScreenshotValues {
  hash: string;
  mime: string;
  width: number;
  height: number;
  bytes: number;
}

/** Rows per multi-row INSERT: five parameters a row, far under either engine's bound-parameter limit. */
const SCREENSHOT_CHUNK = 500;

export async function insertScreenshotIfMissing(db: Db, v: ScreenshotValues): Promise<void> {
  await insertMissingScreenshots(db, [v]);
}

/**
 * Adds the rows of screenshots not stored yet, a few hundred per statement, leaving existing rows alone. Returns
 * how many were added (the rows the engine reports as inserted).
 */
export async function insertMissingScreenshots(db: Db, rows: readonly ScreenshotValues[]): Promise<number> {
  const { screenshots } = tablesOf(db);
  let added = 0;
  for (let i = 0; i < rows.length; i += SCREENSHOT_CHUNK) {
    const chunk = rows.slice(i, i + SCREENSHOT_CHUNK).map(({ hash, mime, width, height, bytes }) => ({ hash, mime, width, height, bytes }));
    const inserted = await db.insert(screenshots).values(chunk).onConflictDoNothing({ target: screenshots.hash }).returning({ hash: screenshots.hash });
    added += inserted.length;
  }
  return added;
}

export async function getScreenshot(db: Db, hash: string): Promise<ScreenshotRow | undefined> {
  const { screenshots } = tablesOf(db);
  return first(db.select().from(screenshots).where(eq(screenshots.hash, hash)).limit(1));
}

export async function countScreenshots(db: Db): Promise<number> {
  const { screenshots } = tablesOf(db);
  const row = await first(db.select({ n: count() }).from(screenshots).limit(1));
  return row?.n ?? 0;
}

/** Stored difference hashes of the given screenshots (only those computed so far). */
export async function getScreenshotDhashes(db: Db, hashes: string[]): Promise<Map<string, string>> {
  const { screenshots } = tablesOf(db);
  const out = new Map<string, string>();
  for (let i = 0; i < hashes.length; i += 500) {
    const rows = await db
      .select({ hash: screenshots.hash, dhash: screenshots.dhash })
      .from(screenshots)
      .where(inArray(screenshots.hash, hashes.slice(i, i + 500)));
    for (const r of rows) if (r.dhash) out.set(r.hash, r.dhash);
  }
  return out;
}

export async function setScreenshotDhash(db: Db, hash: string, dhash: string): Promise<void> {
  const { screenshots } = tablesOf(db);
  await db.update(screenshots).set({ dhash }).where(eq(screenshots.hash, hash));
}

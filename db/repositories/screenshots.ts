/**
 * Rows describing the files the screenshot store holds.
 */
import { count, eq, inArray } from "drizzle-orm";
import type { Db } from "../client";
import { screenshots, type ScreenshotRow } from "../schema/index";

export function insertScreenshotIfMissing(
  db: Db,
  v: { hash: string; mime: string; width: number; height: number; bytes: number },
): void {
  db.insert(screenshots).values(v).onConflictDoNothing().run();
}

export function getScreenshot(db: Db, hash: string): ScreenshotRow | undefined {
  return db.select().from(screenshots).where(eq(screenshots.hash, hash)).get();
}

export function countScreenshots(db: Db): number {
  return db.select({ n: count() }).from(screenshots).get()!.n;
}

/** Stored difference hashes of the given screenshots (only those computed so far). */
export function getScreenshotDhashes(db: Db, hashes: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < hashes.length; i += 500) {
    const rows = db
      .select({ hash: screenshots.hash, dhash: screenshots.dhash })
      .from(screenshots)
      .where(inArray(screenshots.hash, hashes.slice(i, i + 500)))
      .all();
    for (const r of rows) if (r.dhash) out.set(r.hash, r.dhash);
  }
  return out;
}

export function setScreenshotDhash(db: Db, hash: string, dhash: string): void {
  db.update(screenshots).set({ dhash }).where(eq(screenshots.hash, hash)).run();
}

/**
 * Rows describing the files the screenshot store holds.
 */
import { count, eq } from "drizzle-orm";
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

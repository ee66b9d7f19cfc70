/**
 * Failed attempts counted per key (a client address and what it tried) in the rate-limit table better-auth keeps
 * for sign-in, so every web server behind a load balancer counts the same attempts. Keys of ours never collide
 * with better-auth's (they start with a word and a colon; better-auth's with an address).
 */
import crypto from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { first, tablesOf, type Db } from "../../database";

/** Failures recorded under `key` within the window that ends at `now`. */
export async function countRecentFailures(db: Db, key: string, windowMs: number, now: Date): Promise<number> {
  const { rateLimits } = tablesOf(db);
  const row = await first(db.select().from(rateLimits).where(eq(rateLimits.key, key)).limit(1));
  if (!row || row.lastRequest < now.getTime() - windowMs) return 0;
  return row.count;
}

/** Adds one failure under `key`; a count whose last failure is older than the window starts again at one. */
export async function recordFailure(db: Db, key: string, windowMs: number, now: Date): Promise<void> {
  const { rateLimits } = tablesOf(db);
  const at = now.getTime();
  await db
    .insert(rateLimits)
    .values({ id: crypto.randomUUID(), key, count: 1, lastRequest: at })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: {
        count: sql`CASE WHEN ${rateLimits.lastRequest} < ${at - windowMs} THEN 1 ELSE ${rateLimits.count} + 1 END`,
        lastRequest: at,
      },
    });
}

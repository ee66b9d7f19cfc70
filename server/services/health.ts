/**
 * What a load balancer or an orchestrator asks before sending users to a web server: does this installation's
 * database answer, and which engines is it on. The answer names no host, secret or dependency version, since
 * anyone may ask (the endpoint needs no sign-in).
 */
import { dialectOf } from "../../db/database";
import { pingDatabase } from "../../db/repositories/health";
import type { AppContext } from "../context";

export interface HealthReport {
  ok: boolean;
  database: "sqlite" | "postgres";
  storage: "local" | "s3";
  /** Why the server is not ready (only when ok is false), in a few words. */
  reason?: string;
}

/** A database that has not answered by then counts as unreachable: a health check must answer quickly. */
const PING_TIMEOUT_MS = 3_000;

export async function installationHealth(ctx: AppContext, timeoutMs = PING_TIMEOUT_MS): Promise<HealthReport> {
  const base = { database: dialectOf(ctx.db), storage: ctx.config.objectStorage ? "s3" : "local" } as const;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      pingDatabase(ctx.db),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("timeout")), timeoutMs);
      }),
    ]);
    return { ok: true, ...base };
  } catch (e) {
    // The driver's message may carry the host or user name: the answer only says what kind of trouble it is.
    const timedOut = e instanceof Error && e.message === "timeout";
    return { ok: false, ...base, reason: timedOut ? "database did not answer in time" : "database unreachable" };
  } finally {
    clearTimeout(timer);
  }
}

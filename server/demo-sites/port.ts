/**
 * The demo sites' port, apart from their server so the web app can name it without bundling the file server.
 */

/** The port the demo data is recorded on: URLs stored in demo trajectories contain it, so it must not vary. */
export const DEMO_SITES_DEFAULT_PORT = 4517;

/** VERDICT_DEMO_PORT, default 4517; "off" (or "none", "no") means no demo sites are served. */
export function demoPortFromEnv(env: Readonly<Record<string, string | undefined>>): number | null {
  const raw = env.VERDICT_DEMO_PORT?.trim();
  if (!raw) return DEMO_SITES_DEFAULT_PORT;
  if (/^(off|none|no)$/i.test(raw)) return null;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`VERDICT_DEMO_PORT must be a port number or "off", got ${JSON.stringify(raw)}`);
  return port;
}

/**
 * The web server as a process of its own, for tests that measure it under load as the security reviews did: the
 * app's route handlers (tests/helpers/route-server.ts) on a free 127.0.0.1 port, run like `next start` runs them
 * (production mode, the web server's short database wait). The installation is the one the environment names
 * (VERDICT_DB or VERDICT_DATABASE_URL, VERDICT_DATA_DIR). Prints one JSON line {"url": …} once listening; stops on
 * SIGTERM or when stdin closes.
 *
 *   node --import tsx tests/helpers/web-server-child.ts
 */
import { startRouteServer } from "./route-server";

(process.env as Record<string, string>).NODE_ENV = "production";
process.env.NEXT_RUNTIME = "nodejs";
const server = await startRouteServer();
process.stdout.write(JSON.stringify({ url: server.url }) + "\n");
const stop = () => void server.close().then(() => process.exit(0));
process.on("SIGTERM", stop);
process.stdin.on("end", stop);
process.stdin.resume();

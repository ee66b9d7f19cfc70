/**
 * A Playwright browser server for live-runner workers on other machines (VERDICT_BROWSER_WS): Debian's Chromium from
 * the Verdict image, started with its sandbox and the same flags as a browser the worker launches itself (no QUIC,
 * no WebRTC UDP outside the proxy), so every connection of a run still goes through that run's egress proxy.
 *
 *   node --import tsx scripts/browser-server.ts [--port 3000] [--path /playwright]
 *
 * Workers then use VERDICT_BROWSER_WS=ws://<this host>:3000/playwright. Anyone who can reach the port can drive the
 * browser: keep it on a network only the workers reach (deploy/docker-compose.yml does). Run it as a non-root user
 * (the image's `verdict`); Chromium refuses its sandbox as root. Ctrl-C (or SIGTERM) stops it.
 */
import { chromium } from "playwright";
import { loadConfig } from "../server/config";
import { CHROMIUM_ARGS, browserIsolation, chromiumAvailable } from "../server/browser/launch";

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = process.argv[i + 1];
  if (value === undefined || value.startsWith("--")) fail(`--${name} needs a value`);
  return value;
}

function fail(message: string): never {
  console.error(`browser server: ${message}`);
  process.exit(2);
}

const portText = option("port", "3000");
const port = Number(portText);
if (!/^\d+$/.test(portText) || port < 1 || port > 65535) fail(`--port must be a TCP port (1–65535), got ${JSON.stringify(portText)}`);
const wsPath = option("path", "/playwright");
if (!wsPath.startsWith("/")) fail(`--path must start with "/", got ${JSON.stringify(wsPath)}`);

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (e) {
  fail((e as Error).message);
}
if (!chromiumAvailable(config.chromiumPath)) fail(`Chromium was not found at ${config.chromiumPath} (CHROMIUM_PATH)`);

const isolation = browserIsolation(config);
// As root the worker switches Chromium to an unprivileged user; a shared browser server has no such step.
if (isolation.kind === "sandbox-as-user") fail("run the browser server as a non-root user: Chromium cannot keep its sandbox as root");
if (isolation.kind === "no-sandbox") console.error(`browser server: warning: ${isolation.warning}`);

const server = await chromium.launchServer({
  executablePath: config.chromiumPath,
  headless: true,
  chromiumSandbox: isolation.kind === "sandbox",
  args: [...CHROMIUM_ARGS, ...(isolation.kind === "no-sandbox" ? ["--no-sandbox"] : [])],
  host: "0.0.0.0",
  port,
  wsPath,
});
console.error(`browser server: Chromium ${config.chromiumPath} listening on port ${port}, path ${wsPath}`);

let stopping = false;
const stop = (signal: string) => {
  stopping = true;
  console.error(`browser server: ${signal}: closing the browser`);
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
// A crashed browser ends the server, so the container (restart: unless-stopped) starts a fresh one.
server.process().on("exit", (code) => {
  if (stopping) return;
  console.error(`browser server: Chromium exited (${code ?? "signal"})`);
  process.exit(1);
});

/**
 * Live runs on a remote browser (VERDICT_BROWSER_WS): a Playwright browser server, started here as the browser
 * user (as launch.ts starts Chromium when root), plays the browser on another machine. The runner connects instead
 * of launching (CHROMIUM_PATH points nowhere), and its address policy still holds there: a page that fetches a
 * loopback service gets nothing, because every run's context goes through the worker's egress proxy, which asks
 * for credentials since the network can reach it. Without VERDICT_RUNNER_PROXY_HOST the runner refuses to start.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type BrowserServer } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureTaskSet, upsertTask } from "../../db/repositories/catalog";
import { liveGroupKey } from "../../db/repositories/live/runs";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { AS_USER_WRAPPER, browserIsolation } from "../../server/browser/launch";
import { loadConfig } from "../../server/config";
import { liveRunRequestSchema } from "../../server/domain/live/settings";
import { taskValues } from "../../server/services/imports/ingest";
import { EgressProxy } from "../../server/services/live/egress-proxy";
import { liveRunDetail, startLiveRun } from "../../server/services/live/live-runs";
import { runRunnerWorker } from "../../server/services/live/worker";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { chromiumSkipReason, titled } from "../helpers/requirements";

const browserConfig = loadConfig();
const chromiumPath = browserConfig.chromiumPath;
const noChromium = chromiumSkipReason();
const haveChromium = noChromium === null;
if (!haveChromium) console.warn(`Skipping remote browser tests: no Chromium at ${chromiumPath} (apt-get install -y chromium, or set CHROMIUM_PATH).`);

let browserServer: BrowserServer;
let internal: http.Server;
let internalPort: number;
let internalConnections = 0;
let site: http.Server;
let sitePort: number;
let ctx: TestContext;

/** A Playwright browser server on 127.0.0.1, Chromium sandboxed as the browser user when this process is root. */
async function startBrowserServer(): Promise<BrowserServer> {
  const isolation = browserIsolation(browserConfig);
  const common = { host: "127.0.0.1", port: 0, headless: true, chromiumSandbox: isolation.kind !== "no-sandbox" };
  if (isolation.kind !== "sandbox-as-user") return chromium.launchServer({ ...common, executablePath: chromiumPath });
  return chromium.launchServer({
    ...common,
    executablePath: AS_USER_WRAPPER,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", VERDICT_BROWSER_USER: isolation.user, VERDICT_BROWSER_CHROMIUM: chromiumPath },
  });
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  if (!haveChromium) return;
  browserServer = await startBrowserServer();
  internal = http.createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end("<body style='background:#f00'>INTERNAL"));
  internal.on("connection", () => internalConnections++);
  internalPort = await listen(internal);
  // The page a run is allowed to open (as the demo sites are); it reaches for the internal service.
  // Literal loopback URLs are stopped by the context's routes already; a redirect hop and a WebSocket are not
  // seen by routes, so only the egress proxy stands between them and the internal service.
  site = http.createServer((req, res) => {
    if (req.url === "/hop") {
      res.writeHead(302, { Location: `http://127.0.0.1:${internalPort}/after-redirect` }).end();
      return;
    }
    res.writeHead(200, { "Content-Type": "text/html" }).end(`<!doctype html><body><h1>Remote page</h1>
      <img src="http://127.0.0.1:${internalPort}/img" width="20" height="20">
      <img src="/hop" width="20" height="20">
      <script>
        fetch("http://127.0.0.1:${internalPort}/fetch", { mode: "no-cors" }).catch(() => {});
        try { new WebSocket("ws://127.0.0.1:${internalPort}/ws").onerror = () => {}; } catch {}
      </script></body>`);
  });
  sitePort = await listen(site);
});

afterAll(async () => {
  await browserServer?.close();
  for (const s of [internal, site]) {
    if (!s) continue;
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function addTask(startUrl: string): Promise<number> {
  const values = {
    taskSet: { name: "Remote", benchmark: "adhoc" },
    externalId: `remote.${Date.now()}`,
    site: null,
    intent: "Look",
    startUrl,
    inputImages: [],
    referenceAnswers: [],
    evaluatorConfig: null,
    difficulty: null,
    tags: [],
    extra: null,
  };
  const task = await upsertTask(ctx.db, await ensureTaskSet(ctx.db, { name: "Remote", benchmark: "adhoc" }), taskValues(values));
  return task.id;
}

async function runOnRemote(proxyHost: string | undefined) {
  const { runId } = await startLiveRun(
    { db: ctx.db, env: {} },
    liveRunRequestSchema.parse({
      tasks: { from: "tasks", taskIds: [await addTask(`http://127.0.0.1:${sitePort}/`)] },
      policy: { kind: "scripted", source: "actions", actions: ["wait", "wait", "stop [done]"] },
    }),
  );
  // Launching here would fail: the browser can only come from the browser server.
  ctx.config.chromiumPath = "/nonexistent/chromium";
  ctx.config.remoteBrowser = { wsEndpoint: browserServer.wsEndpoint(), protocol: "playwright" };
  ctx.config.runnerProxyHost = proxyHost;
  await runRunnerWorker({
    ctx,
    env: {},
    concurrency: 1,
    groupKey: liveGroupKey(runId),
    untilIdle: true,
    demo: { baseUrl: `http://127.0.0.1:${sitePort}`, origins: [`127.0.0.1:${sitePort}`] },
  });
  const d = await liveRunDetail({ db: ctx.db, env: {} }, runId);
  return (await getTrajectoryDetail(ctx.db, d.tasks[0]!.trajectoryId!))!;
}

describeEachBackend("live runs on a remote browser (VERDICT_BROWSER_WS)", (backend) => {
  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-remote-browser-");
  });
  afterAll(async () => {
    await ctx?.cleanup();
  });

  describe.skipIf(!haveChromium)(titled("runs", noChromium), () => {
    it("records the run through the browser server, and a page still cannot reach loopback", async () => {
      const detail = await runOnRemote("127.0.0.1");
      expect(detail.trajectory.outcome).toBe("answered");
      expect(detail.steps.length).toBeGreaterThanOrEqual(2);
      expect(detail.steps[0]!.url).toBe(`http://127.0.0.1:${sitePort}/`);
      expect(internalConnections).toBe(0);
      const errors = detail.steps.map((s) => s.error ?? "").join("\n");
      // The proxy's own refusal (the redirect hop), and the WebSocket's.
      expect(errors).toContain(`blocked request to 127.0.0.1:${internalPort} (loopback)`);
      expect(errors).toContain(`the WebSocket to ws://127.0.0.1:${internalPort}/ws was blocked`);
    });

    it("refuses to start without VERDICT_RUNNER_PROXY_HOST", async () => {
      await expect(runOnRemote(undefined)).rejects.toThrow(/needs VERDICT_RUNNER_PROXY_HOST/);
    });
  });
});

describe("an egress proxy the network can reach", () => {
  it("answers 407 to a client without its credentials and serves one with them", async () => {
    const target = http.createServer((_req, res) => res.end("public page"));
    const targetPort = await listen(target);
    const proxy = await EgressProxy.start({ rules: { allowedDestinations: [`127.0.0.1:${targetPort}`] }, host: "127.0.0.1", requireCredentials: true });
    const via = (auth?: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          { host: "127.0.0.1", port: proxy.port, path: `http://127.0.0.1:${targetPort}/`, headers: auth ? { "Proxy-Authorization": auth } : {} },
          (res) => {
            let body = "";
            res.on("data", (c) => (body += c));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on("error", reject);
        req.end();
      });
    try {
      const s = proxy.settings;
      expect(s.server).toBe(`http://127.0.0.1:${proxy.port}`);
      expect(s.password).toMatch(/^[\w-]{24}$/);
      expect((await via()).status).toBe(407);
      expect((await via(`Basic ${Buffer.from(`${s.username}:wrong`).toString("base64")}`)).status).toBe(407);
      expect(await via(`Basic ${Buffer.from(`${s.username}:${s.password}`).toString("base64")}`)).toEqual({ status: 200, body: "public page" });
    } finally {
      await proxy.close();
      target.closeAllConnections();
      await new Promise((r) => target.close(r));
    }
  });
});

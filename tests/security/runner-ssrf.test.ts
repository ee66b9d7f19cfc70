/**
 * Security review H2: a page the live runner opens must not reach services on the runner's own network, by any
 * route a browser has. An "internal" HTTP + WebSocket service listens on loopback and counts every connection; an
 * attacker page, served from a destination the run is allowed to reach (as the demo sites are), tries every way in:
 * subresources (img, iframe, CSS, <object>, fetch, XHR) directly and through 301/302/307 (POST)/308 redirects from
 * its own origin, meta-refresh and script navigation of the main frame through redirects, WebSockets directly and
 * through a redirect, odd spellings of 127.0.0.1 and ::1, a name that rebinds from a public address to 127.0.0.1,
 * and a name whose lookup fails (which the browser would resolve to 127.0.0.1 if it were asked).
 *
 * Asserted: the internal service saw no connection at all; no recorded screenshot shows its page (solid red); the
 * refusals are in the steps' errors. On the old guard (Playwright routes only) redirects and WebSockets got through.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type net from "node:net";
import sharp from "sharp";
import type { Browser } from "playwright";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ensureTaskSet, upsertTask } from "../../db/repositories/catalog";
import { liveGroupKey } from "../../db/repositories/live/runs";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { launchChromium } from "../../server/browser/launch";
import { loadConfig, runnerAllowedDestinations } from "../../server/config";
import { liveRunRequestSchema, type LiveRunRequestInput } from "../../server/domain/live/settings";
import { taskValues } from "../../server/services/imports/ingest";
import { liveRunDetail, startLiveRun } from "../../server/services/live/live-runs";
import { runRunnerWorker } from "../../server/services/live/worker";
import { EgressProxy } from "../../server/services/live/egress-proxy";
import { createBackendContext, describeEachBackend, isFirstEngine, onOneEngine } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { chromiumSkipReason, titled } from "../helpers/requirements";
import { callerWithRole } from "../helpers/trpc";

const browserConfig = loadConfig();
const chromiumPath = browserConfig.chromiumPath;
const noChromium = chromiumSkipReason();
const haveChromium = noChromium === null;
if (!haveChromium) console.warn(`Skipping runner SSRF tests: no Chromium at ${chromiumPath} (apt-get install -y chromium, or set CHROMIUM_PATH).`);

/** A public address (TEST-NET-2) the rebinding name answers first; nothing listens there. */
const PUBLIC_FIRST = "198.51.100.7";

interface Internal {
  server: http.Server;
  port: number;
  connections: number;
  paths: string[];
}

let internal: Internal;
let attacker: http.Server;
let attackerPort: number;
let ctx: TestContext;
let browsers: Browser[] = [];

function internalUrl(p: string): string {
  return `http://127.0.0.1:${internal.port}${p}`;
}

function attackerPage(): string {
  const I = (p: string) => internalUrl(p);
  const via = (code: number, p: string) => `/r${code}?to=${encodeURIComponent(I(p))}`;
  const port = internal.port;
  return `<!doctype html><html><head><title>Totally normal page</title>
    <link rel="stylesheet" href="${via(301, "/css-redirect")}">
    <link rel="stylesheet" href="${I("/css-direct")}">
  </head><body style="margin:0;background:#fff;font:16px sans-serif">
    <h1 style="margin:4px">Nothing to see</h1>
    <iframe id="big" src="${via(302, "/iframe-redirect")}" style="width:1000px;height:500px;border:0"></iframe>
    <iframe src="${I("/iframe-direct")}" style="width:200px;height:100px;border:0"></iframe>
    <img src="${via(302, "/img-redirect")}" width="50" height="50">
    <img src="${I("/img-direct")}" width="50" height="50">
    <object data="${via(308, "/object-redirect")}" width="100" height="100"></object>
    <img src="http://2130706433:${port}/decimal" width="10" height="10">
    <img src="http://0x7f.1:${port}/hex" width="10" height="10">
    <img src="http://[::ffff:127.0.0.1]:${port}/mapped" width="10" height="10">
    <img src="http://[::1]:${port}/v6-loopback" width="10" height="10">
    <img src="http://rebind.test:${port}/rebind-img" width="10" height="10">
    <img src="http://nxdomain.test:${port}/lookup-fails" width="10" height="10">
    <script>
      const swallow = () => {};
      fetch(${JSON.stringify(via(302, "/fetch-redirect"))}).catch(swallow);
      fetch(${JSON.stringify(I("/fetch-direct"))}, { mode: "no-cors" }).catch(swallow);
      fetch(${JSON.stringify(via(307, "/post-307-redirect"))}, { method: "POST", body: "a=1" }).catch(swallow);
      for (const url of [${JSON.stringify(via(302, "/xhr-redirect"))}, ${JSON.stringify(I("/xhr-direct"))}]) {
        const x = new XMLHttpRequest(); x.open("GET", url); x.onerror = swallow; x.send();
      }
      try { new WebSocket("ws://127.0.0.1:${port}/ws-direct").onerror = swallow; } catch {}
      try { new WebSocket("ws://127.0.0.1:${attackerPort}/ws-redirect").onerror = swallow; } catch {}
      // The rebinding name: its second lookup answers 127.0.0.1.
      setTimeout(() => fetch("http://rebind.test:${port}/rebind-fetch", { mode: "no-cors" }).catch(swallow), 300);
    </script>
  </body></html>`;
}

async function startInternal(): Promise<Internal> {
  const state = { connections: 0, paths: [] as string[] };
  const server = http.createServer((req, res) => {
    state.paths.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end(`<!doctype html><body style="margin:0;background:#ff0000;height:100vh"><h1>INTERNAL SECRET: db-password=hunter2</h1>`);
  });
  server.on("connection", () => state.connections++);
  server.on("upgrade", (req, socket: net.Socket) => {
    state.paths.push(`UPGRADE ${req.url}`);
    socket.destroy();
  });
  // Dual stack: reachable as 127.0.0.1, ::1 and ::ffff:127.0.0.1.
  await new Promise<void>((r) => server.listen({ port: 0, host: "::", ipv6Only: false }, r));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, { server, port }) as Internal;
}

async function startAttacker(): Promise<void> {
  attacker = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const redirect = /^\/r(301|302|307|308)$/.exec(url.pathname);
    if (redirect) {
      req.resume();
      res.writeHead(Number(redirect[1]), { Location: url.searchParams.get("to") ?? "/" }).end();
    } else if (url.pathname === "/meta.html") {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end(
        `<!doctype html><meta http-equiv="refresh" content="0;url=/r302?to=${encodeURIComponent(internalUrl("/meta-refresh"))}"><body style="background:#fff">refreshing</body>`,
      );
    } else if (url.pathname === "/jsnav.html") {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end(
        `<!doctype html><body style="background:#fff">moving<script>location.href = "/r307?to=${encodeURIComponent(internalUrl("/js-navigation"))}";</script></body>`,
      );
    } else {
      res.writeHead(200, { "Content-Type": "text/html" }).end(attackerPage());
    }
  });
  // A WebSocket handshake answered with a redirect to the internal service.
  attacker.on("upgrade", (_req, socket: net.Socket) => {
    socket.end(`HTTP/1.1 302 Found\r\nLocation: ${internalUrl("/ws-after-redirect").replace("http:", "ws:")}\r\nContent-Length: 0\r\n\r\n`);
  });
  await new Promise<void>((r) => attacker.listen(0, "127.0.0.1", r));
  attackerPort = (attacker.address() as AddressInfo).port;
}

beforeAll(async () => {
  if (!haveChromium) return;
  internal = await startInternal();
  await startAttacker();
});
afterAll(async () => {
  for (const s of [internal?.server, attacker]) {
    if (!s) continue;
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});
async function addTask(externalId: string, startUrl: string): Promise<number> {
  const values = {
    taskSet: { name: "SSRF tasks", benchmark: "adhoc" },
    externalId,
    site: null,
    intent: `Visit ${startUrl}`,
    startUrl,
    inputImages: [],
    referenceAnswers: [],
    evaluatorConfig: null,
    difficulty: null,
    tags: [],
    extra: null,
  };
  const task = await upsertTask(ctx.db, await ensureTaskSet(ctx.db, { name: "SSRF tasks", benchmark: "adhoc" }), taskValues(values));
  return task.id;
}

async function runScripted(startUrl: string, actions: string[], settings: LiveRunRequestInput["settings"] = {}) {
  const { runId } = await startLiveRun(
    { db: ctx.db, env: {} },
    liveRunRequestSchema.parse({
      tasks: { from: "tasks", taskIds: [await addTask(`ssrf.${Date.now()}`, startUrl)] },
      policy: { kind: "scripted", source: "actions", actions },
      settings,
    }),
  );
  const rebindLookups = { n: 0 };
  await runRunnerWorker({
    ctx,
    env: {},
    concurrency: 1,
    groupKey: liveGroupKey(runId),
    untilIdle: true,
    // The attacker's origin plays the part of a destination the run may reach (as the demo sites are).
    demo: { baseUrl: `http://127.0.0.1:${attackerPort}`, origins: [`127.0.0.1:${attackerPort}`] },
    resolveHost: async (host) => {
      if (host === "rebind.test") return ++rebindLookups.n === 1 ? [PUBLIC_FIRST] : ["127.0.0.1"];
      throw new Error(`getaddrinfo ENOTFOUND ${host}`);
    },
    launch: async (o) => {
      const b = await launchChromium({
        config: browserConfig,
        egressProxy: o?.egressProxy,
        // What the browser's own resolver would answer, were it asked: both names point at the internal service.
        extraArgs: ["--host-resolver-rules=MAP rebind.test 127.0.0.1, MAP nxdomain.test 127.0.0.1"],
      });
      browsers.push(b);
      return b;
    },
  });
  const d = await liveRunDetail({ db: ctx.db, env: {} }, runId);
  return (await getTrajectoryDetail(ctx.db, d.tasks[0]!.trajectoryId!))!;
}

/** Pixels of the internal page's red in a stored screenshot. */
async function redPixels(hash: string): Promise<number> {
  const { data, info } = await sharp(await ctx.store.read(hash))
    .raw()
    .toBuffer({ resolveWithObject: true });
  let n = 0;
  for (let i = 0; i < data.length; i += info.channels) if (data[i]! > 200 && data[i + 1]! < 40 && data[i + 2]! < 40) n++;
  return n;
}

describeEachBackend("live runner egress (security review H2)", (backend) => {
  // What reaches the internal service is decided by the browser's routes and the egress proxy, which no database
  // engine changes: `once` runs those on one engine. The refusal before anything is queued (the run list read back)
  // runs on both.
  const once = onOneEngine(backend);
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-ssrf-");
    browsers = [];
    // The internal service outlives each test (one per file): what it saw belongs to the test that caused it.
    if (internal) {
      internal.paths.length = 0;
      internal.connections = 0;
    }
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  // Its one test runs on one engine (above), so the block is there only on that one.
  if (isFirstEngine(backend))
    describe.skipIf(!haveChromium)(titled("runs", noChromium), () => {
      once("no subresource, redirect hop, navigation, WebSocket, address spelling, rebinding name or failed lookup reaches an internal service", async () => {
        const start = `http://127.0.0.1:${attackerPort}/evil.html`;
        const detail = await runScripted(start, [
          "wait",
          "wait",
          `goto [http://127.0.0.1:${attackerPort}/meta.html]`,
          "wait",
          `goto [http://127.0.0.1:${attackerPort}/jsnav.html]`,
          "wait",
          "stop [done]",
        ]);
        expect(detail.trajectory.outcome).toBe("answered");

        // Not one connection, let alone a request.
        expect(internal.paths).toEqual([]);
        expect(internal.connections).toBe(0);

        // The internal page is in no screenshot (the redirected iframe would fill 1000×500 of the first ones with red).
        expect(detail.steps.length).toBeGreaterThanOrEqual(6);
        for (const s of detail.steps) {
          expect(await redPixels(s.rawScreenshotHash!), `step ${s.index} screenshot`).toBe(0);
          expect(await redPixels(s.screenshotHash!), `step ${s.index} marked screenshot`).toBe(0);
        }

        // Researchers see why: each refusal is in a step's error.
        const errors = detail.steps.map((s) => s.error ?? "").join("\n");
        expect(errors).toContain(`blocked request to 127.0.0.1:${internal.port} (loopback)`);
        // Literal private addresses are already stopped by the context's routes, in front of the proxy.
        expect(errors).toContain(`blocked request to [::1]:${internal.port} ([::1] is a private or loopback address)`);
        expect(errors).toContain(`blocked request to rebind.test:${internal.port} (resolves to 127.0.0.1, loopback)`);
        expect(errors).toMatch(
          new RegExp(`blocked request to nxdomain\\.test:${internal.port} \\(the name did not resolve: getaddrinfo ENOTFOUND nxdomain\\.test\\)`),
        );
        expect(errors).toContain(`the WebSocket to ws://127.0.0.1:${internal.port}/ws-direct was blocked`);
        // A main-frame hop that was refused shows the runner's refusal, never the internal page, and is left again.
        expect(errors).toMatch(new RegExp(`the page went to http://127\\.0\\.0\\.1:${internal.port}/(meta-refresh|js-navigation), which is not allowed`));
      });
    });

  describe("review 2, N2: where runs may go inside the network is the admins' decision", () => {
    it("a researcher asking for the private network is refused before anything is queued, and the internal service sees nothing", async () => {
      const api = await callerWithRole(ctx, "researcher");
      const taskId = await addTask("n2.private", internalUrl("/direct-start"));
      await expect(
        api.liveRuns.start({
          tasks: { from: "tasks", taskIds: [taskId] },
          policy: { kind: "scripted", source: "actions", actions: ["ANSWER; done"] },
          settings: { allowPrivateNetwork: true },
        }),
      ).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringContaining("a run cannot open the private network; an admin lists the private destinations"),
      });
      expect(await api.liveRuns.list()).toEqual([]);
      expect(internal.paths).toEqual([]);
    });

    once("cloud metadata addresses are refused by the egress proxy whatever is listed, in every spelling and behind names", async () => {
      const listed = ["[fd00:ec2::254]:80", "100.100.100.200:80", "169.254.169.254:80", "169.254.170.2:80", "metadata.test:80"];
      const proxy = await EgressProxy.start({
        rules: { allowedDestinations: listed },
        resolveHost: async (h) => (h === "metadata.test" ? ["100.100.100.200"] : []),
      });
      try {
        for (const [host, want] of [
          ["fd00:ec2::254", "cloud metadata service"],
          ["100.100.100.200", "cloud metadata service"],
          ["169.254.169.254", "cloud metadata service"],
          ["169.254.170.2", "cloud metadata service"],
          ["::ffff:100.100.100.200", "cloud metadata service"],
          ["64:ff9b::a9fe:a9fe", "cloud metadata service"],
          ["metadata.test", "resolves to 100.100.100.200, cloud metadata service"],
        ] as const) {
          const d = await proxy.decide(host, 80);
          expect("refusal" in d && d.refusal.reason, host).toBe(want);
        }
      } finally {
        await proxy.close();
      }
      // The configuration refuses such a list where it reads it, naming the variable and the entry.
      expect(() => runnerAllowedDestinations({ VERDICT_RUNNER_ALLOWED_DESTINATIONS: "wiki.lab:8080, [fd00:ec2::254]:80" })).toThrow(
        /^VERDICT_RUNNER_ALLOWED_DESTINATIONS "\[fd00:ec2::254\]:80" is a cloud metadata service, which runs never reach; remove it$/,
      );
      expect(() => runnerAllowedDestinations({ VERDICT_RUNNER_ALLOWED_DESTINATIONS: "wiki.lab, *.lab:80" })).toThrow(
        /^VERDICT_RUNNER_ALLOWED_DESTINATIONS "wiki\.lab", "\*\.lab:80" are not host:port \(a port is required, no wildcards\)$/,
      );
      expect(runnerAllowedDestinations({ VERDICT_RUNNER_ALLOWED_DESTINATIONS: " Wiki.Lab:8080 , 10.0.0.7:443" })).toEqual(["wiki.lab:8080", "10.0.0.7:443"]);
    });
  });
});

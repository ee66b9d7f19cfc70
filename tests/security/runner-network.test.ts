/**
 * Security review 2, N3: WebRTC's STUN/TURN traffic left a run's browser over UDP, around the egress proxy, and
 * reached a listener on 127.0.0.1. Two layers now stop it, and each is tested on its own in real Chromium:
 * - the network layer: the browser user (Chromium runs as it when Verdict runs as root) may open TCP connections to
 *   the egress proxies' ports on 127.0.0.1 and send nothing else (scripts/browser-user.sh, checked and installed by
 *   the worker at start). Tested with WebRTC left in the page: a UDP listener on 127.0.0.1 receives nothing;
 * - the browser layer: a run's pages have no WebRTC at all (server/browser/no-webrtc.ts).
 *
 * The network layer needs root (the kernel tells the browser user apart from the server's own user) and nftables.
 * Outside CI a run without them skips it with the reason in its title; CI runs as root with nftables installed
 * (.ci/run) and fails here when the rules cannot be put in place.
 */
import dgram from "node:dgram";
import http from "node:http";
import net from "node:net";
import { execFileSync, spawn } from "node:child_process";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserIsolation, launchChromium } from "../../server/browser/launch";
import { BrowserSession } from "../../server/browser/session";
import { DEFAULT_RUNNER_PROXY_PORTS, loadConfig } from "../../server/config";
import { browserNetworkState, browserNetworkTable, ensureBrowserNetworkRules } from "../../server/services/live/browser-network";
import { EgressProxy } from "../../server/services/live/egress-proxy";
import { browserNetworkLayerSkipReason, chromiumSkipReason, titled } from "../helpers/requirements";

const browserConfig = loadConfig();
const noChromium = chromiumSkipReason();
const noNetworkLayer = noChromium ?? browserNetworkLayerSkipReason();

/** A UDP listener standing for an internal service; counts every datagram. */
async function udpListener(): Promise<{ port: number; received: Buffer[]; close(): Promise<void> }> {
  const received: Buffer[] = [];
  const socket = dgram.createSocket("udp4");
  socket.on("message", (m) => received.push(m));
  await new Promise<void>((r) => socket.bind(0, "127.0.0.1", r));
  return { port: socket.address().port, received, close: () => new Promise<void>((r) => socket.close(() => r())) };
}

/** A TCP listener standing for an internal service; counts connections. */
async function tcpListener(port = 0): Promise<{ port: number; connections: number; close(): Promise<void> }> {
  const state = { connections: 0 };
  const server = net.createServer((s) => {
    state.connections++;
    s.end();
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return state.connections;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The review's page: a peer connection with STUN and TURN servers on 127.0.0.1, gathering until it is done. */
function rtcPage(udpPort: number, tcpPort: number): string {
  return `<!doctype html><title>rtc</title><script>
    window.rtc = (async () => {
      if (typeof RTCPeerConnection !== "function") return { webrtc: false };
      const pc = new RTCPeerConnection({ iceServers: [
        { urls: "stun:127.0.0.1:${udpPort}" },
        { urls: "turn:127.0.0.1:${udpPort}?transport=udp", username: "u", credential: "c" },
        { urls: "turn:127.0.0.1:${tcpPort}?transport=tcp", username: "u", credential: "c" },
      ] });
      pc.createDataChannel("x");
      const errors = [];
      pc.onicecandidateerror = (e) => errors.push(String(e.errorCode));
      const done = new Promise((r) => { pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === "complete") r(); }; });
      await pc.setLocalDescription(await pc.createOffer());
      await done;
      return { webrtc: true, state: pc.iceGatheringState, errors };
    })();
  </script>`;
}

let site: http.Server;
let sitePort: number;
let udp: Awaited<ReturnType<typeof udpListener>>;
let tcp: Awaited<ReturnType<typeof tcpListener>>;

beforeAll(async () => {
  udp = await udpListener();
  tcp = await tcpListener();
  site = http.createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(rtcPage(udp.port, tcp.port)));
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  sitePort = (site.address() as AddressInfo).port;
});
afterAll(async () => {
  await udp?.close();
  await tcp?.close();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
});

/** Packets of the browser user the network rules dropped so far (the rule's counter). */
function droppedPackets(uid: number): number {
  const listing = execFileSync("nft", ["list", "table", "inet", browserNetworkTable(uid)], { encoding: "utf8" });
  const m = new RegExp(`meta skuid ${uid} counter packets (\\d+) bytes \\d+ drop`).exec(listing);
  if (!m) throw new Error(`no drop rule with a counter for uid ${uid} in:\n${listing}`);
  return Number(m[1]);
}

/** Chromium as the runner launches it, behind an egress proxy that lets the page's own site through. */
async function withRunnerBrowser<T>(fn: (browser: Browser, proxy: EgressProxy) => Promise<T>): Promise<T> {
  const proxy = await EgressProxy.start({ rules: { allowedDestinations: [`127.0.0.1:${sitePort}`] } });
  const browser = await launchChromium({ config: browserConfig, egressProxy: proxy.url });
  try {
    return await fn(browser, proxy);
  } finally {
    await browser.close();
    await proxy.close();
  }
}

describe.skipIf(noNetworkLayer !== null)(titled("the browser user's network layer", noNetworkLayer), () => {
  let user: string;
  let uid: number;
  let gid: number;

  beforeAll(() => {
    const isolation = browserIsolation(browserConfig);
    if (isolation.kind !== "sandbox-as-user")
      throw new Error(`as root, Chromium runs as the browser user; got ${isolation.kind} (run scripts/browser-user.sh)`);
    ({ user, uid, gid } = isolation);
  });

  it("holds the rules the worker checks at start: TCP to the egress proxies' ports on 127.0.0.1, nothing else", async () => {
    const state = ensureBrowserNetworkRules({ user, uid });
    expect(state, state.detail).toMatchObject({ kind: "in-place" });
    expect(browserNetworkState(uid, DEFAULT_RUNNER_PROXY_PORTS).kind).toBe("in-place");

    // A process of the browser user, sending as a page's WebRTC would and connecting around the proxy.
    const proxyPort = await tcpListener(DEFAULT_RUNNER_PROXY_PORTS.from + 7);
    try {
      const probe = `
        const dgram = require("node:dgram"), net = require("node:net");
        const out = {};
        const tcp = (port) => new Promise((r) => { const c = net.connect({ host: "127.0.0.1", port }); c.on("connect", () => { c.destroy(); r("connected"); }); c.on("error", (e) => r(e.code)); });
        const s = dgram.createSocket("udp4");
        s.send("stun", ${udp.port}, "127.0.0.1", async (e) => {
          out.udp = e ? e.code : "sent"; s.close();
          out.internal = await tcp(${tcp.port});
          out.proxy = await tcp(${proxyPort.port});
          process.stdout.write(JSON.stringify(out)); process.exit(0);
        });`;
      const child = spawn("setpriv", [`--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", process.execPath, "-e", probe], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      // Once its output has ended ("close"), not when it exited: the probe's answer may still be in the pipe then.
      await new Promise((r) => child.on("close", r));
      expect(JSON.parse(stdout)).toEqual({ udp: "EPERM", internal: "ECONNREFUSED", proxy: "connected" });
      expect(udp.received).toHaveLength(0);
      expect(tcp.connections).toBe(0);
      expect(proxyPort.connections).toBe(1);
    } finally {
      await proxyPort.close();
    }
  });

  it("a page with WebRTC left in it sends no STUN or TURN to a listener on 127.0.0.1 (real Chromium, the network layer alone)", async () => {
    ensureBrowserNetworkRules({ user, uid });
    const before = droppedPackets(uid);
    const seen = await withRunnerBrowser(async (browser, proxy) => {
      // A bare context (not a run's session): WebRTC is there, only the kernel stands in the way.
      const context = await browser.newContext({ proxy: { server: proxy.url } });
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${sitePort}/rtc.html`);
      const webrtc = await page.evaluate(() => typeof RTCPeerConnection === "function");
      // The browser user's datagrams counted by the rule that drops them: the page's STUN and TURN requests were
      // sent from Chromium, and stopped on their way (a first request to each of the two servers at least).
      await expect.poll(() => droppedPackets(uid) - before, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
      return { webrtc };
    });
    expect(seen.webrtc).toBe(true);
    expect(udp.received.map((m) => m.subarray(0, 8).toString("hex"))).toEqual([]);
    expect(tcp.connections).toBe(0);
  });
});

describe.skipIf(noChromium !== null)(titled("a run's pages have no WebRTC (the browser layer)", noChromium), () => {
  it("RTCPeerConnection and its kin are gone from the page and its frames, and nothing reaches the listener", async () => {
    const seen = await withRunnerBrowser(async (browser, proxy) => {
      const session = await BrowserSession.open(browser, { proxyServer: proxy.url });
      try {
        await session.page.goto(`http://127.0.0.1:${sitePort}/rtc.html`);
        const main = await session.page.evaluate(async () => ({
          rtc: await (window as unknown as { rtc: Promise<unknown> }).rtc,
          globals: ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel"].map((n) => typeof (window as unknown as Record<string, unknown>)[n]),
        }));
        // A frame of the site's own, loaded by the page.
        await session.page.evaluate((src) => {
          const f = document.createElement("iframe");
          f.src = src;
          document.body.append(f);
          return new Promise((r) => f.addEventListener("load", r));
        }, `http://127.0.0.1:${sitePort}/frame.html`);
        const frame = session.page.frames().find((f) => f.url().endsWith("/frame.html"))!;
        const inFrame = await frame.evaluate(async () => (await (window as unknown as { rtc: Promise<unknown> }).rtc) as unknown);
        return { main, inFrame };
      } finally {
        await session.close();
      }
    });
    expect(seen.main).toEqual({ rtc: { webrtc: false }, globals: ["undefined", "undefined", "undefined"] });
    expect(seen.inFrame).toEqual({ webrtc: false });
    expect(udp.received).toHaveLength(0);
  });
});

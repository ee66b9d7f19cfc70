/**
 * The live runner's egress proxy on real sockets: plain-HTTP proxying and CONNECT tunnels are checked against the
 * address actually connected to; a name is resolved once per request (so a rebinding answer cannot slip in between
 * the check and the connection); a failed lookup is refused; refusals are reported.
 */
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EgressProxy, type EgressRefusalEvent } from "../../server/services/live/egress-proxy";
import { RunSafety } from "../../server/services/live/safety-guard";

let target: http.Server;
let targetPort: number;
let hits: string[] = [];

beforeAll(async () => {
  target = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.headers.host} ${req.url}`);
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => res.writeHead(200, { "Content-Type": "text/plain", "X-Seen-Body": body }).end(`hello from ${req.url}`));
  });
  await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
  targetPort = (target.address() as AddressInfo).port;
});
afterAll(async () => {
  target.closeAllConnections();
  await new Promise((r) => target.close(r));
});

/** A request through the proxy in absolute form, as Chromium sends plain-HTTP requests to it. */
function viaProxy(
  proxy: EgressProxy,
  url: string,
  init: { method?: string; body?: string } = {},
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: proxy.port, method: init.method ?? "GET", path: url, headers: { Host: new URL(url).host } }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

/** The proxy's answer to a CONNECT for `authority` (its status line). */
function connectThrough(proxy: EgressProxy, authority: string): Promise<{ status: string; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(proxy.port, "127.0.0.1", () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    let head = "";
    socket.on("data", function onData(c) {
      head += c.toString("latin1");
      if (head.includes("\r\n\r\n")) {
        socket.off("data", onData);
        resolve({ status: head.split("\r\n")[0]!, socket });
      }
    });
    socket.on("error", reject);
  });
}

describe("egress proxy", () => {
  it("forwards allowed requests to the checked address and refuses the rest with 403, reporting why", async () => {
    const refusals: EgressRefusalEvent[] = [];
    const lookups: string[] = [];
    const proxy = await EgressProxy.start({
      rules: { allowedDestinations: [`127.0.0.1:${targetPort}`] },
      resolveHost: async (host) => {
        lookups.push(host);
        if (host === "app.test") return ["127.0.0.1"];
        throw new Error(`ENOTFOUND ${host}`);
      },
      onRefusal: (r) => refusals.push(r),
    });
    try {
      hits = [];
      const ok = await viaProxy(proxy, `http://app.test:${targetPort}/page?q=1`, { method: "POST", body: "a=1" });
      expect(ok).toMatchObject({ status: 200, body: "hello from /page?q=1" });
      expect(ok.headers["x-seen-body"]).toBe("a=1");
      // The Host header the page sent is kept; the connection went to the address the name was checked at.
      expect(hits).toEqual([`POST app.test:${targetPort} /page?q=1`]);
      expect(lookups).toEqual(["app.test"]);

      const wrongPort = await viaProxy(proxy, `http://127.0.0.1:${targetPort + 1}/`);
      expect(wrongPort.status).toBe(403);
      expect(wrongPort.body).toBe(`Verdict's live runner blocked request to 127.0.0.1:${targetPort + 1} (loopback)`);
      const unresolved = await viaProxy(proxy, `http://gone.test:${targetPort}/`);
      expect(unresolved.status).toBe(403);
      expect(refusals.map((r) => r.message)).toEqual([
        `blocked request to 127.0.0.1:${targetPort + 1} (loopback)`,
        `blocked request to gone.test:${targetPort} (the name did not resolve: ENOTFOUND gone.test)`,
      ]);
      expect(hits).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it("resolves a name once per request, so a rebinding answer is checked before it is used", async () => {
    const answers = [["127.0.0.1"], ["10.0.0.1"]];
    let calls = 0;
    const proxy = await EgressProxy.start({
      rules: { allowedDestinations: [`127.0.0.1:${targetPort}`] },
      resolveHost: async () => answers[Math.min(calls++, answers.length - 1)]!,
    });
    try {
      hits = [];
      expect((await viaProxy(proxy, `http://rebind.test:${targetPort}/one`)).status).toBe(200);
      expect((await viaProxy(proxy, `http://rebind.test:${targetPort}/two`)).status).toBe(403);
      expect(calls).toBe(2);
      expect(hits).toEqual([`GET rebind.test:${targetPort} /one`]);
    } finally {
      await proxy.close();
    }
  });

  it("refuses a name when any of its addresses is refused", async () => {
    const proxy = await EgressProxy.start({
      rules: { allowedDestinations: [] },
      resolveHost: async () => ["93.184.216.34", "127.0.0.1"],
    });
    try {
      const r = await viaProxy(proxy, "http://mixed.test/");
      expect(r.status).toBe(403);
      expect(r.body).toContain("blocked request to mixed.test:80 (resolves to 127.0.0.1, loopback)");
    } finally {
      await proxy.close();
    }
  });

  it("tunnels CONNECT (HTTPS, WebSockets) only to allowed destinations", async () => {
    const refusals: string[] = [];
    const proxy = await EgressProxy.start({
      rules: { allowedDestinations: [`127.0.0.1:${targetPort}`] },
      resolveHost: async () => {
        throw new Error("no DNS here");
      },
      onRefusal: (r) => refusals.push(r.message),
    });
    try {
      hits = [];
      const open = await connectThrough(proxy, `127.0.0.1:${targetPort}`);
      expect(open.status).toBe("HTTP/1.1 200 Connection Established");
      // Through the tunnel, an ordinary request reaches the service.
      const reply = await new Promise<string>((resolve) => {
        let got = "";
        open.socket.on("data", (c) => {
          got += c.toString();
          if (got.includes("hello from /tunnelled")) resolve(got);
        });
        open.socket.write(`GET /tunnelled HTTP/1.1\r\nHost: 127.0.0.1:${targetPort}\r\nConnection: close\r\n\r\n`);
      });
      expect(reply).toMatch(/^HTTP\/1\.1 200/);
      open.socket.destroy();

      for (const authority of [`127.0.0.1:${targetPort + 1}`, `[::1]:${targetPort}`, `[::ffff:127.0.0.1]:${targetPort + 1}`, `internal.test:${targetPort}`]) {
        const refused = await connectThrough(proxy, authority);
        expect(refused.status, authority).toBe("HTTP/1.1 403 Forbidden");
        refused.socket.destroy();
      }
      expect(refusals).toEqual([
        `blocked request to 127.0.0.1:${targetPort + 1} (loopback)`,
        `blocked request to [::1]:${targetPort} (loopback)`,
        `blocked request to [::ffff:127.0.0.1]:${targetPort + 1} (loopback)`,
        `blocked request to internal.test:${targetPort} (the name did not resolve: no DNS here)`,
      ]);
      expect(hits).toEqual(["GET 127.0.0.1:" + targetPort + " /tunnelled"]);
    } finally {
      await proxy.close();
    }
  });

  it("a step's error names each refusal once, the first dozen of them, and counts the rest", async () => {
    const safety = new RunSafety({ allowedHosts: ["example.com"], privateOriginExceptions: [], blockedTexts: [], allowDownloads: false });
    const proxy = await EgressProxy.start({ rules: { allowedDestinations: [] }, onRefusal: (r) => safety.noteRefusal(r.message) });
    try {
      for (let i = 1; i <= 15; i++) {
        await viaProxy(proxy, `http://10.0.0.${i}/`);
        await viaProxy(proxy, `http://10.0.0.${i}/again`);
      }
      const events = safety.takeEvents();
      expect(events).toHaveLength(13);
      expect(events[0]).toBe("blocked request to 10.0.0.1:80 (private)");
      expect(events[11]).toBe("blocked request to 10.0.0.12:80 (private)");
      expect(events[12]).toBe("and 3 more blocked request(s)");
      // The next step starts afresh.
      await viaProxy(proxy, "http://10.0.0.1/");
      expect(safety.takeEvents()).toEqual(["blocked request to 10.0.0.1:80 (private)"]);
    } finally {
      await proxy.close();
    }
  });
});

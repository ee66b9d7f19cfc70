/**
 * The web server on the installation's database, whichever engine it is (VERDICT_DATABASE_URL=postgres://… or the
 * SQLite file): the real route handlers (sign-in, tRPC, screenshots) behind a real HTTP server on 127.0.0.1, reading
 * the environment on every request as `next start` does. First-run setup, sign-in, sessions, user management and a
 * screenshot all go through the database the environment names, and nothing else.
 */
import sharp from "sharp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { tablesOf } from "../../db/database";
import { countAdmins, countUsers, getUserByEmail } from "../../db/repositories/accounts/users";
import { closeSharedDatabases } from "../../server/context";
import { sha256 } from "../../server/storage/screenshot-store";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { rawRequest, startRouteServer, type RawResponse, type RouteServer } from "../helpers/route-server";

const PASSWORD = "correct-horse-battery";

describeEachBackend("the web server's routes on the configured database", (backend) => {
  let ctx: TestContext;
  let server: RouteServer;
  /** The admin that first-run setup made (whichever of the two racing requests won). */
  let adminEmail = "";
  const saved = { ...process.env };

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-web-db-");
    // What the web server is started with: the data folder, and the database the installation uses.
    process.env.VERDICT_DATA_DIR = ctx.dir;
    process.env.VERDICT_DB = ctx.config.dbPath;
    if (ctx.config.postgresUrl) process.env.VERDICT_DATABASE_URL = ctx.config.postgresUrl;
    else delete process.env.VERDICT_DATABASE_URL;
    server = await startRouteServer();
  });

  afterAll(async () => {
    await server?.close();
    await closeSharedDatabases();
    await ctx?.cleanup();
    process.env = saved;
  });

  function post(pathName: string, body: unknown, cookie?: string): Promise<RawResponse> {
    return rawRequest(`${server.url}${pathName}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.url, ...(cookie ? { Cookie: cookie } : {}) },
      body: JSON.stringify(body),
    });
  }
  const mutation = (name: string, input: unknown, cookie?: string) => post(`/api/trpc/${name}`, { json: input }, cookie);
  const query = (name: string, cookie?: string) => rawRequest(`${server.url}/api/trpc/${name}`, { headers: cookie ? { Cookie: cookie } : {} });
  const result = (res: RawResponse) => (JSON.parse(res.body) as { result: { data: { json: unknown } } }).result.data.json;

  async function signIn(email: string, password = PASSWORD): Promise<string> {
    const res = await post("/api/auth/sign-in/email", { email, password });
    expect(res.status, res.body).toBe(200);
    return (res.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]).join("; ");
  }

  it("runs first-run setup once when two requests race, then signs the admin in", async () => {
    expect(result(await query("accounts.session"))).toEqual({ user: null, needsSetup: true });
    const [a, b] = await Promise.all([
      mutation("accounts.setup", { email: "first@web.test", name: "First", password: PASSWORD }),
      mutation("accounts.setup", { email: "second@web.test", name: "Second", password: PASSWORD }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 403]);
    // The rows are in the database the environment names (the test's own connection reads them back).
    expect(await countUsers(ctx.db)).toBe(1);
    expect(await countAdmins(ctx.db)).toBe(1);
    const winner = a.status === 200 ? "first@web.test" : "second@web.test";
    adminEmail = winner;

    const cookie = await signIn(winner);
    const session = result(await query("accounts.session", cookie)) as { user: { email: string; role: string }; needsSetup: boolean };
    expect(session).toMatchObject({ user: { email: winner, role: "admin" }, needsSetup: false });
    expect((await post("/api/auth/sign-in/email", { email: winner, password: "wrong-password" })).status).toBe(401);
  });

  it("invites a researcher, who joins, signs in, and is signed out at once when an admin changes the role", async () => {
    const admin = await signIn(adminEmail);
    const invited = await mutation("accounts.invite", { email: "Rosa@Web.test", role: "researcher", name: "Rosa" }, admin);
    expect(invited.status, invited.body).toBe(200);
    const { token } = result(invited) as { token: string };
    expect((await query(`accounts.list`, admin)).status).toBe(200);

    const accepted = await mutation("accounts.acceptInvitation", { token, name: "Rosa R.", password: PASSWORD });
    expect(accepted.status, accepted.body).toBe(200);
    // An invitation works once.
    expect((await mutation("accounts.acceptInvitation", { token, name: "Again", password: PASSWORD })).status).toBe(404);

    const rosa = await signIn("rosa@web.test");
    expect(result(await query("accounts.me", rosa))).toMatchObject({ name: "Rosa R.", role: "researcher" });
    const list = result(await query("accounts.list", admin)) as { users: { email: string; role: string }[]; invitations: unknown[] };
    expect(list.users.map((u) => u.email)).toContain("rosa@web.test");
    expect(list.invitations).toEqual([]);

    const rosaId = (await getUserByEmail(ctx.db, "rosa@web.test"))!.id;
    expect((await mutation("accounts.setRole", { userId: rosaId, role: "annotator" }, admin)).status).toBe(200);
    expect((await query("accounts.me", rosa)).status).toBe(401);
    expect((await getUserByEmail(ctx.db, "rosa@web.test"))?.role).toBe("annotator");
  });

  it("serves a stored screenshot to a signed-in researcher and refuses it signed out", async () => {
    const png = await sharp({ create: { width: 64, height: 40, channels: 3, background: { r: 200, g: 30, b: 90 } } })
      .png()
      .toBuffer();
    const hash = sha256(png);
    const batch = ctx.store.beginBatch();
    await batch.put(hash, png);
    await batch.publish();
    const { screenshots } = tablesOf(ctx.db);
    await ctx.db.insert(screenshots).values({ hash, mime: "image/png", width: 64, height: 40, bytes: png.byteLength }).onConflictDoNothing();

    expect((await rawRequest(`${server.url}/api/screenshots/${hash}`)).status).toBe(401);
    const admin = await signIn(adminEmail);
    const res = await rawRequest(`${server.url}/api/screenshots/${hash}`, { headers: { Cookie: admin } });
    expect(res.status, res.body).toBe(200);
    expect(res.headers["content-type"]).toBe("image/png");
    expect(Number(res.headers["content-length"])).toBe(png.byteLength);
  });
});

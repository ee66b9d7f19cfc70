/**
 * API tokens as an attacker would try them (issue 31, item 1), through the real route handlers behind a real HTTP
 * server on 127.0.0.1 on both engines: forged, revoked and expired tokens, tokens of deactivated owners, a token
 * used as someone else, a read token writing, a token minting tokens, an annotator's token reading what the blind
 * hides, a token in the query string, the failure rate limit, the body limit, and the Host and Origin rules for
 * bearer requests. The comparison of secrets is checked to run over whole digests whatever the input.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tablesOf } from "../../db/database";
import { closeSharedDatabases } from "../../server/context";
import { hashTokenSecret, newTokenSecret, parseToken, secretMatches, tokenInQuery } from "../../server/domain/access/api-tokens";
import { createAccount, setDeactivated } from "../../server/services/accounts";
import { apiTokensOf, createApiToken, revokeToken, BEARER_FAILURES_PER_WINDOW } from "../../server/services/accounts/api-tokens";
import { createCampaign } from "../../server/services/annotation";
import type { Actor } from "../../server/domain/access/actor";
import { seedTrajectories } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { rawRequest, startRouteServer, type RawResponse, type RouteServer } from "../helpers/route-server";

const PASSWORD = "correct-horse-battery";
const JUDGE_SECRET = "JUDGE-RATIONALE-ONLY-FOR-RESEARCHERS";
const RUN_SECRET = "agent-orion";

describe("token secrets", () => {
  it("compares whole SHA-256 digests whatever is presented, and only through the constant-time comparison", () => {
    const made = newTokenSecret();
    const secret = parseToken(made.token)!.secret;
    const seen: [number, number][] = [];
    const recording = (a: Buffer, b: Buffer) => {
      seen.push([a.length, b.length]);
      return a.equals(b);
    };
    // Right secret, wrong in the first character, wrong in the last, empty, very long: one 32-byte comparison each.
    const other = (c: string) => (c === "A" ? "B" : "A");
    const tries = [secret, `${other(secret[0]!)}${secret.slice(1)}`, `${secret.slice(0, -1)}${other(secret.at(-1)!)}`, "", secret.repeat(50)];
    expect(tries.map((s) => secretMatches(s, made.secretHash, recording))).toEqual([true, false, false, false, false]);
    expect(seen).toEqual(tries.map(() => [32, 32]));
    expect(made.secretHash).toBe(hashTokenSecret(secret));
    expect(made.token).not.toContain(made.secretHash);
  });

  it("never takes a token from a URL", () => {
    expect(tokenInQuery("/api/v1/trajectories?access_token=abc")).toBe(true);
    expect(tokenInQuery("/api/v1/trajectories?Token=abc")).toBe(true);
    expect(tokenInQuery("/api/v1/trajectories?q=vdt_AAAAAAAAAAAA_x")).toBe(true);
    expect(tokenInQuery("/api/v1/trajectories?q=salmon&site=Allrecipes")).toBe(false);
  });
});

describeEachBackend("API tokens against an attacker", (backend) => {
  let ctx: TestContext;
  let server: RouteServer;
  const saved = { ...process.env };
  const people: Record<"admin" | "researcher" | "annotator" | "other", Actor> = {} as never;
  let blindId: number;
  let openId: number;
  let outsideId: number;
  let nextAddress = 10;
  /** Each test's requests come from an address of their own, so failures of one do not count against another. */
  const address = () => `127.0.0.${nextAddress++}`;

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-sec-tokens-");
    process.env.VERDICT_DATA_DIR = ctx.dir;
    process.env.VERDICT_DB = ctx.config.dbPath;
    if (ctx.config.postgresUrl) process.env.VERDICT_DATABASE_URL = ctx.config.postgresUrl;
    else delete process.env.VERDICT_DATABASE_URL;
    for (const role of ["admin", "researcher", "annotator", "other"] as const) {
      const { user } = await createAccount(ctx, {
        email: `${role}@tokens.test`,
        name: `The ${role}`,
        role: role === "other" ? "annotator" : role,
        password: PASSWORD,
      });
      people[role] = { userId: user.id, name: user.name, role: user.role };
    }
    const blind = await seedTrajectories(ctx.db, 1, { agentName: RUN_SECRET, model: "model-orion", taskIds: ["blind-task"] });
    const open = await seedTrajectories(ctx.db, 1, { agentName: "agent-open", model: "model-open", taskIds: ["open-task"] });
    const outside = await seedTrajectories(ctx.db, 1, { agentName: "agent-outside", model: "model-outside", taskIds: ["outside-task"] });
    [blindId, openId, outsideId] = [blind[0]!, open[0]!, outside[0]!];
    const { evaluatorVerdicts } = tablesOf(ctx.db);
    for (const t of [blindId, openId, outsideId]) {
      await ctx.db.insert(evaluatorVerdicts).values({
        trajectoryId: t,
        kind: "judge",
        origin: "verdict",
        evaluatorKey: "judge:1",
        evaluatorName: "Judge",
        verdict: "failure",
        rationale: JUDGE_SECRET,
      });
    }
    await createCampaign(ctx.db, people.researcher, {
      name: "Blind campaign",
      trajectoryIds: [blindId],
      annotatorsPerItem: 1,
      annotatorIds: [people.annotator.userId],
    });
    server = await startRouteServer();
  });

  afterAll(async () => {
    await server?.close();
    await closeSharedDatabases();
    await ctx?.cleanup();
    process.env = saved;
  });

  async function tokenFor(who: keyof typeof people, scope: "read" | "read-write", options: { days?: number; now?: Date } = {}) {
    return (await createApiToken(ctx, people[who], { ownerId: people[who].userId, name: `${who} ${scope}`, scope, days: options.days }, options.now)).token;
  }

  function get(path: string, token: string | null, extra: { headers?: Record<string, string>; localAddress?: string } = {}): Promise<RawResponse> {
    return rawRequest(`${server.url}${path}`, {
      headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...extra.headers },
      localAddress: extra.localAddress,
    });
  }

  function post(
    path: string,
    token: string | null,
    body: unknown,
    extra: { headers?: Record<string, string>; localAddress?: string } = {},
  ): Promise<RawResponse> {
    return rawRequest(`${server.url}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}), ...extra.headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
      localAddress: extra.localAddress,
    });
  }

  const trpcData = (res: RawResponse) => (JSON.parse(res.body) as { result: { data: { json: unknown } } }).result.data.json;
  const verdict = { evaluator: "lab-judge", verdict: "success" };

  it("refuses a request without a token, a forged token, a mistyped one and a header that is not Bearer", async () => {
    const from = address();
    expect((await get("/api/v1/trajectories", null, { localAddress: from })).status).toBe(401);
    const real = await tokenFor("researcher", "read");
    const forged = newTokenSecret().token;
    const wrongSecret = real.slice(0, -4) + (real.endsWith("AAAA") ? "BBBB" : "AAAA");
    for (const t of [forged, wrongSecret, "not-a-token", `${real}x`]) {
      const res = await get("/api/v1/trajectories", t, { localAddress: from });
      expect(res.status, t).toBe(401);
      expect(JSON.parse(res.body).error).toMatch(/not valid/);
    }
    expect(
      (await get("/api/v1/trajectories", null, { headers: { Authorization: `Basic ${Buffer.from("a:b").toString("base64")}` }, localAddress: from })).status,
    ).toBe(401);
    // The real one works, and the tRPC API takes it too.
    expect((await get("/api/v1/trajectories", real, { localAddress: from })).status).toBe(200);
    expect(trpcData(await get("/api/trpc/accounts.me", real, { localAddress: from }))).toMatchObject({ userId: people.researcher.userId, role: "researcher" });
  });

  it("keeps only the secret's SHA-256: no stored row and no later listing holds the token, which is shown once", async () => {
    const made = await createApiToken(ctx, people.researcher, { ownerId: people.researcher.userId, name: "kept hashed", scope: "read" });
    const secret = parseToken(made.token)!.secret;
    const { apiTokens } = tablesOf(ctx.db);
    const rows = await ctx.db.select().from(apiTokens);
    const row = rows.find((r) => r.id === made.listing.id)!;
    expect(row.secretHash).toBe(hashTokenSecret(secret));
    // Neither the token nor its secret is in any column of any token row, as a copy of the database would hold them.
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(made.token);
    // Shown once: the answer that made it carries it; the owner's list, read afterwards, never does.
    expect(JSON.stringify(made.listing)).not.toContain(secret);
    const listed = await apiTokensOf(ctx, people.researcher, people.researcher.userId);
    expect(listed.map((t) => t.name)).toContain("kept hashed");
    expect(JSON.stringify(listed)).not.toContain(secret);
    const from = address();
    const overHttp = await get("/api/trpc/accounts.apiTokens.list", null, { localAddress: from });
    expect(overHttp.status).toBe(401);
    // And the token works: what is stored is enough to recognise it.
    expect((await get("/api/v1/trajectories", made.token, { localAddress: from })).status).toBe(200);
  });

  it("refuses a revoked token, an expired one and one whose owner was deactivated", async () => {
    const from = address();
    const revoked = await tokenFor("researcher", "read");
    expect((await get("/api/v1/trajectories", revoked, { localAddress: from })).status).toBe(200);
    const id = (await ctx.db.select().from(tablesOf(ctx.db).apiTokens)).find((r) => r.publicId === parseToken(revoked)!.publicId)!.id;
    await revokeToken(ctx, people.researcher, id);
    expect((await get("/api/v1/trajectories", revoked, { localAddress: from })).status).toBe(401);
    expect((await get("/api/trpc/accounts.me", revoked, { localAddress: from })).status).toBe(401);

    const expired = await tokenFor("researcher", "read", { days: 1, now: new Date(Date.now() - 2 * 86_400_000) });
    expect((await get("/api/v1/trajectories", expired, { localAddress: from })).status).toBe(401);

    const { user } = await createAccount(ctx, { email: "leaver@tokens.test", name: "Leaver", role: "researcher", password: PASSWORD });
    const leaver = { userId: user.id, name: user.name, role: user.role };
    const leaversToken = (await createApiToken(ctx, leaver, { ownerId: leaver.userId, name: "ci", scope: "read" })).token;
    expect((await get("/api/v1/trajectories", leaversToken, { localAddress: from })).status).toBe(200);
    await setDeactivated(ctx, people.admin.userId, leaver.userId, true);
    expect((await get("/api/v1/trajectories", leaversToken, { localAddress: from })).status).toBe(401);
  });

  it("acts only as its owner: it cannot manage tokens, and people cannot revoke or list others' tokens", async () => {
    const from = address();
    const mine = await tokenFor("researcher", "read-write");
    // A token cannot mint, list or revoke tokens, not even its owner's.
    const mint = await post("/api/trpc/accounts.apiTokens.create", mine, { json: { name: "longer", scope: "read-write", days: 366 } }, { localAddress: from });
    expect(mint.status).toBe(403);
    expect((await get("/api/trpc/accounts.apiTokens.list", mine, { localAddress: from })).status).toBe(403);
    // Another person (not an admin) cannot revoke it: to them it does not exist.
    const id = (await ctx.db.select().from(tablesOf(ctx.db).apiTokens)).find((r) => r.publicId === parseToken(mine)!.publicId)!.id;
    await expect(revokeToken(ctx, people.other, id)).rejects.toThrow(/No token with id/);
    await expect(createApiToken(ctx, people.researcher, { ownerId: people.admin.userId, name: "as admin", scope: "read-write" })).rejects.toThrow(
      /Only admins/,
    );
    // A researcher's token is the researcher: admin procedures stay closed.
    expect((await get("/api/trpc/accounts.list", mine, { localAddress: from })).status).toBe(403);
  });

  it("a read token only reads: tRPC mutations, pushes and verdicts are refused", async () => {
    const from = address();
    const read = await tokenFor("researcher", "read");
    const refused = await post(`/api/v1/trajectories/${openId}/verdicts`, read, verdict, { localAddress: from });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error).toMatch(/only read/);
    const push = await rawRequest(`${server.url}/api/v1/imports?name=r.zip`, {
      method: "POST",
      headers: { Authorization: `Bearer ${read}` },
      body: "PK\u0003\u0004",
      localAddress: from,
    });
    expect(push.status).toBe(403);
    const mutation = await post("/api/trpc/judge.verdicts.record", read, { json: { trajectoryId: openId, ...verdict } }, { localAddress: from });
    expect(mutation.status).toBe(403);
    const { evaluatorVerdicts } = tablesOf(ctx.db);
    expect((await ctx.db.select().from(evaluatorVerdicts)).filter((v) => v.evaluatorKey.startsWith("external:"))).toEqual([]);
    // The same call with a read-write token is stored.
    const write = await tokenFor("researcher", "read-write");
    expect((await post(`/api/v1/trajectories/${openId}/verdicts`, write, verdict, { localAddress: from })).status).toBe(201);
  });

  it("an annotator's token reads only what the annotator may see: no blind item, judge verdict or run name", async () => {
    const from = address();
    const token = await tokenFor("annotator", "read-write");
    const list = await get("/api/v1/trajectories", token, { localAddress: from });
    expect(list.status).toBe(200);
    expect(list.body).not.toContain(RUN_SECRET);
    expect(list.body).not.toContain(JUDGE_SECRET);
    expect((JSON.parse(list.body) as { rows: { id: number }[] }).rows.map((r) => r.id)).not.toContain(blindId);
    for (const id of [blindId, outsideId]) {
      const one = await get(`/api/v1/trajectories/${id}`, token, { localAddress: from });
      expect([403, 404], `${id}: ${one.body}`).toContain(one.status);
      expect(one.body).not.toContain(JUDGE_SECRET);
      expect(one.body).not.toContain(RUN_SECRET);
      const verdicts = await get(`/api/trpc/judge.verdicts.forTrajectory?input=${encodeURIComponent(JSON.stringify({ json: { trajectoryId: id } }))}`, token, {
        localAddress: from,
      });
      expect([403, 404]).toContain(verdicts.status);
      expect(verdicts.body).not.toContain(JUDGE_SECRET);
    }
    // Annotators do not post verdicts, whatever their token's scope.
    expect((await post(`/api/v1/trajectories/${blindId}/verdicts`, token, verdict, { localAddress: from })).status).toBe(403);
    // The researcher's token reads the same trajectory with its verdicts.
    const researcher = await tokenFor("researcher", "read");
    const full = await get(`/api/v1/trajectories/${blindId}`, researcher, { localAddress: from });
    expect(full.status).toBe(200);
    expect(full.body).toContain(JUDGE_SECRET);
  });

  it("refuses a token in the query string, even beside a valid header", async () => {
    const from = address();
    const token = await tokenFor("researcher", "read");
    for (const path of [`/api/v1/trajectories?access_token=${token}`, `/api/v1/trajectories?token=${token}`, `/api/trpc/accounts.me?api_key=${token}`]) {
      const res = await get(path, token, { localAddress: from });
      expect(res.status, path).toBe(400);
      expect(res.body).toMatch(/never in the URL/);
    }
  });

  it("turns an address away after repeated bad tokens, and a token's other clients are not affected", async () => {
    const attacker = address();
    const statuses: number[] = [];
    for (let i = 0; i < BEARER_FAILURES_PER_WINDOW + 2; i++)
      statuses.push((await get("/api/v1/trajectories", newTokenSecret().token, { localAddress: attacker })).status);
    expect(statuses.slice(0, BEARER_FAILURES_PER_WINDOW)).toEqual(Array(BEARER_FAILURES_PER_WINDOW).fill(401));
    expect(statuses.slice(BEARER_FAILURES_PER_WINDOW)).toEqual([429, 429]);
    const good = await tokenFor("researcher", "read");
    expect((await get("/api/v1/trajectories", good, { localAddress: attacker })).status).toBe(429);
    expect((await get("/api/v1/trajectories", good, { localAddress: address() })).status).toBe(200);
  });

  it("keeps the body limit and the Host check for bearer requests; the Origin rules are for cookies", async () => {
    const from = address();
    const token = await tokenFor("researcher", "read-write");
    const big = JSON.stringify({ ...verdict, rationale: "x".repeat(2 * 1024 * 1024) });
    expect((await post(`/api/v1/trajectories/${openId}/verdicts`, token, big, { localAddress: from })).status).toBe(413);
    const rebound = await get("/api/v1/trajectories", token, { headers: { Host: `rebind.attacker.example:${server.port}` }, localAddress: from });
    expect(rebound.status).toBe(421);
    // A script sends no cookie: an Origin it may carry does not matter, since no session rides on it.
    expect((await get("/api/v1/trajectories", token, { headers: { Origin: "http://127.0.0.1:9998" }, localAddress: from })).status).toBe(200);
    // With a cookie beside the token, the request is a browser's and the Origin rules apply as to any.
    const withCookie = await post(`/api/v1/trajectories/${openId}/verdicts`, token, verdict, {
      headers: { Origin: "http://127.0.0.1:9998", Cookie: "x=1" },
      localAddress: from,
    });
    expect(withCookie.status).toBe(403);
  });
});

/**
 * Security review H1 (and L1): judge endpoints must not exfiltrate secrets.
 *
 * Each attack of the review is replayed the way a researcher would make it, through the tRPC API, against an
 * "attacker" listener on 127.0.0.1 that records the Authorization header of every request it gets. The admins'
 * endpoint settings are the web server's environment, set here per test.
 */
import { sqliteClient } from "../../db/database";
import fs from "node:fs";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  getJudgeApiKey,
  insertJudgeConfig,
  saveJudgeEndpointSettings,
  updateJudgeConfig as updateConfigRow,
  setJudgeApiKey,
} from "../../db/repositories/evaluation/verdicts";
import { createCaller } from "../../server/api/root";
import { secretBoxFromAuthSecret } from "../../server/auth/secret-box";
import { CURRENT_JUDGE_PROMPT_VERSION } from "../../server/domain/evaluation/judge-protocol";
import { DEFAULT_JUDGE_OPTIONS } from "../../server/domain/evaluation/verdicts";
import { createJudgeClient, JudgeCallError } from "../../server/services/evaluation/judge-client";
import { judgeFuzzyMatcher } from "../../server/services/evaluation/fuzzy-matcher";
import { vlmPolicyFromConfig } from "../../server/services/live/vlm-policy";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { seedTrajectories } from "../helpers/judge-fixtures";
import { runQueuedJudgeCalls } from "../helpers/workers";

const STORED_KEY = "sk-STORED-SECRET-0123456789";
const SHARED_KEY = "sk-SHARED-ENV-KEY-987654321";
const DB_PATH_SECRET = "/srv/verdict/SECRET-DB-PATH.db";
const ADMIN_SETTINGS = [
  "VERDICT_JUDGE_ALLOW_LOOPBACK",
  "VERDICT_JUDGE_ALLOWED_HOSTS",
  "VERDICT_JUDGE_BASE_URL",
  "VERDICT_JUDGE_API_KEY",
  "OPENAI_API_KEY",
  "VERDICT_JUDGE_KEY_PROD",
  "VERDICT_JUDGE_KEY_PROD_URL",
  "VERDICT_JUDGE_KEY_TEAM",
  "VERDICT_JUDGE_KEY_TEAM_URL",
  "VERDICT_DB",
];

describeEachBackend("judge endpoints", (backend) => {
  let ctx: TestContext;
  /** The model server the researchers are meant to use. */
  let judge: FakeOpenAI;
  /** The researcher's own listener: anything it receives has left the installation. */
  let attacker: FakeOpenAI;
  let trajectoryId: number;
  const savedEnv: Record<string, string | undefined> = {};

  beforeAll(async () => {
    judge = await startFakeOpenAI();
    attacker = await startFakeOpenAI();
    for (const k of ADMIN_SETTINGS) savedEnv[k] = process.env[k];
  });
  afterAll(async () => {
    await judge.close();
    await attacker.close();
  });
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-sec-judge-");
    judge.requests.length = 0;
    attacker.requests.length = 0;
    attacker.setResponder(() => ({ reply: "Reasoning: thanks for the key.\nVerdict: SUCCESS" }));
    for (const k of ADMIN_SETTINGS) delete process.env[k];
    // Secrets any server has in its environment.
    process.env.VERDICT_DB = DB_PATH_SECRET;
    process.env.VERDICT_JUDGE_API_KEY = SHARED_KEY;
    trajectoryId = (await seedTrajectories(ctx, [{ steps: 1 }]))[0]!.id;
  });
  afterEach(async () => {
    for (const k of ADMIN_SETTINGS) {
      if (savedEnv[k] === undefined) delete process.env[k];
      else process.env[k] = savedEnv[k];
    }
    await ctx.cleanup();
  });

  const portOf = (server: FakeOpenAI) => new URL(server.baseUrl).port;
  /** The admins' environment: local servers allowed by port, extra hosts. */
  function admin(settings: { loopback?: FakeOpenAI[]; allowedHosts?: string }) {
    if (settings.loopback) process.env.VERDICT_JUDGE_ALLOW_LOOPBACK = settings.loopback.map(portOf).join(",");
    if (settings.allowedHosts) process.env.VERDICT_JUDGE_ALLOWED_HOSTS = settings.allowedHosts;
  }

  const researcher = { userId: "sec-researcher", name: "Researcher", email: "r@example.test", role: "researcher" as const };
  const adminUser = { userId: "sec-admin", name: "Admin", email: "a@example.test", role: "admin" as const };
  const api = () => createCaller({ ...ctx, headers: new Headers(), session: researcher });
  const adminApi = () => createCaller({ ...ctx, headers: new Headers(), session: adminUser });

  /** A configuration as rows made before this fix could be: written straight to the table, unchecked. */
  async function legacyConfig(name: string, fields: { baseUrl: string; apiKeyEnv?: string; maxRetries?: number }): Promise<number> {
    return await insertJudgeConfig(ctx.db, {
      name,
      model: "gpt-x",
      promptVersion: CURRENT_JUDGE_PROMPT_VERSION,
      options: DEFAULT_JUDGE_OPTIONS,
      maxRetries: fields.maxRetries ?? 0,
      baseUrl: fields.baseUrl,
      apiKeyEnv: fields.apiKeyEnv ?? null,
    });
  }

  /** Starts a batch for one trajectory as a researcher and waits for it; returns its job errors. */
  async function runBatch(configId: number): Promise<{ status: string; errors: string[] }> {
    const { batchId } = await api().judge.batches.start({ config: configId, selection: { trajectoryIds: [trajectoryId] }, kValues: [1], force: true });
    await runQueuedJudgeCalls(ctx);
    const p = await api().judge.batches.progress({ id: batchId });
    return { status: p.batch.status, errors: p.jobs.errors.map((e) => e.error ?? "") };
  }

  const authHeaders = (server: FakeOpenAI) => server.requests.map((r) => r.headers.authorization);

  describe("H1: judge endpoints do not exfiltrate secrets", () => {
    it("a configuration cannot read an arbitrary server variable as its key (apiKeyEnv = VERDICT_DB)", async () => {
      admin({ loopback: [judge, attacker] });
      process.env.VERDICT_JUDGE_KEY_TEAM_URL = judge.baseUrl;
      await expect(api().judge.configs.create({ name: "exfil-env", model: "gpt-x", baseUrl: attacker.baseUrl, apiKeyEnv: "VERDICT_DB" })).rejects.toMatchObject(
        { code: "BAD_REQUEST", message: expect.stringContaining('apiKeyEnv \\"VERDICT_DB\\" is not an allowed key source') },
      );
      const ok = await api().judge.configs.create({ name: "own-var", model: "gpt-x", baseUrl: judge.baseUrl, apiKeyEnv: "VERDICT_JUDGE_KEY_TEAM" });
      expect(ok.apiKeySource).toBe("env:VERDICT_JUDGE_KEY_TEAM");
      await expect(api().judge.configs.update({ id: ok.id, patch: { apiKeyEnv: "VERDICT_AUTH_SECRET" } })).rejects.toMatchObject({ code: "BAD_REQUEST" });

      // A configuration saved before the fix still names VERDICT_DB: it is treated as having no key.
      const legacy = await legacyConfig("legacy-exfil", { baseUrl: attacker.baseUrl, apiKeyEnv: "VERDICT_DB" });
      expect((await api().judge.configs.byId({ id: legacy })).apiKeySource).toMatch(/^none: VERDICT_DB is not an allowed key source/);
      await runBatch(legacy);
      expect(attacker.requests.length).toBeGreaterThan(0);
      expect(authHeaders(attacker)).toEqual(attacker.requests.map(() => "Bearer no-key"));
      expect(JSON.stringify(attacker.requests.map((r) => r.headers))).not.toContain(DB_PATH_SECRET);
    });

    it("a stored key is deleted when the base URL changes, and is never sent to another URL", async () => {
      admin({ loopback: [judge, attacker] });
      const c = await api().judge.configs.create({ name: "stored-key-cfg", model: "gpt-x", baseUrl: judge.baseUrl, apiKey: STORED_KEY });
      expect(c.apiKeySource).toBe("stored");
      const moved = await api().judge.configs.update({ id: c.id, patch: { baseUrl: attacker.baseUrl } });
      expect(moved).toMatchObject({ storedKeyRemoved: true, baseUrl: attacker.baseUrl, apiKeySource: "env:VERDICT_JUDGE_API_KEY|OPENAI_API_KEY" });
      await runBatch(c.id);
      expect(attacker.requests.length).toBeGreaterThan(0);
      expect(authHeaders(attacker)).not.toContain(`Bearer ${STORED_KEY}`);

      // Even if the base URL changes behind the service's back, the key stays bound to the URL it was stored for.
      const d = await api().judge.configs.create({ name: "stored-key-2", model: "gpt-x", baseUrl: judge.baseUrl, apiKey: STORED_KEY });
      await updateConfigRow(ctx.db, d.id, { baseUrl: attacker.baseUrl });
      attacker.requests.length = 0;
      const run = await runBatch(d.id);
      expect(attacker.requests).toHaveLength(0);
      expect(run.errors[0]).toMatch(/stored API key of judge configuration "stored-key-2" was stored for another base URL/);

      // Where it was stored for, the key is used.
      const e = await api().judge.configs.create({ name: "stored-key-3", model: "gpt-x", baseUrl: judge.baseUrl, apiKey: STORED_KEY });
      await runBatch(e.id);
      expect(authHeaders(judge)).toEqual([`Bearer ${STORED_KEY}`]);
    });

    it("a host outside the admins' allowlist is refused when saved and when called", async () => {
      admin({ allowedHosts: `127.0.0.1:${new URL(judge.baseUrl).port}` });
      // The shared key is bound to the installation's default endpoint.
      process.env.VERDICT_JUDGE_BASE_URL = judge.baseUrl;
      await expect(api().judge.configs.create({ name: "evil", model: "gpt-x", baseUrl: "https://attacker.example/v1" })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringMatching(/judge endpoint host attacker\.example is not on the admins' allowlist .*VERDICT_JUDGE_ALLOWED_HOSTS/),
      });
      await expect(api().judge.configs.create({ name: "evil-port", model: "gpt-x", baseUrl: attacker.baseUrl })).rejects.toMatchObject({ code: "BAD_REQUEST" });
      const ok = await api().judge.configs.create({ name: "allowed", model: "gpt-x", baseUrl: judge.baseUrl });
      await expect(api().judge.configs.update({ id: ok.id, patch: { baseUrl: attacker.baseUrl } })).rejects.toMatchObject({ code: "BAD_REQUEST" });

      const legacy = await legacyConfig("legacy-evil", { baseUrl: attacker.baseUrl });
      const run = await runBatch(legacy);
      expect(attacker.requests).toHaveLength(0);
      expect(run.status).toBe("failed");
      expect(run.errors[0]).toMatch(/is a loopback address on a port an admin has not allowed/);
      await runBatch(ok.id);
      expect(authHeaders(judge)).toEqual([`Bearer ${SHARED_KEY}`]);
    });

    it("loopback endpoints are refused unless an admin allowed them, for judges, the fuzzy grader and the VLM policy", async () => {
      for (const baseUrl of [attacker.baseUrl, `${new URL(attacker.baseUrl).origin}/api/trpc/accounts.session?x=`, "http://[::1]:3100/v1"]) {
        await expect(api().judge.configs.create({ name: "local", model: "gpt-x", baseUrl })).rejects.toMatchObject({
          code: "BAD_REQUEST",
          message: expect.stringMatching(
            /loopback address on a port an admin has not allowed; an admin lists the local judge servers' ports in VERDICT_JUDGE_ALLOW_LOOPBACK/,
          ),
        });
      }
      const legacy = await legacyConfig("legacy-local", { baseUrl: attacker.baseUrl });
      const run = await runBatch(legacy);
      expect(run.errors[0]).toMatch(/loopback address/);
      await expect(judgeFuzzyMatcher(ctx.db, legacy, process.env)).rejects.toThrow(/loopback address/);
      // Synchronous or asynchronous (the runner's part converts it to the asynchronous API): refused either way.
      await expect(Promise.resolve().then(() => vlmPolicyFromConfig({ db: ctx.db, env: process.env }, legacy, 2))).rejects.toThrow(/loopback address/);
      expect(attacker.requests).toHaveLength(0);
    });

    it("names are checked where they resolve: DNS failures and internal addresses are refused before anything is sent", async () => {
      admin({ allowedHosts: "judge-endpoint.invalid" });
      const c = await api().judge.configs.create({ name: "no-dns", model: "gpt-x", baseUrl: "http://judge-endpoint.invalid:8000/v1", maxRetries: 3 });
      const run = await runBatch(c.id);
      expect(run.errors[0]).toMatch(/^judge call failed after 1 attempt: refused: judge endpoint host judge-endpoint\.invalid:8000 could not be resolved$/);

      // A host allowed by default (not listed by an admin) that resolves to this machine, as a rebinding name would.
      const client = createJudgeClient({
        baseUrl: `http://localhost:${new URL(attacker.baseUrl).port}/v1`,
        apiKey: STORED_KEY,
        model: "gpt-x",
        temperature: 0,
        seed: null,
        maxOutputTokens: 64,
        timeoutMs: 5_000,
        maxRetries: 2,
        hostPolicy: { hosts: [{ host: "localhost", port: null, explicit: false }], loopbackPorts: { ranges: [] } },
      });
      const err = await client.complete([{ role: "user", content: "hi" }]).catch((e) => e);
      expect(err).toBeInstanceOf(JudgeCallError);
      expect(err.message).toMatch(/refused: judge endpoint host localhost:\d+ resolves to a loopback address, which an admin has not allowed/);
      expect(err.attempts).toBe(1);
      expect(attacker.requests).toHaveLength(0);

      // With loopback allowed, the same name connects (to the address that was checked).
      const allowed = createJudgeClient({
        baseUrl: `http://localhost:${new URL(judge.baseUrl).port}/v1`,
        apiKey: STORED_KEY,
        model: "gpt-x",
        temperature: 0,
        seed: null,
        maxOutputTokens: 64,
        timeoutMs: 5_000,
        maxRetries: 0,
        hostPolicy: { hosts: [], loopbackPorts: { ranges: [[Number(portOf(judge)), Number(portOf(judge))]] } },
      });
      await expect(allowed.complete([{ role: "user", content: "hi" }])).resolves.toMatchObject({ attempts: 1 });
      expect(authHeaders(judge)).toEqual([`Bearer ${STORED_KEY}`]);
    });

    it("an internal service's reply is not read back through batch errors, and an echoed key is scrubbed", async () => {
      // An admin allowed a port for a local model server; what answers there is not a model server.
      admin({ loopback: [attacker] });
      const internal = "Unsupported POST-request to query procedure accounts.session; session=INTERNAL-SESSION-DATA";
      attacker.setResponder(() => ({ status: 405, rawBody: internal, contentType: "text/plain" }));
      const c = await api().judge.configs.create({ name: "ssrf", model: "gpt-x", baseUrl: attacker.baseUrl });
      const run = await runBatch(c.id);
      expect(run.errors[0]).toBe("judge call failed after 1 attempt: HTTP 405 Method Not Allowed");

      attacker.setResponder(() => ({
        status: 401,
        rawBody: JSON.stringify({ error: { message: `Incorrect API key provided: ${SHARED_KEY} ${"x".repeat(600)}`, code: "invalid_api_key" } }),
        contentType: "application/json",
      }));
      const again = await runBatch(c.id);
      expect(again.errors[0]).toBe("judge call failed after 1 attempt: HTTP 401 Unauthorized (invalid_api_key)");
      const shown = JSON.stringify([run, again, await api().judge.batches.list()]);
      for (const secret of ["INTERNAL-SESSION-DATA", "Unsupported POST-request", SHARED_KEY, "Incorrect API key"]) expect(shown).not.toContain(secret);
    });
  });

  describe("review 2, N7: judge keys go only to the endpoints they are bound to", () => {
    const PROD_KEY = "sk-PROD-ANTHROPIC-KEY-456";
    const OPENAI_KEY = "sk-GLOBAL-OPENAI-KEY-123";

    it("with a local judge server allowed, neither a named key nor the global ones reach another local listener", async () => {
      // The admin runs a local judge and binds the production key to it; the researcher's listener is elsewhere.
      admin({ loopback: [judge] });
      process.env.VERDICT_JUDGE_KEY_PROD = PROD_KEY;
      process.env.VERDICT_JUDGE_KEY_PROD_URL = judge.baseUrl;
      process.env.OPENAI_API_KEY = OPENAI_KEY;
      // The review's two configurations: the listener's port is not one an admin allowed.
      for (const apiKeyEnv of ["VERDICT_JUDGE_KEY_PROD", undefined]) {
        await expect(
          api().judge.configs.create({ name: `to-listener-${apiKeyEnv ?? "global"}`, model: "gpt-x", baseUrl: attacker.baseUrl, apiKeyEnv }),
        ).rejects.toMatchObject({
          code: "BAD_REQUEST",
          message: expect.stringMatching(/loopback address on a port an admin has not allowed/),
        });
      }
      // The port scanner: other ports of this machine (the web app's own) are refused before anything is sent.
      await expect(
        api().judge.configs.create({ name: "scan", model: "gpt-x", baseUrl: "http://127.0.0.1:3300/api/trpc/accounts.session?x=" }),
      ).rejects.toMatchObject({ code: "BAD_REQUEST" });

      // Even on a port the admin allowed for another purpose, the named key is not sent to an endpoint it is not bound to.
      admin({ loopback: [judge, attacker] });
      await expect(
        api().judge.configs.create({ name: "prod-elsewhere", model: "gpt-x", baseUrl: attacker.baseUrl, apiKeyEnv: "VERDICT_JUDGE_KEY_PROD" }),
      ).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringContaining(`VERDICT_JUDGE_KEY_PROD is sent only to ${judge.baseUrl}, not to ${attacker.baseUrl}`),
      });
      const legacy = await legacyConfig("legacy-prod", { baseUrl: attacker.baseUrl, apiKeyEnv: "VERDICT_JUDGE_KEY_PROD" });
      const run = await runBatch(legacy);
      expect(run.errors[0]).toMatch(/VERDICT_JUDGE_KEY_PROD is sent only to/);
      const global = await api().judge.configs.create({ name: "global-elsewhere", model: "gpt-x", baseUrl: attacker.baseUrl });
      await runBatch(global.id);
      expect(attacker.requests.length).toBeGreaterThan(0);
      expect(authHeaders(attacker)).toEqual(attacker.requests.map(() => "Bearer no-key"));
      const seen = JSON.stringify(attacker.requests.map((r) => r.headers));
      for (const secret of [PROD_KEY, OPENAI_KEY, SHARED_KEY]) expect(seen).not.toContain(secret);

      // Where it is bound, the named key is used.
      const prod = await api().judge.configs.create({ name: "prod", model: "gpt-x", baseUrl: judge.baseUrl, apiKeyEnv: "VERDICT_JUDGE_KEY_PROD" });
      await runBatch(prod.id);
      expect(authHeaders(judge)).toEqual([`Bearer ${PROD_KEY}`]);
    });

    it("a named key without an admin-declared endpoint is sent nowhere", async () => {
      admin({ loopback: [judge] });
      process.env.VERDICT_JUDGE_KEY_TEAM = "sk-TEAM-KEY-000";
      await expect(
        api().judge.configs.create({ name: "team", model: "gpt-x", baseUrl: judge.baseUrl, apiKeyEnv: "VERDICT_JUDGE_KEY_TEAM" }),
      ).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringContaining(
          "VERDICT_JUDGE_KEY_TEAM is sent only to the endpoint an admin declares for it in VERDICT_JUDGE_KEY_TEAM_URL, which is not set",
        ),
      });
      const legacy = await legacyConfig("legacy-team", { baseUrl: judge.baseUrl, apiKeyEnv: "VERDICT_JUDGE_KEY_TEAM" });
      const run = await runBatch(legacy);
      expect(run.errors[0]).toMatch(/VERDICT_JUDGE_KEY_TEAM_URL, which is not set/);
      expect(judge.requests).toHaveLength(0);
    });

    it("review 2, L7: OPENAI_API_KEY never travels over plain http, to any port of api.openai.com", async () => {
      process.env.OPENAI_API_KEY = OPENAI_KEY;
      for (const baseUrl of ["http://api.openai.com:9998/v1", "http://api.openai.com/v1"]) {
        admin({ allowedHosts: "api.openai.com" });
        await expect(api().judge.configs.create({ name: `plain-${baseUrl}`, model: "gpt-x", baseUrl })).rejects.toMatchObject({
          code: "BAD_REQUEST",
          message: expect.stringContaining("the OpenAI API is called over https on port 443 only"),
        });
      }
    });
  });

  describe("the admins' judge endpoint settings", () => {
    it("only admins widen the allowlist; what they save applies to saving and calling at once", async () => {
      const judgePort = new URL(judge.baseUrl).port;
      await expect(api().judge.endpointSettings.set({ allowedHosts: [`127.0.0.1:${judgePort}`] })).rejects.toMatchObject({
        code: "FORBIDDEN",
      });
      await expect(api().judge.configs.create({ name: "local", model: "gpt-x", baseUrl: judge.baseUrl })).rejects.toMatchObject({ code: "BAD_REQUEST" });

      await expect(adminApi().judge.endpointSettings.set({ allowedHosts: ["http://evil.example/", "ok.example"] })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringContaining('allowedHosts: "http://evil.example/" is not a host'),
      });
      const saved = await adminApi().judge.endpointSettings.set({ allowedHosts: [` 127.0.0.1:${judgePort} `] });
      expect(saved.saved).toMatchObject({ allowedHosts: [`127.0.0.1:${judgePort}`], updatedBy: "sec-admin" });
      expect(saved.effective).toEqual(["api.openai.com", `127.0.0.1:${judgePort}`]);

      const c = await api().judge.configs.create({ name: "local", model: "gpt-x", baseUrl: judge.baseUrl });
      await expect(api().judge.configs.create({ name: "other-port", model: "gpt-x", baseUrl: attacker.baseUrl })).rejects.toMatchObject({
        code: "BAD_REQUEST",
      });
      await runBatch(c.id);
      // The shared key is bound to VERDICT_JUDGE_BASE_URL (the OpenAI API here), so this server gets none.
      expect(authHeaders(judge)).toEqual(["Bearer no-key"]);

      // Taking the host back off the list stops calls to it at once.
      await adminApi().judge.endpointSettings.set({ allowedHosts: [] });
      const run = await runBatch(c.id);
      expect(run.errors[0]).toMatch(/loopback address/);
      expect(judge.requests).toHaveLength(1);

      // The every-port switch of earlier versions is gone: asking for it is refused, and a saved one is not honoured.
      await expect(adminApi().judge.endpointSettings.set({ allowedHosts: [], allowLoopback: true })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringContaining("allowLoopback (every port of this machine) no longer exists"),
      });
      await saveJudgeEndpointSettings(ctx.db, { allowedHosts: [], allowLoopback: true, updatedBy: "an earlier version" });
      const view = await adminApi().judge.endpointSettings.get();
      expect(view.effective).toEqual(["api.openai.com"]);
      expect(view.notices).toEqual([expect.stringMatching(/^Judges may no longer call every port of this machine/)]);
      await expect(api().judge.configs.create({ name: "any-local", model: "gpt-x", baseUrl: attacker.baseUrl })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    });
  });

  describe("L1: stored judge keys are encrypted at rest", () => {
    it("the database file never holds the key, and the key opens only with this installation's auth secret", async () => {
      admin({ loopback: [judge] });
      const c = await api().judge.configs.create({ name: "at-rest", model: "gpt-x", baseUrl: judge.baseUrl, apiKey: STORED_KEY });
      await api().judge.configs.setApiKey({ id: c.id, apiKey: `${STORED_KEY}-v2` });
      // The embedded database is a file anyone with the disk can read: the key must not be in it. (On PostgreSQL the
      // same sealed value is what the table holds, checked below.)
      if (backend === "sqlite") {
        sqliteClient(ctx.db).pragma("wal_checkpoint(TRUNCATE)");
        const files = [ctx.config.dbPath, `${ctx.config.dbPath}-wal`].filter((f) => fs.existsSync(f));
        for (const f of files) expect(fs.readFileSync(f).includes(Buffer.from("STORED-SECRET"))).toBe(false);
      }
      const sealed = (await getJudgeApiKey(ctx.db, c.id))!;
      expect(sealed).toMatch(/^v1:/);
      expect(secretBoxFromAuthSecret("another-installation-secret-0123456789").open(sealed, `judge_config_secrets:${c.id}`)).toBeNull();
      expect(secretBoxFromAuthSecret(fs.readFileSync(`${ctx.dir}/auth-secret`, "utf8").trim()).open(sealed, `judge_config_secrets:${c.id + 1}`)).toBeNull();

      await runBatch(c.id);
      expect(authHeaders(judge)).toEqual([`Bearer ${STORED_KEY}-v2`]);
    });

    it("a key stored in plain text by an earlier version is encrypted on first use", async () => {
      admin({ loopback: [judge] });
      const c = await api().judge.configs.create({ name: "legacy-plain", model: "gpt-x", baseUrl: judge.baseUrl });
      await setJudgeApiKey(ctx.db, c.id, STORED_KEY);
      await runBatch(c.id);
      expect(authHeaders(judge)).toEqual([`Bearer ${STORED_KEY}`]);
      expect(await getJudgeApiKey(ctx.db, c.id)).toMatch(/^v1:/);
      expect(await getJudgeApiKey(ctx.db, c.id)).not.toContain("STORED-SECRET");
    });
  });
});

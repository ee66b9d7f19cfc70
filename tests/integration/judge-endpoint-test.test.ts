/**
 * "Test this endpoint" (UI review 2, #18): one real call to a typed endpoint through the server, answered in plain
 * words, under the same address policy as judge calls. The endpoint is a small OpenAI-compatible server on 127.0.0.1.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root";
import { ValidationError } from "../../server/errors";
import { createJudgeConfig } from "../../server/services/evaluation/judge-configs";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { LOCAL_JUDGE_ENV, LOCAL_JUDGE_SETTINGS } from "../helpers/judge-fixtures";

const KEY = "sk-endpoint-test-SECRET-4242";

describeEachBackend("judge endpoint test", (backend) => {
  let ctx: TestContext;
  let fake: FakeOpenAI;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    fake = await startFakeOpenAI({ models: ["served-model", "other-model"] });
    for (const k of Object.keys(LOCAL_JUDGE_ENV)) saved[k] = process.env[k];
    Object.assign(process.env, LOCAL_JUDGE_ENV);
  });
  afterAll(async () => {
    await fake.close();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-endpoint-test-");
    fake.requests.length = 0;
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  const researcher = { userId: "test-researcher", name: "Test Researcher", email: "researcher@example.test", role: "researcher" as const };
  const annotator = { userId: "test-annotator", name: "Test Annotator", email: "annotator@example.test", role: "annotator" as const };
  const api = (session: typeof researcher | typeof annotator = researcher) => createCaller({ ...ctx, headers: new Headers(), session });

  describe("judge.configs.testEndpoint", () => {
    it("makes one call to the model list with the typed key and says the model is served", async () => {
      const r = await api().judge.configs.testEndpoint({ baseUrl: fake.baseUrl, model: "served-model", apiKey: KEY });
      expect(r).toMatchObject({ outcome: "model-found", endpoint: fake.baseUrl });
      expect(r.message).toContain("serves served-model");
      expect(fake.requests.map((q) => `${q.method} ${q.path}`)).toEqual(["GET /v1/models"]);
      expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
      // Nothing was saved.
      expect(await api().judge.configs.list()).toEqual([]);
    });

    it("names the models served when the one asked for is not among them", async () => {
      const r = await api().judge.configs.testEndpoint({ baseUrl: fake.baseUrl, model: "gpt-9" });
      expect(r.outcome).toBe("model-missing");
      expect(r.message).toBe("The endpoint answered, but it does not serve gpt-9; it serves served-model, other-model. Check the model's name.");
    });

    it("says a refused key, a server without a model list and a closed port in plain words", async () => {
      fake.script([{ status: 401, message: "bad key" }]);
      const refusedKey = await api().judge.configs.testEndpoint({ baseUrl: fake.baseUrl, model: "served-model", apiKey: "wrong" });
      expect(refusedKey.outcome).toBe("error");
      expect(refusedKey.message).toMatch(/^The endpoint answered but refused the key \(HTTP 401 Unauthorized\b/);
      expect(refusedKey.message).not.toContain("bad key");

      const noList = await startFakeOpenAI();
      try {
        const r = await api().judge.configs.testEndpoint({ baseUrl: noList.baseUrl, model: "m" });
        expect(r.outcome).toBe("reachable");
        expect(r.message).toMatch(/has no model list \(HTTP 404 Not Found\b.*\), so the model could not be checked/);
        expect(noList.requests).toHaveLength(1);
      } finally {
        await noList.close();
      }

      // A port nothing listens on (taken and released), allowed by the policy: the call is made and fails.
      const server = http.createServer();
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const port = (server.address() as AddressInfo).port;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      const closed = await api().judge.configs.testEndpoint({ baseUrl: `http://127.0.0.1:${port}/v1`, model: "m" });
      expect(closed.outcome).toBe("unreachable");
      expect(closed.message).toMatch(/^Could not reach the endpoint \(connection error/);
    });

    it("refuses, without calling, what the judge address policy refuses", async () => {
      for (const baseUrl of ["http://169.254.169.254/latest/v1", "http://10.0.0.7:8000/v1", "http://127.0.0.1:80/v1"]) {
        const r = await api().judge.configs.testEndpoint({ baseUrl, model: "m", apiKey: KEY });
        expect(r.outcome, baseUrl).toBe("refused");
        expect(r.message, baseUrl).toMatch(/^Not called: judge endpoint /);
      }
      const notUrl = await api().judge.configs.testEndpoint({ baseUrl: "not a url", model: "m" });
      expect(notUrl).toMatchObject({ outcome: "invalid", message: expect.stringMatching(/^This is not a web address/) });
      expect(fake.requests).toHaveLength(0);
    });

    it("is the researchers' tool", async () => {
      await expect(api(annotator).judge.configs.testEndpoint({ baseUrl: fake.baseUrl, model: "m" })).rejects.toMatchObject({ code: "FORBIDDEN" });
      expect(fake.requests).toHaveLength(0);
    });
  });

  describe("judge configuration refusals", () => {
    it("name their field and say what to write", async () => {
      const refused = async (input: Parameters<ReturnType<typeof api>["judge"]["configs"]["create"]>[0]) => {
        const e = await api()
          .judge.configs.create(input)
          .then(
            () => null,
            (err: { message: string; cause?: { field?: string } }) => err,
          );
        expect(e, JSON.stringify(input)).not.toBeNull();
        return { field: e!.cause?.field ?? null, message: e!.message };
      };
      expect(await refused({ name: "a", baseUrl: "http://169.254.169.254/v1", model: "m" })).toEqual({
        field: "baseUrl",
        message: expect.stringMatching(/^This endpoint is not allowed: judge endpoint 169\.254\.169\.254 is a cloud metadata service/),
      });
      // Past the API's schema (the command line, an API client): the service's own check names the field too.
      const e = await createJudgeConfig(ctx.db, { name: "b", baseUrl: fake.baseUrl, model: "m", options: { maxImageSide: 3 } }, LOCAL_JUDGE_SETTINGS).catch(
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(ValidationError);
      expect(e).toMatchObject({
        field: "maxImageSide",
        message: "The longest image side must be a whole number of pixels from 16 to 10000, or empty to send screenshots as recorded",
      });
    });
  });
});

import sharp from "sharp";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { countVerdicts, findVerdict, listVerdicts } from "../../db/repositories/evaluation/verdicts";
import { listJobs } from "../../db/repositories/jobs";
import { CURRENT_JUDGE_PROMPT_VERSION } from "../../server/domain/evaluation/judge-protocol";
import { JudgeCallError } from "../../server/services/evaluation/judge-client";
import {
  createJudgeConfig,
  listJudgeConfigViews,
  setStoredApiKey,
  updateJudgeConfig,
  type JudgeConfigInput,
} from "../../server/services/evaluation/judge-configs";
import { judgeTrajectory, type JudgeDeps } from "../../server/services/evaluation/judge-verdict";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { startFakeOpenAI, type ChatContentPart, type FakeOpenAI } from "../helpers/fake-openai";
import { LOCAL_JUDGE_ENV, LOCAL_JUDGE_SETTINGS, seedTrajectories } from "../helpers/judge-fixtures";

const KEY = "sk-test-verdict-SECRET-4242";

describeEachBackend("judge verdicts", (backend) => {
  let ctx: TestContext;
  let fake: FakeOpenAI;
  let deps: JudgeDeps;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => fake.close());
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-judge-");
    fake.requests.length = 0;
    fake.setResponder(() => ({ reply: "Reasoning: The last page shows the answer.\nVerdict: SUCCESS" }));
    // The shared key goes to the installation's default endpoint, the fake here.
    deps = {
      db: ctx.db,
      store: ctx.store,
      env: { ...LOCAL_JUDGE_ENV, VERDICT_JUDGE_BASE_URL: fake.baseUrl, VERDICT_JUDGE_API_KEY: KEY },
      retryPolicy: { baseDelayMs: 5, maxDelayMs: 50 },
    };
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  async function config(over: Partial<JudgeConfigInput> = {}) {
    return await createJudgeConfig(ctx.db, { name: "fake-judge", baseUrl: fake.baseUrl, model: "judge-model-x", ...over }, LOCAL_JUDGE_SETTINGS);
  }

  describe("judgeTrajectory against an OpenAI-compatible endpoint", () => {
    it("sends the last k screenshots (k = 1, 3, full) with model, temperature 0 and seed, and stores what it sent", async () => {
      const [t] = await seedTrajectories(ctx, [{ steps: 5, intent: "Find the price of the blue kettle", finalAnswer: "$25" }]);
      const c = await config({ priceInputPerMTok: 2.5, priceOutputPerMTok: 10 });
      const marked = t!.shots.map((s) => s.marked!);

      for (const [k, expected] of [
        [1, marked.slice(4)],
        [3, marked.slice(2)],
        ["full", marked],
      ] as const) {
        fake.requests.length = 0;
        const out = await judgeTrajectory(deps, { configId: c.id, trajectoryId: t!.id, k });
        expect(out).toMatchObject({ verdict: "success", skipped: false });
        const req = fake.requests[0]!;
        expect(req.imageHashes).toEqual(expected);
        expect(req.body).toMatchObject({ model: "judge-model-x", temperature: 0, seed: 42 });
        expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
        expect(req.texts.join("\n")).toContain("Task: Find the price of the blue kettle");
        expect(req.texts.join("\n")).toContain("Final answer reported by the agent: $25");

        const v = (await findVerdict(ctx.db, {
          trajectoryId: t!.id,
          evaluatorKey: `judge:${c.id}`,
          k: String(k),
          promptVersion: CURRENT_JUDGE_PROMPT_VERSION,
        }))!;
        expect(v.stepIndices).toEqual(t!.shots.slice(5 - expected.length).map((s) => s.index));
        expect(v).toMatchObject({ kind: "judge", origin: "verdict", verdict: "success", score: 1, model: "judge-model-x", judgeConfigId: c.id });
        expect(v.rationale).toBe("The last page shows the answer.");
        expect(v.rawReply).toContain("Verdict: SUCCESS");
        const images = expected.length;
        expect(v.inputTokens).toBe(500 + 765 * images);
        expect(v.outputTokens).toBe(60);
        expect(v.costUsd).toBeCloseTo(((500 + 765 * images) * 2.5 + 60 * 10) / 1e6, 12);
        expect(v.latencyMs).toBeGreaterThanOrEqual(0);
      }
      expect(await countVerdicts(ctx.db, { trajectoryId: t!.id })).toBe(3);
    });

    it("prefers raw screenshots when configured, skips steps without one, and sends history and thoughts only when asked", async () => {
      const [t] = await seedTrajectories(ctx, [{ steps: 4, raw: true, missingScreenshots: [2], thoughts: true }]);
      const c = await config({ options: { screenshots: "raw", includeActionHistory: true, includeThoughts: true, imageDetail: "low" } });
      await judgeTrajectory(deps, { configId: c.id, trajectoryId: t!.id, k: 2 });
      const req = fake.requests[0]!;
      // Steps 0..3, step 2 has no screenshot: the last two with one are 1 and 3.
      expect(req.imageHashes).toEqual([t!.shots[1]!.raw, t!.shots[3]!.raw]);
      expect(req.imageDetails).toEqual(["low", "low"]);
      const text = req.texts.join("\n");
      expect(text).toContain("Actions the agent took (4 steps)");
      expect(text).toContain("Step 2: Click [2]");
      expect(text).toContain("Thought: Thinking about step 3");

      const plain = await config({ name: "plain" });
      fake.requests.length = 0;
      await judgeTrajectory(deps, { configId: plain.id, trajectoryId: t!.id, k: 2 });
      expect(fake.requests[0]!.imageHashes).toEqual([t!.shots[1]!.marked, t!.shots[3]!.marked]);
      expect(fake.requests[0]!.texts.join("\n")).not.toContain("Actions the agent took");
      expect(fake.requests[0]!.texts.join("\n")).not.toContain("Thought:");
    });

    it("shrinks screenshots to the configured maximum side", async () => {
      const [t] = await seedTrajectories(ctx, [{ steps: 2 }]);
      const c = await config({ options: { maxImageSide: 24 } });
      await judgeTrajectory(deps, { configId: c.id, trajectoryId: t!.id, k: 1 });
      const content = fake.requests[0]!.body.messages[1]!.content as ChatContentPart[];
      const url = content.find((p) => p.type === "image_url")!.image_url!.url;
      const meta = await sharp(Buffer.from(url.split(",")[1]!, "base64")).metadata();
      expect([meta.width, meta.height]).toEqual([24, 18]);
      const v = (await listVerdicts(ctx.db, { trajectoryId: t!.id }))[0]!;
      expect((v.details as { images: { sentWidth: number; width: number }[] }).images[0]).toMatchObject({ width: 48, sentWidth: 24 });
    });

    it("retries 429, 500, an unreadable body and a timeout, then stores the verdict with the attempt count", async () => {
      const [t] = await seedTrajectories(ctx, [{ steps: 2 }]);
      // The fourth call never answers, so it times out however slow the machine is; the others answer at once, well
      // within a timeout long enough that a loaded machine cannot turn them into timeouts too.
      const c = await config({ timeoutMs: 3_000, maxRetries: 5 });
      fake.script([
        { status: 429, headers: { "retry-after": "0" } },
        { status: 500 },
        { rawBody: "{ this is not json" },
        { hang: true },
        { reply: "Reasoning: Wrong item.\nVerdict: FAILURE" },
      ]);
      const out = await judgeTrajectory(deps, { configId: c.id, trajectoryId: t!.id, k: 1 });
      expect(out.verdict).toBe("failure");
      expect(fake.requests).toHaveLength(5);
      const v = (await listVerdicts(ctx.db, { trajectoryId: t!.id }))[0]!;
      const details = v.details as { attempts: number; retried: string[] };
      expect(details.attempts).toBe(5);
      expect(details.retried[0]).toMatch(/429/);
      expect(details.retried[1]).toMatch(/500/);
      expect(details.retried[2]).toMatch(/unreadable|json/i);
      expect(details.retried[3]).toMatch(/timeout/i);
      expect(v.score).toBe(0);
    });

    it("stores unparseable replies as unparseable with the raw reply, never guessing", async () => {
      const trajs = await seedTrajectories(ctx, [{ steps: 1 }, { steps: 1 }, { steps: 1 }]);
      const c = await config();
      fake.script([
        { reply: "The agent clearly succeeded at this task." },
        { reply: "Verdict: SUCCESS\nOn reflection:\nVerdict: FAILURE" },
        { refusal: "I can't help with that." },
      ]);
      for (const t of trajs) await judgeTrajectory(deps, { configId: c.id, trajectoryId: t.id, k: 1 });
      const vs = await Promise.all(trajs.map(async (t) => (await listVerdicts(ctx.db, { trajectoryId: t.id }))[0]!));
      expect(vs.map((v) => v.verdict)).toEqual(["unparseable", "unparseable", "unparseable"]);
      expect(vs[0]!.rawReply).toBe("The agent clearly succeeded at this task.");
      expect(vs.map((v) => (v.details as { problem: string }).problem)).toEqual(["no verdict line", "conflicting verdict lines", "the model refused"]);
      expect(vs.every((v) => v.score === null)).toBe(true);
    });

    it("fails at once on a non-retryable error, stores nothing, and keeps the endpoint's reply (and the key in it) out of the message", async () => {
      const [t] = await seedTrajectories(ctx, [{ steps: 1 }]);
      const c = await config({ maxRetries: 3 });
      fake.script([{ status: 401, message: `Incorrect API key provided: ${KEY}` }]);
      const err = await judgeTrajectory(deps, { configId: c.id, trajectoryId: t!.id, k: 1 }).catch((e) => e);
      expect(err).toBeInstanceOf(JudgeCallError);
      expect(err.status).toBe(401);
      expect(err.message).not.toContain(KEY);
      expect(err.message).not.toContain("Incorrect API key");
      expect(err.message).toMatch(/^judge call failed after 1 attempt: HTTP 401 Unauthorized/);
      expect(fake.requests).toHaveLength(1);
      expect(await countVerdicts(ctx.db)).toBe(0);
    });

    it("keeps a stored verdict unless forced, and a forced rerun replaces it in place", async () => {
      const [t] = await seedTrajectories(ctx, [{ steps: 2 }]);
      const c = await config();
      const first = await judgeTrajectory(deps, { configId: c.id, trajectoryId: t!.id, k: 1 });
      const again = await judgeTrajectory(deps, { configId: c.id, trajectoryId: t!.id, k: 1 });
      expect(again).toEqual({ verdictId: first.verdictId, verdict: "success", skipped: true });
      expect(fake.requests).toHaveLength(1);
      fake.script([{ reply: "Verdict: FAILURE" }]);
      const forced = await judgeTrajectory(deps, { configId: c.id, trajectoryId: t!.id, k: 1, force: true });
      expect(forced).toMatchObject({ verdictId: first.verdictId, verdict: "failure", skipped: false });
      expect(await countVerdicts(ctx.db)).toBe(1);
    });

    it("uses a key stored server-side over the environment, and never returns it from configuration views", async () => {
      const [t] = await seedTrajectories(ctx, [{ steps: 1 }]);
      const c = await config();
      await setStoredApiKey(ctx.db, c.id, "sk-stored-ONLY-SERVER");
      await judgeTrajectory(deps, { configId: c.id, trajectoryId: t!.id, k: 1 });
      expect(fake.requests[0]!.headers.authorization).toBe("Bearer sk-stored-ONLY-SERVER");
      const views = JSON.stringify(await listJudgeConfigViews(ctx.db));
      expect(views).not.toContain("sk-stored-ONLY-SERVER");
      expect(views).toContain('"apiKeySource":"stored"');
      expect(JSON.stringify(await listVerdicts(ctx.db))).not.toContain("sk-stored-ONLY-SERVER");
    });

    it("freezes the fields that define a judge once it has verdicts", async () => {
      const [t] = await seedTrajectories(ctx, [{ steps: 1 }]);
      const c = await config();
      expect((await updateJudgeConfig(ctx.db, c.id, { model: "other-model" }, LOCAL_JUDGE_SETTINGS)).model).toBe("other-model");
      await judgeTrajectory(deps, { configId: c.id, trajectoryId: t!.id, k: 1 });
      await expect(updateJudgeConfig(ctx.db, c.id, { model: "third-model" }, LOCAL_JUDGE_SETTINGS)).rejects.toThrow(/already has verdicts.*model/);
      await expect(updateJudgeConfig(ctx.db, c.id, { options: { includeActionHistory: true } }, LOCAL_JUDGE_SETTINGS)).rejects.toThrow(/options/);
      expect(await updateJudgeConfig(ctx.db, c.id, { priceInputPerMTok: 1, timeoutMs: 5000 }, LOCAL_JUDGE_SETTINGS)).toMatchObject({
        priceInputPerMTok: 1,
        timeoutMs: 5000,
      });
      expect(await listJobs(ctx.db)).toHaveLength(0);
    });
  });
});

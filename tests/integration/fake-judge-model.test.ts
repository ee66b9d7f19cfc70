/**
 * The tests' judge endpoint answers from the prompt it receives: hidden answers, screenshots, rules written into the
 * instructions and few-shot examples change its verdicts the way they would change a model's. Checked through real
 * HTTP (the openai SDK against the fake server) and through Verdict's own judge service.
 */
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createJudgeConfig } from "../../server/services/evaluation/judge-configs";
import { judgeTrajectory, type JudgeDeps } from "../../server/services/evaluation/judge-verdict";
import { findVerdict } from "../../db/repositories/evaluation/verdicts";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { contentWords, promptReadingResponder, taskClauses } from "../helpers/fake-judge-model";
import { LOCAL_JUDGE_ENV, LOCAL_JUDGE_SETTINGS, seedTrajectories } from "../helpers/judge-fixtures";

const FORM = "Answer in this form:\nReasoning: <why>\nVerdict: SUCCESS\nor\nVerdict: FAILURE";

describe("the fake judge model over HTTP", () => {
  let fake: FakeOpenAI;
  let client: OpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ responder: promptReadingResponder() });
    client = new OpenAI({ apiKey: "x", baseURL: fake.baseUrl, maxRetries: 0 });
  });
  afterAll(async () => fake.close());

  async function ask(messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[]): Promise<string> {
    const r = await client.chat.completions.create({ model: "m", messages });
    return r.choices[0]!.message.content ?? "";
  }
  const verdictOf = (reply: string) => /Verdict: (SUCCESS|FAILURE)/.exec(reply)?.[1];

  it("follows a rule written into the instructions, the last applicable one winning", async () => {
    const user = {
      role: "user" as const,
      content: "Task: Find the opening hours of the city library\nFinal answer reported by the agent: approximately 9 to 5",
    };
    expect(verdictOf(await ask([{ role: "system", content: `Judge the agent.\n${FORM}` }, user]))).toBe("SUCCESS");
    const rule = 'Answers that say "approximately" are a FAILURE: the task wants exact hours.';
    const reply = await ask([{ role: "system", content: `Judge the agent.\n${rule}\n${FORM}` }, user]);
    expect(verdictOf(reply)).toBe("FAILURE");
    expect(reply).toContain("The instructions say");
    const later = 'But "library" tasks are a success whatever the wording.';
    expect(verdictOf(await ask([{ role: "system", content: `Judge the agent.\n${rule}\n${later}\n${FORM}` }, user]))).toBe("SUCCESS");
  });

  it("copies the verdict of the most similar example, as turns or as <example> blocks, and ignores dissimilar ones", async () => {
    const system = { role: "system" as const, content: `Judge the agent.\n${FORM}` };
    const user = { role: "user" as const, content: "Task: Find the cheapest red shoes on shop B\nFinal answer reported by the agent: $30" };
    const turns = [
      { role: "user" as const, content: "Task: Find the cheapest red shoes on shop A\nFinal answer reported by the agent: $20" },
      { role: "assistant" as const, content: "Reasoning: not the cheapest.\nVerdict: FAILURE" },
    ];
    expect(verdictOf(await ask([system, user]))).toBe("SUCCESS");
    expect(verdictOf(await ask([system, ...turns, user]))).toBe("FAILURE");
    const block = {
      role: "system" as const,
      content: `Judge the agent.\n<example>\nTask: Find the cheapest red shoes on shop A\nHuman verdict: failure\n</example>\n${FORM}`,
    };
    expect(verdictOf(await ask([block, user]))).toBe("FAILURE");
    const unrelated = {
      role: "system" as const,
      content: `Judge the agent.\n<example>\nTask: Book a table for two tonight\nVerdict: FAILURE\n</example>\n${FORM}`,
    };
    expect(verdictOf(await ask([unrelated, user]))).toBe("SUCCESS");
  });

  it("fills in every line the answer form asks for", async () => {
    const keyPoints = await ask([
      { role: "system", content: "List the key points.\nAnswer in this form:\nKey points:\n1. <key point>" },
      { role: "user", content: "Task: Find a hotel in Lyon, under $100 and with free parking" },
    ]);
    expect(keyPoints).toBe("Key points:\n1. Find a hotel in Lyon\n2. under $100\n3. free parking");
    expect(taskClauses("Find a hotel in Lyon, under $100 and with free parking")).toEqual(["Find a hotel in Lyon", "under $100", "free parking"]);
    expect(contentWords("Find a hotel in Lyon")).toEqual(["hotel", "lyon"]);

    const graded = await ask([
      {
        role: "system",
        content:
          "Grade it.\nAnswer in this form:\nReasoning: <why>\nKey point 1: MET or NOT MET\nFailure cause: CONTROLLABLE, UNCONTROLLABLE or NONE\nEvidence: step <n>\nVerdict: SUCCESS or FAILURE",
      },
      {
        role: "user",
        content:
          "Task: Find a hotel in Lyon, under $100\nFinal answer reported by the agent: Hotel Rhône, Lyon\nKey point 1: Find a hotel in Lyon\nKey point 2: under $100\nStep 1: Click [3]\nStep 2: ANSWER; Hotel Rhône",
      },
    ]);
    expect(graded).toContain("Key point 1: MET");
    expect(graded).toContain("Key point 2: NOT MET");
    expect(graded).toContain("Failure cause: CONTROLLABLE");
    expect(verdictOf(graded)).toBe("FAILURE");
  });
});

describeEachBackend("the fake judge model behind Verdict's judge", (backend) => {
  let ctx: TestContext;
  let fake: FakeOpenAI;
  let deps: JudgeDeps;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => fake.close());
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "fake-judge-model-");
    deps = { db: ctx.db, store: ctx.store, env: LOCAL_JUDGE_ENV, retryPolicy: { baseDelayMs: 5, maxDelayMs: 50 } };
  });
  afterEach(async () => ctx.cleanup());

  it("changes its verdict when the answer is hidden and when the screenshots it is sent show the task done", async () => {
    const [t] = await seedTrajectories(ctx, [{ steps: 3, intent: "Find the price of the blue kettle", finalAnswer: "$25" }]);
    const shows = { [t!.shots[0]!.marked!]: "Blue kettle price: $25" };
    fake.setResponder(promptReadingResponder({ screens: shows }));
    const plain = await createJudgeConfig(ctx.db, { name: "plain", baseUrl: fake.baseUrl, model: "m" }, LOCAL_JUDGE_SETTINGS);
    const hidden = await createJudgeConfig(
      ctx.db,
      { name: "hidden", baseUrl: fake.baseUrl, model: "m", options: { withoutFinalAnswer: true } },
      LOCAL_JUDGE_SETTINGS,
    );

    expect((await judgeTrajectory(deps, { configId: plain.id, trajectoryId: t!.id, k: 1 })).verdict).toBe("success");
    // Without the answer, only what the screenshots show counts: the last one alone does not show the price…
    expect((await judgeTrajectory(deps, { configId: hidden.id, trajectoryId: t!.id, k: 1 })).verdict).toBe("failure");
    // …all three do (the first shows the kettle and its price).
    expect((await judgeTrajectory(deps, { configId: hidden.id, trajectoryId: t!.id, k: "full" })).verdict).toBe("success");
    const v = await findVerdict(ctx.db, { trajectoryId: t!.id, evaluatorKey: `judge:${hidden.id}`, k: "1", promptVersion: "verdict-judge-v1+no-answer" });
    expect(v?.rationale).toContain("Without the answer");
  });
});

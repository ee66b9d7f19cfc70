import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDatabase } from "../../db/database";
import { createAppContext, type AppContext } from "../../server/context";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { LOCAL_JUDGE_ENV, seedTrajectories } from "../helpers/judge-fixtures";
import { cliRunner } from "../helpers/cli";

const root = path.resolve(__dirname, "..", "..");
const KEY = "sk-cli-SECRET-777";
let dir: string;
let fake: FakeOpenAI;
let ctx: AppContext;

/** The CLI on this file's installation (the first call of each command as a process of its own, tests/helpers/cli.ts). */
const runCommand = cliRunner(root);
const cli = (args: string[], env: Record<string, string> = {}) =>
  runCommand(args, {
    ...process.env,
    VERDICT_DATA_DIR: dir,
    VERDICT_DB: path.join(dir, "cli.db"),
    VERDICT_JUDGE_API_KEY: "",
    OPENAI_API_KEY: "",
    ...LOCAL_JUDGE_ENV,
    ...env,
  });

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-judge-cli-"));
  fake = await startFakeOpenAI();
  ctx = createAppContext({ dbPath: path.join(dir, "cli.db"), dataDir: dir, chromiumPath: "/usr/bin/chromium" });
  await seedTrajectories(
    ctx,
    [{ steps: 3, evaluatorConfig: { eval_types: ["string_match"], reference_answers: { must_include: ["answer"] } } }, { steps: 2 }, { steps: 4 }],
    "cli-run",
  );
});
afterAll(async () => {
  await closeDatabase(ctx.db);
  await fake.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// Each command is a fresh `tsx` process; on a loaded machine a few of them take longer than the default minute.
describe("judge CLI", { timeout: 240_000 }, () => {
  it("judge-config add takes defaults from the environment and never prints the key", async () => {
    const add = await cli(["judge-config", "add", "--name", "local", "--store-key-from-env", "MY_KEY", "--price-in", "2", "--price-out", "8", "--json"], {
      VERDICT_JUDGE_BASE_URL: fake.baseUrl,
      VERDICT_JUDGE_MODEL: "env-model",
      MY_KEY: KEY,
    });
    expect(add.code).toBe(0);
    const { config } = JSON.parse(add.stdout);
    expect(config).toMatchObject({ name: "local", baseUrl: fake.baseUrl, model: "env-model", apiKeySource: "stored", seed: 42, temperature: 0 });
    const list = await cli(["judge-config", "list", "--json"]);
    expect(JSON.parse(list.stdout).configs.map((c: { name: string }) => c.name)).toEqual(["local"]);
    for (const out of [add, list]) expect(out.stdout + out.stderr).not.toContain(KEY);
    const dup = await cli(["judge-config", "add", "--name", "local", "--model", "x"]);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/already exists/);
  });

  it("judge-config add chooses the key-point or rubric protocol, and judge --dry-run counts their staged calls", async () => {
    const add = await cli([
      "judge-config",
      "add",
      "--name",
      "webjudge",
      "--base-url",
      fake.baseUrl,
      "--model",
      "m",
      "--protocol",
      "key-points",
      "--threshold",
      "4",
      "--json",
    ]);
    expect(add.code).toBe(0);
    expect(JSON.parse(add.stdout).config).toMatchObject({ protocol: "key-points", promptVersion: "verdict-keypoints-v1", options: { relevanceThreshold: 4 } });
    const wrong = await cli(["judge-config", "add", "--name", "wv", "--base-url", fake.baseUrl, "--model", "m", "--threshold", "4"]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain("--threshold applies to --protocol key-points only");
    const unknown = await cli(["judge-config", "add", "--name", "wj", "--base-url", fake.baseUrl, "--model", "m", "--protocol", "webjudge"]);
    expect(unknown.stderr).toContain("--protocol is one of webvoyager, key-points, rubric");
    // Trajectories of 3, 2 and 4 steps, every step with a screenshot: per trajectory 1 key-point call, one relevance
    // call per screenshot and 1 outcome call: 5 + 4 + 6.
    const dry = await cli(["judge", "--config", "webjudge", "--k", "full", "--all", "--dry-run", "--json"]);
    expect(JSON.parse(dry.stdout).estimate.calls).toBe(15);
    await cli(["judge-config", "remove", "webjudge"]);
  });

  it("estimates with --dry-run, runs a batch with --json, and does not recompute on a second run", async () => {
    const dry = await cli(["judge", "--config", "local", "--k", "1,full", "--all", "--dry-run", "--json"]);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout).estimate).toMatchObject({ trajectories: 3, pairs: 6, calls: 6, images: 3 + 9 });
    expect(fake.requests).toHaveLength(0);

    const first = await cli(["judge", "--config", "local", "--k", "1,full", "--all", "--concurrency", "3", "--json"]);
    expect(first.code).toBe(0);
    const out = JSON.parse(first.stdout);
    expect(out).toMatchObject({ status: "succeeded", kValues: ["1", "full"], jobs: { succeeded: 6, failed: 0 }, verdicts: { success: 6 } });
    expect(out.costUsd).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(6);
    expect(fake.requests.every((r) => r.headers.authorization === `Bearer ${KEY}` && r.body.model === "env-model")).toBe(true);
    expect(first.stdout + first.stderr).not.toContain(KEY);

    const second = await cli(["judge", "--config", "local", "--k", "1,full", "--run", "1", "--json"]);
    expect(JSON.parse(second.stdout)).toMatchObject({ status: "succeeded", skippedExisting: 6, jobs: { succeeded: 0 } });
    expect(fake.requests).toHaveLength(6);

    const status = await cli(["judge-batch", "status", String(out.batchId), "--json"]);
    expect(JSON.parse(status.stdout)).toMatchObject({ batchId: out.batchId, status: "succeeded", jobs: { remaining: 0 } });
    const batches = await cli(["judge-batch", "list", "--json"]);
    expect(JSON.parse(batches.stdout).batches).toHaveLength(2);
  });

  it("reports failures with exit 1 and resumes the batch", async () => {
    fake.setResponder(() => ({ status: 400, message: "model does not accept images" }));
    const failed = await cli(["judge", "--config", "local", "--k", "2", "--ids", "1,2", "--json"]);
    expect(failed.code).toBe(1);
    const out = JSON.parse(failed.stdout);
    expect(out).toMatchObject({ status: "failed", jobs: { failed: 2 } });
    expect(out.errors[0].error).toMatch(/HTTP 400/);
    fake.setResponder(() => ({ reply: "Verdict: FAILURE" }));
    const resumed = await cli(["judge", "--resume", String(out.batchId), "--json"]);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: "succeeded", jobs: { succeeded: 2, failed: 0 }, verdicts: { failure: 2 } });
  });

  it("runs the VWA rules and rejects bad usage with exit 2", async () => {
    const rules = await cli(["evaluate-rules", "--all", "--json"]);
    expect(rules.code).toBe(0);
    expect(JSON.parse(rules.stdout)).toMatchObject({ considered: 3, evaluated: 1, noRuleConfig: 2, byVerdict: { success: 1 } });
    expect((await cli(["judge", "--config", "local", "--k", "0", "--all"])).code).toBe(2);
    expect((await cli(["judge", "--config", "local", "--k", "1"])).code).toBe(2);
    expect((await cli(["judge", "--config", "local", "--k", "1", "--all", "--run", "1"])).code).toBe(2);
    const missing = await cli(["judge", "--config", "nope", "--k", "1", "--all"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No judge configuration with id "nope"/);
  });
});

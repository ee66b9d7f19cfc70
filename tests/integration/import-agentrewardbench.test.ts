import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sqliteClient } from "../../db/database";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { agentRewardBenchImporter, parseJudgeReply } from "../../server/importers/agentrewardbench";
import type { ImportItem, ImportTrajectory } from "../../server/importers/types";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, type TestContext } from "../helpers/context";
import { escapeRegExp } from "../helpers/db-snapshot";
import { judgeResponse, summary, writeArb, writeJudgment, type ArbSpec } from "../helpers/browsergym-fixture";

let ctx: TestContext;
beforeEach(() => {
  ctx = createTestContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

const AGENT = "GenericAgent-gpt-4o-2024-11-20";
const SPEC: ArbSpec = {
  benchmark: "visualwebarena",
  agent: AGENT,
  experiment: `${AGENT}_on_visualwebarena.resized`,
  taskId: "visualwebarena.resized.398",
  goal: "Find the post with the red car and tell me its score.",
  screenshots: [0, 1, 3],
  steps: [
    {
      action: "click('12')",
      reasoning: "The search box is [12].",
      url: "http://localhost:9999/forums",
      elements: { "12": [[10, 20, 200, 30], true], "13": [[10, 60, 80, 20], true], "14": [null, true], "15": [[0, 0, 5, 5], false] },
      axtreePruned: "RootWebArea 'Postmill'\n\t[12] searchbox 'Search query', clickable\n\t[13] link 'Forums'",
      filler: 5000,
    },
    {
      action: `fill('a51', "red car \\"sedan\\"")`,
      reasoning: "Type the query in the iframe's box.",
      url: "http://localhost:9999/search",
      elements: { "12": [[10, 20, 200, 30], true], a51: [[300, 400, 120, 24], false] },
    },
    {
      action: `send_msg_to_user("The score is 42")`,
      reasoning: "Found it.",
      url: "http://localhost:9999/f/cars/1",
      lastActionError: "TimeoutError: fill exceeded 500ms",
    },
    { action: null, reasoning: null, url: "http://localhost:9999/f/cars/1" },
  ],
};

async function read(input: string): Promise<ImportTrajectory[]> {
  const out: ImportTrajectory[] = [];
  for await (const item of agentRewardBenchImporter.read(input, {})) if (item.kind === "trajectory") out.push(item.trajectory);
  return out;
}

describe("AgentRewardBench importer", () => {
  it("imports a dataset root: steps, screenshots, actions, boxes, answer", async () => {
    const root = path.join(ctx.dir, "agent reward bench v1.0");
    await writeArb(root, SPEC);
    const report = await runImport(ctx, { path: root });
    expect(report.format).toBe("agentrewardbench");
    expect(report.trajectories).toHaveLength(1);
    const t = report.trajectories[0]!;
    // .resized is a variant of the same task: it joins visualwebarena.398 (a reddit task by its global id).
    expect(t).toMatchObject({ externalTaskId: "visualwebarena.398", steps: 4, screenshots: 3, finalAnswer: "The score is 42" });
    const d = (await getTrajectoryDetail(ctx.db, t.id))!;
    expect(d.taskSet.name).toBe("VisualWebArena reddit");
    expect(d.task.intent).toBe(SPEC.goal);
    expect(d.task.extra).toEqual({ sourceTaskName: "visualwebarena.resized.398" });
    expect(d.run).toMatchObject({
      runKey: `agentrewardbench:visualwebarena/${AGENT}/${SPEC.experiment}`,
      name: SPEC.experiment,
      agentName: AGENT,
      model: "gpt-4o-2024-11-20",
      sourceSystem: "agentrewardbench",
    });
    expect(d.run.config).toMatchObject({ seed: 23, package_version: "0.3.2", model_args: { temperature: 0.1 } });
    expect(d.trajectory.outcome).toBe("answered");
    expect(d.steps.map((s) => s.action)).toEqual([
      { type: "click", target: "12", value: null },
      { type: "type", target: "a51", value: 'red car "sedan"', submit: false },
      { type: "answer", value: "The score is 42" },
      { type: "noop" },
    ]);
    expect(d.steps.map((s) => s.actionRaw)).toEqual([SPEC.steps[0]!.action, SPEC.steps[1]!.action, SPEC.steps[2]!.action, null]);
    expect(d.steps.map((s) => s.thought)).toEqual(["The search box is [12].", "Type the query in the iframe's box.", "Found it.", null]);
    expect(d.steps.map((s) => s.url)).toEqual(SPEC.steps.map((s) => s.url));
    expect(d.steps.map((s) => s.screenshotHash !== null)).toEqual([true, true, false, true]);
    expect(d.steps.every((s) => !s.marksBurnedIn)).toBe(true);
    expect(d.steps[0]!.durationMs).toBe(1250);
    // Marked elements with boxes, named from the pruned accessibility tree; unmarked 15 and box-less 14 left out.
    expect(d.steps[0]!.elements).toEqual([
      { label: "12", bbox: [10, 20, 200, 30], tag: "searchbox", text: "Search query" },
      { label: "13", bbox: [10, 60, 80, 20], tag: "link", text: "Forums" },
    ]);
    // The action's target is kept even when it carries no mark, so its box can be drawn.
    expect(d.steps[1]!.elements!.map((e) => e.label)).toEqual(["12", "a51"]);
    expect(d.steps[2]!.elements).toBeNull();
    // last_action_error at step 2 belongs to step 1's action.
    expect(d.steps[1]!.error).toBe("TimeoutError: fill exceeded 500ms");
    const shot = sqliteClient(ctx.db).prepare("select width, height from screenshots where hash = ?").get(d.steps[0]!.screenshotHash);
    expect(shot).toEqual({ width: 160, height: 90 });

    const again = await runImport(ctx, { path: root });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 1]);
    // The same file imported on its own is the same trajectory.
    const file = path.join(root, "trajectories", "cleaned", "visualwebarena", AGENT, SPEC.experiment, `${SPEC.taskId}.json`);
    const single = await runImport(ctx, { path: file });
    expect(single.format).toBe("agentrewardbench");
    expect([single.created, single.unchanged]).toEqual([0, 1]);
  });

  it("turns cum_reward and every judge's output into verdicts", async () => {
    const root = path.join(ctx.dir, "arb");
    await writeArb(root, SPEC);
    writeJudgment(
      root,
      SPEC,
      "gpt-4o-screen",
      judgeResponse(
        "gpt-4o-screen",
        "<reasoning>The agent found the score.</reasoning><success>Successful</success><side>No</side><optimal>4. Completely Optimal</optimal><loop>No</loop>",
      ),
    );
    writeJudgment(root, SPEC, "aerv", judgeResponse("aerv", 'Thoughts: The answer does not match the post.\nStatus: "failure"'));
    writeJudgment(root, SPEC, "nnetnav", judgeResponse("nnetnav", "Thought: mostly right\nReward: 4"));
    writeJudgment(root, SPEC, "claude-3.7-sonnet-screen", judgeResponse("claude-3.7-sonnet-screen", "I think it went fine."));
    writeJudgment(root, SPEC, "functional", { benchmark: "visualwebarena", judge: "functional", trajectory_info: { summary_info: { cum_reward: 0.0 } } });
    // A failed judge call is not a verdict.
    writeJudgment(root, SPEC, "gpt-4o-axtree", { error: "RateLimitError", chat_messages: [], trajectory_info: {} }, "_error");
    const [t] = await read(root);
    const byEvaluator = Object.fromEntries(t!.verdicts!.map((v) => [v.evaluator, v]));
    expect(Object.keys(byEvaluator).sort()).toEqual([
      "agentrewardbench:aerv",
      "agentrewardbench:claude-3.7-sonnet-screen",
      "agentrewardbench:functional",
      "agentrewardbench:gpt-4o-screen",
      "agentrewardbench:nnetnav",
      "browsergym:cum_reward",
    ]);
    expect(byEvaluator["browsergym:cum_reward"]).toMatchObject({ evaluatorKind: "rule", verdict: "success", score: 1 });
    expect(byEvaluator["agentrewardbench:gpt-4o-screen"]).toMatchObject({
      evaluatorKind: "judge",
      verdict: "success",
      score: 1,
      rationale: "The agent found the score.",
      raw: { judge: "gpt-4o-screen", judge_model_name: "gpt-4o-2024-11-20", side: "No", optimal: "4. Completely Optimal", loop: "No" },
    });
    expect(byEvaluator["agentrewardbench:aerv"]).toMatchObject({ verdict: "failure", score: 0, rationale: "The answer does not match the post." });
    expect(byEvaluator["agentrewardbench:nnetnav"]).toMatchObject({ verdict: "success", score: 4, rationale: "mostly right" });
    expect(byEvaluator["agentrewardbench:claude-3.7-sonnet-screen"]).toMatchObject({ verdict: "unparseable", score: null });
    expect(byEvaluator["agentrewardbench:functional"]).toMatchObject({ evaluatorKind: "rule", verdict: "failure", score: 0 });
  });

  it("parses judge replies", () => {
    const cases: [string, string, string, number | null][] = [
      ["gpt-4o-screen", "<success>Unsuccessful</success>", "failure", 0],
      ["gpt-4o-screen", "<success>Unsure</success>", "unparseable", null],
      ["aer", "Status: success", "success", 1],
      ["nnetnav", "Reward: 3", "failure", 3],
      ["nnetnav", 'Status: "success"', "unparseable", null],
      ["x", "", "unparseable", null],
    ];
    for (const [judge, content, verdict, score] of cases) {
      expect(parseJudgeReply(judge, content)).toMatchObject({ verdict, score });
    }
  });

  it("finds screenshots by file name when screenshot_path does not resolve, and reports infeasible tasks", async () => {
    const dir = path.join(ctx.dir, "loose files");
    fs.mkdirSync(path.join(dir, "webarena.177"), { recursive: true });
    const file = path.join(dir, "webarena.177.json");
    const traj = {
      benchmark: "webarena",
      agent: AGENT,
      model: "gpt-4o",
      experiment: "exp",
      goal: "Open the admin page.",
      summary_info: summary(1, { cum_reward: 0, terminated: true }),
      steps: [
        {
          num: 0,
          action: "report_infeasible('There is no admin page')",
          screenshot_path: "/abs/elsewhere/screenshot_step_0.png",
          extra_element_properties: {},
        },
        { num: 1, action: null, screenshot_path: "trajectories/screenshots/webarena/x/webarena.177/screenshot_step_1.png" },
      ],
    };
    fs.writeFileSync(file, JSON.stringify(traj));
    const { tinyPng } = await import("../helpers/webvoyager-fixture");
    fs.writeFileSync(path.join(dir, "webarena.177", "screenshot_step_0.png"), await tinyPng(3));
    const [t] = await read(file);
    expect(t!.task.externalId).toBe("webarena.177");
    expect(t!.task.taskSet.name).toBe("WebArena");
    expect(t!.steps.map((s) => s.screenshot?.origin ?? null)).toEqual([path.join(dir, "webarena.177", "screenshot_step_0.png"), null]);
    expect(t!.outcome).toBe("answered");
    expect(t!.outcomeDetail).toBe("reported the task infeasible");
    expect(t!.finalAnswer).toBe("There is no admin page");
    expect(t!.verdicts).toMatchObject([{ evaluator: "browsergym:cum_reward", verdict: "failure" }]);
  });

  it("drops the bulky per-step fields while streaming and keeps unknown fields harmless", async () => {
    const root = path.join(ctx.dir, "arb");
    const file = await writeArb(root, { ...SPEC, steps: SPEC.steps.map((s) => ({ ...s, filler: 200_000 })) });
    const j = JSON.parse(fs.readFileSync(file, "utf8"));
    j.some_future_field = { nested: [1, 2, { deep: true }] };
    j.steps[0].another_new_field = "x";
    fs.writeFileSync(file, JSON.stringify(j));
    const [t] = await read(file);
    expect(t!.steps).toHaveLength(4);
    expect(JSON.stringify(t!.steps.map((s) => ({ ...s, screenshot: null })))).not.toContain("xxxxxxxxxx");
  });
});

interface TrajectoryJson {
  goal?: unknown;
  steps?: unknown;
  summary_info: Record<string, unknown>;
}
const stepsOf = (j: TrajectoryJson) => j.steps as unknown[];

describe("unreadable AgentRewardBench files are skipped with a reason naming the file; the others import", () => {
  async function expectRejected(mutate: (j: TrajectoryJson) => void, expected: (file: string) => string | RegExp, raw?: (text: string) => string) {
    const root = path.join(ctx.dir, "bad");
    await writeArb(root, { ...SPEC, taskId: "visualwebarena.resized.12" }, 200);
    const file = await writeArb(root, SPEC, 300);
    const j = JSON.parse(fs.readFileSync(file, "utf8")) as TrajectoryJson;
    mutate(j);
    let text = JSON.stringify(j);
    if (raw) text = raw(text);
    fs.writeFileSync(file, text);
    const want = expected(file);
    const items: ImportItem[] = [];
    for await (const item of agentRewardBenchImporter.read(root, {})) items.push(item);
    const skipped = items.flatMap((i) => (i.kind === "skipped" ? [i] : []));
    expect(skipped.map((i) => i.path)).toEqual([file]);
    if (typeof want === "string") expect(skipped[0]!.reason).toBe(want);
    else expect(skipped[0]!.reason).toMatch(want);
    expect(items.filter((i) => i.kind === "trajectory")).toHaveLength(1);
  }

  it("a truncated file", async () => {
    await expectRejected(
      () => {},
      (f) => new RegExp(`^${escapeRegExp(f)}: is not valid JSON`),
      (t) => t.slice(0, Math.floor(t.length / 2)),
    );
  });
  it("no goal", async () => {
    await expectRejected(
      (j) => delete j.goal,
      (f) => `${f}: "goal" is missing or empty`,
    );
  });
  it("steps that are not a list", async () => {
    await expectRejected(
      (j) => (j.steps = { 0: {} }),
      (f) => `${f}: "steps" is not a list`,
    );
  });
  it("no steps", async () => {
    await expectRejected(
      (j) => delete j.steps,
      (f) => `${f}: "steps" is missing`,
    );
  });
  it("a step that is not an object", async () => {
    await expectRejected(
      (j) => (stepsOf(j)[2] = "click('1')"),
      (f) => `${f}: steps[2] is not an object`,
    );
  });
  it("an action that is not a string", async () => {
    await expectRejected(
      (j) => ((stepsOf(j)[1] as Record<string, unknown>).action = 12),
      (f) => `${f}: steps[1].action is not a string or null`,
    );
  });
  it("a summary whose reward is not a number", async () => {
    await expectRejected(
      (j) => (j.summary_info.cum_reward = "yes"),
      (f) => `${f} (summary_info): "cum_reward" is not a number`,
    );
  });
  it("a judgment file that is not JSON", async () => {
    await expectRejected(
      () => {},
      () => {
        const jf = writeJudgment(path.join(ctx.dir, "bad"), SPEC, "gpt-4o-screen", {});
        fs.writeFileSync(jf, "{oops");
        return new RegExp(`^${escapeRegExp(jf)}: is not valid JSON`);
      },
    );
  });
  it("a folder without trajectories", async () => {
    const empty = path.join(ctx.dir, "empty");
    fs.mkdirSync(empty);
    fs.writeFileSync(path.join(empty, "notes.json"), JSON.stringify({ hello: "world" }));
    await expect(runImport(ctx, { path: empty, format: "agentrewardbench" })).rejects.toThrow(`${empty}: no AgentRewardBench trajectory JSON files found`);
  });
});

describe("screenshots are looked for inside the dataset only (security review L4)", () => {
  it("does not climb above the dataset root or follow links out of it; a sub-folder import still finds the dataset's own", async () => {
    const outer = path.join(ctx.dir, "outer");
    const dataset = path.join(outer, "dataset");
    await writeArb(dataset, SPEC, 1);
    const shots = (root: string) => path.join(root, "trajectories", "screenshots", SPEC.benchmark, SPEC.agent, SPEC.taskId);
    // Step 2 has no screenshot in the dataset; a file with its relative path exists above the dataset root.
    fs.mkdirSync(shots(outer), { recursive: true });
    fs.copyFileSync(path.join(shots(dataset), "screenshot_step_0.png"), path.join(shots(outer), "screenshot_step_2.png"));
    // Step 3's screenshot is a link to a file outside the dataset.
    const secret = path.join(ctx.dir, "secret.png");
    fs.copyFileSync(path.join(shots(dataset), "screenshot_step_1.png"), secret);
    fs.rmSync(path.join(shots(dataset), "screenshot_step_3.png"));
    fs.symlinkSync(secret, path.join(shots(dataset), "screenshot_step_3.png"));

    const [t] = await read(dataset);
    expect(t!.steps.map((s) => s.screenshot?.origin ?? null)).toEqual([
      path.join(shots(dataset), "screenshot_step_0.png"),
      path.join(shots(dataset), "screenshot_step_1.png"),
      null,
      null,
    ]);
    const [sub] = await read(path.join(dataset, "trajectories", "cleaned", SPEC.benchmark));
    expect(sub!.steps.map((s) => s.screenshot !== null)).toEqual([true, true, false, false]);
  });
});

/**
 * BrowserGym / AgentLab experiments as people leave them: experiment.log as the record of goal and actions, renamed
 * folders, nested result trees, reports beside the experiments, seed-drawn goals.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { browserGymImporter, PICKLED_ACTION_ERROR } from "../../server/importers/browsergym";
import { detectImporter } from "../../server/importers/registry";
import type { ImportItem, ImportTrajectory } from "../../server/importers/types";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, type TestContext } from "../helpers/context";
import { experimentDirName, experimentLog, summary, writeExperiment, type ExperimentSpec } from "../helpers/browsergym-fixture";

let ctx: TestContext;
beforeEach(() => {
  ctx = createTestContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

async function itemsOf(input: string): Promise<ImportItem[]> {
  const out: ImportItem[] = [];
  for await (const item of browserGymImporter.read(input, {})) out.push(item);
  return out;
}

async function read(input: string): Promise<ImportTrajectory[]> {
  return (await itemsOf(input)).flatMap((i) => (i.kind === "trajectory" ? [i.trajectory] : []));
}

const AGENT = "DemoAgentArgs";
const GOAL = 'Answer the following question using the knowledge base: "How much water does office #456 use?"';

function demoExperiment(over: Partial<ExperimentSpec> = {}): ExperimentSpec {
  const task = over.task ?? "workarena.servicenow.knowledge-base-search";
  const seed = over.seed ?? 5;
  return {
    agent: AGENT,
    task,
    seed,
    screenshots: [0, 1, 2, 3],
    summary: summary(3, { cum_reward: 1 }),
    log: experimentLog({
      expName: `${AGENT}_on_${task}_${seed}`,
      goal: GOAL,
      actions: [
        "The search box is what I need.\n\nI will fill it with the query.\n\n```fill('112', 'water usage office #456')```",
        "Now submit the search.\n\n```python\npress('112', 'Enter')\n```",
        'send_msg_to_user("Office #456 uses 50,000 gallons a year.")',
      ],
    }),
    ...over,
  };
}

describe("experiment.log", () => {
  it("gives the goal and every action, parsed with the BrowserGym grammar; the final observation is a no-op", async () => {
    const study = path.join(ctx.dir, "2024-12-30_runs");
    await writeExperiment(study, demoExperiment(), 1);
    const report = await runImport(ctx, { path: study });
    const d = (await getTrajectoryDetail(ctx.db, report.trajectories[0]!.id))!;
    expect(d.task.intent).toBe(GOAL);
    expect(d.steps.map((s) => s.action)).toEqual([
      { type: "type", target: "112", value: "water usage office #456", submit: false },
      { type: "press", target: "112", value: "Enter" },
      { type: "answer", value: "Office #456 uses 50,000 gallons a year." },
      { type: "noop" },
    ]);
    expect(d.steps.map((s) => s.actionRaw)).toEqual([
      "fill('112', 'water usage office #456')",
      "press('112', 'Enter')",
      'send_msg_to_user("Office #456 uses 50,000 gallons a year.")',
      null,
    ]);
    expect(d.steps[0]!.thought).toBe("The search box is what I need.\n\nI will fill it with the query.");
    // The active tab's URL in the prompt the agent saw; the final observation was never shown in a prompt.
    expect(d.steps.map((s) => s.url)).toEqual(["http://localhost/", "http://localhost/", "http://localhost/", null]);
    expect(d.steps[2]!.thought).toBeNull();
    expect(d.trajectory.outcome).toBe("answered");
    expect(d.trajectory.finalAnswer).toBe("Office #456 uses 50,000 gallons a year.");

    const again = await runImport(ctx, { path: study });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 1]);
  });

  it("a crash before any action is the failed step's error and the outcome's reason", async () => {
    const study = path.join(ctx.dir, "study");
    const task = "workarena.servicenow.filter-asset-list";
    await writeExperiment(
      study,
      {
        agent: AGENT,
        task,
        seed: 27,
        screenshots: [],
        pickles: [0],
        summary: summary(0, { err_msg: null, terminated: false, truncated: false }),
        log: experimentLog({ expName: `${AGENT}_on_${task}_27`, goal: GOAL, actions: [], crash: "TimeoutError: Timeout 30000ms exceeded." }),
      },
      1,
    );
    const [t] = await read(study);
    expect(t!.outcome).toBe("error");
    expect(t!.outcomeDetail).toMatch(/^Exception uncaught by agent or environment in task x\.\nTimeoutError: Timeout 30000ms exceeded\./);
    expect(t!.steps).toHaveLength(1);
    expect(t!.steps[0]!.action).toEqual({ type: "noop" });
    expect(t!.steps[0]!.error).toBe(t!.outcomeDetail);
  });

  it("without a log that records actions, steps stay unknown", async () => {
    const study = path.join(ctx.dir, "study");
    await writeExperiment(study, demoExperiment({ log: "2024-12-18 12:51:50,610 - 1 - agentlab - INFO - Running experiment\n" }), 1);
    const [t] = await read(study);
    expect(t!.steps.every((s) => s.action.type === "unparsed" && s.action.parseError === PICKLED_ACTION_ERROR)).toBe(true);
  });
});

describe("folders as users leave them", () => {
  it("a folder renamed after the seed is still an experiment, and one renamed beyond recognition is named by its log", async () => {
    const study = path.join(ctx.dir, "study");
    const spec = demoExperiment();
    await writeExperiment(study, { ...spec, dirName: `${experimentDirName(spec)} (good run)` }, 1);
    await writeExperiment(study, { ...spec, seed: 5, dirName: `${experimentDirName(spec)}_rerun-2` }, 10);
    await writeExperiment(study, { ...spec, dirName: "kb search, best run" }, 20);
    const items = await itemsOf(study);
    expect(items.filter((i) => i.kind === "skipped")).toEqual([]);
    const trajs = items.flatMap((i) => (i.kind === "trajectory" ? [i.trajectory] : []));
    expect(trajs.map((t) => [path.basename(t.sourcePath), t.task.externalId, t.run.agentName])).toEqual([
      [`${experimentDirName(spec)} (good run)`, "workarena.servicenow.knowledge-base-search#seed5", AGENT],
      [`${experimentDirName(spec)}_rerun-2`, "workarena.servicenow.knowledge-base-search#seed5", AGENT],
      ["kb search, best run", "workarena.servicenow.knowledge-base-search#seed5", AGENT],
    ]);
    expect(trajs.map((t) => t.warnings ?? [])).toEqual([
      [],
      [],
      [
        `${path.join(study, "kb search, best run")}: folder name is not BrowserGym's; the experiment is named from experiment.log ("${AGENT}_on_workarena.servicenow.knowledge-base-search_5")`,
      ],
    ]);
  });

  it("a renamed folder whose task name holds _<digits>_ takes agent, task and seed from its log", async () => {
    const study = path.join(ctx.dir, "study");
    const task = "miniwob.use_2_things";
    const spec = demoExperiment({ task, seed: 0 });
    await writeExperiment(study, { ...spec, dirName: `${experimentDirName(spec)} (copy)` }, 1);
    const [t] = await read(study);
    expect([t!.task.externalId, t!.run.agentName, t!.warnings]).toEqual(["miniwob.use_2_things#seed0", AGENT, undefined]);
  });

  it("summaries and reports beside the experiments are passed over, and trees are searched at any depth", async () => {
    const root = path.join(ctx.dir, "agentlab_results");
    const study = path.join(root, "webarena", "gpt-4o", "2024-12-30_nidhir_runs");
    await writeExperiment(study, demoExperiment(), 1);
    await writeExperiment(
      path.join(root, "miniwob", "2025-01-22_study"),
      { agent: "GenericAgent-gpt-4o-mini", task: "miniwob.click-dialog", seed: 28, screenshots: [], pickles: [0, 1], summary: summary(1) },
      5,
    );
    fs.writeFileSync(path.join(study, "2024:12:30 summary report.csv"), "exp,reward\nx,1\n");
    fs.writeFileSync(path.join(study, "2024:12:30 summary report.md"), "# Summary\n");
    fs.writeFileSync(path.join(root, "miniwob", "2025-01-22_study", "error_report_trial_1_of_3.md"), "# Errors\n");
    fs.writeFileSync(path.join(root, "miniwob", "2025-01-22_study", "result_df_trial_1_of_3.csv"), "a,b\n");
    fs.writeFileSync(path.join(root, "miniwob", "2025-01-22_study", "study.pkl.gz"), "not a pickle");
    fs.mkdirSync(path.join(root, "notes"));
    fs.writeFileSync(path.join(root, "notes", "analysis.md"), "# Notes\n");

    expect((await detectImporter(root)).format).toBe("browsergym");
    const items = await itemsOf(root);
    expect(items.filter((i) => i.kind === "skipped")).toEqual([]);
    const trajs = items.flatMap((i) => (i.kind === "trajectory" ? [i.trajectory] : []));
    expect(trajs.map((t) => [t.task.externalId, t.run.name])).toEqual([
      ["miniwob.click-dialog#seed28", "2025-01-22_study · GenericAgent-gpt-4o-mini"],
      ["workarena.servicenow.knowledge-base-search#seed5", `2024-12-30_nidhir_runs · ${AGENT}`],
    ]);
    // Named from the imported folder down, never by where it sits on this machine.
    expect(trajs[0]!.run.runKey).toBe(`browsergym:${path.basename(root)}/miniwob/2025-01-22_study#GenericAgent-gpt-4o-mini`);
  });
});

describe("seed-drawn goals", () => {
  it("seeds of a generated task are separate tasks with their own goal; WebArena seeds share one task", async () => {
    const study = path.join(ctx.dir, "study");
    const order = (seed: number, goal: string): ExperimentSpec => ({
      agent: AGENT,
      task: "workarena.servicenow.order-ipad-pro",
      seed,
      screenshots: [0],
      summary: summary(0),
      date: `2024-12-30_13-2${seed}-00`,
      log: experimentLog({ expName: `${AGENT}_on_workarena.servicenow.order-ipad-pro_${seed}`, goal, actions: ["noop()"] }),
    });
    await writeExperiment(study, order(2, "Order 3 iPad pro in Silver, 256 GB"), 1);
    await writeExperiment(study, order(4, "Order 2 iPad pro in Space Grey, 128 GB"), 2);
    await writeExperiment(study, { agent: AGENT, task: "webarena.310", seed: 0, screenshots: [0], summary: summary(0) }, 3);
    await writeExperiment(study, { agent: AGENT, task: "webarena.310", seed: 1, screenshots: [0], summary: summary(0), date: "2024-12-30_14-00-00" }, 4);
    const report = await runImport(ctx, { path: study });
    const details = await Promise.all(report.trajectories.map(async (t) => (await getTrajectoryDetail(ctx.db, t.id))!));
    expect(details.map((d) => [d.task.externalId, d.task.intent.slice(0, 26), d.trajectory.attempt])).toEqual([
      ["webarena.310", "Goal of BrowserGym task we", 0],
      ["workarena.servicenow.order-ipad-pro#seed2", "Order 3 iPad pro in Silver", 0],
      ["workarena.servicenow.order-ipad-pro#seed4", "Order 2 iPad pro in Space ", 0],
      ["webarena.310", "Goal of BrowserGym task we", 1],
    ]);
  });
});

describe("folders that look like experiments are never passed over in silence", () => {
  it("an experiment-named folder without BrowserGym's files and a set-aside earlier run are listed as skipped with why", async () => {
    const study = path.join(ctx.dir, "study");
    await writeExperiment(study, demoExperiment());
    const empty = path.join(study, experimentDirName(demoExperiment({ seed: 6 })));
    fs.mkdirSync(empty);
    fs.writeFileSync(path.join(empty, "package_versions.txt"), "browsergym==0.13.0\n");
    const setAside = await writeExperiment(study, demoExperiment({ date: "_2024-08-01_09-00-00" }));
    const report = await runImport(ctx, { path: study });
    expect(report.trajectories).toHaveLength(1);
    expect(report.skipped).toEqual([
      { path: setAside, reason: expect.stringMatching(/^an earlier run of this experiment, set aside by AgentLab/) },
      { path: empty, reason: expect.stringMatching(/^is named like a BrowserGym experiment but holds none of its files/) },
    ]);
  });
});

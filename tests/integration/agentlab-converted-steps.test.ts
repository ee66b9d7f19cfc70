/**
 * AgentLab experiments committed without experiment.log: scripts/agentlab_to_json.py, run by the user in their own
 * BrowserGym environment, writes verdict_steps.json beside each experiment, and the BrowserGym importer reads it
 * (goal, actions, thinking, URLs, errors, element boxes, names, step limit). Verdict itself never unpickles.
 *
 * The importer side uses the JSON fixture in tests/fixtures/agentlab-steps. The script side runs python3 on pickles
 * of stand-in classes (no BrowserGym needed); it is skipped, saying so, where python3 is not installed.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { browserGymImporter } from "../../server/importers/browsergym";
import type { ImportTrajectory } from "../../server/importers/types";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, type TestContext } from "../helpers/context";
import { summary, writeExperiment } from "../helpers/browsergym-fixture";
import { python3SkipReason, titled } from "../helpers/requirements";

let ctx: TestContext;
beforeEach(() => {
  ctx = createTestContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

const FIXTURE = path.join(__dirname, "..", "fixtures", "agentlab-steps", "verdict_steps.json");
const SCRIPT = path.join(__dirname, "..", "..", "scripts", "agentlab_to_json.py");
const noPython = python3SkipReason();

async function read(input: string): Promise<ImportTrajectory[]> {
  const out: ImportTrajectory[] = [];
  for await (const item of browserGymImporter.read(input, {})) if (item.kind === "trajectory") out.push(item.trajectory);
  return out;
}

/** An AgentLab experiment as GitHub keeps it: pickles and screenshots, no experiment.log (`*.log` is ignored). */
async function experimentWithoutLog(
  study: string,
  spec: { task: string; seed: number; summary: Record<string, unknown> | null; date?: string },
): Promise<string> {
  const dir = await writeExperiment(study, { agent: "GenericAgent-gpt-4o-mini", screenshots: [0, 1, 2, 3], ...spec });
  fs.rmSync(path.join(dir, "experiment.log"));
  return dir;
}

describe("the importer reads verdict_steps.json", () => {
  it("takes the goal, actions, thinking, URLs, errors and Set-of-Marks boxes from it instead of placeholders", async () => {
    const study = path.join(ctx.dir, "study");
    const dir = await experimentWithoutLog(study, { task: "workarena.servicenow.DL_01", seed: 0, summary: summary(3, { cum_reward: 0, truncated: true }) });
    const [before] = await read(study);
    // The folder name alone, read from the right: the task ends in digits of its own.
    expect(before!.task.externalId).toBe("workarena.servicenow.DL_01#seed0");
    expect(before!.task.intent).toMatch(/^Goal of BrowserGym task/);
    expect(before!.steps.map((s) => s.action.type)).toEqual(["unparsed", "unparsed", "unparsed", "unparsed"]);

    fs.copyFileSync(FIXTURE, path.join(dir, "verdict_steps.json"));
    const [t] = await read(study);
    expect(t!.task.externalId).toBe("workarena.servicenow.DL_01#seed0");
    expect(t!.task.intent).toBe('Create a new incident with short description "Printer on floor 3 is jammed".');
    expect(t!.run).toMatchObject({ agentName: "GenericAgent-gpt-4o-mini", model: "openai/gpt-4o-mini" });
    expect(t!.steps.map((s) => [s.action.type, s.action.target ?? null, s.actionRaw])).toEqual([
      ["click", "a51", "click('a51')"],
      ["type", "a80", "fill('a80', 'Printer on floor 3 is jammed')"],
      ["click", "a99", "click('a99')"],
      ["noop", null, null],
    ]);
    expect(t!.steps.map((s) => s.thought)).toEqual(["The Create New button opens the incident form.", "Type the short description.", "Submit the form.", null]);
    expect(t!.steps[1]!.url).toBe("https://dev.service-now.test/now/nav/ui/classic/params/target/incident.do");
    // The failure of step 3's click is reported in the observation after it.
    expect(t!.steps.map((s) => s.error)).toEqual([null, null, 'ValueError: Could not find element with bid "a99"', null]);
    // Only the elements BrowserGym marks on the screenshot.
    expect(t!.steps[0]!.elements).toEqual([
      { label: "a51", bbox: [12, 40, 90, 24], tag: null, text: null },
      { label: "a52", bbox: [110, 40, 60, 24], tag: null, text: null },
    ]);
    expect(t!.outcome).toBe("step_limit");
    expect(t!.warnings).toBeUndefined();
  });

  it("without a summary, the steps' truncation or the experiment's max_steps gives the step limit", async () => {
    const study = path.join(ctx.dir, "study");
    const dir = await experimentWithoutLog(study, { task: "workarena.servicenow.DL_01", seed: 0, summary: null });
    const data = JSON.parse(fs.readFileSync(FIXTURE, "utf8")) as { steps: { truncated: boolean }[] };
    data.steps.at(-1)!.truncated = false;
    fs.writeFileSync(path.join(dir, "verdict_steps.json"), JSON.stringify(data));
    const [t] = await read(study);
    expect(t!.outcome).toBe("step_limit");
    expect(t!.outcomeDetail).toBe("stopped after 3 actions: the experiment's max_steps (3)");
  });

  it("a file Verdict cannot use is named in a warning and the experiment still imports from its other files", async () => {
    const study = path.join(ctx.dir, "study");
    const dir = await experimentWithoutLog(study, { task: "miniwob.click-dialog", seed: 28, summary: summary(3) });
    const file = path.join(dir, "verdict_steps.json");
    fs.writeFileSync(file, JSON.stringify({ format: "verdict.agentlab-steps", version: 1, steps: [{ step: "zero" }] }));
    const [t] = await read(study);
    expect(t!.steps).toHaveLength(4);
    expect(t!.warnings).toEqual([`${file}: steps.0.step: Invalid input: expected number, received string; the experiment is read from its other files`]);
  });

  it("what the converter could not read is carried into the import report", async () => {
    const study = path.join(ctx.dir, "study");
    const dir = await experimentWithoutLog(study, { task: "workarena.servicenow.DL_01", seed: 0, summary: summary(3) });
    const data = JSON.parse(fs.readFileSync(FIXTURE, "utf8")) as { errors: string[] };
    data.errors = ["step_2.pkl.gz: EOFError: Compressed file ended before the end-of-stream marker was reached"];
    fs.writeFileSync(path.join(dir, "verdict_steps.json"), JSON.stringify(data));
    const report = await runImport(ctx, { path: study });
    expect(report.format).toBe("browsergym");
    // The report names the folder as the user knows it: from the imported folder down, not where it sat on disk.
    expect(report.warnings).toEqual([
      {
        path: path.relative(path.dirname(study), dir),
        message: "verdict_steps.json: step_2.pkl.gz: EOFError: Compressed file ended before the end-of-stream marker was reached",
      },
    ]);
  });
});

/** A module of stand-in classes pickled the way AgentLab pickles its own (StepInfo, ExpArgs…), importable by name. */
const STANDIN = `
class StepInfo:
    def __init__(self, **kw):
        self.__dict__.update(kw)

class AgentInfo:
    def __init__(self, think):
        self.think = think

class Holder:
    def __init__(self, **kw):
        self.__dict__.update(kw)
`;

const WRITE_PICKLES = `
import gzip, pickle, sys
from pathlib import Path
from standin_agentlab import StepInfo, AgentInfo, Holder
exp = Path(sys.argv[1])
exp.mkdir(parents=True, exist_ok=True)
args = Holder(exp_name="GenericAgent-gpt-4o-mini_on_miniwob.click-dialog_28",
              agent_args=Holder(agent_name="GenericAgent-gpt-4o-mini", chat_model_args=Holder(model_name="openai/gpt-4o-mini")),
              env_args=Holder(task_name="miniwob.click-dialog", task_seed=28, max_steps=10))
with open(exp / "exp_args.pkl", "wb") as f:
    pickle.dump(args, f)
with gzip.open(exp / "goal_object.pkl.gz", "wb") as f:
    pickle.dump([{"type": "text", "text": "Close the dialog box by clicking the \\"x\\"."}], f)
props = {"12": {"bbox": [10.5, 20, 30, 40], "visibility": 1.0, "clickable": True, "set_of_marks": True}}
steps = [
    StepInfo(step=0, action="click('12')", agent_info=AgentInfo("The x closes it."), reward=0.0, terminated=False, truncated=False,
             obs={"url": "file:///miniwob/click-dialog.html", "last_action_error": "", "goal_object": None, "extra_element_properties": props}),
    StepInfo(step=1, action=None, agent_info={}, reward=1.0, terminated=True, truncated=False,
             obs={"url": "file:///miniwob/click-dialog.html", "last_action_error": "", "goal_object": None, "extra_element_properties": {}}),
]
for s in steps:
    with gzip.open(exp / f"step_{s.step}.pkl.gz", "wb") as f:
        pickle.dump(s, f)
`;

function python(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync("python3", args, { encoding: "utf8", env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(noPython !== null)(titled("scripts/agentlab_to_json.py", noPython), () => {
  it("refuses a missing folder and a call without one, with the usage", () => {
    const none = python([SCRIPT]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/usage: agentlab_to_json\.py/);
    const missing = python([SCRIPT, path.join(ctx.dir, "nowhere")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`${path.join(ctx.dir, "nowhere")}: no such folder`);
  });

  it("converts pickles found at any depth, and Verdict imports the experiment from the JSON alone", async () => {
    const lib = path.join(ctx.dir, "lib");
    fs.mkdirSync(lib);
    fs.writeFileSync(path.join(lib, "standin_agentlab.py"), STANDIN);
    fs.writeFileSync(path.join(lib, "write_pickles.py"), WRITE_PICKLES);
    const study = path.join(ctx.dir, "results", "2025-01-22_11-03-29_study");
    const exp = path.join(study, "2025-01-22_11-03-29_GenericAgent-gpt-4o-mini_on_miniwob.click-dialog_28");
    expect(python([path.join(lib, "write_pickles.py"), exp], { PYTHONPATH: lib }).code).toBe(0);
    // Set aside by AgentLab: not converted.
    fs.mkdirSync(path.join(study, "_2025-01-21_10-00-00_GenericAgent-gpt-4o-mini_on_miniwob.click-dialog_28"));

    const dry = python([SCRIPT, "--dry-run", path.join(ctx.dir, "results")], { PYTHONPATH: lib });
    expect(dry.stdout).toBe(`would convert ${exp}\n1 experiment(s) found; nothing written (--dry-run).\n`);
    expect(fs.existsSync(path.join(exp, "verdict_steps.json"))).toBe(false);

    const run = python([SCRIPT, path.join(ctx.dir, "results")], { PYTHONPATH: lib });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`converted ${exp} (2 steps)`);
    const json = JSON.parse(fs.readFileSync(path.join(exp, "verdict_steps.json"), "utf8"));
    expect(json).toMatchObject({
      format: "verdict.agentlab-steps",
      version: 1,
      agent_name: "GenericAgent-gpt-4o-mini",
      model_name: "openai/gpt-4o-mini",
      task_name: "miniwob.click-dialog",
      task_seed: 28,
      max_steps: 10,
      goal: 'Close the dialog box by clicking the "x".',
      errors: [],
    });
    expect(json.steps[0]).toEqual({
      step: 0,
      action: "click('12')",
      think: "The x closes it.",
      url: "file:///miniwob/click-dialog.html",
      last_action_error: null,
      reward: 0,
      terminated: false,
      truncated: false,
      elements: [{ bid: "12", bbox: [10.5, 20, 30, 40], visibility: 1, clickable: true, set_of_marks: true }],
    });

    fs.writeFileSync(path.join(exp, "summary_info.json"), JSON.stringify(summary(1, { cum_reward: 1, terminated: true })));
    const [t] = await read(study);
    expect(t!.task.intent).toBe('Close the dialog box by clicking the "x".');
    expect(t!.steps.map((s) => s.action.type)).toEqual(["click", "noop"]);
    expect(t!.steps[0]!.elements).toEqual([{ label: "12", bbox: [10.5, 20, 30, 40], tag: null, text: null }]);
  });

  it("without the classes the pickles need, says to use the experiments' own environment and writes nothing", () => {
    const lib = path.join(ctx.dir, "lib");
    fs.mkdirSync(lib);
    fs.writeFileSync(path.join(lib, "standin_agentlab.py"), STANDIN);
    fs.writeFileSync(path.join(lib, "write_pickles.py"), WRITE_PICKLES);
    const exp = path.join(ctx.dir, "2025-01-22_11-03-29_GenericAgent-gpt-4o-mini_on_miniwob.click-dialog_28");
    expect(python([path.join(lib, "write_pickles.py"), exp], { PYTHONPATH: lib }).code).toBe(0);
    const run = python([SCRIPT, exp]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/FAILED .*No module named 'standin_agentlab' \(run this script with the Python environment that ran the experiments\)/);
    expect(fs.existsSync(path.join(exp, "verdict_steps.json"))).toBe(false);
  });
});

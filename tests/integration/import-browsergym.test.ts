import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sqliteClient } from "../../db/database";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { browserGymImporter, PICKLED_ACTION_ERROR } from "../../server/importers/browsergym";
import type { ImportItem, ImportTrajectory } from "../../server/importers/types";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, sharedPath, type TestContext } from "../helpers/context";
import { escapeRegExp, storeSnapshot } from "../helpers/db-snapshot";
import { experimentDirName, summary, writeExperiment, type ExperimentSpec } from "../helpers/browsergym-fixture";
import { titled } from "../helpers/requirements";

let ctx: TestContext;
beforeEach(() => {
  ctx = createTestContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

const AGENT = "GenericAgent-gpt-4o-2024-11-20";
const VWA_A: ExperimentSpec = {
  agent: AGENT,
  task: "visualwebarena.450",
  seed: 42,
  screenshots: [0, 1, 2, 3],
  som: [0, 1, 2, 3],
  summary: summary(3, { cum_reward: 1.0 }),
};
const VWA_B: ExperimentSpec = { ...VWA_A, date: "2024-08-01_11-00-00", seed: 7, som: [], summary: summary(3, { terminated: false, truncated: true }) };
const MINIWOB: ExperimentSpec = {
  agent: AGENT,
  task: "miniwob.click-test",
  seed: 0,
  screenshots: [0],
  jpg: [2],
  pickles: [0, 1, 2],
  summary: summary(2, { err_msg: "TimeoutError: page.click exceeded 500ms", cum_reward: 0.0, terminated: false }),
  stepsInfo: { step: 2, action: null, obs: { goal: "Click the button labelled ONE.", url: "file:///miniwob/click-test.html" } },
};

async function writeStudy(study: string) {
  await writeExperiment(study, VWA_A, 1);
  await writeExperiment(study, VWA_B, 20);
  await writeExperiment(study, MINIWOB, 40);
  // A re-run moved aside (leading underscore) and an experiment prepared but never run.
  await writeExperiment(study, { ...VWA_A, date: "_2024-07-01_09-00-00" }, 60);
  fs.mkdirSync(path.join(study, "2024-08-02_00-00-00_GenericAgent-gpt-4o-2024-11-20_on_webarena.3_1"));
  fs.writeFileSync(path.join(study, "2024-08-02_00-00-00_GenericAgent-gpt-4o-2024-11-20_on_webarena.3_1", "exp_args.pkl"), "not a pickle");
  fs.writeFileSync(path.join(study, "study.pkl.gz"), "not a pickle");
  return study;
}

/** What writeStudy's set-aside re-run and never-run experiment are reported as (never passed over in silence). */
function passedOver(study: string) {
  const neverRan = path.join(study, "2024-08-02_00-00-00_GenericAgent-gpt-4o-2024-11-20_on_webarena.3_1");
  return [
    { path: neverRan, reason: `${neverRan}: was set up but never ran: no screenshot, step, summary or logged action to import` },
    {
      path: path.join(study, experimentDirName({ ...VWA_A, date: "_2024-07-01_09-00-00" })),
      reason:
        'an earlier run of this experiment, set aside by AgentLab when the experiment was run again (the folder name starts with "_"); import the folder on its own to review it',
    },
  ];
}

async function read(input: string): Promise<ImportTrajectory[]> {
  const out: ImportTrajectory[] = [];
  for await (const item of browserGymImporter.read(input, {})) if (item.kind === "trajectory") out.push(item.trajectory);
  return out;
}

describe("BrowserGym / AgentLab importer", () => {
  it("imports every experiment of a study without opening a pickle", async () => {
    const study = await writeStudy(path.join(ctx.dir, "agentlab_results", "2024-08-01_10-00-00_my study.v2"));
    const report = await runImport(ctx, { path: study });
    expect(report.format).toBe("browsergym");
    expect(report.skipped).toEqual(passedOver(study));
    expect(report.trajectories.map((t) => [t.externalTaskId, t.steps, t.screenshots, t.rawScreenshots])).toEqual([
      // Folder-name order: the same start time sorts by agent and task.
      // MiniWoB draws its goal from the seed: each seed is its own task.
      ["miniwob.click-test#seed0", 3, 2, 0],
      ["visualwebarena.450", 4, 4, 4],
      ["visualwebarena.450", 4, 4, 0],
    ]);
    const a = (await getTrajectoryDetail(ctx.db, report.trajectories[1]!.id))!;
    expect(a.taskSet.name).toBe("VisualWebArena shopping");
    expect(a.task.site).toBe("shopping");
    expect(a.task.intent).toMatch(/^Goal of BrowserGym task visualwebarena\.450 \(not recorded outside BrowserGym's pickles/);
    expect(a.run.agentName).toBe(AGENT);
    expect(a.run.model).toBe("gpt-4o-2024-11-20");
    expect(a.run.sourceSystem).toBe("browsergym");
    expect(a.trajectory.attempt).toBe(0);
    expect(a.trajectory.outcome).toBe("answered");
    expect(a.trajectory.finalAnswer).toBeNull();
    expect(a.steps.map((s) => s.index)).toEqual([0, 1, 2, 3]);
    expect(a.steps.every((s) => s.action.type === "unparsed" && s.action.value === null && s.action.parseError === PICKLED_ACTION_ERROR)).toBe(true);
    // The SoM variant is the shown screenshot, the plain one is kept as raw.
    expect(a.steps.every((s) => s.marksBurnedIn && s.screenshotHash && s.rawScreenshotHash && s.screenshotHash !== s.rawScreenshotHash)).toBe(true);
    const som0 = fs.readFileSync(path.join(study, experimentDirName(VWA_A), "screenshot_som_step_0.png"));
    expect(fs.readFileSync(ctx.store.pathFor(a.steps[0]!.screenshotHash!))).toEqual(som0);

    const b = (await getTrajectoryDetail(ctx.db, report.trajectories[2]!.id))!;
    expect(b.task.id).toBe(a.task.id);
    expect(b.trajectory.attempt).toBe(1);
    expect(b.trajectory.outcome).toBe("step_limit");
    expect(b.steps.every((s) => !s.marksBurnedIn && s.rawScreenshotHash === null)).toBe(true);

    const m = (await getTrajectoryDetail(ctx.db, report.trajectories[0]!.id))!;
    expect(m.taskSet.name).toBe("BrowserGym miniwob");
    // steps_info.json (save_json) carries the goal.
    expect(m.task.intent).toBe("Click the button labelled ONE.");
    expect(m.trajectory.outcome).toBe("error");
    expect(m.trajectory.outcomeDetail).toBe("TimeoutError: page.click exceeded 500ms");
    // Step 1 has a pickle but no screenshot: a gap, not an error. Step 2 is a JPEG.
    expect(m.steps.map((s) => s.screenshotHash !== null)).toEqual([true, false, true]);
    const mime = sqliteClient(ctx.db).prepare("select mime from screenshots where hash = ?").get(m.steps[2]!.screenshotHash) as { mime: string };
    expect(mime.mime).toBe("image/jpeg");

    const again = await runImport(ctx, { path: study });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 3]);
  });

  it("stores cum_reward as a rule verdict and keys runs by study and agent", async () => {
    const study = await writeStudy(path.join(ctx.dir, "study one"));
    const trajs = await read(study);
    expect(trajs.map((t) => t.task.externalId)).toEqual(["miniwob.click-test#seed0", "visualwebarena.450", "visualwebarena.450"]);
    expect(trajs[1]!.verdicts).toEqual([
      {
        evaluator: "browsergym:cum_reward",
        evaluatorKind: "rule",
        verdict: "success",
        score: 1,
        rationale: null,
        raw: { cum_reward: 1, cum_raw_reward: 0, terminated: true, truncated: false, err_msg: null },
      },
    ]);
    expect(trajs[0]!.verdicts).toMatchObject([{ verdict: "failure", score: 0 }]);
    const key = `browsergym:${path.basename(study)}#${AGENT}`;
    expect(new Set(trajs.map((t) => t.run.runKey))).toEqual(new Set([key]));
    // One experiment imported alone keeps its run (named by its study folder) and attempt number.
    const alone = await read(path.join(study, experimentDirName(VWA_B)));
    expect(alone.map((t) => [t.run.runKey, t.attempt])).toEqual([[key, 1]]);
  });

  it("imports a results root holding several studies", async () => {
    const root = path.join(ctx.dir, "results root");
    await writeExperiment(path.join(root, "study A"), VWA_A, 1);
    await writeExperiment(path.join(root, "study B"), { ...VWA_A, agent: "GenericAgent-anthropic_claude-3.7-sonnet" }, 5);
    const trajs = await read(root);
    expect(trajs.map((t) => [t.run.name, t.run.model])).toEqual([
      [`study A · ${AGENT}`, "gpt-4o-2024-11-20"],
      ["study B · GenericAgent-anthropic_claude-3.7-sonnet", "anthropic/claude-3.7-sonnet"],
    ]);
  });
});

const realSummary = sharedPath(
  "fixtures",
  "agentlab",
  "test_study",
  "2024-08-01_10-20-52_GenericAgent_on_miniwob.ascending-numbers_64_e6d2d5",
  "summary_info.json",
);
describe.skipIf(!realSummary)(titled("BrowserGym importer on AgentLab's real summary_info.json", realSummary ? null : "../shared/fixtures absent"), () => {
  it("reads the real summary: error outcome, reward 0 as a failure verdict", async () => {
    const dir = path.join(ctx.dir, "test_study", path.basename(path.dirname(realSummary!)));
    await writeExperiment(
      path.join(ctx.dir, "test_study"),
      { agent: "GenericAgent", task: "miniwob.ascending-numbers", seed: 64, screenshots: [0, 1], summary: null },
      3,
    );
    fs.renameSync(
      path.join(ctx.dir, "test_study", experimentDirName({ agent: "GenericAgent", task: "miniwob.ascending-numbers", seed: 64 } as ExperimentSpec)),
      dir,
    );
    fs.copyFileSync(realSummary!, path.join(dir, "summary_info.json"));
    const report = await runImport(ctx, { path: path.join(ctx.dir, "test_study") });
    const d = (await getTrajectoryDetail(ctx.db, report.trajectories[0]!.id))!;
    expect(d.task.externalId).toBe("miniwob.ascending-numbers#seed64");
    // n_steps is 10 but only two screenshots exist: the other steps are kept without one.
    expect(d.steps).toHaveLength(11);
    expect(d.steps.filter((s) => s.screenshotHash).length).toBe(2);
    expect(d.trajectory.outcome).toBe("error");
    expect(d.trajectory.outcomeDetail).toBe("There was a very very bad error");
    const [t] = await read(path.join(ctx.dir, "test_study"));
    expect(t!.verdicts).toMatchObject([{ evaluator: "browsergym:cum_reward", verdict: "failure", score: 0 }]);
  });
});

describe("unreadable experiments are skipped with a reason naming the file; the rest of the study imports", () => {
  async function expectSkipped(setup: (study: string) => { path: string; reason: string | RegExp }) {
    const study = await writeStudy(path.join(ctx.dir, "bad study"));
    const expected = setup(study);
    const items: ImportItem[] = [];
    for await (const item of browserGymImporter.read(study, {})) items.push(item);
    const known = new Set(passedOver(study).map((p) => p.path));
    const skipped = items.flatMap((i) => (i.kind === "skipped" && !known.has(i.path) ? [i] : []));
    expect(skipped.map((i) => i.path)).toEqual([expected.path]);
    if (typeof expected.reason === "string") expect(skipped[0]!.reason).toBe(expected.reason);
    else expect(skipped[0]!.reason).toMatch(expected.reason);
    expect(items.filter((i) => i.kind === "trajectory")).toHaveLength(2);
  }

  it("summary_info.json that is not JSON", async () => {
    await expectSkipped((study) => {
      const f = path.join(study, experimentDirName(MINIWOB), "summary_info.json");
      fs.writeFileSync(f, '{"n_steps": 2,');
      return { path: path.dirname(f), reason: new RegExp(`^${escapeRegExp(f)}: is not valid JSON \\(`) };
    });
  });

  it("n_steps that is not an integer", async () => {
    await expectSkipped((study) => {
      const f = path.join(study, experimentDirName(VWA_B), "summary_info.json");
      fs.writeFileSync(f, JSON.stringify(summary(3, { n_steps: "3" })));
      return { path: path.dirname(f), reason: `${f}: "n_steps" is not a non-negative integer` };
    });
  });

  it("cum_reward that is not a number", async () => {
    await expectSkipped((study) => {
      const f = path.join(study, experimentDirName(VWA_B), "summary_info.json");
      fs.writeFileSync(f, JSON.stringify(summary(3, { cum_reward: "1.0" })));
      return { path: path.dirname(f), reason: `${f}: "cum_reward" is not a number` };
    });
  });

  it("an experiment folder whose name is not BrowserGym's and whose log does not name it", async () => {
    await expectSkipped((study) => {
      const bad = path.join(study, "my experiment");
      fs.renameSync(path.join(study, experimentDirName(MINIWOB)), bad);
      return {
        path: bad,
        reason: `${bad}: folder name does not follow BrowserGym's <YYYY-MM-DD_HH-MM-SS>_<agent>_on_<task>_<seed> pattern and experiment.log does not name the experiment`,
      };
    });
  });
});

describe("malformed BrowserGym folders are rejected with an exact error and nothing written", () => {
  async function expectRejected(setup: (study: string) => string | RegExp) {
    await runImport(ctx, { path: await writeStudy(path.join(ctx.dir, "good")) });
    const before = await storeSnapshot(ctx);
    const study = await writeStudy(path.join(ctx.dir, "bad study"));
    for (const p of passedOver(study)) fs.rmSync(p.path, { recursive: true });
    const expected = setup(study);
    await expect(runImport(ctx, { path: study, format: "browsergym", strict: true })).rejects.toThrow(expected);
    expect(await storeSnapshot(ctx)).toEqual(before);
  }

  it("a screenshot that is not an image", async () => {
    await expectRejected((study) => {
      const f = path.join(study, experimentDirName(VWA_A), "screenshot_step_2.png");
      fs.writeFileSync(f, "PNG? no.");
      return `${f}: is not a PNG, JPEG, WebP or GIF image`;
    });
  });

  it("a folder with no experiments", async () => {
    const empty = path.join(ctx.dir, "nothing");
    fs.mkdirSync(path.join(empty, "sub"), { recursive: true });
    await expect(runImport(ctx, { path: empty, format: "browsergym" })).rejects.toThrow(
      `${empty}: no BrowserGym experiment folders found (folders with summary_info.json, experiment.log or screenshot_step_0.png)`,
    );
  });
});

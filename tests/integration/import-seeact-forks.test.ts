/**
 * SeeAct output as people leave it: save folders at any depth, runs that ended before their first step, and task
 * folders that cannot be read among ones that can.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sqliteClient } from "../../db/database";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { detectImporter } from "../../server/importers/registry";
import { seeActImporter } from "../../server/importers/seeact";
import type { ImportItem, ImportTrajectory } from "../../server/importers/types";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, sharedPath, type TestContext } from "../helpers/context";
import { writeSeeActPackage, writeSeeActResearch, type ResearchTaskSpec } from "../helpers/seeact-fixture";

let ctx: TestContext;
beforeEach(() => {
  ctx = createTestContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

async function items(input: string): Promise<ImportItem[]> {
  const out: ImportItem[] = [];
  for await (const item of seeActImporter.read(input, {})) out.push(item);
  return out;
}
const trajectoriesOf = (list: ImportItem[]): ImportTrajectory[] => list.flatMap((i) => (i.kind === "trajectory" ? [i.trajectory] : []));

const NO_ELEMENTS: ResearchTaskSpec = {
  taskId: "task-no-elements",
  task: "Find the opening hours of the museum.",
  website: "https://museum.test/",
  history: [],
  exitBy: "No elements",
  successOrNot: "0",
  batches: {},
};
const CRASHED: ResearchTaskSpec = {
  taskId: "task-crashed",
  task: "Book a table for two.",
  website: "https://tables.test/",
  history: [],
  exitBy: "TimeoutError: Page.goto: Timeout 30000ms exceeded.",
  successOrNot: "0",
  batches: {},
};
const FINE: ResearchTaskSpec = {
  taskId: "task-fine",
  task: "Search for lamps.",
  website: "https://shop.test/",
  history: ["[textbox]  Search -> TYPE: lamp", "TERMINATE"],
  exitBy: "The model determined a completion.",
  batches: { 1: 1, 2: 1 },
};

describe("SeeAct runs that ended before their first step", () => {
  it("import as 0-step trajectories with their exit reason and SeeAct's verdict", async () => {
    const root = await writeSeeActResearch(path.join(ctx.dir, "online_results"), [NO_ELEMENTS, CRASHED, FINE]);
    const report = await runImport(ctx, { path: root });
    expect([report.created, report.updated, report.unchanged]).toEqual([3, 0, 0]);
    const byId = new Map(report.trajectories.map((t) => [t.externalTaskId, t]));
    expect(byId.get("task-no-elements")!.steps).toBe(0);
    const d = (await getTrajectoryDetail(ctx.db, byId.get("task-no-elements")!.id))!;
    expect(d.trajectory.outcome).toBe("error");
    expect(d.trajectory.outcomeDetail).toBe("No elements");
    const crashed = (await getTrajectoryDetail(ctx.db, byId.get("task-crashed")!.id))!;
    expect(crashed.steps).toEqual([]);
    expect(crashed.trajectory.outcomeDetail).toBe("TimeoutError: Page.goto: Timeout 30000ms exceeded.");
    const verdicts = sqliteClient(ctx.db)
      .prepare(
        "select t.external_id id, v.evaluator_name, v.kind, v.verdict from evaluator_verdicts v join trajectories tr on tr.id = v.trajectory_id join tasks t on t.id = tr.task_id order by 1",
      )
      .all();
    expect(verdicts).toEqual([
      { id: "task-crashed", evaluator_name: "seeact:success_or_not", kind: "rule", verdict: "failure" },
      { id: "task-no-elements", evaluator_name: "seeact:success_or_not", kind: "rule", verdict: "failure" },
    ]);
    const again = await runImport(ctx, { path: root });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 3]);
  });

  it("a pip session with no predictions is a 0-step trajectory, with the verdict a fork wrote", async () => {
    const root = await writeSeeActPackage(path.join(ctx.dir, "seeact_agent_files"), [
      { folder: "20240609_112421", tasks: ["Find the pdf of a paper."], website: "https://www.google.com/", predictions: [], history: [] },
    ]);
    const file = path.join(root, "20240609_112421", "result.json");
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, "utf8")), success_or_not: "0", exit_by: "No elements" }));
    const [t] = trajectoriesOf(await items(root));
    expect(t!.steps).toEqual([]);
    expect([t!.outcome, t!.outcomeDetail]).toEqual(["error", "No elements"]);
    expect(t!.verdicts).toMatchObject([{ evaluator: "seeact:success_or_not", evaluatorKind: "rule", verdict: "failure" }]);
  });
});

describe("SeeAct output at any depth", () => {
  it("finds save folders anywhere under the input, each its own stable run", async () => {
    const top = path.join(ctx.dir, "experiments");
    await writeSeeActResearch(path.join(top, "gpt-4v", "online_results"), [FINE]);
    await writeSeeActResearch(path.join(top, "llava", "seed 2", "online_results"), [FINE], 40);
    expect((await detectImporter(top)).format).toBe("seeact");
    const all = trajectoriesOf(await items(top));
    expect(all.map((t) => t.run.name)).toEqual(["experiments/gpt-4v/online_results", "experiments/llava/seed 2/online_results"]);
    expect(new Set(all.map((t) => t.run.runKey)).size).toBe(2);
    const first = await runImport(ctx, { path: top });
    expect(first.created).toBe(2);
    const again = await runImport(ctx, { path: top });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 2]);
    // One task folder imported on its own is the same trajectory of the same run.
    const one = await runImport(ctx, { path: path.join(top, "llava", "seed 2", "online_results", "task-fine") });
    expect([one.created, one.updated, one.unchanged]).toEqual([0, 0, 1]);
    expect(one.trajectories[0]!.runId).toBe(first.trajectories[1]!.runId);
  });

  it("skips a task folder it cannot read with the file and the problem, and reads the rest", async () => {
    const root = await writeSeeActResearch(path.join(ctx.dir, "res"), [FINE, NO_ELEMENTS]);
    const broken = path.join(root, "task-no-elements", "result.json");
    fs.writeFileSync(broken, '{"confirmed_task": ');
    const got = await items(root);
    expect(trajectoriesOf(got).map((t) => t.task.externalId)).toEqual(["task-fine"]);
    expect(got.filter((i) => i.kind === "skipped")).toEqual([{ kind: "skipped", path: broken, reason: expect.stringMatching(/^is not valid JSON \(/) }]);
  });

  it("a task folder SeeAct started but never finished (crops and log, no result.json) is listed as skipped with why", async () => {
    const root = await writeSeeActResearch(path.join(ctx.dir, "res"), [FINE]);
    const unfinished = path.join(root, "task-unfinished");
    fs.mkdirSync(path.join(unfinished, "image_inputs"), { recursive: true });
    fs.writeFileSync(path.join(unfinished, "task-unfinished.log"), "2024-06-09 11:24:21,000 - step 1\n");
    fs.mkdirSync(path.join(root, "notes"));
    const got = await items(root);
    expect(trajectoriesOf(got).map((t) => t.task.externalId)).toEqual(["task-fine"]);
    expect(got.filter((i) => i.kind === "skipped")).toEqual([
      { kind: "skipped", path: unfinished, reason: "has no result.json (the task stopped before SeeAct wrote its result)" },
    ]);
  });
});

const mlin = sharedPath("fixtures", "real", "seeact-mlin12321");
describe.skipIf(!mlin)("SeeAct pip-package output as left on disk (../shared/fixtures/real/seeact-mlin12321; skipped: ../shared absent)", () => {
  it("is recognised from the repository folder and imports with nothing skipped, then unchanged", async () => {
    expect((await detectImporter(mlin!)).format).toBe("seeact");
    const got = await items(mlin!);
    expect(got.filter((i) => i.kind === "skipped")).toEqual([]);
    const report = await runImport(ctx, { path: mlin! });
    expect([report.created, report.updated, report.unchanged]).toEqual([1, 0, 0]);
    const d = (await getTrajectoryDetail(ctx.db, report.trajectories[0]!.id))!;
    expect(d.task.intent).toBe('Find the pdf of the paper "GPT-4V(ision) is a Generalist Web Agent, if Grounded"');
    expect(d.run.model).toBe("gpt-4-turbo");
    expect(d.run.name).toBe("seeact-mlin12321/seeact_agent_files");
    expect(d.trajectory.outcome).toBe("answered");
    expect(d.steps.map((s) => s.action.type)).toEqual(["type", "click", "click", "press", "click", "answer"]);
    // No screenshots were committed: every step is kept without an image.
    expect(d.steps.every((s) => s.screenshotHash === null)).toBe(true);
    const again = await runImport(ctx, { path: mlin! });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 1]);
  });
});

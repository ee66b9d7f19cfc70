import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sqliteClient } from "../../db/database";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, sharedPath, type TestContext } from "../helpers/context";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";
import { titled } from "../helpers/requirements";

let ctx: TestContext;
beforeEach(() => {
  ctx = createTestContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

describe("WebVoyager importer on a self-made fixture", () => {
  it("pairs steps with screenshots, parses actions and the final answer, and re-imports idempotently", async () => {
    const root = await writeWebVoyagerFixture(path.join(ctx.dir, "results", "run 1"), [
      { id: "Demo Site--1", intent: "Find the price.", url: "https://demo.test/", actions: ["Click [0]", "Type [1]; lamp", "ANSWER; $12"] },
      { id: "Demo Site--2", intent: "Loop forever.", url: "https://demo.test/", actions: ["Scroll [WINDOW]; down", "Scroll [WINDOW]; down"] },
    ]);
    const first = await runImport(ctx, { path: root });
    expect(first.format).toBe("webvoyager");
    expect([first.created, first.updated, first.unchanged]).toEqual([2, 0, 0]);
    const t1 = first.trajectories.find((t) => t.externalTaskId === "Demo Site--1")!;
    expect(t1).toMatchObject({ steps: 3, screenshots: 3, rawScreenshots: 0, finalAnswer: "$12", status: "created" });

    const d = (await getTrajectoryDetail(ctx.db, t1.id))!;
    expect(d.task.intent).toBe("Find the price.");
    expect(d.task.startUrl).toBe("https://demo.test/");
    expect(d.task.site).toBe("Demo Site");
    expect(d.trajectory.outcome).toBe("answered");
    expect(d.steps.map((s) => s.action.type)).toEqual(["click", "type", "answer"]);
    expect(d.steps[1]!.action).toMatchObject({ target: "1", value: "lamp" });
    expect(d.steps[0]!.thought).toBe("step 1 of the plan.");
    expect(d.steps.every((s) => s.marksBurnedIn && s.screenshotHash)).toBe(true);
    expect(d.steps[0]!.elements).toHaveLength(3);
    for (const s of d.steps) expect(fs.existsSync(ctx.store.pathFor(s.screenshotHash!))).toBe(true);

    const t2 = first.trajectories.find((t) => t.externalTaskId === "Demo Site--2")!;
    expect(t2.finalAnswer).toBeNull();
    expect((await getTrajectoryDetail(ctx.db, t2.id))!.trajectory.outcome).toBe("unknown");

    const second = await runImport(ctx, { path: root });
    expect([second.created, second.updated, second.unchanged]).toEqual([0, 0, 2]);
    expect(second.screenshotsAdded).toBe(0);
  });

  it("stores auto_eval.py log verdicts found beside the results as imported judge verdicts", async () => {
    const runDir = path.join(ctx.dir, "results", "run 7");
    await writeWebVoyagerFixture(runDir, [
      { id: "Eval--1", intent: "a", url: "https://e.test/", actions: ["Click [0]", "ANSWER; yes"] },
      { id: "Eval--2", intent: "b", url: "https://e.test/", actions: ["Click [0]", "ANSWER; no"] },
    ]);
    const block = (dir: string, reply: string, res: string) =>
      [
        `--------------------- results/run 7/${dir} ---------------------`,
        "{'role': 'user', 'content': [{'type': 'text', 'text': '2 screenshots at the end: '}]}",
        reply,
        `Auto_eval_res: ${res}`,
        "",
      ].join("\n");
    fs.writeFileSync(
      path.join(ctx.dir, "results", "evaluation.log"),
      block("taskEval--1", "All good. SUCCESS", "1") + block("taskEval--2", "Wrong. NOT SUCCESS", "0"),
    );
    const report = await runImport(ctx, { path: runDir });
    expect(report.verdicts).toBe(2);
    const rows = sqliteClient(ctx.db)
      .prepare(
        "select t.external_id, v.evaluator_name, v.k, v.kind, v.origin, v.verdict, v.rationale from evaluator_verdicts v join trajectories tr on tr.id = v.trajectory_id join tasks t on t.id = tr.task_id order by t.external_id",
      )
      .all();
    expect(rows).toEqual([
      {
        external_id: "Eval--1",
        evaluator_name: "webvoyager:auto_eval",
        k: "2",
        kind: "judge",
        origin: "import",
        verdict: "success",
        rationale: "All good. SUCCESS",
      },
      {
        external_id: "Eval--2",
        evaluator_name: "webvoyager:auto_eval",
        k: "2",
        kind: "judge",
        origin: "import",
        verdict: "failure",
        rationale: "Wrong. NOT SUCCESS",
      },
    ]);
    // A changed verdict in the log makes the trajectory "updated" and replaces the imported verdict.
    fs.writeFileSync(
      path.join(ctx.dir, "results", "evaluation.log"),
      block("taskEval--1", "On reflection, NOT SUCCESS", "0") + block("taskEval--2", "Wrong. NOT SUCCESS", "0"),
    );
    const again = await runImport(ctx, { path: runDir });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 1, 1]);
    const v = sqliteClient(ctx.db).prepare("select verdict, count(*) n from evaluator_verdicts group by verdict").all();
    expect(v).toEqual([{ verdict: "failure", n: 2 }]);
  });

  it("a task recorded again in a run whose other trajectories are unchanged is updated in place, keeping its id", async () => {
    const root = path.join(ctx.dir, "results", "r");
    const other = { id: "S--2", intent: "y", url: "https://s.test/", actions: ["ANSWER; c"] };
    await writeWebVoyagerFixture(root, [{ id: "S--1", intent: "x", url: "https://s.test/", actions: ["Click [0]", "ANSWER; a"] }, other]);
    const first = await runImport(ctx, { path: root });
    const s1 = first.trajectories.find((t) => t.externalTaskId === "S--1")!;
    // S--1 comes first and is new; S--2 tells which stored run this is, and S--1 then takes its place there.
    await writeWebVoyagerFixture(root, [{ id: "S--1", intent: "x", url: "https://s.test/", actions: ["Click [2]", "Click [0]", "ANSWER; b"] }], 50);
    const second = await runImport(ctx, { path: root });
    expect([second.created, second.updated, second.unchanged]).toEqual([0, 1, 1]);
    expect(second.trajectories.find((t) => t.externalTaskId === "S--1")!.id).toBe(s1.id);
    const d = (await getTrajectoryDetail(ctx.db, s1.id))!;
    expect(d.steps).toHaveLength(3);
    expect(d.trajectory.finalAnswer).toBe("b");
    expect((sqliteClient(ctx.db).prepare("select count(*) n from agent_runs").get() as { n: number }).n).toBe(1);
  });

  it("a run none of whose trajectories is stored is another run, even under a stored run's name (nothing is overwritten)", async () => {
    const root = path.join(ctx.dir, "results", "same-name");
    await writeWebVoyagerFixture(root, [{ id: "S--1", intent: "x", url: "https://s.test/", actions: ["Click [0]", "ANSWER; a"] }]);
    const first = await runImport(ctx, { path: root });
    fs.rmSync(root, { recursive: true });
    await writeWebVoyagerFixture(root, [{ id: "S--1", intent: "x", url: "https://s.test/", actions: ["Click [1]", "ANSWER; other agent"] }], 70);
    const second = await runImport(ctx, { path: root });
    expect([second.created, second.updated, second.unchanged]).toEqual([1, 0, 0]);
    expect(second.trajectories[0]!.runId).not.toBe(first.trajectories[0]!.runId);
    expect((await getTrajectoryDetail(ctx.db, first.trajectories[0]!.id))!.trajectory.finalAnswer).toBe("a");
    const runs = sqliteClient(ctx.db).prepare("select run_key, name from agent_runs order by id").all();
    expect(runs).toEqual([
      { run_key: "webvoyager:same-name", name: "same-name" },
      { run_key: "webvoyager:same-name #2", name: "same-name #2" },
    ]);
  });
});

const examples = sharedPath("fixtures", "webvoyager", "results", "examples");
describe.skipIf(!examples)(titled("WebVoyager importer on ../shared fixtures", examples ? null : "../shared/fixtures absent"), () => {
  it("imports all 10 real trajectories with tasks and reference answers, then reports 10 unchanged", async () => {
    const first = await runImport(ctx, { path: examples! });
    expect([first.created, first.updated, first.unchanged]).toEqual([10, 0, 0]);
    const expected: Record<string, { steps: number; last: string; first: string }> = {
      "Allrecipes--4": { steps: 6, first: "click", last: "answer" },
      "Amazon--0": { steps: 3, first: "type", last: "answer" },
      "ArXiv--11": { steps: 7, first: "click", last: "answer" },
      "BBC News--9": { steps: 3, first: "click", last: "answer" },
      "Coursera--16": { steps: 5, first: "click", last: "answer" },
      "ESPN--11": { steps: 5, first: "click", last: "answer" },
      "GitHub--0": { steps: 5, first: "click", last: "answer" },
      "Google Map--4": { steps: 4, first: "click", last: "answer" },
      "Google Search--3": { steps: 5, first: "type", last: "answer" },
      "Huggingface--3": { steps: 6, first: "click", last: "answer" },
    };
    expect(first.trajectories.map((t) => t.externalTaskId).sort()).toEqual(Object.keys(expected).sort());
    for (const t of first.trajectories) {
      const e = expected[t.externalTaskId]!;
      expect(t.steps).toBe(e.steps);
      expect(t.screenshots).toBe(e.steps);
      expect(t.finalAnswer).toBeTruthy();
      const d = (await getTrajectoryDetail(ctx.db, t.id))!;
      expect(d.steps[0]!.action.type).toBe(e.first);
      expect(d.steps.at(-1)!.action.type).toBe(e.last);
      expect(d.steps.every((s) => s.action.type !== "unparsed")).toBe(true);
      // Joined from data/WebVoyager_data.jsonl and data/reference_answer.json.
      expect(d.task.referenceAnswers.length).toBeGreaterThan(0);
      expect(["golden", "possible"]).toContain(d.task.referenceAnswers[0]!.kind);
      const shot = sqliteClient(ctx.db).prepare("select width, height, mime from screenshots where hash = ?").get(d.steps[0]!.screenshotHash) as {
        width: number;
        height: number;
        mime: string;
      };
      expect(shot).toEqual({ width: 1024, height: 768, mime: "image/png" });
    }
    const amazon = (await getTrajectoryDetail(ctx.db, first.trajectories.find((t) => t.externalTaskId === "Amazon--0")!.id))!;
    expect(amazon.task.intent).toBe("Search an Xbox Wireless controller with green color and rated above 4 stars.");
    expect(amazon.task.startUrl).toBe("https://www.amazon.com/");
    expect(amazon.steps[0]!.action).toMatchObject({ type: "type", target: "2", value: "green Xbox Wireless controller 4 stars" });
    expect(amazon.steps[1]!.action).toMatchObject({ type: "click", target: "33" });

    const second = await runImport(ctx, { path: examples! });
    expect([second.created, second.updated, second.unchanged]).toEqual([0, 0, 10]);
  });
});

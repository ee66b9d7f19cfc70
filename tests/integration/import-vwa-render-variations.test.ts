/**
 * VisualWebArena / WebArena result folders as people leave them: nested result trees, custom deployments, crashed
 * tasks with error.txt, forks that render Enter as a space, broken run settings.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { detectImporter } from "../../server/importers/registry";
import type { ImportItem, ImportTrajectory } from "../../server/importers/types";
import { vwaRenderImporter } from "../../server/importers/vwa-render";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, type TestContext } from "../helpers/context";
import { errorTxt, REDDIT_CONFIG, SHOPPING_CONFIG, writeRender, writeVwaResultDir, type RenderStepSpec } from "../helpers/vwa-render-fixture";

let ctx: TestContext;
beforeEach(() => {
  ctx = createTestContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

async function itemsOf(input: string): Promise<ImportItem[]> {
  const out: ImportItem[] = [];
  for await (const item of vwaRenderImporter.read(input, {})) out.push(item);
  return out;
}

async function trajectoriesOf(input: string): Promise<ImportTrajectory[]> {
  return (await itemsOf(input)).flatMap((i) => (i.kind === "trajectory" ? [i.trajectory] : []));
}

const WA_CONFIG = {
  sites: ["shopping_admin"],
  task_id: 7,
  require_login: true,
  storage_state: "./.auth/shopping_admin_state.json",
  start_url: "http://127.0.0.1:7780/admin",
  geolocation: null,
  intent_template: "x",
  instantiation_dict: {},
  intent: "How many reviews mention disappointed?",
  require_reset: false,
  eval: { eval_types: ["string_match"], reference_answers: { must_include: ["6"] }, reference_url: "", program_html: [] },
  intent_template_id: 3,
};

function a11yStep(over: Partial<RenderStepSpec>): RenderStepSpec {
  return {
    url: "http://127.0.0.1:7780/admin",
    observation: "Tab 0 (current): Dashboard\n\n[1] RootWebArea 'Dashboard' focused: True\n\t[17] searchbox 'Search'",
    image: null,
    prevAction: "None",
    rawPrediction: "In summary, the next action I will perform is ```click [17]```",
    actionType: "CLICK",
    elementId: "17",
    parsedAction: "click [17] where [17] is [17] searchbox 'Search'",
    ...over,
  };
}

describe("result trees at any depth", () => {
  it("finds every leaf folder, names each run by its path and keeps one stable run per leaf", async () => {
    const root = path.join(ctx.dir, "experiments");
    await writeVwaResultDir(path.join(root, "results", "som-gpt4", "2024-05-01_10-00-00"), 1);
    await writeVwaResultDir(path.join(root, "baseline", "llava"), 20);
    writeRender(path.join(root, "retrieval", "bm25", "llama3"), 7, WA_CONFIG, [a11yStep({})]);
    // Files a researcher keeps beside the runs are not result folders.
    fs.writeFileSync(path.join(root, "summary.csv"), "task,score\n");

    expect((await detectImporter(root)).format).toBe("vwa-render");
    const trajs = await trajectoriesOf(root);
    expect(trajs).toHaveLength(5);
    const runs = [...new Map(trajs.map((t) => [t.run.runKey, t.run.name])).entries()];
    expect(runs).toEqual([
      ["visualwebarena:experiments/baseline/llava", "experiments/baseline/llava"],
      ["visualwebarena:experiments/results/som-gpt4/2024-05-01_10-00-00", "experiments/results/som-gpt4/2024-05-01_10-00-00"],
      ["visualwebarena:experiments/retrieval/bm25/llama3", "experiments/retrieval/bm25/llama3"],
    ]);
    // Each leaf reads its own log: the nested run's PASS is found next to its renders.
    const nested = trajs.find((t) => t.run.name.endsWith("2024-05-01_10-00-00") && t.task.externalId === "visualwebarena.456")!;
    expect(nested.verdicts).toMatchObject([{ verdict: "success" }]);

    const first = await runImport(ctx, { path: root, format: "vwa-render" });
    expect([first.created, first.updated, first.unchanged]).toEqual([5, 0, 0]);
    const again = await runImport(ctx, { path: root, format: "vwa-render" });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 5]);
    // A leaf imported on its own is the same run as when it came with the whole tree.
    const leaf = await runImport(ctx, { path: path.join(root, "baseline", "llava"), format: "vwa-render" });
    expect([leaf.created, leaf.updated, leaf.unchanged]).toEqual([0, 0, 2]);
  });
});

describe("custom deployments", () => {
  it("imports a VisualWebArena-style site outside classifieds/reddit/shopping as its own task set", async () => {
    const dir = path.join(ctx.dir, "custom vwa");
    const config = { ...SHOPPING_CONFIG, sites: ["furniture_shop"], task_id: 5, storage_state: "./.auth/furniture_shop_state.json" };
    writeRender(dir, 5, config, [a11yStep({ url: "http://127.0.0.1:8100/" })]);
    const report = await runImport(ctx, { path: dir });
    const d = (await getTrajectoryDetail(ctx.db, report.trajectories[0]!.id))!;
    expect(d.taskSet.name).toBe("WebArena-style furniture_shop");
    expect(d.task.externalId).toBe("furniture_shop.5");
    expect(d.task.site).toBe("furniture_shop");
    expect(d.task.difficulty).toEqual({ overall: "medium", reasoning: "medium", visual: "easy" });
    expect(d.run.sourceSystem).toBe("visualwebarena");
  });

  it("imports a WebArena task on a site of one's own apart from WebArena's numbered tasks", async () => {
    const dir = path.join(ctx.dir, "intranet");
    writeRender(dir, 7, { ...WA_CONFIG, sites: ["intranet"] }, [a11yStep({})]);
    writeRender(dir, 8, { ...WA_CONFIG, task_id: 8 }, [a11yStep({})]);
    const trajs = await trajectoriesOf(dir);
    expect(trajs.map((t) => [t.task.taskSet.name, t.task.externalId])).toEqual([
      ["WebArena-style intranet", "intranet.7"],
      ["WebArena", "webarena.8"],
    ]);
  });
});

describe("crashed tasks and error.txt", () => {
  it("a render with no step is a 0-step trajectory that failed, with error.txt's reason for that config", async () => {
    const dir = path.join(ctx.dir, "crashed");
    const file = writeRender(dir, 7, WA_CONFIG, []);
    writeRender(dir, 8, { ...WA_CONFIG, task_id: 8 }, []);
    fs.writeFileSync(
      path.join(dir, "error.txt"),
      errorTxt([
        { configFile: "config_files/7.json", error: "KeyError('action_type')" },
        { configFile: "config_files/17.json", error: "ValueError('not this task')" },
        { configFile: "/tmp/tmpab12cd/7.json", error: "Error('net::ERR_PROXY_CONNECTION_FAILED at http://127.0.0.1:7780/')" },
      ]),
    );
    const report = await runImport(ctx, { path: dir });
    expect(report.trajectories.map((t) => [t.externalTaskId, t.steps])).toEqual([
      ["webarena.7", 0],
      ["webarena.8", 0],
    ]);
    const seven = (await getTrajectoryDetail(ctx.db, report.trajectories[0]!.id))!;
    expect(seven.trajectory.outcome).toBe("error");
    // The last error naming this task's config wins (error.txt is appended by every run).
    expect(seven.trajectory.outcomeDetail).toBe(
      "the run failed before the first step: Error('net::ERR_PROXY_CONNECTION_FAILED at http://127.0.0.1:7780/') (error.txt line 14)",
    );
    // The player's Path names the file from the imported folder down.
    expect(seven.trajectory.sourcePath).toBe(`crashed/${path.basename(file)}`);
    const eight = (await getTrajectoryDetail(ctx.db, report.trajectories[1]!.id))!;
    expect(eight.trajectory.outcome).toBe("error");
    expect(eight.trajectory.outcomeDetail).toBe(
      "the render has no step: the run stopped before the first observation (error.txt names no error for this task)",
    );
  });

  it("error.txt explains a render cut short", async () => {
    const dir = path.join(ctx.dir, "wa");
    writeRender(dir, 7, WA_CONFIG, [a11yStep({})]);
    fs.writeFileSync(path.join(dir, "error.txt"), errorTxt([{ configFile: "config_files/7.json", error: "TimeoutError('Timeout 30000.0ms exceeded')" }]));
    const [t] = await trajectoriesOf(dir);
    expect(t).toMatchObject({ outcome: "error", outcomeDetail: "the run failed: TimeoutError('Timeout 30000.0ms exceeded') (error.txt line 2)" });
  });

  it("error.txt is told after a stop, for the right site's task only", async () => {
    const dir = await writeVwaResultDir(path.join(ctx.dir, "results"));
    fs.writeFileSync(
      path.join(dir, "error.txt"),
      errorTxt([
        // Same per-site id, another VWA site: not reddit 3's error.
        { configFile: "config_files/vwa/test_shopping/3.json", error: "KeyError('shopping')" },
        { configFile: "config_files/vwa/test_reddit/3.json", error: "LookupError('punkt')" },
      ]),
    );
    const byId = new Map((await trajectoriesOf(dir)).map((t) => [t.task.externalId, t]));
    expect(byId.get("visualwebarena.237")).toMatchObject({
      outcome: "error",
      outcomeDetail: "Early stop: Failed to parse actions for 3 times; then the run failed: LookupError('punkt') (error.txt line 8)",
    });
    expect(byId.get("visualwebarena.456")).toMatchObject({ outcome: "answered", outcomeDetail: null, finalAnswer: "$279.49" });
  });
});

describe("fork-specific renders", () => {
  it("a typed Enter rendered as a trailing space keeps submit when the model asked for Enter", async () => {
    const dir = path.join(ctx.dir, "fork");
    writeRender(dir, 7, WA_CONFIG, [
      a11yStep({
        rawPrediction: "In summary, the next action I will perform is ```type [17] [disappointed] [1]```",
        actionType: "TYPE",
        parsedAction: "type [17] [disappointed ] where [17] is Privacy Policy",
      }),
      a11yStep({
        rawPrediction: "In summary, the next action I will perform is ```type [17] [tea ] [0]```",
        actionType: "TYPE",
        parsedAction: "type [17] [tea ] where [17] is Privacy Policy",
      }),
      a11yStep({ rawPrediction: "In summary, the next action I will perform is ```stop [6]```", actionType: "STOP", answer: "6", parsedAction: "stop [6]" }),
    ]);
    const [t] = await trajectoriesOf(dir);
    expect(t!.steps.map((s) => s.action)).toEqual([
      { type: "type", target: "17", value: "disappointed", submit: true },
      { type: "type", target: "17", value: "tea ", submit: false },
      { type: "answer", value: "6" },
    ]);
  });

  it("an unreadable config.json costs the run's settings, not its trajectories, and is reported as a warning", async () => {
    const dir = await writeVwaResultDir(path.join(ctx.dir, "results"));
    fs.writeFileSync(path.join(dir, "config.json"), "{ not json");
    const trajs = await trajectoriesOf(dir);
    expect(trajs).toHaveLength(2);
    for (const t of trajs) {
      expect(t.run.config).toBeNull();
      expect(t.warnings).toHaveLength(1);
      expect(t.warnings![0]).toMatch(
        new RegExp(
          `^${path.join(dir, "config.json").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: is not valid JSON \\(.*\\); the run's settings were not imported$`,
        ),
      );
    }
    // Without the run settings the reddit task is still placed by its login state file.
    expect(trajs.map((t) => t.task.externalId).sort()).toEqual(["visualwebarena.237", "visualwebarena.456"]);
  });

  it("a REDDIT config stays reddit's when the run names no config dir", async () => {
    const dir = path.join(ctx.dir, "plain");
    writeRender(dir, 3, REDDIT_CONFIG, [a11yStep({})]);
    const [t] = await trajectoriesOf(dir);
    expect(t!.task.externalId).toBe("visualwebarena.237");
  });
});

describe("skipped trajectories", () => {
  it("one unreadable render in a nested tree is skipped with its file and problem; the others import", async () => {
    const root = path.join(ctx.dir, "tree");
    await writeVwaResultDir(path.join(root, "a"), 1);
    const bad = writeRender(path.join(root, "b"), 9, { ...WA_CONFIG, task_id: 9, intent: "" }, [a11yStep({})]);
    const items = await itemsOf(root);
    expect(items.filter((i) => i.kind === "skipped")).toEqual([{ kind: "skipped", path: bad, reason: `${bad}: the task config block has no intent` }]);
    expect(items.filter((i) => i.kind === "trajectory")).toHaveLength(2);
  });
});

describe("a result folder whose error.txt cannot be read", () => {
  it("skips that folder's renders with the reason and imports the other folders", async () => {
    const root = path.join(ctx.dir, "tree");
    await writeVwaResultDir(path.join(root, "a"), 1);
    const render = writeRender(path.join(root, "b"), 7, WA_CONFIG, [a11yStep({})]);
    const errorFile = path.join(root, "b", "error.txt");
    fs.mkdirSync(errorFile);
    const items = await itemsOf(root);
    const skipped = items.flatMap((i) => (i.kind === "skipped" ? [i] : []));
    expect(skipped.map((i) => i.path)).toEqual([render]);
    expect(skipped[0]!.reason).toMatch(new RegExp(`^${errorFile.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: cannot be read \\(`));
    expect(items.filter((i) => i.kind === "trajectory")).toHaveLength(2);
  });
});

describe("runner logs", () => {
  it("log_files.txt is followed for relative log_*.log names only, never to an absolute path or out with ..", async () => {
    const repo = path.join(ctx.dir, "webarena");
    const dir = await writeVwaResultDir(path.join(repo, "results"));
    fs.rmSync(path.join(dir, "log_files"), { recursive: true });
    const fail = "2024-05-01 10:00:00,123 - INFO - [Result] (FAIL) config_files/vwa/test_shopping/12.json\n";
    // Only the outside files speak of reddit 3.
    const pass = "2024-05-01 10:00:00,123 - INFO - [Result] (PASS) config_files/vwa/test_reddit/3.json\n";
    fs.mkdirSync(path.join(repo, "log_files"));
    fs.writeFileSync(path.join(repo, "log_files", "log_20240501100000_1.log"), fail);
    // Elsewhere on the machine: files a crafted log_files.txt points at.
    fs.writeFileSync(path.join(ctx.dir, "log_20240501100000_9.log"), pass);
    fs.writeFileSync(path.join(ctx.dir, "notes.txt"), pass);
    fs.writeFileSync(
      path.join(dir, "log_files.txt"),
      ["log_files/log_20240501100000_1.log", path.join(ctx.dir, "log_20240501100000_9.log"), "../../log_20240501100000_9.log", "../../notes.txt"].join("\n"),
    );
    const byId = new Map((await trajectoriesOf(dir)).map((t) => [t.task.externalId, t]));
    expect(byId.get("visualwebarena.456")!.verdicts).toMatchObject([
      { verdict: "failure", raw: { logFile: path.join(repo, "log_files", "log_20240501100000_1.log") } },
    ]);
    expect(byId.get("visualwebarena.237")!.verdicts).toEqual([]);
  });
});

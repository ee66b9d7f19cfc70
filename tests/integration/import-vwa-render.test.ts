import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sqliteClient } from "../../db/database";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { IMPORTERS } from "../../server/importers/registry";
import type { ImportItem, ImportTrajectory } from "../../server/importers/types";
import { vwaRenderImporter } from "../../server/importers/vwa-render";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, sharedPath, type TestContext } from "../helpers/context";
import { escapeRegExp, storeSnapshot } from "../helpers/db-snapshot";
import { SHOPPING_CONFIG, writeRender, writeVwaResultDir } from "../helpers/vwa-render-fixture";
import { tinyPng } from "../helpers/webvoyager-fixture";
import { titled } from "../helpers/requirements";

let ctx: TestContext;
beforeEach(() => {
  ctx = createTestContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

async function trajectoriesOf(input: string): Promise<ImportTrajectory[]> {
  const out: ImportTrajectory[] = [];
  for await (const item of vwaRenderImporter.read(input, {})) if (item.kind === "trajectory") out.push(item.trajectory);
  return out;
}

describe("VisualWebArena render importer", () => {
  it("is registered and detected from a result folder", async () => {
    expect(IMPORTERS).toContain(vwaRenderImporter);
    const root = await writeVwaResultDir(path.join(ctx.dir, "cache", "results 2024.05.01 som"));
    const report = await runImport(ctx, { path: root });
    expect(report.format).toBe("vwa-render");
  });

  it("reads steps, screenshots, actions, answers, elements and joins the per-site task id to the global one", async () => {
    const root = await writeVwaResultDir(path.join(ctx.dir, "cache", "results 2024.05.01 som"));
    const report = await runImport(ctx, { path: root, format: "vwa-render" });
    expect([report.created, report.updated, report.unchanged]).toEqual([2, 0, 0]);

    const shop = report.trajectories.find((t) => t.externalTaskId === "visualwebarena.456")!;
    expect(shop).toMatchObject({ steps: 3, screenshots: 3, rawScreenshots: 0, finalAnswer: "$279.49" });
    const d = (await getTrajectoryDetail(ctx.db, shop.id))!;
    expect(d.taskSet.name).toBe("VisualWebArena shopping");
    expect(d.task.site).toBe("shopping");
    expect(d.task.intent).toBe(SHOPPING_CONFIG.intent);
    expect(d.task.referenceAnswers).toEqual([{ kind: "must_include", text: "$279.49" }]);
    expect(d.task.inputImages).toEqual([SHOPPING_CONFIG.image]);
    expect(d.task.difficulty).toEqual({ overall: "medium", reasoning: "medium", visual: "easy" });
    expect(d.run.model).toBe("gpt-4-vision-preview");
    expect(d.run.sourceSystem).toBe("visualwebarena");
    expect(d.trajectory.outcome).toBe("answered");
    expect(d.steps.map((s) => s.action)).toEqual([
      { type: "click", target: "2" },
      { type: "type", target: "2", value: "guitar", submit: true },
      { type: "answer", value: "$279.49" },
    ]);
    expect(d.steps.map((s) => s.actionRaw)).toEqual(["click [2] where [2]", "type [2] [guitar\n] where [2]", "stop [$279.49]"]);
    expect(d.steps[2]!.url).toBe("http://127.0.0.1:7770/catalogsearch/result/?q=guitar");
    expect(d.steps[0]!.thought).toBe(`Let's think step-by-step. The <input> box is what I need; I'll use "quotes" & 'apostrophes'.`);
    expect(d.steps.every((s) => s.marksBurnedIn && s.screenshotHash)).toBe(true);
    // Only the marked lines become elements; StaticText has no mark. Text with brackets survives.
    expect(d.steps[0]!.elements).toEqual([
      { label: "1", bbox: null, tag: "a", text: "Home" },
      { label: "2", bbox: null, tag: "input", text: "Search entire store here..." },
      { label: "3", bbox: null, tag: "button", text: "Search" },
      { label: "5", bbox: null, tag: "img", text: "Acoustic guitar, 41 inch [brown]" },
    ]);
    for (const s of d.steps) expect(fs.existsSync(ctx.store.pathFor(s.screenshotHash!))).toBe(true);
    const shot = sqliteClient(ctx.db).prepare("select width, height, mime from screenshots where hash = ?").get(d.steps[0]!.screenshotHash);
    expect(shot).toEqual({ width: 64, height: 48, mime: "image/png" });

    const reddit = report.trajectories.find((t) => t.externalTaskId === "visualwebarena.237")!;
    const r = (await getTrajectoryDetail(ctx.db, reddit.id))!;
    expect(r.taskSet.name).toBe("VisualWebArena reddit");
    expect(r.trajectory.finalAnswer).toBeNull();
    expect(r.trajectory.outcome).toBe("error");
    expect(r.trajectory.outcomeDetail).toBe("Early stop: Failed to parse actions for 3 times");
    expect(r.steps.map((s) => s.action.type)).toEqual(["scroll", "noop", "noop"]);
    // The malformed prediction is reported on the step that produced it (the next step's "previous action").
    expect(r.steps[1]!.error).toMatch(/^The previous prediction you issued was "I should look around <\/pre> more\."/);
    expect(r.steps[1]!.thought).toBe("I should look around </pre> more.");
    expect(r.steps[2]!.error).toBe("Early stop: Failed to parse actions for 3 times");

    const again = await runImport(ctx, { path: root, format: "vwa-render" });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 2]);
    expect(again.screenshotsAdded).toBe(0);
  });

  it("turns the runner log's [Result] lines into rule verdicts, matching site and intent", async () => {
    const root = await writeVwaResultDir(path.join(ctx.dir, "results.v2"));
    const trajs = await trajectoriesOf(root);
    const byId = new Map(trajs.map((t) => [t.task.externalId, t]));
    expect(byId.get("visualwebarena.456")!.verdicts).toEqual([
      {
        evaluator: "visualwebarena:result-log",
        evaluatorKind: "rule",
        verdict: "success",
        score: 1,
        rationale: null,
        raw: {
          line: "[Result] (PASS) config_files/vwa/test_shopping/12.json",
          logFile: path.join(root, "log_files", "log_20240501110000_4243.log"),
          lineNumber: 3,
        },
      },
    ]);
    expect(byId.get("visualwebarena.237")!.verdicts).toMatchObject([{ verdict: "failure", score: null, evaluatorKind: "rule" }]);
    // Run identity is the result folder as it is named, never where it sits: stable across re-reads.
    expect(new Set(trajs.map((t) => t.run.runKey))).toEqual(new Set([`visualwebarena:${path.basename(root)}`]));
    const again = await trajectoriesOf(root);
    expect(again.map((t) => t.run.runKey)).toEqual(trajs.map((t) => t.run.runKey));
  });

  it("without logs there is no verdict", async () => {
    const root = await writeVwaResultDir(path.join(ctx.dir, "r"));
    fs.rmSync(path.join(root, "log_files"), { recursive: true });
    const trajs = await trajectoriesOf(root);
    expect(trajs.every((t) => t.verdicts?.length === 0)).toBe(true);
  });

  it("imports a single WebArena render in accessibility-tree mode without a stop as outcome unknown", async () => {
    const dir = path.join(ctx.dir, "wa run.1");
    const file = writeRender(
      dir,
      27,
      {
        sites: ["gitlab"],
        task_id: 27,
        require_login: true,
        storage_state: "./.auth/gitlab_state.json",
        start_url: "http://127.0.0.1:8023",
        geolocation: null,
        intent_template: "x",
        instantiation_dict: {},
        intent: "Open the issues of the a11y project.",
        require_reset: false,
        eval: {
          eval_types: ["url_match"],
          reference_answers: null,
          reference_url: "http://127.0.0.1:8023/a11y/issues |OR| http://127.0.0.1:8023/a11y/-/issues",
          program_html: [],
        },
        intent_template_id: 1,
      },
      [
        {
          url: "http://127.0.0.1:8023",
          observation: "Tab 0 (current): GitLab\n\n[1] RootWebArea 'GitLab' focused: True\n\t[1234] link 'Issues'",
          image: await tinyPng(5, 80, 60),
          prevAction: "None",
          rawPrediction: "Let's think. In summary, the next action I will perform is ```click [1234]```",
          actionType: "CLICK",
          elementId: "1234",
          parsedAction: "click [1234] where [1234] is [1234] link 'Issues'",
        },
        {
          url: "http://127.0.0.1:8023/a11y/issues",
          observation: "[1] RootWebArea 'Issues'",
          image: null,
          prevAction: "click [1234] where [1234] is link 'Issues'",
          rawPrediction: "In summary, the next action I will perform is ```scroll [down]```",
          actionType: "SCROLL",
          parsedAction: "",
          omitParsedAction: true,
        },
      ],
    );
    const report = await runImport(ctx, { path: file });
    expect(report.format).toBe("vwa-render");
    const d = (await getTrajectoryDetail(ctx.db, report.trajectories[0]!.id))!;
    expect(d.taskSet.name).toBe("WebArena");
    expect(d.task.externalId).toBe("webarena.27");
    expect(d.task.site).toBe("gitlab");
    expect(d.task.referenceAnswers).toEqual([
      { kind: "url", text: "http://127.0.0.1:8023/a11y/issues" },
      { kind: "url", text: "http://127.0.0.1:8023/a11y/-/issues" },
    ]);
    expect(d.run.sourceSystem).toBe("webarena");
    expect(d.run.name).toBe("wa run.1");
    expect(d.trajectory.outcome).toBe("unknown");
    expect(d.steps[0]!.action).toEqual({ type: "click", target: "1234" });
    expect(d.steps[0]!.marksBurnedIn).toBe(false);
    expect(d.steps[0]!.elements).toBeNull();
    // No parsed_action div: the action comes from the action_object repr.
    expect(d.steps[1]!.action).toEqual({ type: "scroll", direction: "down" });
    expect(d.steps[1]!.actionRaw).toBe("scroll [down]");
    expect(d.steps[1]!.screenshotHash).toBeNull();
  });
});

const vwaConfigs = sharedPath("fixtures", "visualwebarena", "config_files", "vwa");
describe.skipIf(!vwaConfigs)(titled("VWA render joins the task configs from ../shared", vwaConfigs ? null : "../shared/fixtures absent"), () => {
  it("attaches the trajectory to the task the task file defined, without overwriting it", async () => {
    const configs = await runImport(ctx, { path: vwaConfigs!, format: "vwa-tasks" });
    expect(configs.tasks.created).toBe(910);
    const raw = JSON.parse(fs.readFileSync(path.join(vwaConfigs!, "test_reddit.raw.json"), "utf8")) as Record<string, unknown>[];
    // Reddit task 43 lists ["shopping", "reddit"]: the login state file says which site's config it is.
    const cfg = { ...raw.find((t) => t.task_id === 43)!, start_url: "http://127.0.0.1:7770 |AND| http://127.0.0.1:9999/forums" };
    const dir = path.join(ctx.dir, "results");
    writeRender(dir, 43, cfg, [
      {
        url: "http://127.0.0.1:9999/forums",
        observation: "[1] [A] [Forums]",
        image: await tinyPng(9),
        prevAction: "None",
        rawPrediction: "",
        actionType: "STOP",
        answer: "N/A",
        parsedAction: "stop [N/A]",
      },
    ]);
    const before = (sqliteClient(ctx.db).prepare("select count(*) n from tasks").get() as { n: number }).n;
    const report = await runImport(ctx, { path: dir });
    expect(report.trajectories[0]!.externalTaskId).toBe("visualwebarena.277");
    expect((sqliteClient(ctx.db).prepare("select count(*) n from tasks").get() as { n: number }).n).toBe(before);
    const d = (await getTrajectoryDetail(ctx.db, report.trajectories[0]!.id))!;
    expect(d.taskSet.name).toBe("VisualWebArena reddit");
    // The stored task keeps the task file's placeholder URL, not the render's substituted one.
    expect(d.task.startUrl).toBe(raw.find((t) => t.task_id === 43)!.start_url);
    expect(d.trajectory.finalAnswer).toBe("N/A");
  });
});

describe("unreadable renders are skipped with a reason naming the file; the rest of the folder imports", () => {
  async function expectSkipped(setup: (dir: string) => Promise<{ file: string; reason: string }>) {
    const dir = path.join(ctx.dir, "bad results");
    await writeVwaResultDir(dir, 100);
    const expected = await setup(dir);
    const items: ImportItem[] = [];
    for await (const item of vwaRenderImporter.read(dir, {})) items.push(item);
    expect(items.filter((i) => i.kind === "skipped")).toEqual([{ kind: "skipped", path: expected.file, reason: expected.reason }]);
    // The other render of the folder still comes through.
    expect(items.filter((i) => i.kind === "trajectory")).toHaveLength(1);
  }

  it("a render without the config block", async () => {
    await expectSkipped(async (dir) => {
      const file = path.join(dir, "render_3.html");
      fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(/<pre>sites:[\s\S]*?<\/pre>/, ""));
      return { file, reason: `${file}: has no task config block (<pre> with task_id) before the first step` };
    });
  });

  it("a render whose config has no task_id", async () => {
    await expectSkipped(async (dir) => {
      const file = path.join(dir, "render_3.html");
      fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("task_id: 3\n", ""));
      return { file, reason: `${file}: the task config block (<pre> before the first "New Page") has no integer task_id` };
    });
  });

  it("a render whose file name and task_id disagree", async () => {
    await expectSkipped(async (dir) => {
      const file = path.join(dir, "render_4.html");
      fs.renameSync(path.join(dir, "render_3.html"), file);
      return { file, reason: `${file}: file name says task 4 but its config block says task_id 3` };
    });
  });
});

describe("malformed screenshots are rejected by a strict import with an exact error and nothing written", () => {
  it("a screenshot whose base64 is not an image", async () => {
    const ok = await writeVwaResultDir(path.join(ctx.dir, "ok"));
    await runImport(ctx, { path: ok });
    const before = await storeSnapshot(ctx);
    const dir = path.join(ctx.dir, "bad results");
    await writeVwaResultDir(dir, 100);
    const file = path.join(dir, "render_12.html");
    const html = fs.readFileSync(file, "utf8");
    const second = html.indexOf("data:image/png;base64,", html.indexOf("data:image/png;base64,") + 1) + "data:image/png;base64,".length;
    fs.writeFileSync(file, html.slice(0, second) + Buffer.from("<html>not a png</html>").toString("base64") + html.slice(html.indexOf("'", second)));
    await expect(runImport(ctx, { path: dir, format: "vwa-render", strict: true })).rejects.toThrow(
      new RegExp(`^${escapeRegExp(`${file} (step 2 screenshot): is not a PNG, JPEG, WebP or GIF image`)}$`),
    );
    expect(await storeSnapshot(ctx)).toEqual(before);
  });

  it("a folder without render files", async () => {
    const empty = path.join(ctx.dir, "empty");
    fs.mkdirSync(empty);
    await expect(runImport(ctx, { path: empty, format: "vwa-render" })).rejects.toThrow(`${empty}: no render_<task_id>.html files found`);
  });
});

/**
 * WebVoyager output as forks leave it: results at any depth, extra user messages, missing screenshots, task ids
 * without "--<n>", both spellings of the failure message, auto_eval logs under any name, unreadable task folders.
 */
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sqliteClient } from "../../db/database";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import type { ImportItem, ImportOptions, ImportTrajectory } from "../../server/importers/types";
import { detectImporter } from "../../server/importers/registry";
import { webVoyagerImporter, webVoyagerTasksImporter } from "../../server/importers/webvoyager";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, sharedPath, type TestContext } from "../helpers/context";
import { writeWebVoyagerFixture, writeWebVoyagerTranscript, wvMessages as m } from "../helpers/webvoyager-fixture";

let ctx: TestContext;
beforeEach(() => {
  ctx = createTestContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

async function items(input: string, options: ImportOptions = {}): Promise<ImportItem[]> {
  const out: ImportItem[] = [];
  for await (const item of webVoyagerImporter.read(input, options)) out.push(item);
  return out;
}

async function trajectories(input: string, options: ImportOptions = {}): Promise<ImportTrajectory[]> {
  return (await items(input, options)).flatMap((i) => (i.kind === "trajectory" ? [i.trajectory] : []));
}

async function writeJpeg(file: string, seed: number): Promise<string> {
  fs.writeFileSync(
    file,
    await sharp({ create: { width: 32, height: 24, channels: 3, background: { r: seed * 40, g: 10, b: 200 } } })
      .jpeg()
      .toBuffer(),
  );
  return file;
}

/** The screenshot file each step shows ("-" for none). */
const shots = (t: ImportTrajectory) => t.steps.map((s) => (s.screenshot ? path.basename(s.screenshot.origin) : "-"));

describe("WebVoyager forks: screenshots follow the files that exist", () => {
  it("a fork's reminder messages between observations do not shift the screenshots", async () => {
    // The fork sends a reminder before each later observation; its screenshots are still numbered 1, 2, 3.
    const dir = await writeWebVoyagerTranscript(
      path.join(ctx.dir, "run", "taskShop--1"),
      [
        m.task("Find a lamp.", "https://shop.test/"),
        m.reply("Click [0]"),
        m.reminder(),
        m.observation(),
        m.reply("Type [1]; lamp"),
        m.reminder(),
        m.clipped(),
        m.reply("ANSWER; $12"),
      ],
      [1, 2, 3],
    );
    const [t] = await trajectories(dir);
    expect(shots(t!)).toEqual(["screenshot1.png", "screenshot2.png", "screenshot3.png"]);
    expect(t!.steps.map((s) => s.action.type)).toEqual(["click", "type", "answer"]);
    expect(t!.warnings).toBeUndefined();
  });

  it("a fork message that takes an iteration of its own (no screenshot) leaves a gap like WebVoyager's failures do", async () => {
    const dir = await writeWebVoyagerTranscript(
      path.join(ctx.dir, "run", "taskShop--2"),
      [
        m.task("Find a lamp.", "https://shop.test/"),
        m.reply("Click [0]"),
        m.reminder("Reflect on the last step before acting."),
        m.reply("Wait"),
        m.observation(),
        m.reply("ANSWER; $12"),
      ],
      [1, 3],
    );
    const [t] = await trajectories(dir);
    expect(shots(t!)).toEqual(["screenshot1.png", "-", "screenshot3.png"]);
    expect(t!.warnings).toBeUndefined();
  });

  it("a missing screenshot is a step without an image and a warning, not a rejected trajectory", async () => {
    const root = await writeWebVoyagerFixture(path.join(ctx.dir, "run"), [
      { id: "Gap--1", intent: "gap", url: "https://x.test/", actions: ["Click [0]", "Click [1]", "Click [2]", "ANSWER; y"] },
    ]);
    fs.rmSync(path.join(root, "taskGap--1", "screenshot2.png"));
    const [t] = await trajectories(root);
    expect(shots(t!)).toEqual(["screenshot1.png", "-", "screenshot3.png", "screenshot4.png"]);
    expect(t!.steps[1]!.marksBurnedIn).toBe(false);
    expect(t!.warnings).toEqual(["step 2: screenshot2.png is missing, so the step has no image"]);
    const report = await runImport(ctx, { path: root });
    expect(report.trajectories[0]).toMatchObject({ steps: 4, screenshots: 3 });
  });

  it("reads the failure message in both spellings as the previous step's error", async () => {
    const dir = await writeWebVoyagerTranscript(
      path.join(ctx.dir, "run", "taskShop--3"),
      [
        m.task("Find a lamp.", "https://shop.test/"),
        m.reply("Click [40]"),
        m.failure("executed"),
        m.reply("Click [41]"),
        m.failure("exected"),
        m.reply("Scroll [WINDOW]; down"),
        m.observation(),
        m.reply("ANSWER; $12"),
      ],
      [1, 4],
    );
    const [t] = await trajectories(dir);
    expect(t!.steps.map((s) => s.error?.slice(0, 48) ?? null)).toEqual([
      "The action you have chosen cannot be executed. P",
      "The action you have chosen cannot be exected. Pl",
      null,
      null,
    ]);
    expect(shots(t!)).toEqual(["screenshot1.png", "-", "-", "screenshot4.png"]);
  });

  it("a transcript with no reply from the agent keeps the one screenshot it has as a step", async () => {
    const dir = await writeWebVoyagerTranscript(path.join(ctx.dir, "run", "taskShop--4"), [m.task("Find a lamp.", "https://shop.test/")], [1]);
    const [t] = await trajectories(dir);
    expect(shots(t!)).toEqual(["screenshot1.png"]);
    expect(t!.steps[0]).toMatchObject({ action: { type: "noop" }, actionRaw: null, error: expect.stringMatching(/stopped before the agent replied/) });
    expect(t!.outcome).toBe("unknown");
    expect(t!.outcomeDetail).toMatch(/no reply from the agent/);
  });
});

describe("WebVoyager forks: task folders and task files", () => {
  it("a task file imported on its own skips a task with an empty ques, naming the line", async () => {
    const file = path.join(ctx.dir, "data", "mine.jsonl");
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(
      file,
      [
        { web_name: "Shop", id: "s1", ques: "Buy a lamp.", web: "https://s.test/" },
        { web_name: "Shop", id: "s2", ques: "", web: "https://s.test/" },
      ]
        .map((r) => JSON.stringify(r))
        .join("\n"),
    );
    const got: ImportItem[] = [];
    for await (const i of webVoyagerTasksImporter.read(file, {})) got.push(i);
    expect(got.map((i) => (i.kind === "task" ? i.task.externalId : i))).toEqual([
      "s1",
      { kind: "skipped", path: file, reason: 'line 2 (task s2): "ques" is empty' },
    ]);
  });

  it("reads task<any id> folders, joins a fork's own task file, and falls back to the transcript for an empty ques", async () => {
    const repo = path.join(ctx.dir, "fork");
    fs.mkdirSync(path.join(repo, "data"), { recursive: true });
    fs.writeFileSync(
      path.join(repo, "data", "mouse.jsonl"),
      JSON.stringify({ web_name: "amazon Shopping", id: "amazon_mouse", ques: "", web: "https://www.amazon.com/" }) + "\n",
    );
    fs.writeFileSync(
      path.join(repo, "data", "laptop.jsonl"),
      JSON.stringify({ web_name: "amazon Shopping", id: "amazon_laptop", ques: "Find the best-selling laptop.", web: "https://www.amazon.com/" }) + "\n",
    );
    const run = path.join(repo, "results", "20250413_00_40_14");
    await writeWebVoyagerTranscript(
      path.join(run, "taskamazon_mouse"),
      [m.task("Find the top gaming mouse.", "https://www.amazon.com/"), m.reply("ANSWER; G502")],
      [1],
    );
    await writeWebVoyagerTranscript(
      path.join(run, "taskamazon_laptop"),
      [m.task("transcript wording", "https://www.amazon.com/"), m.reply("ANSWER; HP 14")],
      [1],
    );
    await writeWebVoyagerTranscript(path.join(run, "task7"), [m.task("Task with a bare number.", "https://n.test/"), m.reply("ANSWER; 7")], [1]);
    const byId = new Map((await trajectories(repo)).map((t) => [t.task.externalId, t.task]));
    expect([...byId.keys()].sort()).toEqual(["7", "amazon_laptop", "amazon_mouse"]);
    expect(byId.get("amazon_mouse")).toMatchObject({
      intent: "Find the top gaming mouse.",
      site: "amazon Shopping",
      startUrl: "https://www.amazon.com/",
      fromTaskFile: true,
    });
    expect(byId.get("amazon_laptop")).toMatchObject({ intent: "Find the best-selling laptop.", fromTaskFile: true });
    expect(byId.get("7")).toMatchObject({ intent: "Task with a bare number.", site: null, startUrl: "https://n.test/", fromTaskFile: false });
  });

  it("reads a fork's task_<id> folders, JPEG screenshots and a reworded opening message", async () => {
    const tasks = path.join(ctx.dir, "tasks.jsonl");
    fs.writeFileSync(tasks, JSON.stringify({ web_name: "Shop", id: "shop-3", ques: "Buy a lamp.", web: "https://shop.test/" }) + "\n");
    const run = path.join(ctx.dir, "out", "run");
    const dir = await writeWebVoyagerTranscript(
      path.join(run, "task_shop-3"),
      [m.task("Buy a lamp.", "https://shop.test/"), m.reply("Click [0]"), m.observation(), m.reply("ANSWER; bought")],
      [],
    );
    for (const n of [1, 2]) fs.copyFileSync(await writeJpeg(path.join(ctx.dir, `shot${n}.jpg`), n), path.join(dir, `screenshot${n}.jpg`));
    const reworded = await writeWebVoyagerTranscript(
      path.join(run, "taskother"),
      [
        { role: "user", content: "Your goal: compare two lamps on https://shop.test/.\nObservation: A screenshot and some texts. (Omitted in context.)" },
        m.reply("ANSWER; the cheaper one"),
      ],
      [1],
    );
    const byDir = new Map((await trajectories(run, { tasksFile: tasks })).map((t) => [path.basename(t.sourcePath), t]));
    expect(byDir.get("task_shop-3")!.task).toMatchObject({ externalId: "shop-3", intent: "Buy a lamp.", fromTaskFile: true });
    expect(shots(byDir.get("task_shop-3")!)).toEqual(["screenshot1.jpg", "screenshot2.jpg"]);
    expect(byDir.get(path.basename(reworded))!.task).toMatchObject({ externalId: "other", intent: "Your goal: compare two lamps on https://shop.test/." });
  });

  it("finds the task message after a fork's own opening message, in a transcript wrapped in an object", async () => {
    const dir = await writeWebVoyagerTranscript(path.join(ctx.dir, "r", "taskWrapped--1"), [], [1]);
    const messages = [
      m.reminder("Today is 2025-05-13. Read the manual below first."),
      m.task("Find the manual's page count.", "https://docs.test/"),
      m.reply("ANSWER; 12"),
    ];
    fs.writeFileSync(path.join(dir, "interact_messages.json"), JSON.stringify({ messages }));
    const [t] = await trajectories(dir);
    expect(t!.task).toMatchObject({ intent: "Find the manual's page count.", startUrl: "https://docs.test/" });
    expect(shots(t!)).toEqual(["screenshot1.png"]);
  });

  it("a task file given with --tasks that is a fork's file is read leniently (numeric ids, missing site)", async () => {
    const tasks = path.join(ctx.dir, "tasks.jsonl");
    fs.writeFileSync(tasks, JSON.stringify({ id: 12, ques: "Numbered task.", web: "https://n.test/" }) + "\n");
    const dir = await writeWebVoyagerTranscript(path.join(ctx.dir, "r", "task12"), [m.task("other words", "https://n.test/"), m.reply("ANSWER; x")], [1]);
    const [t] = await trajectories(dir, { tasksFile: tasks });
    expect(t!.task).toMatchObject({ externalId: "12", intent: "Numbered task.", fromTaskFile: true });
  });
});

describe("WebVoyager forks: result trees at any depth", () => {
  async function tree(root: string) {
    const task = (id: string) => ({ id, intent: `Task ${id}.`, url: "https://x.test/", actions: ["Click [0]", "ANSWER; done"] });
    await writeWebVoyagerFixture(path.join(root, "results", "gpt-4o", "20250414_14_44_45"), [task("A--1"), task("A--2")], 10);
    await writeWebVoyagerFixture(path.join(root, "results", "gpt-4o", "20250415_09_00_00"), [task("A--1")], 20);
    await writeWebVoyagerFixture(path.join(root, "retrieval", "bm25", "gpt-4o"), [task("A--1")], 30);
    return root;
  }

  it("finds every run folder, sniffs from the top, and gives each leaf its own stable run", async () => {
    const root = await tree(path.join(ctx.dir, "project"));
    expect((await detectImporter(root)).format).toBe("webvoyager");
    const all = await trajectories(root);
    const runs = [...new Map(all.map((t) => [t.run.runKey, t.run.name])).values()];
    expect(runs).toEqual(["project/results/gpt-4o/20250414_14_44_45", "project/results/gpt-4o/20250415_09_00_00", "project/retrieval/bm25/gpt-4o"]);
    // Keys name runs from the imported folder down, never by where it sits.
    expect(all.every((t) => !t.run.runKey.includes(ctx.dir))).toBe(true);

    const first = await runImport(ctx, { path: root });
    expect([first.created, first.updated, first.unchanged]).toEqual([4, 0, 0]);
    expect((sqliteClient(ctx.db).prepare("select count(*) n from agent_runs").get() as { n: number }).n).toBe(3);
    const again = await runImport(ctx, { path: root });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 4]);
    const part = await runImport(ctx, { path: path.join(root, "results") });
    expect([part.created, part.updated, part.unchanged]).toEqual([0, 0, 3]);
    // The same leaf imported on its own is the same run.
    const leaf = await runImport(ctx, { path: path.join(root, "retrieval", "bm25", "gpt-4o") });
    expect([leaf.created, leaf.updated, leaf.unchanged]).toEqual([0, 0, 1]);
    expect(leaf.trajectories[0]!.runId).toBe(first.trajectories.find((t) => t.sourcePath.includes("bm25"))!.runId);
    expect((sqliteClient(ctx.db).prepare("select count(*) n from agent_runs").get() as { n: number }).n).toBe(3);
  });

  it("skips a task folder it cannot read with the file and the problem, and imports the rest", async () => {
    const root = path.join(ctx.dir, "results", "run");
    await writeWebVoyagerFixture(root, [
      { id: "Ok--1", intent: "fine", url: "https://x.test/", actions: ["Click [0]", "ANSWER; y"] },
      { id: "Bad--1", intent: "broken", url: "https://x.test/", actions: ["Click [0]", "ANSWER; y"] },
      { id: "Crashed--1", intent: "crashed", url: "https://x.test/", actions: ["Click [0]"] },
    ]);
    const broken = path.join(root, "taskBad--1", "interact_messages.json");
    fs.writeFileSync(broken, '[{"role": "system"');
    const crashed = path.join(root, "taskCrashed--1", "interact_messages.json");
    fs.rmSync(crashed);
    // A run whose only task crashed is still reported.
    const lost = await writeWebVoyagerFixture(path.join(path.dirname(root), "run2"), [
      { id: "Lost--1", intent: "lost", url: "https://x.test/", actions: ["Click [0]"] },
    ]);
    const lostFile = path.join(lost, "taskLost--1", "interact_messages.json");
    fs.rmSync(lostFile);
    const got = await items(path.dirname(root));
    expect(got.filter((i) => i.kind === "trajectory").map((i) => (i.kind === "trajectory" ? i.trajectory.task.externalId : ""))).toEqual(["Ok--1"]);
    expect(got.filter((i) => i.kind === "skipped")).toEqual([
      { kind: "skipped", path: broken, reason: expect.stringMatching(/^is not valid JSON \(/) },
      { kind: "skipped", path: crashed, reason: "is missing (the task was interrupted before WebVoyager saved its transcript)" },
      { kind: "skipped", path: lostFile, reason: "is missing (the task was interrupted before WebVoyager saved its transcript)" },
    ]);
  });
});

describe("WebVoyager forks: auto_eval logs", () => {
  const header = (dir: string) => `--------------------- ${dir} ---------------------`;
  const judged = (dir: string, k: number, reply: string, res: string) =>
    [
      header(dir),
      "Calling gpt4v API to get the auto evaluation......",
      `{'role': 'user', 'content': [{'type': 'text', 'text': 'TASK: t\\nResult Response: r\\n${k} screenshots at the end: '}]}`,
      reply,
      `Auto_eval_res: ${res}`,
      "",
    ].join("\n");
  const noAnswer = (dir: string) => [header(dir), `Not find answer for ${dir}`, ""].join("\n");

  async function project() {
    const root = path.join(ctx.dir, "fork");
    const task = (id: string, answer: boolean) => ({ id, intent: id, url: "https://x.test/", actions: answer ? ["Click [0]", "ANSWER; y"] : ["Click [0]"] });
    await writeWebVoyagerFixture(path.join(root, "results", "run-a"), [task("S--1", true), task("S--2", false)], 10);
    await writeWebVoyagerFixture(path.join(root, "results", "run-b"), [task("S--1", true)], 20);
    return root;
  }

  it("reads a log of any extension beside results/; the log is one evaluator and a no-answer verdict keeps its k", async () => {
    const root = await project();
    fs.mkdirSync(path.join(root, "eval_results"));
    fs.writeFileSync(
      path.join(root, "eval_results", "gpt4o.md"),
      judged("../results/run-a/taskS--1", 15, "Looks right. SUCCESS", "1") + noAnswer("../results/run-a/taskS--2"),
    );
    const all = await trajectories(root);
    const verdicts = (run: string, id: string) => all.find((t) => t.task.externalId === id && t.sourcePath.includes(run))!.verdicts;
    expect(verdicts("run-a", "S--1")).toMatchObject([{ evaluator: "webvoyager:auto_eval (gpt4o.md)", k: "15", verdict: "success", score: 1 }]);
    expect(verdicts("run-a", "S--2")).toMatchObject([{ evaluator: "webvoyager:auto_eval (gpt4o.md)", k: "15", verdict: "failure", score: 0 }]);
    // The log names run-a's folders only: run-b's task of the same id gets nothing from it.
    expect(verdicts("run-b", "S--1")).toEqual([]);
  });

  it("takes logs named with --eval-log from anywhere, one evaluator per log, and refuses a file that is no log", async () => {
    const root = await project();
    fs.mkdirSync(path.join(root, "evaluation"));
    fs.writeFileSync(path.join(root, "evaluation", "evaluation.log"), judged("results/run-b/taskS--1", 3, "NOT SUCCESS", "0"));
    const elsewhere = path.join(ctx.dir, "judge-runs", "claude.logs");
    fs.mkdirSync(path.dirname(elsewhere));
    fs.writeFileSync(elsewhere, judged("/home/someone/fork/results/run-b/taskS--1", 5, "SUCCESS", "1"));
    const [t] = await trajectories(path.join(root, "results", "run-b"), { evalLogs: [elsewhere] });
    expect(t!.verdicts!.map((v) => [v.evaluator, v.k, v.verdict])).toEqual([
      ["webvoyager:auto_eval (claude.logs)", "5", "success"],
      ["webvoyager:auto_eval", "3", "failure"],
    ]);
    const report = await runImport(ctx, { path: path.join(root, "results", "run-b"), evalLogs: [elsewhere] });
    expect(report.verdicts).toBe(2);
    const again = await runImport(ctx, { path: path.join(root, "results", "run-b"), evalLogs: [elsewhere] });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 1]);

    const notALog = path.join(ctx.dir, "notes.txt");
    fs.writeFileSync(notALog, "just notes\n");
    await expect(trajectories(root, { evalLogs: [notALog] })).rejects.toThrow(`${notALog}: is not a WebVoyager auto_eval log`);
    await expect(trajectories(root, { evalLogs: [path.join(ctx.dir, "nope.log")] })).rejects.toThrow(
      `${path.join(ctx.dir, "nope.log")}: auto_eval log given with --eval-log does not exist`,
    );
  });
});

const gndd = sharedPath("fixtures", "real", "webvoyager-gndd1221");
describe.skipIf(!gndd)("WebVoyager fork runs as left on disk (../shared/fixtures/real/webvoyager-gndd1221; skipped: ../shared absent)", () => {
  it("imports all 13 timestamped runs from the repository folder with nothing skipped, then reports them unchanged", async () => {
    expect((await detectImporter(gndd!)).format).toBe("webvoyager");
    const read = await items(gndd!);
    expect(read.filter((i) => i.kind === "skipped")).toEqual([]);
    const first = await runImport(ctx, { path: gndd! });
    expect([first.created, first.updated, first.unchanged]).toEqual([13, 0, 0]);
    expect((sqliteClient(ctx.db).prepare("select count(*) n from agent_runs").get() as { n: number }).n).toBe(13);
    for (const t of first.trajectories) {
      expect(t.finalAnswer).toBeTruthy();
      const d = (await getTrajectoryDetail(ctx.db, t.id))!;
      expect(d.task.intent).toMatch(/^Go to amazon \(https:\/\/www\.amazon\.com\/\)/);
      expect(d.task.startUrl).toBe("https://www.amazon.com/");
    }
    // The run whose ninth iteration was refused: that step's action gets the corrected-spelling failure message and
    // the next step has no screenshot, as WebVoyager took none.
    const t = read.flatMap((i) => (i.kind === "trajectory" && i.trajectory.sourcePath.includes("20250414_14_44_45") ? [i.trajectory] : []))[0]!;
    expect(t.steps).toHaveLength(12);
    expect(t.steps[7]!.error).toMatch(/^The action you have chosen cannot be executed/);
    expect(shots(t)[8]).toBe("-");
    expect(shots(t)[11]).toBe("screenshot12.png");
    expect(t.warnings).toBeUndefined();
    const again = await runImport(ctx, { path: gndd! });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 13]);
  });
});

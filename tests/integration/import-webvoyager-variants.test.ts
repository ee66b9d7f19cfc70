/**
 * The WebVoyager forks' remaining variants, each as a class: action words in any case, screenshot names that carry
 * a number among other text, transcripts named with a prefix or suffix, the step limit from the run's settings or
 * its step counts, the lone screenshot of a run that died before the agent's first reply, and task folders that
 * cannot be read listed with their reason instead of vanishing from the report.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { detectImporter } from "../../server/importers/registry";
import type { ImportItem, ImportTrajectory } from "../../server/importers/types";
import { webVoyagerImporter } from "../../server/importers/webvoyager";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, type TestContext } from "../helpers/context";
import { tinyPng, writeWebVoyagerTranscript, wvMessages as m } from "../helpers/webvoyager-fixture";

let ctx: TestContext;
beforeEach(() => {
  ctx = createTestContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

async function items(input: string): Promise<ImportItem[]> {
  const out: ImportItem[] = [];
  for await (const item of webVoyagerImporter.read(input, {})) out.push(item);
  return out;
}

async function trajectories(input: string): Promise<ImportTrajectory[]> {
  return (await items(input)).flatMap((i) => (i.kind === "trajectory" ? [i.trajectory] : []));
}

const shots = (t: ImportTrajectory) => t.steps.map((s) => (s.screenshot ? path.relative(t.sourcePath, s.screenshot.origin) : "-"));

/** A three-step transcript ending in `last` (an answer, or another action when the run was cut off). */
function transcript(last = "ANSWER; $12") {
  return [m.task("Find a lamp.", "https://shop.test/"), m.reply("Click [0]"), m.observation(), m.reply("Type [1]; lamp"), m.observation(), m.reply(last)];
}

/** Writes images under `dir` with the given names (distinct bytes each). */
async function images(dir: string, names: string[], seed = 1): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  for (const [i, n] of names.entries()) fs.writeFileSync(path.join(dir, n), await tinyPng(seed + i));
}

describe("action words in any case", () => {
  it("a fork whose agent answers 'Answer;' gets its final answer and an answered outcome", async () => {
    const dir = await writeWebVoyagerTranscript(
      path.join(ctx.dir, "run", "taskShop--1"),
      [
        m.task("Find a lamp.", "https://shop.test/"),
        m.reply("click [0]"),
        m.observation(),
        { role: "assistant", content: "thought: the price is shown.\naction: Answer; Desk lamp, US$12.99" },
      ],
      [1, 2],
    );
    const [t] = await trajectories(dir);
    expect(t!.steps.map((s) => s.action.type)).toEqual(["click", "answer"]);
    expect(t!.finalAnswer).toBe("Desk lamp, US$12.99");
    expect(t!.outcome).toBe("answered");
    expect(t!.steps[1]!.thought).toBe("the price is shown.");
  });
});

describe("screenshot names that carry a number and other text", () => {
  it("screenshot_<host>_<N>.png are the steps' screenshots, whatever the host (digits in it included)", async () => {
    const dir = await writeWebVoyagerTranscript(path.join(ctx.dir, "run", "taskShop--2"), transcript(), []);
    await images(dir, ["screenshot_www.shop.test_1.png", "screenshot_127.0.0.1_2.png", "screenshot_www.web2.test_3.png"]);
    const [t] = await trajectories(dir);
    expect(shots(t!)).toEqual(["screenshot_www.shop.test_1.png", "screenshot_127.0.0.1_2.png", "screenshot_www.web2.test_3.png"]);
    expect(t!.steps.every((s) => s.marksBurnedIn)).toBe(true);
    expect(t!.warnings).toBeUndefined();
  });

  it("the number may come first, and a repeated date in the name does not count", async () => {
    const dir = await writeWebVoyagerTranscript(path.join(ctx.dir, "run", "taskShop--3"), transcript(), []);
    await images(
      dir,
      ["1_screenshot_20250414.jpg", "2_screenshot_20250414.jpg", "3_screenshot_20250414.jpg"].map((n) => n.replace(".jpg", ".png")),
    );
    const [t] = await trajectories(dir);
    expect(shots(t!)).toEqual(["1_screenshot_20250414.png", "2_screenshot_20250414.png", "3_screenshot_20250414.png"]);
  });

  it("unmarked copies (…_no_box) are the raw screenshots of the same step; an image folder beside the transcript is used", async () => {
    const dir = await writeWebVoyagerTranscript(path.join(ctx.dir, "run", "taskShop--4"), transcript(), []);
    await images(path.join(dir, "screenshots"), ["shot-1.png", "shot-1-no_box.png", "shot-2.png", "shot-3.png"]);
    const [t] = await trajectories(dir);
    expect(shots(t!)).toEqual(["screenshots/shot-1.png", "screenshots/shot-2.png", "screenshots/shot-3.png"]);
    expect(t!.steps[0]!.rawScreenshot?.origin).toBe(path.join(dir, "screenshots", "shot-1-no_box.png"));
    expect(t!.steps[1]!.rawScreenshot).toBeNull();
  });
});

describe("transcripts named with a prefix or suffix", () => {
  it("interact_messages_task1.json in task1/ is read, and the folder's screenshots attached", async () => {
    const run = path.join(ctx.dir, "results", "20250101_10_00_00");
    const dir = await writeWebVoyagerTranscript(path.join(run, "task1"), transcript(), [1, 2, 3]);
    fs.renameSync(path.join(dir, "interact_messages.json"), path.join(dir, "interact_messages_task1.json"));
    expect((await detectImporter(path.join(ctx.dir, "results"))).format).toBe("webvoyager");
    const [t] = await trajectories(path.join(ctx.dir, "results"));
    expect(t!.task.externalId).toBe("1");
    expect(t!.steps).toHaveLength(3);
    expect(t!.finalAnswer).toBe("$12");
    expect(shots(t!)).toEqual(["screenshot1.png", "screenshot2.png", "screenshot3.png"]);
  });

  it("a folder named otherwise takes its task id from the transcript's name", async () => {
    const dir = await writeWebVoyagerTranscript(path.join(ctx.dir, "run", "amazon_run"), transcript(), [1, 2, 3]);
    fs.renameSync(path.join(dir, "interact_messages.json"), path.join(dir, "task_amazon--3_interact_messages.json"));
    const [t] = await trajectories(path.join(ctx.dir, "run"));
    expect(t!.task.externalId).toBe("amazon--3");
    expect(t!.task.site).toBe("amazon");
  });

  it("one folder holding several tasks' transcripts gives one trajectory each, with the images that carry its name", async () => {
    const dir = path.join(ctx.dir, "flat");
    await writeWebVoyagerTranscript(dir, transcript(), []);
    fs.renameSync(path.join(dir, "interact_messages.json"), path.join(dir, "interact_messages_task1.json"));
    await writeWebVoyagerTranscript(path.join(ctx.dir, "tmp"), transcript("ANSWER; $15"), []);
    fs.renameSync(path.join(ctx.dir, "tmp", "interact_messages.json"), path.join(dir, "interact_messages_task2.json"));
    await images(dir, [
      "screenshot_task1_1.png",
      "screenshot_task1_2.png",
      "screenshot_task1_3.png",
      "screenshot_task2_1.png",
      "screenshot_task2_2.png",
      "screenshot_task2_3.png",
    ]);
    const ts = await trajectories(dir);
    expect(ts.map((t) => [t.task.externalId, t.finalAnswer])).toEqual([
      ["1", "$12"],
      ["2", "$15"],
    ]);
    expect(ts.map((t) => t.steps.map((s) => path.basename(s.screenshot!.origin)))).toEqual([
      ["screenshot_task1_1.png", "screenshot_task1_2.png", "screenshot_task1_3.png"],
      ["screenshot_task2_1.png", "screenshot_task2_2.png", "screenshot_task2_3.png"],
    ]);
    expect(ts.map((t) => path.basename(t.sourcePath))).toEqual(["interact_messages_task1.json", "interact_messages_task2.json"]);
  });

  it("a pipeline's copy beside the original transcript is not read, and the report says so", async () => {
    const dir = await writeWebVoyagerTranscript(path.join(ctx.dir, "run", "taskShop--5"), transcript(), [1, 2, 3]);
    fs.copyFileSync(path.join(dir, "interact_messages.json"), path.join(dir, "interact_messages_dedup.json"));
    const [t, ...rest] = await trajectories(path.join(ctx.dir, "run"));
    expect(rest).toEqual([]);
    expect(t!.warnings).toEqual(["interact_messages_dedup.json beside interact_messages.json was not read (one transcript per task folder)"]);
  });
});

describe("task folders never vanish from the report", () => {
  it("a crashed task (log and screenshot, no transcript) and an empty task folder are listed as skipped with their reasons", async () => {
    const run = path.join(ctx.dir, "results", "run1");
    await writeWebVoyagerTranscript(path.join(run, "taskShop--1"), transcript(), [1, 2, 3]);
    const crashed = path.join(run, "taskShop--2");
    await images(crashed, ["screenshot_www.shop.test_1.png"]);
    fs.writeFileSync(path.join(crashed, "agent.log"), "INFO - ########## TASKShop--2 ##########\n");
    fs.mkdirSync(path.join(run, "taskShop--3"));
    const report = await runImport(ctx, { path: path.join(ctx.dir, "results") });
    expect(report.trajectories.map((t) => t.externalTaskId)).toEqual(["Shop--1"]);
    expect(report.skipped).toEqual([
      { path: path.join(crashed, "interact_messages.json"), reason: "is missing (the task was interrupted before WebVoyager saved its transcript)" },
      { path: path.join(run, "taskShop--3"), reason: "holds no transcript (interact_messages*.json), agent.log or screenshot: nothing to import" },
    ]);
  });
});

describe("the step limit", () => {
  /** Task folders with that many replies each; the ones named in `answered` end with an ANSWER. */
  async function cutOffRun(run: string, ids: string[], lengths: number[], answered: string[] = []): Promise<void> {
    for (const [i, id] of ids.entries()) {
      const msgs: unknown[] = [m.task("Find a lamp.", "https://shop.test/")];
      for (let k = 0; k < lengths[i]!; k++) {
        if (k > 0) msgs.push(m.observation());
        msgs.push(m.reply(k === lengths[i]! - 1 && answered.includes(id) ? "ANSWER; done" : "Scroll [WINDOW]; down"));
      }
      await writeWebVoyagerTranscript(
        path.join(run, `task${id}`),
        msgs,
        Array.from({ length: lengths[i]! }, (_, k) => k + 1),
      );
    }
  }

  it("--max_iter in the script that started the run: a run of that many replies without an answer stopped at the limit", async () => {
    const repo = path.join(ctx.dir, "repo");
    fs.mkdirSync(repo, { recursive: true });
    fs.writeFileSync(
      path.join(repo, "run.sh"),
      "#!/bin/bash\nnohup python -u run.py \\\n    --test_file ./data/tasks.jsonl \\\n    --max_iter 3 \\\n    --seed 42 > test_tasks.log &\n",
    );
    await cutOffRun(path.join(repo, "results", "20250101_10_00_00"), ["A--1", "A--2", "A--3"], [3, 2, 2], ["A--3"]);
    const ts = await trajectories(path.join(repo, "results"));
    expect(ts.map((t) => [t.task.externalId, t.outcome])).toEqual([
      ["A--1", "step_limit"],
      ["A--2", "unknown"],
      ["A--3", "answered"],
    ]);
    expect(ts[0]!.outcomeDetail).toBe("stopped after 3 steps without an ANSWER: the step limit (max_iter 3 in run.sh)");
  });

  it("the arguments a log printed, or the run.py default when no launcher says", async () => {
    const logged = path.join(ctx.dir, "logged");
    await cutOffRun(path.join(logged, "20250101_10_00_00"), ["B--1"], [4]);
    fs.writeFileSync(path.join(logged, "20250101_10_00_00", "test_tasks.log"), "Namespace(test_file='data/x.jsonl', max_iter=4, api_key='…')\n");
    expect((await trajectories(logged))[0]!.outcome).toBe("step_limit");

    const defaulted = path.join(ctx.dir, "defaulted");
    await cutOffRun(path.join(defaulted, "results", "20250101_10_00_00"), ["C--1"], [5]);
    fs.writeFileSync(path.join(defaulted, "run.py"), "parser.add_argument('--max_iter', type=int, default=5)\n");
    const [t] = await trajectories(defaulted);
    expect(t!.outcome).toBe("step_limit");
    expect(t!.outcomeDetail).toMatch(/the --max_iter default of run\.py \(5\)/);
  });

  it("without settings, several trajectories stopped at the run's longest length show the limit; one alone does not", async () => {
    await cutOffRun(path.join(ctx.dir, "many", "run"), ["D--1", "D--2", "D--3"], [4, 4, 2], ["D--3"]);
    const ts = await trajectories(path.join(ctx.dir, "many"));
    expect(ts.map((t) => t.outcome)).toEqual(["step_limit", "step_limit", "answered"]);
    expect(ts[0]!.outcomeDetail).toMatch(/as 2 trajectories of this run did and none went further/);

    await cutOffRun(path.join(ctx.dir, "one", "run"), ["E--1", "E--2"], [4, 2], ["E--2"]);
    expect((await trajectories(path.join(ctx.dir, "one"))).map((t) => t.outcome)).toEqual(["unknown", "answered"]);
  });
});

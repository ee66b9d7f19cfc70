/**
 * Online-Mind2Web results as different agents and runners leave them: numbering from 0 or 1, gaps, LFS pointers,
 * other screenshot folders and names, runners' step objects with inline images, Browser Use's evaluation output,
 * answer-only submissions with every score encoding, WebJudge result files in their shapes, the task list, and
 * folders that cannot be read (each listed with its reason).
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { listVerdicts } from "../../db/repositories/evaluation/verdicts";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { detectImporter } from "../../server/importers/registry";
import { runImport } from "../../server/services/imports/ingest";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { sharedPath, type TestContext } from "../helpers/context";
import { sharedSkipReason, titled } from "../helpers/requirements";
import { LFS_POINTER, webJudgeRow, writeOm2wTask } from "../helpers/online-mind2web-fixture";
import { tinyPng } from "../helpers/webvoyager-fixture";

let ctx: TestContext;

const ID_A = "005be9dd91c95669d6ddde9ae667125c";
const ID_B = "0170ca95038b05fa58d463fe627ac605";
const ID_C = "0a0fa834ce41b5297c6474293383759d_110325";

const ABP_ACTIONS = [
  "Navigate to https://www.qatarairways.com/",
  "Click at (963, 72)",
  'Type "baggage allowance"',
  "Press ENTER",
  "Scroll (delta_x=0, delta_y=550)",
  "Drag from (1100, 500) to (400, 500)",
];

async function detail(id: number) {
  return (await getTrajectoryDetail(ctx.db, id))!;
}

function byTask(report: Awaited<ReturnType<typeof runImport>>, taskId: string) {
  const t = report.trajectories.find((x) => x.externalTaskId === taskId);
  expect(t, `trajectory of ${taskId}`).toBeDefined();
  return t!;
}

describeEachBackend("Online-Mind2Web results", (backend) => {
  beforeEach(async () => {
    ctx = await createBackendContext(backend);
  });
  afterEach(async () => {
    await ctx.cleanup();
  });
  it("reads pixel actions, thoughts and screenshots numbered by action, at any depth; the answer ends the run", async () => {
    const run = path.join(ctx.dir, "results", "2025-11", "abp_run");
    await writeOm2wTask(run, {
      result: {
        task_id: ID_A,
        task: "Find the weight of baggage allowance for economy class on Qatar Airways.",
        final_result_response: "**30 kg**",
        result_status: "success",
        action_history: ABP_ACTIONS,
        thoughts: ["", "Home page loaded.", "Type it.", "Submit.", "Scroll.", "Drag the slider."],
      },
      // Numbered from 1 (the first action navigates from a blank page), one past the last action, and 4 missing.
      shots: [1, 2, 3, 5, 6],
    });
    const report = await runImport(ctx, { path: path.join(ctx.dir, "results") });
    expect(report.format).toBe("online-mind2web");
    expect(report.skipped).toEqual([]);
    const t = byTask(report, ID_A);
    expect(t).toMatchObject({ steps: 7, screenshots: 5, finalAnswer: "**30 kg**", status: "created" });
    const d = await detail(t.id);
    expect(d.taskSet.name).toBe("Online-Mind2Web");
    expect(d.run.name).toBe("abp_run");
    expect(d.task.startUrl).toBe("https://www.qatarairways.com/");
    expect(d.task.site).toBe("qatarairways.com");
    expect(d.trajectory.outcome).toBe("answered");
    expect(d.steps.map((s) => s.action)).toEqual([
      { type: "goto", value: "https://www.qatarairways.com/" },
      { type: "click", coords: [963, 72] },
      { type: "type", value: "baggage allowance", submit: false },
      { type: "press", value: "ENTER" },
      { type: "scroll", direction: "down", delta: [0, 550] },
      { type: "drag", coords: [1100, 500], to: [400, 500] },
      { type: "answer", value: "**30 kg**" },
    ]);
    expect(d.steps.map((s) => s.screenshotHash !== null)).toEqual([false, true, true, true, false, true, true]);
    expect(d.steps.map((s) => s.thought)).toEqual([null, "Home page loaded.", "Type it.", "Submit.", "Scroll.", "Drag the slider.", null]);
    expect(d.steps.map((s) => s.actionRaw).slice(0, 6)).toEqual(ABP_ACTIONS);

    const again = await runImport(ctx, { path: path.join(ctx.dir, "results") });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 1]);
  });

  it("imports steps without images when the screenshots are Git LFS pointers, and says so once per trajectory", async () => {
    const run = path.join(ctx.dir, "abp_run");
    await writeOm2wTask(run, {
      result: {
        task_id: ID_A,
        task: "Find the baggage allowance.",
        final_result_response: "30 kg",
        action_history: ABP_ACTIONS.slice(0, 3),
        thoughts: ["", "a", "b"],
      },
      shots: [1, 2, 3],
      lfs: [1, 2, 3],
    });
    await writeOm2wTask(run, {
      result: { task_id: ID_B, task: "Check if I need a UK visa.", final_result_response: "Yes", action_history: ABP_ACTIONS.slice(0, 3), thoughts: [] },
      shots: [1, 2, 3],
      lfs: [2],
    });
    const report = await runImport(ctx, { path: run });
    expect(report.skipped).toEqual([]);
    expect(byTask(report, ID_A)).toMatchObject({ steps: 4, screenshots: 0 });
    expect(byTask(report, ID_B)).toMatchObject({ steps: 4, screenshots: 2 });
    const lfs = report.warnings.filter((w) => /Git LFS pointer/.test(w.message));
    expect(lfs.map((w) => [path.basename(w.path), w.message.split(" are ")[0]])).toEqual([
      [ID_A, "3 of 3 screenshots"],
      [ID_B, "1 of 3 screenshots"],
    ]);
  });

  it("numbers from 0, reads other folders and names, keeps extra keys out of the way, and tolerates missing thoughts", async () => {
    const run = path.join(ctx.dir, "SeeAct");
    await writeOm2wTask(run, {
      result: {
        task_id: ID_A,
        task: "Open the page about submissions.",
        final_result_response: "Opened it.",
        action_history: ['<div role="button"> -> CLICK', "[textbox]  Search -> TYPE: releases", "TERMINATE"],
        unknown_field: { nested: [1, 2] },
        input_image_paths: null,
      },
      shots: [0, 1, 2, 3],
      shotFolder: "screenshots",
      name: (n) => `step_${String(n).padStart(4, "0")}.jpg`.replace(".jpg", ".png"),
    });
    const report = await runImport(ctx, { path: run });
    const t = byTask(report, ID_A);
    const d = await detail(t.id);
    // TERMINATE is the answer step: the answer fills it, and screenshot 3 (past the last action) is the final page.
    expect(d.steps.map((s) => s.action.type)).toEqual(["click", "type", "answer", "noop"]);
    expect(d.steps[2]!.action.value).toBe("Opened it.");
    expect(d.steps.map((s) => s.screenshotHash !== null)).toEqual([true, true, true, true]);
    expect(d.steps.every((s) => s.thought === null)).toBe(true);
    expect(t.finalAnswer).toBe("Opened it.");
  });

  it("reads a runner's step objects with their own screenshot names or inline images, and agent_final_answer", async () => {
    const run = path.join(ctx.dir, "runner");
    const inline = `data:image/png;base64,${(await tinyPng(9)).toString("base64")}`;
    const dir = await writeOm2wTask(run, {
      result: {
        schema_version: "online-mind2web-v2",
        task_id: ID_C,
        task: "Find support services jobs in Bentonville.",
        agent_final_answer: "3 jobs",
        action_history: [
          {
            step: 0,
            screenshot: "0000.png",
            url: "https://careers.walmart.com/",
            action: "page -> NAVIGATE -> open start page | SUCCESS",
            thought: "Open it.",
          },
          {
            step: 1,
            screenshot: inline,
            url: "https://careers.walmart.com/",
            action: "CLICK coords(320, 180) -> click primary result | FAILED stale element",
            thought: "Click.",
          },
          { step: 2, screenshot: "0002.png", url: "https://careers.walmart.com/r", action: "TASK_COMPLETE -> ANSWER: 3 jobs", thought: "Done." },
        ],
      },
    });
    fs.writeFileSync(path.join(dir, "0000.png"), await tinyPng(1));
    const report = await runImport(ctx, { path: run });
    const t = byTask(report, ID_C);
    const d = await detail(t.id);
    expect(d.steps.map((s) => [s.action.type, s.url, s.thought, s.screenshotHash !== null, s.error])).toEqual([
      ["goto", "https://careers.walmart.com/", "Open it.", true, null],
      ["click", "https://careers.walmart.com/", "Click.", true, "FAILED stale element"],
      ["answer", "https://careers.walmart.com/r", "Done.", false, null],
    ]);
    expect(report.warnings.map((w) => w.message)).toEqual(["1 screenshot is named but not found: 0002.png"]);
    expect(t.finalAnswer).toBe("3 jobs");
  });

  it("reads Browser Use's evaluation output: its full history, highlighted screenshots, its WebJudge run and the self-report", async () => {
    const run = path.join(ctx.dir, "saved_trajectories");
    await writeOm2wTask(run, {
      result: {
        task_id: ID_A,
        run_id: "run-7",
        task: "Find the baggage allowance.",
        action_history: ["🔗 Navigated to https://www.qatarairways.com", "🖱️ Clicked button with index 4: Search"],
        screenshot_paths: ["saved_trajectories/x/trajectory_with_highlights/step_0.png", "saved_trajectories/x/trajectory_with_highlights/step_1.png"],
        final_result_response: "30 kg",
        self_report_completed: true,
        self_report_success: true,
        complete_history: [
          {
            step_number: 0,
            model_output: {
              evaluation_previous_goal: "Start",
              memory: "",
              next_goal: "Open the site",
              action: [{ go_to_url: { url: "https://www.qatarairways.com" } }],
            },
            result: [{ is_done: false }],
            state: { url: "about:blank" },
          },
          {
            step_number: 1,
            model_output: { evaluation_previous_goal: "Site open", memory: "m", next_goal: "Search", action: [{ click_element: { index: 4 } }] },
            result: [{ is_done: false }],
            state: { url: "https://www.qatarairways.com/" },
          },
          {
            step_number: 2,
            model_output: { next_goal: "Answer", action: [{ done: { text: "30 kg", success: true } }] },
            result: [{ is_done: true, success: true, extracted_content: "30 kg" }],
            state: { url: "https://www.qatarairways.com/bag" },
          },
        ],
        Online_Mind2Web_evaluation: { task_id: ID_A, judgement: 'Thoughts: ok\nStatus: "success"', success: true, error: null, score: 1.0 },
      },
      shots: [0, 1],
      shotFolder: "trajectory_with_highlights",
      name: (n) => `step_${n}.png`,
    });
    const report = await runImport(ctx, { path: run });
    const t = byTask(report, ID_A);
    const d = await detail(t.id);
    expect(d.steps.map((s) => s.action)).toEqual([
      { type: "goto", value: "https://www.qatarairways.com" },
      { type: "click", target: "4" },
      { type: "answer", value: "30 kg" },
    ]);
    expect(d.steps.map((s) => s.screenshotHash !== null)).toEqual([true, true, false]);
    expect(d.steps[1]!.thought).toBe("Evaluation of the previous goal: Site open\nMemory: m\nNext goal: Search");
    expect(d.trajectory.outcomeDetail).toBe("the agent reported success (its own claim, not a verdict)");
    const verdicts = await listVerdicts(ctx.db, { trajectoryId: t.id });
    expect(verdicts.map((v) => [v.evaluatorName, v.verdict, v.score])).toEqual([["Browser Use eval (WebJudge)", "success", 1]]);
  });

  it("imports answer-only submissions as 0-step trajectories with the answer and their judge, whatever the score's encoding", async () => {
    const run = path.join(ctx.dir, "results");
    const encodings: [unknown, string, number | null][] = [
      ["100", "success", 100],
      [0, "failure", 0],
      [0.85, "success", 0.85],
      ["40/100", "failure", 40],
      [true, "success", 1],
      ["PASS", "success", null],
      ["n/a", "unparseable", null],
    ];
    for (const [i, [score]] of encodings.entries()) {
      await writeOm2wTask(run, {
        result: { task_id: `${String(i).repeat(32)}`, task: `Task ${i}`, final_result_response: `Answer ${i}`, judge: { score, reasoning: `Because ${i}.` } },
      });
    }
    const report = await runImport(ctx, { path: run });
    expect(report.created).toBe(encodings.length);
    for (const [i, [, verdict, score]] of encodings.entries()) {
      const t = byTask(report, String(i).repeat(32));
      expect(t).toMatchObject({ steps: 0, finalAnswer: `Answer ${i}` });
      const [v] = await listVerdicts(ctx.db, { trajectoryId: t.id });
      expect([v!.evaluatorName, v!.verdict, v!.score, v!.rationale], `score ${JSON.stringify(encodings[i]![0])}`).toEqual([
        "Judge in result.json",
        verdict,
        score,
        `Because ${i}.`,
      ]);
      expect((await detail(t.id)).trajectory.outcome).toBe("answered");
    }
  });

  it("joins the task list for site and difficulty (also as JSON Lines), and takes --tasks", async () => {
    const root = path.join(ctx.dir, "om2w");
    await writeOm2wTask(path.join(root, "agent"), {
      result: { task_id: ID_A, task: "Find the baggage allowance.", final_result_response: "30 kg", action_history: [] },
    });
    await writeOm2wTask(path.join(root, "agent"), { result: { task_id: ID_B, task: "Check the visa.", final_result_response: "Yes" } });
    fs.writeFileSync(
      path.join(root, "Online_Mind2Web.json"),
      JSON.stringify([
        {
          task_id: ID_A,
          confirmed_task: "Find the weight of baggage allowance for economy class on Qatar Airways.",
          website: "https://www.qatarairways.com/",
          reference_length: 8,
          level: "easy",
        },
      ]),
    );
    const elsewhere = path.join(ctx.dir, "tasks.jsonl");
    fs.writeFileSync(
      elsewhere,
      `${JSON.stringify({ task_id: ID_B, confirmed_task: "Check if I need a UK visa.", website: "https://www.gov.uk/", reference_length: 12, level: "hard" })}\n`,
    );
    const report = await runImport(ctx, { path: root, tasksFile: elsewhere });
    const a = await detail(byTask(report, ID_A).id);
    expect([a.task.intent, a.task.site, a.task.difficulty?.overall, a.task.tags]).toEqual([
      "Find the weight of baggage allowance for economy class on Qatar Airways.",
      "qatarairways.com",
      "easy",
      ["level:easy"],
    ]);
    const b = await detail(byTask(report, ID_B).id);
    expect([b.task.site, b.task.difficulty?.overall]).toEqual(["gov.uk", "hard"]);
  });

  it("stores WebJudge files as one evaluator each, with key points and the steps of its key screenshots", async () => {
    const root = path.join(ctx.dir, "submission");
    const run = path.join(root, "abp_run");
    await writeOm2wTask(run, {
      result: { task_id: ID_A, task: "Find the baggage allowance.", final_result_response: "30 kg", action_history: ABP_ACTIONS.slice(0, 3) },
      shots: [1, 2, 3],
    });
    await writeOm2wTask(run, {
      result: { task_id: ID_B, task: "Check the visa.", final_result_response: "Yes", action_history: ABP_ACTIONS.slice(0, 2) },
      shots: [0, 1],
    });
    const evalDir = path.join(root, "eval");
    fs.mkdirSync(evalDir);
    // JSON Lines as WebJudge writes it, with one row for a task not in this import.
    fs.writeFileSync(
      path.join(evalDir, "WebJudge_Online_Mind2Web_eval_o4-mini_score_threshold_3_auto_eval_results.json"),
      [webJudgeRow(ID_A, 1, [4, 1, 3]), webJudgeRow(ID_B, 0, [2, 5]), webJudgeRow("ffffffffffffffffffffffffffffffff", 1, [])]
        .map((r) => JSON.stringify(r))
        .join("\n") + "\n",
    );
    // The benchmark's released shape: pretty-printed, final_eval, a list of evaluation details.
    fs.mkdirSync(path.join(root, "webjudge_gpt-4o"));
    fs.writeFileSync(
      path.join(root, "webjudge_gpt-4o", "abp_results.json"),
      JSON.stringify(
        {
          task_id: ID_A,
          confirmed_task: "…",
          final_eval: 0,
          image_judge_record: [],
          key_points: "1. A",
          evaluation_details: [{ response: ["Status: failure"], predicted_label: 0 }],
        },
        null,
        2,
      ),
    );
    const report = await runImport(ctx, { path: root });
    expect(report.skipped).toEqual([
      {
        path: path.join(evalDir, "WebJudge_Online_Mind2Web_eval_o4-mini_score_threshold_3_auto_eval_results.json"),
        reason: "1 of 3 verdicts name tasks not in this import (ffffffffffffffffffffffffffffffff)",
      },
    ]);
    const a = byTask(report, ID_A);
    const va = await listVerdicts(ctx.db, { trajectoryId: a.id });
    expect(va.map((v) => [v.evaluatorName, v.evaluatorKey, v.verdict, v.model]).sort()).toEqual([
      ["WebJudge (gpt-4o) abp_results", "import:online-mind2web:webjudge:gpt-4o:abp_results", "failure", "gpt-4o"],
      ["WebJudge (o4-mini, threshold 3)", "import:online-mind2web:WebJudge_Online_Mind2Web_eval:o4-mini:3", "success", "o4-mini"],
    ]);
    const o4 = va.find((v) => v.model === "o4-mini")!;
    // Screenshots 1, 2, 3 are steps 1, 2, 3 (step 3 is the answer step); those scoring 3 or more were kept.
    expect(o4.stepIndices).toEqual([1, 3]);
    expect(o4.details).toMatchObject({ threshold: 3, keyPoints: ["First key point", "Second key point"] });
    expect((o4.details as { screenshots: unknown[] }).screenshots).toEqual([
      { step: 1, score: 4, reasoning: "Reasoning for screenshot 0.\nScore: 4" },
      { step: 2, score: 1, reasoning: "Reasoning for screenshot 1.\nScore: 1" },
      { step: 3, score: 3, reasoning: "Reasoning for screenshot 2.\nScore: 3" },
    ]);
    expect(o4.rationale).toBe('Thoughts: judged.\nStatus: "success"');
    const vb = await listVerdicts(ctx.db, { trajectoryId: byTask(report, ID_B).id });
    expect(vb.map((v) => [v.verdict, v.stepIndices])).toEqual([["failure", [1]]]);

    const again = await runImport(ctx, { path: root });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 2]);
  });

  it("finds screenshots in the task folder itself, matches numbers that do not count actions in order, and names images it cannot place", async () => {
    const run = path.join(ctx.dir, "timed");
    const dir = await writeOm2wTask(run, {
      result: { task_id: ID_A, task: "T", final_result_response: "A", action_history: ["Click at (1, 2)", "Click at (3, 4)"] },
      shots: [1718000001, 1718000005, 1718000009],
      shotFolder: ".",
      name: (n) => `shot_${n}.png`,
    });
    fs.writeFileSync(path.join(dir, "final.png"), await tinyPng(4));
    const report = await runImport(ctx, { path: run });
    const t = byTask(report, ID_A);
    const d = await detail(t.id);
    expect(d.steps.map((s) => [s.action.type, s.screenshotHash !== null])).toEqual([
      ["click", true],
      ["click", true],
      ["answer", true],
    ]);
    expect(report.warnings.map((w) => w.message)).toEqual([
      "the screenshots' numbers (1718000001…1718000009) do not count the 2 actions: they are matched to the actions in order",
      "1 image has no step number in its name and is not shown: final.png",
    ]);
  });

  it("applies a WebJudge file named with --eval-log, wherever it lies, to the whole import", async () => {
    const run = path.join(ctx.dir, "abp_run");
    await writeOm2wTask(run, { result: { task_id: ID_A, task: "T", final_result_response: "A", action_history: ["Click at (1, 2)"] }, shots: [0, 1] });
    const judge = path.join(ctx.dir, "elsewhere", "WebJudge_Online_Mind2Web_eval_gpt-4o_score_threshold_3_auto_eval_results.json");
    fs.mkdirSync(path.dirname(judge));
    fs.writeFileSync(judge, JSON.stringify(webJudgeRow(ID_A, 0, [5, 1])) + "\n");
    const report = await runImport(ctx, { path: run, evalLogs: [judge] });
    const [v] = await listVerdicts(ctx.db, { trajectoryId: byTask(report, ID_A).id });
    expect([v!.evaluatorName, v!.verdict, v!.stepIndices]).toEqual(["WebJudge (gpt-4o, threshold 3)", "failure", [0]]);
  });

  it("lists every folder that looks like a task but cannot be read, with the file and the reason", async () => {
    const run = path.join(ctx.dir, "run");
    await writeOm2wTask(run, { result: { task_id: ID_A, task: "Fine.", final_result_response: "ok" } });
    await writeOm2wTask(run, { folder: "broken", result: '{"task_id": "x", "task": ' });
    await writeOm2wTask(run, { folder: "pointer", result: LFS_POINTER });
    await writeOm2wTask(run, { folder: "untasked", result: { task_id: "u1", final_result_response: "?" } });
    await writeOm2wTask(run, { folder: "listy", result: { task_id: "l1", task: "T", action_history: "Click at (1, 2)" } });
    fs.mkdirSync(path.join(run, ID_B, "trajectory"), { recursive: true });
    fs.writeFileSync(path.join(run, ID_B, "trajectory", "0_full_screenshot.png"), await tinyPng(3));
    const report = await runImport(ctx, { path: run });
    expect(report.created).toBe(1);
    const reasons = Object.fromEntries(report.skipped.map((s) => [path.relative(run, s.path), s.reason]));
    expect(Object.keys(reasons).sort()).toEqual([
      `${ID_B}/result.json`,
      "broken/result.json",
      "listy/result.json",
      "pointer/result.json",
      "untasked/result.json",
    ]);
    expect(reasons["broken/result.json"]).toMatch(/^is not valid JSON/);
    expect(reasons["pointer/result.json"]).toBe("is a Git LFS pointer file, not the result (the clone was made without `git lfs pull`)");
    expect(reasons["untasked/result.json"]).toBe('has no task text ("task" or "confirmed_task") and task u1 is not in a task list');
    expect(reasons["listy/result.json"]).toBe('"action_history" is not a list');
    expect(reasons[`${ID_B}/result.json`]).toMatch(/^is missing/);
  });

  it("is what format detection picks for result folders, while SeeAct's research output stays SeeAct", async () => {
    const run = path.join(ctx.dir, "om2w");
    await writeOm2wTask(run, { result: { task_id: ID_A, task: "T", final_result_response: "A", action_history: ["Click at (1, 2)"] } });
    expect((await detectImporter(run)).format).toBe("online-mind2web");
    const lfsOnly = path.join(ctx.dir, "lfs");
    await writeOm2wTask(lfsOnly, { result: LFS_POINTER, folder: ID_B, shots: [0], lfs: [0] });
    expect((await detectImporter(lfsOnly)).format).toBe("online-mind2web");
    const seeact = path.join(ctx.dir, "seeact", "t1");
    fs.mkdirSync(path.join(seeact, "image_inputs"), { recursive: true });
    fs.writeFileSync(
      path.join(seeact, "result.json"),
      JSON.stringify({
        confirmed_task: "T",
        website: "https://a.test/",
        task_id: "t1",
        success_or_not: "",
        num_step: 1,
        action_history: ["TERMINATE"],
        exit_by: "The model determined a completion.",
      }),
    );
    expect((await detectImporter(path.dirname(seeact))).format).toBe("seeact");
  });
});

const REAL = ["fixtures", "real", "online-mind2web-theredsix"];
const realSkip = sharedSkipReason(REAL);

describeEachBackend("Online-Mind2Web: the shared real run (Agent Browser Protocol, LFS pointers)", (backend) => {
  beforeEach(async () => {
    ctx = await createBackendContext(backend);
  });
  afterEach(async () => {
    await ctx.cleanup();
  });
  it.skipIf(realSkip)(
    titled("imports all 12 tasks with their steps and answers, says the screenshots are LFS pointers, and re-imports unchanged", realSkip),
    async () => {
      const real = sharedPath(...REAL)!;
      const report = await runImport(ctx, { path: real });
      expect(report.format).toBe("online-mind2web");
      expect(report.skipped).toEqual([]);
      expect(report.created).toBe(12);
      expect(report.screenshotsAdded).toBe(0);
      expect(report.warnings).toHaveLength(12);
      for (const t of report.trajectories) {
        // The Path names the task folder from the imported folder down.
        const result = JSON.parse(fs.readFileSync(path.join(path.dirname(real), t.sourcePath, "result.json"), "utf8")) as {
          action_history: string[];
          final_result_response: string;
        };
        // Every action, then the answer on the final screenshot.
        expect(t.steps).toBe(result.action_history.length + 1);
        expect(t.finalAnswer).toBe(result.final_result_response);
        const d = await detail(t.id);
        expect(d.steps.filter((s) => s.action.type === "unparsed")).toEqual([]);
      }
      const again = await runImport(ctx, { path: real });
      expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 12]);
    },
  );
});

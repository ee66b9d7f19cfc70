import { describe, expect, it } from "vitest";
import { alignScreenshots } from "../../server/importers/webvoyager";
import {
  assignAutoEvalBlocks,
  autoEvalJudgeName,
  autoEvalMatch,
  looksLikeAutoEvalLog,
  nameAutoEvalLogs,
  parseWebVoyagerAutoEvalLog,
  pathParts,
} from "../../server/importers/webvoyager-auto-eval";

const LOG = [
  "--------------------- results/run1/taskAmazon--0 ---------------------",
  "Calling gpt4v API to get the auto evaluation......",
  "Prompt Tokens: 2345 ; Completion Tokens: 120",
  "Cost: 0.027",
  "API call complete...",
  "{'role': 'user', 'content': [{'type': 'text', 'text': 'TASK: Find a controller\\nResult Response: found it\\n3 screenshots at the end: '}]}",
  "The screenshots show the product page with a 4.7 rating.",
  "Verdict: SUCCESS",
  "Auto_eval_res: 1",
  "",
  "--------------------- results/run1/taskBBC News--9 ---------------------",
  "Calling gpt4v API to get the auto evaluation......",
  "{'role': 'user', 'content': [{'type': 'text', 'text': 'TASK: x\\n3 screenshots at the end: '}]}",
  "The answer names the wrong musician.",
  "NOT SUCCESS",
  "Auto_eval_res: 0",
  "",
  "--------------------- results/run1/taskESPN--11 ---------------------",
  "{'role': 'user', 'content': [{'type': 'text', 'text': '3 screenshots at the end: '}]}",
  "I cannot tell.",
  "Auto_eval_res: None",
  "",
  "--------------------- results/run1/taskGitHub--0 ---------------------",
  "Not find answer for results/run1/taskGitHub--0",
  "",
  "[1, 0, None]",
  "--------------------- results/run1/taskCoursera--16 ---------------------",
  "Calling gpt4v API to get the auto evaluation......",
].join("\n");

describe("parseWebVoyagerAutoEvalLog", () => {
  const entries = parseWebVoyagerAutoEvalLog(LOG);
  it("reads one verdict per completed task folder and skips an interrupted one", () => {
    expect(entries.map((e) => [e.dir, e.verdict.verdict])).toEqual([
      ["results/run1/taskAmazon--0", "success"],
      ["results/run1/taskBBC News--9", "failure"],
      ["results/run1/taskESPN--11", "unparseable"],
      ["results/run1/taskGitHub--0", "failure"],
    ]);
  });
  it("keeps the reply as rationale, the score, and k from the prompt", () => {
    expect(entries[0]!.verdict).toMatchObject({
      evaluator: "webvoyager:auto_eval",
      k: "3",
      evaluatorKind: "judge",
      score: 1,
      rationale: "The screenshots show the product page with a 4.7 rating.\nVerdict: SUCCESS",
    });
    expect(entries[2]!.verdict.score).toBeNull();
    expect(entries[3]!.verdict.rationale).toMatch(/no ANSWER/);
  });
});

describe("auto_eval logs as forks keep them", () => {
  it("reads a Markdown copy with other dash counts, and gives a no-answer verdict the log's k", () => {
    const md = [
      "# Auto evaluation, gpt-4o",
      "```",
      "---------- `../results/run2/taskamazon_mouse` ----------",
      "Not find answer for ../results/run2/taskamazon_mouse",
      "",
      "---------- ../results/run2/taskamazon--03 ----------",
      "{'role': 'user', 'content': [{'type': 'text', 'text': 'TASK: x\\n15 screenshots at the end: '}]}",
      "The mouse is right. SUCCESS",
      "**Auto_eval_res:** 1",
      "```",
    ].join("\n");
    expect(looksLikeAutoEvalLog(md)).toBe(true);
    const entries = parseWebVoyagerAutoEvalLog(md, "webvoyager:auto_eval (gpt4o.md)");
    expect(entries.map((e) => [e.dir, e.verdict.evaluator, e.verdict.k, e.verdict.verdict])).toEqual([
      ["../results/run2/taskamazon_mouse", "webvoyager:auto_eval (gpt4o.md)", "15", "failure"],
      ["../results/run2/taskamazon--03", "webvoyager:auto_eval (gpt4o.md)", "15", "success"],
    ]);
  });

  it("does not take an ordinary log or a Markdown rule for an auto_eval log", () => {
    expect(looksLikeAutoEvalLog("INFO - Iter: 1\n-----\nINFO - finish!!\n")).toBe(false);
  });

  it("matches a printed folder to a task folder by its trailing components, run folder included", () => {
    const task = pathParts("/data/copy/results/run-a/taskS--1");
    expect(autoEvalMatch(pathParts("/home/u/fork/results/run-a/taskS--1"), task)).toBe(3);
    expect(autoEvalMatch(pathParts("..\\results\\run-a\\taskS--1"), task)).toBe(3);
    expect(autoEvalMatch(pathParts("taskS--1"), task)).toBe(1);
    expect(autoEvalMatch(pathParts("../results/run-b/taskS--1"), task)).toBe(0);
    expect(autoEvalMatch(pathParts("../results/run-a/taskS--2"), task)).toBe(0);
  });
});

describe("which task folder each block judged", () => {
  const folders = (run: string, tasks: string[]) => tasks.map((t) => ({ dir: `/data/results/${run}/task${t}`, runDir: `/data/results/${run}` }));

  it("a block naming a run folder of the import goes to that run, whatever other runs hold the task", () => {
    const { assigned, unmatched } = assignAutoEvalBlocks([{ dir: "../results/b/taskX--1" }], [...folders("a", ["X--1"]), ...folders("b", ["X--1"])]);
    expect([...assigned.values()]).toEqual(["/data/results/b/taskX--1"]);
    expect(unmatched).toEqual([]);
  });

  it("a renamed run folder: its blocks go to the run of the import that holds most of their tasks", () => {
    const blocks = ["X--1", "X--2", "X--3"].map((t) => ({ dir: `results/old-name/task${t}` }));
    const { assigned, unmatched } = assignAutoEvalBlocks(blocks, [...folders("new-name", ["X--1", "X--2", "X--3"]), ...folders("other", ["X--1"])]);
    expect([...assigned.values()]).toEqual(["X--1", "X--2", "X--3"].map((t) => `/data/results/new-name/task${t}`));
    expect(unmatched).toEqual([]);
  });

  it("runs holding as many of the log's tasks are a tie that is reported, not guessed", () => {
    const { assigned, unmatched } = assignAutoEvalBlocks([{ dir: "results/gone/taskX--1" }], [...folders("a", ["X--1"]), ...folders("b", ["X--1"])]);
    expect(assigned.size).toBe(0);
    expect(unmatched).toEqual([
      {
        block: "results/gone/taskX--1",
        reason:
          "the run folder gone it names is not in this import, and its task folder is in several runs that hold as many of this log's tasks (a, b); import one of them with this log",
      },
    ]);
  });

  it("the evaluator run again on a folder: the later block is kept and the earlier one reported", () => {
    const { assigned, unmatched } = assignAutoEvalBlocks([{ dir: "results/a/taskX--1" }, { dir: "results/a/taskX--1" }], folders("a", ["X--1"]));
    expect([...assigned.keys()]).toEqual([1]);
    expect(unmatched).toEqual([{ block: "results/a/taskX--1", reason: "a later block of this log judges the same task folder; the later one is kept" }]);
  });
});

describe("evaluator names from log file names", () => {
  it("names the judge from the file, a plain name as the evaluator itself, and a repeat marker as a run of it", () => {
    expect(autoEvalJudgeName("gpt4o.md")).toEqual({ judge: "webvoyager:auto_eval (gpt4o.md)", repeat: false });
    expect(autoEvalJudgeName("evaluation.log")).toEqual({ judge: "webvoyager:auto_eval", repeat: false });
    expect(autoEvalJudgeName("gpt4o_run2.md")).toEqual({ judge: "webvoyager:auto_eval (gpt4o.md)", repeat: true });
    expect(autoEvalJudgeName("judge-seed 7.log")).toEqual({ judge: "webvoyager:auto_eval (judge.log)", repeat: true });
    // A model's version number is not a repeat marker: llama-3 and llama-2 are two judges.
    expect(autoEvalJudgeName("llama-3.log")).toEqual({ judge: "webvoyager:auto_eval (llama-3.log)", repeat: false });
  });

  it("logs of one judge over different folders are one evaluator; over the same folders, runs told apart by number", () => {
    const set = (...xs: string[]) => new Set(xs);
    expect(
      nameAutoEvalLogs([
        { fileName: "evaluation.log", k: "15", folders: set("a/1") },
        { fileName: "evaluation.log", k: "15", folders: set("b/1") },
      ]),
    ).toEqual([
      { evaluator: "webvoyager:auto_eval", run: "" },
      { evaluator: "webvoyager:auto_eval", run: "" },
    ]);
    expect(
      nameAutoEvalLogs([
        { fileName: "evaluation.log", k: "15", folders: set("a/1") },
        { fileName: "evaluation.log", k: "15", folders: set("a/1") },
      ]),
    ).toEqual([
      { evaluator: "webvoyager:auto_eval", run: "run:evaluation.log" },
      { evaluator: "webvoyager:auto_eval", run: "run:evaluation.log #2" },
    ]);
    // Another screenshot window is another judge setting, not a run.
    expect(
      nameAutoEvalLogs([
        { fileName: "evaluation.log", k: "15", folders: set("a/1") },
        { fileName: "evaluation.log", k: "3", folders: set("a/1") },
      ]),
    ).toEqual([
      { evaluator: "webvoyager:auto_eval", run: "" },
      { evaluator: "webvoyager:auto_eval", run: "" },
    ]);
  });
});

describe("alignScreenshots", () => {
  const turns = (every: number[], known: number[]) => every.map((e, i) => ({ everyMessage: e, knownMessages: known[i]!, rank: i + 1 }));
  it("keeps WebVoyager's counting when it explains the files, gaps included", () => {
    expect(alignScreenshots(turns([1, 3, 4], [1, 3, 4]), [1, 3, 4]).map((a) => a.shot)).toEqual([1, 3, 4]);
  });
  it("counts only observations and failures when a fork's extra messages would shift the images", () => {
    expect(alignScreenshots(turns([1, 3, 5], [1, 2, 3]), [1, 2, 3]).map((a) => a.shot)).toEqual([1, 2, 3]);
  });
  it("follows a fork that numbers screenshots from 0, gaps included", () => {
    expect(alignScreenshots(turns([1, 2, 4, 5], [1, 2, 4, 5]), [0, 1, 3, 4]).map((a) => a.shot)).toEqual([0, 1, 3, 4]);
  });
  it("falls back to the files in order when no counting fits, and reports the one a missing file leaves out", () => {
    expect(alignScreenshots(turns([2, 4, 6], [2, 4, 6]), [1, 5, 9]).map((a) => a.shot)).toEqual([1, 5, 9]);
    expect(alignScreenshots(turns([1, 2, 3], [1, 2, 3]), [1, 3])).toEqual([
      { shot: 1, expected: 1 },
      { shot: null, expected: 2 },
      { shot: 3, expected: 3 },
    ]);
  });
});

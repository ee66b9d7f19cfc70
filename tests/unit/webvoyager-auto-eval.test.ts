import { describe, expect, it } from "vitest";
import { parseWebVoyagerAutoEvalLog } from "../../server/importers/webvoyager-auto-eval";

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

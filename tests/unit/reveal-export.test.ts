import { describe, expect, it } from "vitest";
import { parseRevealStages, revealStagesCsv, revealStagesJsonl, REVEAL_STAGE_COLUMNS, type RevealStageRow } from "../../server/domain/agreement/reveal-export";

const ROWS: RevealStageRow[] = [
  {
    trajectoryId: 12,
    itemNo: 3,
    reviewer: "Ann",
    stage: "blind",
    verdict: "failure",
    reasoning: 'clicked the wrong\nbutton, "twice"',
    category: "wrong element",
    failureStepNumber: 4,
    taskId: "Allrecipes--4",
    agent: "seeact",
    evaluatorShown: null,
    evaluatorId: null,
    evaluatorVerdict: null,
    decision: null,
    at: "2026-11-23T22:00:00.000Z",
  },
  {
    trajectoryId: 12,
    itemNo: 3,
    reviewer: "Ann",
    stage: "informed",
    verdict: "success",
    reasoning: "=the judge is right, the answer is on screen",
    category: null,
    failureStepNumber: null,
    taskId: "Allrecipes--4",
    agent: "seeact",
    evaluatorShown: "GPT judge · k = 3",
    evaluatorId: "judge:1|3|v2",
    evaluatorVerdict: "success",
    decision: "revise",
    at: "2026-11-23T22:01:00.000Z",
  },
  {
    trajectoryId: 13,
    itemNo: 1,
    reviewer: "Bob",
    stage: "informed",
    verdict: "failure",
    reasoning: "still no answer",
    category: null,
    failureStepNumber: null,
    taskId: "Allrecipes--5",
    agent: "seeact",
    evaluatorShown: "GPT judge · k = 3",
    evaluatorId: "judge:1|3|v2",
    evaluatorVerdict: "success",
    decision: "keep",
    at: "2026-11-23T22:02:00.000Z",
  },
];

describe("reveal stages file (CUAVerifierBench-like)", () => {
  it("CSV: one row per trajectory, reviewer and stage, in the documented columns, and reads back identical", () => {
    const csv = revealStagesCsv(ROWS);
    expect(csv.split("\r\n")[0]).toBe(REVEAL_STAGE_COLUMNS.join(","));
    // The reasoning that starts like a formula is neutralised for spreadsheets…
    expect(csv).toContain("'=the judge is right");
    // …and read back as written.
    expect(parseRevealStages(csv, "csv", "stages.csv")).toEqual(ROWS);
  });

  it("JSONL: the same rows, one object per line, read back identical", () => {
    const jsonl = revealStagesJsonl(ROWS);
    expect(jsonl.trim().split("\n")).toHaveLength(3);
    expect(JSON.parse(jsonl.split("\n")[1]!)).toMatchObject({
      stage: "informed",
      evaluator_shown: "GPT judge · k = 3",
      decision: "revise",
      reasoning: "=the judge is right, the answer is on screen",
    });
    expect(parseRevealStages(jsonl, "jsonl", "stages.jsonl")).toEqual(ROWS);
  });

  it("bad files get errors naming the file, line and column", () => {
    const csv = revealStagesCsv(ROWS).replace(",informed,success,", ",after,success,");
    expect(() => parseRevealStages(csv, "csv", "s.csv")).toThrow(/s\.csv: line 4: column stage must be blind or informed, got "after"/);
    expect(() => parseRevealStages("trajectory,stage\n1,blind\n", "csv", "s.csv")).toThrow(/s\.csv: the header lacks columns item, reviewer/);
    expect(() => parseRevealStages('{"trajectory":"x"}\n', "jsonl", "s.jsonl")).toThrow(
      /s\.jsonl: line 1: column stage is empty|column trajectory must be a whole number/,
    );
    const noDecision = revealStagesJsonl([{ ...ROWS[2]!, decision: null }]);
    expect(() => parseRevealStages(noDecision, "jsonl", "s.jsonl")).toThrow(/s\.jsonl: line 1: an informed row needs its decision/);
  });
});

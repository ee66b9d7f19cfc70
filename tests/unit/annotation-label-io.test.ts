import { describe, expect, it } from "vitest";
import { parseCsvTable } from "../../server/domain/csv";
import {
  LABEL_EXPORT_COLUMNS,
  LABEL_IMPORT_PRESETS,
  labelExportCsv,
  labelExportJsonl,
  LabelImportError,
  normalizeTaskId,
  readLabelRows,
  type LabelExportRow,
} from "../../server/domain/annotation/label-io";

const table = (text: string) => parseCsvTable(text, { source: "t.csv" });

describe("normalizeTaskId", () => {
  it.each([
    ["visualwebarena.resized.398", "visualwebarena.398"],
    ["assistantbench.improved.validation.17", "assistantbench.validation.17"],
    ["webarena.177", "webarena.177"],
    ["workarena.servicenow.order-resized", "workarena.servicenow.order-resized"],
    [" webarena.1 ", "webarena.1"],
  ])("%s → %s", (id, expected) => {
    expect(normalizeTaskId(id)).toBe(expected);
  });
});

describe("readLabelRows", () => {
  const arb = LABEL_IMPORT_PRESETS.agentrewardbench!.mapping;

  it("reads AgentRewardBench rows: verdict words, trimmed annotators, task keys", () => {
    const t = table(
      "annotator_name,benchmark,task_id,model_name,trajectory_success\n" +
        "A,webarena,webarena.1,M,Successful\n" +
        " H,webarena,webarena.2,M,Unsuccessful\n" +
        "B,webarena,webarena.3,,Unsure\n",
    );
    const { rows, skipped } = readLabelRows(t, arb, "t.csv");
    expect(skipped).toEqual([]);
    expect(rows.map((r) => [r.line, r.annotator, r.verdict, r.key])).toEqual([
      [2, "A", "success", { kind: "task", taskId: "webarena.1", model: "M", benchmark: "webarena" }],
      [3, "H", "failure", { kind: "task", taskId: "webarena.2", model: "M", benchmark: "webarena" }],
      [4, "B", "unsure", { kind: "task", taskId: "webarena.3", model: null, benchmark: "webarena" }],
    ]);
  });

  it("uses default verdict words ignoring case when the mapping gives none, and skips words mapped to null", () => {
    const t = table("who,tid,ok\nA,1,SUCCESS\nB,2,failure\nC,3,n/a\n");
    const r = readLabelRows(t, { annotator: "who", verdict: "ok", trajectoryId: "tid", verdictValues: { success: "success", failure: "failure", "n/a": null } }, "t.csv");
    expect(r.rows.map((x) => [x.verdict, x.key])).toEqual([
      ["success", { kind: "id", trajectoryId: 1 }],
      ["failure", { kind: "id", trajectoryId: 2 }],
    ]);
    expect(r.skipped).toEqual([{ line: 4, reason: 'verdict "n/a" is mapped to skip' }]);
  });

  it("filters rows with `where` and reads optional columns; step numbers (1 = first step) become stored indices", () => {
    const t = table('kind,annotator_name,trajectory_id,verdict,category,first_failing_step_number,note\nannotation,A,7,failure,other,3,"a, b"\nconsolidated,,7,failure,other,,\n');
    const r = readLabelRows(t, LABEL_IMPORT_PRESETS.verdict!.mapping, "t.csv");
    expect(r.rows).toEqual([{ line: 2, annotator: "A", key: { kind: "id", trajectoryId: 7 }, verdict: "failure", category: "other", firstFailingStep: 2, note: "a, b" }]);
    expect(r.skipped).toEqual([{ line: 3, reason: 'kind is "consolidated"' }]);
  });

  it("reads 0-based step columns when the mapping says they are indices", () => {
    const t = table("a,t,v,s\nA,1,failure,0\n");
    const r = readLabelRows(t, { annotator: "a", verdict: "v", trajectoryId: "t", firstFailingStep: "s", firstFailingStepIs: "index" }, "t.csv");
    expect(r.rows[0]!.firstFailingStep).toBe(0);
  });

  it.each([
    ["a missing column", "x,y\n1,2\n", arb, /the annotator column "annotator_name" is not in the header/],
    ["no trajectory key", "a,v\nA,success\n", { annotator: "a", verdict: "v" }, /needs a trajectoryId column or a taskId column/],
    ["an unmapped verdict", "a,t,v\nA,1,maybe\n", { annotator: "a", verdict: "v", trajectoryId: "t" }, /line 2, column "v": verdict "maybe" is not mapped/],
    ["a bad trajectory id", "a,t,v\nA,x1,success\n", { annotator: "a", verdict: "v", trajectoryId: "t" }, /line 2, column "t": "x1" is not a trajectory id/],
    ["an empty annotator", "a,t,v\n ,1,success\n", { annotator: "a", verdict: "v", trajectoryId: "t" }, /line 2, column "a": the annotator is empty/],
    ["a bad step", "a,t,v,s\nA,1,failure,two\n", { annotator: "a", verdict: "v", trajectoryId: "t", firstFailingStep: "s" }, /"two" is not a step number \(1 = first step\)/],
    ["step number 0", "a,t,v,s\nA,1,failure,0\n", { annotator: "a", verdict: "v", trajectoryId: "t", firstFailingStep: "s" }, /line 2, column "s": step numbers start at 1/],
    ["an unknown step convention", "a,t,v\nA,1,failure\n", { annotator: "a", verdict: "v", trajectoryId: "t", firstFailingStepIs: "zero" }, /firstFailingStepIs is "zero"/],
    ["a verdict mapped to a non-verdict", "a,t,v\nA,1,ok\n", { annotator: "a", verdict: "v", trajectoryId: "t", verdictValues: { ok: "good" } }, /maps "ok" to "good"/],
  ])("rejects %s with the file, line and column", (_, csv, mapping, message) => {
    expect(() => readLabelRows(table(csv), mapping as never, "t.csv")).toThrow(LabelImportError);
    expect(() => readLabelRows(table(csv), mapping as never, "t.csv")).toThrow(message);
  });
});

describe("label export formats", () => {
  const row = Object.fromEntries(LABEL_EXPORT_COLUMNS.map((c) => [c, null])) as LabelExportRow;
  const rows: LabelExportRow[] = [
    { ...row, kind: "annotation", trajectory_id: 3, annotator_name: "A", verdict: "failure", note: 'says "no",\nthen stops', steps_viewed_numbers: [1, 3] },
    { ...row, kind: "consolidated", trajectory_id: 3, verdict: "failure", consolidation_method: "unanimous" },
  ];

  it("writes CSV that reads back to the same strings", () => {
    const t = parseCsvTable(labelExportCsv(rows));
    expect(t.header).toEqual([...LABEL_EXPORT_COLUMNS]);
    const note = t.header.indexOf("note");
    expect(t.rows[0]![note]).toBe('says "no",\nthen stops');
    expect(t.rows[0]![t.header.indexOf("steps_viewed_numbers")]).toBe("1 3");
    expect(t.rows[1]![t.header.indexOf("annotator_name")]).toBe("");
  });

  it("writes one JSON object per line with every column, nulls kept", () => {
    const lines = labelExportJsonl(rows).split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("");
    const first = JSON.parse(lines[0]!);
    expect(Object.keys(first)).toEqual([...LABEL_EXPORT_COLUMNS]);
    expect(first).toMatchObject({ steps_viewed_numbers: [1, 3], category: null });
    expect(labelExportJsonl([])).toBe("");
  });
});

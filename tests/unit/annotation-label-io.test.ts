import { describe, expect, it } from "vitest";
import { parseCsvTable } from "../../server/domain/csv";
import {
  LABEL_EXPORT_COLUMNS,
  marksForExport,
  LABEL_IMPORT_PRESETS,
  labelExportCsv,
  labelExportJsonl,
  LabelImportError,
  labelImportMappingSchema,
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
    const r = readLabelRows(
      t,
      { annotator: "who", verdict: "ok", trajectoryId: "tid", verdictValues: { success: "success", failure: "failure", "n/a": null } },
      "t.csv",
    );
    expect(r.rows.map((x) => [x.verdict, x.key])).toEqual([
      ["success", { kind: "id", trajectoryId: 1 }],
      ["failure", { kind: "id", trajectoryId: 2 }],
    ]);
    expect(r.skipped).toEqual([{ line: 4, reason: 'verdict "n/a" is mapped to skip' }]);
  });

  it("filters rows with `where` and reads optional columns; step numbers (1 = first step) become stored indices", () => {
    const t = table(
      'kind,annotator_name,trajectory_id,verdict,category,first_failing_step_number,note\nannotation,A,7,failure,other,3,"a, b"\nconsolidated,,7,failure,other,,\n',
    );
    const r = readLabelRows(t, LABEL_IMPORT_PRESETS.verdict!.mapping, "t.csv");
    expect(r.rows).toEqual([
      { line: 2, annotator: "A", key: { kind: "id", trajectoryId: 7 }, verdict: "failure", category: "other", firstFailingStep: 2, note: "a, b" },
    ]);
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
    [
      "a bad step",
      "a,t,v,s\nA,1,failure,two\n",
      { annotator: "a", verdict: "v", trajectoryId: "t", firstFailingStep: "s" },
      /"two" is not a step number \(1 = first step\)/,
    ],
    [
      "step number 0",
      "a,t,v,s\nA,1,failure,0\n",
      { annotator: "a", verdict: "v", trajectoryId: "t", firstFailingStep: "s" },
      /line 2, column "s": step numbers start at 1/,
    ],
    [
      "an unknown step convention",
      "a,t,v\nA,1,failure\n",
      { annotator: "a", verdict: "v", trajectoryId: "t", firstFailingStepIs: "zero" },
      /firstFailingStepIs is "zero"/,
    ],
    [
      "a verdict mapped to a non-verdict",
      "a,t,v\nA,1,ok\n",
      { annotator: "a", verdict: "v", trajectoryId: "t", verdictValues: { ok: "good" } },
      /maps "ok" to "good"/,
    ],
  ])("rejects %s with the file, line and column", (_, csv, mapping, message) => {
    expect(() => readLabelRows(table(csv), mapping as never, "t.csv")).toThrow(LabelImportError);
    expect(() => readLabelRows(table(csv), mapping as never, "t.csv")).toThrow(message);
  });

  describe("wide layout (several annotators on a row)", () => {
    const wide = {
      taskId: "Task",
      verdictValues: { "1": "success", "0": "failure", Unsure: "unsure" },
      labels: [
        { annotator: "Evaluator1", verdict: "Overall1", note: "Comment1" },
        { annotator: "Evaluator2", verdict: "Overall2" },
        { annotatorName: "Carol", verdict: "Carol's call" },
      ],
    } as const;

    it("reads one label per annotator column pair, each with its own note, in the row's line", () => {
      const t = table(
        "Task,Evaluator1,Overall1,Comment1,Evaluator2,Overall2,Carol's call\n" + "Shop--1,Ann,1,looked fine,Bob,0,1\n" + "Shop--2,Ann,0,,Bob,0,Unsure\n",
      );
      const { rows, skipped } = readLabelRows(t, wide as never, "w.csv");
      expect(skipped).toEqual([]);
      expect(rows.map((r) => [r.line, r.key.kind === "task" ? r.key.taskId : null, r.annotator, r.verdict, r.note])).toEqual([
        [2, "Shop--1", "Ann", "success", "looked fine"],
        [2, "Shop--1", "Bob", "failure", null],
        [2, "Shop--1", "Carol", "success", null],
        [3, "Shop--2", "Ann", "failure", null],
        [3, "Shop--2", "Bob", "failure", null],
        [3, "Shop--2", "Carol", "unsure", null],
      ]);
    });

    it("skips a pair with no verdict (an evaluator who did not label the item) and says whose and where", () => {
      const t = table("Task,Evaluator1,Overall1,Comment1,Evaluator2,Overall2,Carol's call\nShop--1,Ann,1,,Bob,,\n");
      const { rows, skipped } = readLabelRows(t, wide as never, "w.csv");
      expect(rows.map((r) => r.annotator)).toEqual(["Ann"]);
      expect(skipped).toEqual([
        { line: 2, reason: `"Overall2" is empty for annotator "Bob"` },
        { line: 2, reason: `"Carol's call" is empty for annotator "Carol"` },
      ]);
    });

    it.each([
      [
        "a pair's missing column",
        "Task,Evaluator1,Overall1\nS,A,1\n",
        { taskId: "Task", labels: [{ annotator: "Evaluator1", verdict: "Overall9" }] },
        /the labels\[0\]\.verdict column "Overall9" is not in the header/,
      ],
      [
        "both layouts at once",
        "Task,E,O\nS,A,1\n",
        { taskId: "Task", annotator: "E", verdict: "O", labels: [{ annotator: "E", verdict: "O" }] },
        /give one of them/,
      ],
      [
        "a pair naming no annotator",
        "Task,E,O\nS,A,1\n",
        { taskId: "Task", labels: [{ verdict: "O" }] },
        /labels\[0\]\.annotator: give the column naming the annotator/,
      ],
      ["neither layout", "Task,E,O\nS,A,1\n", { taskId: "Task" }, /needs an annotator and a verdict column, or labels/],
      [
        "an unmapped verdict in the second pair",
        "Task,E1,O1,E2,O2\nS,A,success,B,maybe\n",
        {
          taskId: "Task",
          labels: [
            { annotator: "E1", verdict: "O1" },
            { annotator: "E2", verdict: "O2" },
          ],
        },
        /line 2, column "O2": verdict "maybe" is not mapped/,
      ],
      [
        "a verdict without its annotator",
        "Task,E1,O1\nS,,success\n",
        { taskId: "Task", labels: [{ annotator: "E1", verdict: "O1" }] },
        /line 2, column "E1": the annotator is empty/,
      ],
    ])("rejects %s", (_, csv, mapping, message) => {
      expect(() => readLabelRows(table(csv), mapping as never, "w.csv")).toThrow(message);
    });

    it("holds mappings to the same rules in the schema the form and the CLI use", () => {
      const ok = labelImportMappingSchema.strict().safeParse({
        taskId: "Task",
        labels: [
          { annotator: "E1", verdict: "O1" },
          { annotatorName: "Carol", verdict: "C" },
        ],
      });
      expect(ok.success).toBe(true);
      const issues = (m: unknown) =>
        labelImportMappingSchema
          .strict()
          .safeParse(m)
          .error?.issues.map((i) => i.path.join(".")) ?? [];
      expect(issues({ taskId: "Task", verdict: "O" })).toEqual(["annotator"]);
      expect(issues({ taskId: "Task", labels: [{ annotator: "E", annotatorName: "X", verdict: "O" }] })).toEqual(["labels.0.annotator"]);
      expect(issues({ taskId: "Task", labels: [{ annotator: "E", verdict: "O", colour: "red" }] })).toEqual(["labels.0"]);
      expect(issues({ taskId: "Task", annotator: "E", verdict: "O", labels: [{ annotator: "E", verdict: "O" }] })).toEqual(["labels"]);
    });
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

  const box = { kind: "box" as const, step: 1, label: "should have clicked", x: 10, y: 20, width: 30, height: 40 };
  const point = { kind: "point" as const, step: 0, label: "the answer was here", x: 5, y: 6 };
  const exported = [
    { kind: "box", step_number: 2, label: "should have clicked", x: 10, y: 20, width: 30, height: 40 },
    { kind: "point", step_number: 1, label: "the answer was here", x: 5, y: 6 },
  ];

  it("turns marks' step indices into step numbers and leaves a label without marks at null", () => {
    expect(marksForExport([box, point])).toEqual(exported);
    expect(marksForExport([])).toBeNull();
    expect(marksForExport(null)).toBeNull();
  });

  it("adds a marks column and key when some label has marks, holding each label's marks as JSON", () => {
    const marked: LabelExportRow[] = [{ ...rows[0]!, marks: marksForExport([box, point]) }, rows[1]!];
    const t = parseCsvTable(labelExportCsv(marked));
    expect(t.header).toEqual([...LABEL_EXPORT_COLUMNS, "marks"]);
    expect(JSON.parse(t.rows[0]![t.header.indexOf("marks")]!)).toEqual(exported);
    expect(t.rows[1]![t.header.indexOf("marks")]).toBe("");
    const [first, second] = labelExportJsonl(marked)
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(first.marks).toEqual(exported);
    expect(second.marks).toBeNull();
  });
});

/**
 * A published study of our own making, laid out as a WebVoyager fork leaves it: the fork's task file with its own
 * fields (`ques_group`, `lang`), twelve trajectories in a run folder, its judge's auto-evaluation log, and the human
 * evaluation of three evaluators per item. Used by the issue-25 journey (tests/e2e/study-journey.spec.ts).
 *
 * The figures, worked by hand (S = success, F = failure; item i is task Shopfork--i):
 *
 *   item  evaluators  majority  judge         item  evaluators  majority  judge
 *    1     S S S         S        S             7     S S S         S        S
 *    2     S S S         S        S             8     F F F         F        F
 *    3     S S F         S        F             9     F S F         F        S
 *    4     F F F         F        F            10     S S F         S        S
 *    5     F F S         F        S            11     F F F         F        S
 *    6     S F F         F        F            12     S S S         S        S
 *
 * Judge vs majority, all 12 items: ss 1 2 7 10 12, sf 3, fs 5 9 11, ff 4 6 8 → P_o = 8/12, P_e = (6·8 + 6·4)/144
 *   = 1/2, κ = 1/3.
 * Fleiss among the three: P̄ = (7·1 + 5·(1/3))/12 = 13/18; p_S = 19/36, p_F = 17/36, P̄_e = 650/1296;
 *   κ = (936 − 650)/(1296 − 650) = 286/646 = 143/323.
 * Krippendorff's α: n = 36, n_S = 19, n_F = 17; each of the 5 mixed items adds (9 − 5)/2 = 2 →
 *   α = 1 − 35·10/(1296 − 361 − 289) = 1 − 350/646 = 148/323.
 * Judge vs the consolidated label (an import consolidates the unanimous items 1 2 4 7 8 11 12): ss 1 2 7 12, fs 11,
 *   ff 4 8 → P_o = 6/7, P_e = (4·5 + 3·2)/49 = 26/49, κ = (42 − 26)/(49 − 26) = 16/23.
 * By lang (items 1–6 en, 7–12 zh), judge vs majority: en ss 1 2, sf 3, fs 5, ff 4 6 → P_o = 4/6, P_e = 1/2, κ = 1/3;
 *   zh ss 7 10 12, fs 9 11, ff 8 → P_o = 4/6, P_e = (3·5 + 3·1)/36 = 1/2, κ = 1/3.
 */
import fs from "node:fs";
import path from "node:path";
import { writeWebVoyagerFixture } from "./webvoyager-fixture";

export const STUDY_LABELS = ["SSS", "SSS", "SSF", "FFF", "FFS", "SFF", "SSS", "FFF", "FSF", "SSF", "FFF", "SSS"];
export const STUDY_JUDGE = "SSFFSFSFSSSS";
export const STUDY_EVALUATORS = ["Evaluator A", "Evaluator B", "Evaluator C"];
/** The run folder as the fork's repository holds it, and as its judge's log printed it before the rename. */
export const STUDY_RUN_FOLDER = "20250414_14_44_45_gpt4o";
export const STUDY_LOGGED_RUN_FOLDER = "20250414_14_44_45";

export const STUDY_FIGURES = {
  items: 12,
  /** Judge vs majority of the three evaluators, all items. */
  majorityKappa: 1 / 3,
  majorityAgreement: 8 / 12,
  /** Fleiss' κ and Krippendorff's α among the three evaluators. */
  fleissKappa: 143 / 323,
  krippendorffAlpha: 148 / 323,
  /** Judge vs the consolidated label (the 7 unanimous items). */
  consolidatedKappa: 16 / 23,
  consolidatedN: 7,
} as const;

export function studyTaskId(i: number): string {
  return `Shopfork--${i + 1}`;
}

/**
 * Writes the fork as published under `root`: `data/tasks_fork.jsonl`, `results/<run>/task…/` and
 * `evaluation/gpt4o_auto_eval.log` whose banners print `loggedRunFolder` (the folder's name when the judge ran).
 */
export async function writeStudyFork(root: string, loggedRunFolder: string = STUDY_LOGGED_RUN_FOLDER): Promise<void> {
  const tasks = STUDY_LABELS.map((_, i) => ({
    id: studyTaskId(i),
    intent: `Find the price of item ${i + 1} in the fork's shop.`,
    url: "https://shopfork.test/",
    actions: i % 3 === 0 ? ["Click [0]", "Type [1]; item", `ANSWER; $${i + 10}`] : ["Click [0]", `ANSWER; $${i + 10}`],
  }));
  await writeWebVoyagerFixture(path.join(root, "results", STUDY_RUN_FOLDER), tasks, 7300);
  fs.mkdirSync(path.join(root, "data"), { recursive: true });
  fs.writeFileSync(
    path.join(root, "data", "tasks_fork.jsonl"),
    tasks
      .map((t, i) => JSON.stringify({ web_name: "Shopfork", id: t.id, ques: t.intent, web: t.url, ques_group: `G${(i % 3) + 1}`, lang: i < 6 ? "en" : "zh" }))
      .join("\n") + "\n",
  );
  fs.mkdirSync(path.join(root, "evaluation"), { recursive: true });
  const blocks = tasks.map((t, i) =>
    [
      `--------------------- /home/researcher/WebVoyager/results/${loggedRunFolder}/task${t.id} ---------------------`,
      "Calling gpt4v API to get the auto evaluation......",
      "Prompt Tokens: 2210 ; Completion Tokens: 61",
      "Cost: 0.02393",
      `{'role': 'user', 'content': [{'type': 'text', 'text': 'TASK: ${t.intent}'}]}`,
      STUDY_JUDGE[i] === "S" ? "The screenshots show the price was found. SUCCESS" : "The answer is not supported by the screenshots. NOT SUCCESS",
      `Auto_eval_res: ${STUDY_JUDGE[i] === "S" ? 1 : 0}`,
    ].join("\n"),
  );
  fs.writeFileSync(path.join(root, "evaluation", "gpt4o_auto_eval.log"), blocks.join("\n") + "\n");
}

/** The human evaluation as a long CSV: one row per evaluator and item (task_id, evaluator, overall 1/0). */
export function studyLabelsCsv(): string {
  const rows = ["task_id,evaluator,overall"];
  STUDY_LABELS.forEach((l, i) => [...l].forEach((v, a) => rows.push(`${studyTaskId(i)},${STUDY_EVALUATORS[a]},${v === "S" ? 1 : 0}`)));
  return rows.join("\n") + "\n";
}

/** The mapping for `labels import` of studyLabelsCsv(). */
export const STUDY_LABEL_MAPPING = {
  annotator: "evaluator",
  verdict: "overall",
  taskId: "task_id",
  verdictValues: { "1": "success", "0": "failure" },
} as const;

/**
 * The human evaluation as the study's workbook keeps it: a notes sheet, then one row per task with each evaluator's
 * name and overall verdict side by side (Evaluator1, Overall1, …: the wide layout), verdicts as numbers 1/0.
 */
export async function studyWorkbook(): Promise<Uint8Array> {
  const { default: ExcelJS } = await import("exceljs");
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet("Read me").addRows([["Human evaluation of the fork's run"], ["Overall: 1 = success, 0 = failure"]]);
  const ws = wb.addWorksheet("Human evaluation");
  ws.addRow(["task_id", ...STUDY_EVALUATORS.flatMap((_, a) => [`Evaluator${a + 1}`, `Overall${a + 1}`])]);
  STUDY_LABELS.forEach((l, i) => ws.addRow([studyTaskId(i), ...[...l].flatMap((v, a) => [STUDY_EVALUATORS[a]!, v === "S" ? 1 : 0])]));
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

/** The mapping for `labels import` of studyWorkbook(): one annotator/verdict column pair per evaluator. */
export const STUDY_WIDE_MAPPING = {
  taskId: "task_id",
  verdictValues: { "1": "success", "0": "failure" },
  labels: STUDY_EVALUATORS.map((_, a) => ({ annotator: `Evaluator${a + 1}`, verdict: `Overall${a + 1}` })),
};

/**
 * WebVoyager's auto-evaluator writes no JSON: `evaluation/auto_eval.py` prints, per task folder,
 *   --------------------- <process_dir>/task<id> ---------------------
 *   (Calling…, "Prompt Tokens: p ; Completion Tokens: c", Cost…, the user message as a Python dict, the reply)
 *   Auto_eval_res: 1 | 0 | None
 * or "Not find answer for <dir>" (scored 0 without calling the model). People redirect it to a file of any name
 * (`evaluation.log`, `results.md`, `gpt4o.logs`…). One log is one run of the evaluator, so every verdict in it gets
 * the same evaluator name and screenshot window k, including the "no answer" ones that never showed k.
 * This parser is pure.
 */
import type { ImportVerdict } from "./types";

/**
 * The folder banner; forks change the number of dashes, so any run of three or more is accepted, and a log kept as
 * Markdown may put heading, quote or emphasis marks around the lines.
 */
const HEADER = /^\s*[#>*`_]*\s*-{3,}\s+(\S.*?)\s+-{3,}\s*[*`_]*\s*$/;
const RESULT = /^\s*[>*`_]*\s*Auto_eval_res:?[*`_]*:?\s*[*`_]*(1|0|None)\b/;
const NO_ANSWER = /^\s*[>*`_]*\s*Not find answer for\b/;

export const AUTO_EVAL_EVALUATOR = "webvoyager:auto_eval";

export interface AutoEvalEntry {
  /** The folder path exactly as the log printed it. */
  dir: string;
  verdict: ImportVerdict;
}

/** True when `text` holds at least one auto_eval block (used to recognise logs whatever their extension). */
export function looksLikeAutoEvalLog(text: string): boolean {
  const lines = text.split(/\r?\n/);
  return lines.some((l) => HEADER.test(l)) && lines.some((l) => RESULT.test(l) || NO_ANSWER.test(l));
}

/** The screenshot window the evaluator was run with, as its prompt states it ("15 screenshots at the end"). */
export function autoEvalWindow(text: string): string | null {
  return /(\d+) screenshots at the end/.exec(text)?.[1] ?? null;
}

export function parseWebVoyagerAutoEvalLog(text: string, evaluator = AUTO_EVAL_EVALUATOR): AutoEvalEntry[] {
  const lines = text.split(/\r?\n/);
  const k = autoEvalWindow(text);
  const identity = { evaluator, evaluatorKind: "judge" as const, ...(k ? { k } : {}) };
  const out: AutoEvalEntry[] = [];
  let i = 0;
  while (i < lines.length) {
    const head = HEADER.exec(lines[i]!);
    if (!head) {
      i++;
      continue;
    }
    const dir = head[1]!.trim().replace(/^[`'"]+|[`'"]+$/g, "");
    let j = i + 1;
    while (j < lines.length && !HEADER.test(lines[j]!)) j++;
    const block = lines.slice(i + 1, j);
    i = j;
    if (block.some((l) => NO_ANSWER.test(l))) {
      out.push({
        dir,
        verdict: { ...identity, verdict: "failure", score: 0, rationale: "auto_eval found no ANSWER action and scored 0 without calling the model", raw: block.join("\n").trim() },
      });
      continue;
    }
    const resAt = block.findIndex((l) => RESULT.test(l));
    if (resAt === -1) continue; // interrupted run: no result for this folder
    const res = RESULT.exec(block[resAt]!)![1];
    // The reply follows the printed user message (a Python dict repr starting with "{'role': 'user'").
    const msgAt = block.findIndex((l) => l.trimStart().startsWith("{'role': 'user'"));
    const reply = block.slice(msgAt === -1 ? 0 : msgAt + 1, resAt).join("\n").trim();
    out.push({
      dir,
      verdict: {
        ...identity,
        verdict: res === "1" ? "success" : res === "0" ? "failure" : "unparseable",
        score: res === "None" ? null : Number(res),
        rationale: reply || null,
        raw: block.join("\n").trim(),
      },
    });
  }
  return out;
}

/** Path components of a folder as a log printed it or as it is on disk ("." and ".." dropped, either slash). */
export function pathParts(p: string): string[] {
  return p
    .replace(/\\/g, "/")
    .split("/")
    .filter((s) => s && s !== "." && s !== "..");
}

/**
 * How well a folder path printed in a log names a task folder: the number of trailing components they share.
 * A printed path that also names the run folder must match it too, so that `run-a/taskX` in a log never lands on
 * `run-b/taskX`; a bare `taskX` (auto_eval run inside the run folder) matches on the task folder alone.
 * Returns 0 for no match.
 */
export function autoEvalMatch(printed: string[], taskDir: string[]): number {
  let n = 0;
  while (n < printed.length && n < taskDir.length && printed[printed.length - 1 - n] === taskDir[taskDir.length - 1 - n]) n++;
  return n >= Math.min(2, printed.length) ? n : 0;
}

/**
 * WebVoyager's auto-evaluator writes no JSON: `evaluation/auto_eval.py` prints, per task folder,
 *   --------------------- <process_dir>/task<Site>--<n> ---------------------
 *   (Calling…, "Prompt Tokens: p ; Completion Tokens: c", Cost…, the user message as a Python dict, the reply)
 *   Auto_eval_res: 1 | 0 | None
 * or "Not find answer for <dir>" (scored 0 without calling the model). People redirect it to a log file.
 * This parser reads such a log into one verdict per task folder; it is pure.
 */
import type { ImportVerdict } from "./types";

const HEADER = /^-{21} (.+) -{21}$/;

export interface AutoEvalEntry {
  /** The folder path exactly as the log printed it. */
  dir: string;
  verdict: ImportVerdict;
}

export function parseWebVoyagerAutoEvalLog(text: string): AutoEvalEntry[] {
  const lines = text.split(/\r?\n/);
  const out: AutoEvalEntry[] = [];
  let i = 0;
  while (i < lines.length) {
    const head = HEADER.exec(lines[i]!);
    if (!head) {
      i++;
      continue;
    }
    const dir = head[1]!.trim();
    let j = i + 1;
    while (j < lines.length && !HEADER.test(lines[j]!)) j++;
    const block = lines.slice(i + 1, j);
    i = j;
    const k = /(\d+) screenshots at the end/.exec(block.join("\n"))?.[1];
    const evaluator = `webvoyager:auto_eval${k ? ` (k=${k})` : ""}`;
    if (block.some((l) => l.startsWith("Not find answer for"))) {
      out.push({
        dir,
        verdict: { evaluator, evaluatorKind: "judge", verdict: "failure", score: 0, rationale: "auto_eval found no ANSWER action and scored 0 without calling the model", raw: block.join("\n").trim() },
      });
      continue;
    }
    const resAt = block.findIndex((l) => /^Auto_eval_res: (1|0|None)\s*$/.test(l));
    if (resAt === -1) continue; // interrupted run: no result for this folder
    const res = /^Auto_eval_res: (1|0|None)/.exec(block[resAt]!)![1];
    // The reply follows the printed user message (a Python dict repr starting with "{'role': 'user'").
    const msgAt = block.findIndex((l) => l.startsWith("{'role': 'user'"));
    const reply = block.slice(msgAt === -1 ? 0 : msgAt + 1, resAt).join("\n").trim();
    out.push({
      dir,
      verdict: {
        evaluator,
        evaluatorKind: "judge",
        verdict: res === "1" ? "success" : res === "0" ? "failure" : "unparseable",
        score: res === "None" ? null : Number(res),
        rationale: reply || null,
        raw: block.join("\n").trim(),
      },
    });
  }
  return out;
}

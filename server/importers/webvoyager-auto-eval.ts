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

/** A block of a log that gives no verdict, and why (the evaluator was interrupted in it). */
export interface AutoEvalIncomplete {
  dir: string;
  problem: string;
}

export function parseWebVoyagerAutoEvalLog(text: string, evaluator = AUTO_EVAL_EVALUATOR): AutoEvalEntry[] {
  return parseWebVoyagerAutoEvalBlocks(text, evaluator).entries;
}

/** Every block of a log: those with a verdict, and those without one (so a report can name them). */
export function parseWebVoyagerAutoEvalBlocks(text: string, evaluator = AUTO_EVAL_EVALUATOR): { entries: AutoEvalEntry[]; incomplete: AutoEvalIncomplete[] } {
  const lines = text.split(/\r?\n/);
  const k = autoEvalWindow(text);
  const identity = { evaluator, evaluatorKind: "judge" as const, ...(k ? { k } : {}) };
  const out: AutoEvalEntry[] = [];
  const incomplete: AutoEvalIncomplete[] = [];
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
        verdict: {
          ...identity,
          verdict: "failure",
          score: 0,
          rationale: "auto_eval found no ANSWER action and scored 0 without calling the model",
          raw: block.join("\n").trim(),
        },
      });
      continue;
    }
    const resAt = block.findIndex((l) => RESULT.test(l));
    if (resAt === -1) {
      // The evaluator stopped inside this block (interrupted, or the model call failed): no verdict to take.
      incomplete.push({ dir, problem: 'has no "Auto_eval_res:" line (the evaluator stopped before it gave a result)' });
      continue;
    }
    const res = RESULT.exec(block[resAt]!)![1];
    // The reply follows the printed user message (a Python dict repr starting with "{'role': 'user'").
    const msgAt = block.findIndex((l) => l.trimStart().startsWith("{'role': 'user'"));
    const reply = block
      .slice(msgAt === -1 ? 0 : msgAt + 1, resAt)
      .join("\n")
      .trim();
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
  return { entries: out, incomplete };
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

// ---------------------------------------------------------------------------------------------------------------
// Which task folder each block of a log judged

/** A task folder of the import, as blocks are matched against it. */
export interface AutoEvalFolder {
  /** The task folder (absolute path), the key verdicts are looked up by. */
  dir: string;
  /** Its run folder. */
  runDir: string;
}

export interface AutoEvalAssignment {
  /** Block index → task folder (`dir`). */
  assigned: Map<number, string>;
  /** Blocks that judged no task folder of this import, with the reason in words. */
  unmatched: { block: string; reason: string }[];
}

/**
 * Assigns each block of one log to the task folder it judged. A block that names its run folder goes to that run's
 * task folder when the import has the run. When it does not (a fork renamed the run folder after the evaluator ran,
 * or the log names no run), the log's blocks for that run folder go to the run of this import that holds most of
 * their task folders; a tie between runs is reported rather than guessed. A later block for the same task folder
 * replaces an earlier one (the evaluator was run again). Pure.
 */
export function assignAutoEvalBlocks(blocks: { dir: string }[], folders: AutoEvalFolder[]): AutoEvalAssignment {
  const assigned = new Map<number, string>();
  const unmatched: { block: string; reason: string }[] = [];
  const byTask = new Map<string, AutoEvalFolder[]>();
  for (const f of folders) {
    const name = pathParts(f.dir).at(-1)!;
    byTask.set(name, [...(byTask.get(name) ?? []), f]);
  }
  const runName = (runDir: string) => pathParts(runDir).at(-1) ?? runDir;
  /** Blocks whose run folder is not in the import, by the run folder they name ("" for none). */
  const deferred = new Map<string, number[]>();
  blocks.forEach((b, i) => {
    const parts = pathParts(b.dir);
    const task = parts.at(-1) ?? "";
    const candidates = byTask.get(task) ?? [];
    if (!candidates.length) {
      unmatched.push({ block: b.dir, reason: `no task folder ${task} in this import` });
      return;
    }
    if (parts.length >= 2) {
      let best: AutoEvalFolder | null = null;
      let bestScore = 0;
      for (const c of candidates) {
        const score = autoEvalMatch(parts, pathParts(c.dir));
        if (score >= 2 && score > bestScore) {
          best = c;
          bestScore = score;
        }
      }
      if (best) {
        assigned.set(i, best.dir);
        return;
      }
    }
    const logged = parts.length >= 2 ? parts.at(-2)! : "";
    deferred.set(logged, [...(deferred.get(logged) ?? []), i]);
  });
  const runs = [...new Set(folders.map((f) => f.runDir))];
  for (const [logged, indexes] of deferred) {
    const tasks = new Set(indexes.map((i) => pathParts(blocks[i]!.dir).at(-1)!));
    const held = runs.map((run) => ({ run, n: folders.filter((f) => f.runDir === run && tasks.has(pathParts(f.dir).at(-1)!)).length }));
    const most = Math.max(0, ...held.map((h) => h.n));
    const top = held.filter((h) => h.n === most && most > 0);
    const what = logged ? `the run folder ${logged} it names is not in this import` : "it names no run folder";
    if (top.length !== 1) {
      const names = top.map((h) => runName(h.run)).join(", ");
      for (const i of indexes) {
        unmatched.push({
          block: blocks[i]!.dir,
          reason: `${what}, and its task folder is in several runs that hold as many of this log's tasks (${names}); import one of them with this log`,
        });
      }
      continue;
    }
    const run = top[0]!.run;
    for (const i of indexes) {
      const task = pathParts(blocks[i]!.dir).at(-1)!;
      const folder = folders.find((f) => f.runDir === run && pathParts(f.dir).at(-1) === task);
      if (folder) assigned.set(i, folder.dir);
      else unmatched.push({ block: blocks[i]!.dir, reason: `${what}; its other blocks went to run ${runName(run)}, which has no task folder ${task}` });
    }
  }
  // The evaluator run again on a folder: the later block is its verdict.
  const lastFor = new Map<string, number>();
  for (const [i, dir] of [...assigned].sort((a, b) => a[0] - b[0])) lastFor.set(dir, i);
  for (const [i, dir] of [...assigned]) {
    if (lastFor.get(dir) !== i) {
      assigned.delete(i);
      unmatched.push({ block: blocks[i]!.dir, reason: "a later block of this log judges the same task folder; the later one is kept" });
    }
  }
  return { assigned, unmatched };
}

// ---------------------------------------------------------------------------------------------------------------
// Evaluator names, and several runs of one judge

/** File names that say only "this is the auto-evaluation log"; any other name (gpt4o.md) names the evaluator. */
const PLAIN_LOG_NAME = /^(auto[_-]?)?eval(uation)?s?([_-]?(log|logs|res|result|results|output))?$/i;
/** A repeat marker at the end of a file name: "gpt4o_run2", "judge-seed42", "eval trial 3". */
const RUN_MARKER = /^(.*?)[ _.-]*(?:run|seed|trial|rep|repeat|attempt|pass|try)[ _.-]*(\d+)$/i;

/**
 * The judge a log file is a run of, from the file's name alone (never its folder): "gpt4o.md" is judge
 * "webvoyager:auto_eval (gpt4o.md)", "evaluation.log" is plainly "webvoyager:auto_eval", and "gpt4o_run2.md" is a
 * run of "webvoyager:auto_eval (gpt4o.md)". `repeat` says the name marks the file as one of several runs.
 */
export function autoEvalJudgeName(fileName: string): { judge: string; repeat: boolean } {
  const dot = fileName.lastIndexOf(".");
  const stem = dot > 0 ? fileName.slice(0, dot) : fileName;
  const ext = dot > 0 ? fileName.slice(dot) : "";
  const marked = RUN_MARKER.exec(stem);
  const base = marked && marked[1]!.trim() ? marked[1]!.replace(/[ _.-]+$/, "") : marked ? "" : stem;
  const judge = !base || PLAIN_LOG_NAME.test(base) ? AUTO_EVAL_EVALUATOR : `${AUTO_EVAL_EVALUATOR} (${base}${ext})`;
  return { judge, repeat: !!marked };
}

export interface AutoEvalLogIdentity {
  /** Evaluator name (and key, with "import:"): the judge. */
  evaluator: string;
  /** Empty for a judge's only run; "run:<file name>" for each of several runs of one judge (stored apart). */
  run: string;
}

/**
 * Names the logs of one import. Logs of one judge (same name from their files, same screenshot window) that judge
 * different task folders are one evaluator (one log per run folder). Logs of one judge that judge the same task
 * folders are runs of it, each stored apart ("run:<file name>"), so that its run-to-run consistency can be measured;
 * so is any log whose name marks it as a repeat ("gpt4o_run2.log"). Pure.
 */
export function nameAutoEvalLogs(logs: { fileName: string; k: string; folders: Set<string> }[]): AutoEvalLogIdentity[] {
  const named = logs.map((l) => ({ ...autoEvalJudgeName(l.fileName), ...l }));
  const groups = new Map<string, number[]>();
  named.forEach((l, i) => groups.set(`${l.judge}\u0000${l.k}`, [...(groups.get(`${l.judge}\u0000${l.k}`) ?? []), i]));
  const out: AutoEvalLogIdentity[] = named.map((l) => ({ evaluator: l.judge, run: "" }));
  for (const members of groups.values()) {
    const overlapping = members.some((a, x) => members.some((b, y) => y > x && [...named[a]!.folders].some((f) => named[b]!.folders.has(f))));
    const seen = new Map<string, number>();
    for (const i of members) {
      if (!overlapping && !named[i]!.repeat) continue;
      const n = (seen.get(named[i]!.fileName) ?? 0) + 1;
      seen.set(named[i]!.fileName, n);
      out[i]!.run = `run:${named[i]!.fileName}${n > 1 ? ` #${n}` : ""}`;
    }
  }
  return out;
}

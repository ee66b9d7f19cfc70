/**
 * Writes Online-Mind2Web result folders the ways real runs lay them out (../shared/docs/trajectory-formats.md §8.1):
 * `<task_id>/result.json` + numbered screenshots in `trajectory/` (or another folder), Git LFS pointers in place of
 * images, answer-only submissions, runners' step objects, and WebJudge result files.
 */
import fs from "node:fs";
import path from "node:path";
import { tinyPng } from "./webvoyager-fixture";

export const LFS_POINTER =
  "version https://git-lfs.github.com/spec/v1\noid sha256:4b5ac2caa039fea7ccc6bdd60ddabee1e8899e461ef7e7cfb9ae595fa0594eec\nsize 391682\n";

export interface Om2wTaskSpec {
  /** Folder name (defaults to the task id). */
  folder?: string;
  result: Record<string, unknown> | string;
  /** Screenshot numbers to write, in `shotFolder` (default `trajectory`), named by `name(n)`. */
  shots?: number[];
  shotFolder?: string;
  name?: (n: number) => string;
  /** Numbers written as Git LFS pointer files instead of images. */
  lfs?: number[];
  /** Image width × height (default 64×48). */
  size?: [number, number];
}

export async function writeOm2wTask(runDir: string, spec: Om2wTaskSpec, seed = 1): Promise<string> {
  const id = typeof spec.result === "string" ? (spec.folder ?? "task") : String(spec.result.task_id ?? spec.folder);
  const dir = path.join(runDir, spec.folder ?? id);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "result.json"), typeof spec.result === "string" ? spec.result : JSON.stringify(spec.result, null, 4));
  if (spec.shots?.length) {
    const shots = path.join(dir, spec.shotFolder ?? "trajectory");
    fs.mkdirSync(shots, { recursive: true });
    for (const n of spec.shots) {
      const file = path.join(shots, (spec.name ?? ((k) => `${k}_full_screenshot.png`))(n));
      if (spec.lfs?.includes(n)) fs.writeFileSync(file, LFS_POINTER);
      else fs.writeFileSync(file, await tinyPng(seed * 31 + n, spec.size?.[0], spec.size?.[1]));
    }
  }
  return dir;
}

/** One WebJudge row for a task, scoring `scores.length` screenshots. */
export function webJudgeRow(taskId: string, label: 0 | 1 | null, scores: number[], keyPoints = "\n1. First key point\n2. Second key point") {
  return {
    task_id: taskId,
    task: "(copied from result.json)",
    image_judge_record: scores.map((s, i) => ({ Response: `Reasoning for screenshot ${i}.\nScore: ${s}`, Score: s })),
    key_points: keyPoints,
    input_text: "User Task: …",
    system_msg: "You are an expert …",
    evaluation_details: { response: `Thoughts: judged.\nStatus: "${label === 1 ? "success" : "failure"}"`, predicted_label: label },
    predicted_label: label,
  };
}

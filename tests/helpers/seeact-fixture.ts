/**
 * Writes SeeAct output folders the way its two runners do (../shared/docs/trajectory-formats.md §3):
 * the research tool's `<task_id>/result.json` + `image_inputs/<t>_<batch>_crop.jpg` + `<task_id>.log` +
 * `config.toml`, and the pip package's `<YYYYmmdd_HHMMSS>/all_predictions.json` + `screenshots/screen_<t>.png` +
 * `result.json`.
 */
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { tinyPng } from "./webvoyager-fixture";

export async function tinyJpeg(seed: number, width = 64, height = 96): Promise<Buffer> {
  const channel = (k: number) => (seed * 53 + k * 89) % 256;
  return sharp({ create: { width, height, channels: 3, background: { r: channel(1), g: channel(2), b: channel(3) } } })
    .jpeg({ quality: 80 })
    .toBuffer();
}

export interface ResearchTaskSpec {
  taskId: string;
  task: string;
  website: string;
  history: string[];
  exitBy: string;
  successOrNot?: string;
  /** Crop batches per time step (1-based t → batch count); a missing t leaves a gap. */
  batches: Record<number, number>;
  /** Model reasoning per time step, written to the log. */
  thoughts?: Record<number, string>;
}

const TOML = `[basic]
is_demo = false
save_file_dir = "../online_results"

[experiment]
max_op = 30 # Maximum number of operations
max_continuous_no_op = 2

[openai]
api_key = "sk-test-not-a-real-key"
rate_limit = -1
model = "gpt-4-vision-preview"
temperature = 0
`;

function logText(spec: ResearchTaskSpec): string {
  const ts = "2024-03-01 12:00:00,000";
  const lines = [`${ts} - website: ${spec.website}`, `${ts} - task: ${spec.task}`, `${ts} - id: ${spec.taskId}`];
  const steps = Math.max(0, ...Object.keys(spec.batches).map(Number), ...Object.keys(spec.thoughts ?? {}).map(Number));
  for (let t = 1; t <= steps; t++) {
    lines.push(`${ts} - ==========`, `${ts} - Time step: ${t}`, `${ts} - ----------`);
    for (let b = 0; b < (spec.batches[t] ?? 1); b++) {
      lines.push(`${ts} - ----------`, `${ts} - Start Multi-Choice QA - Batch ${b}`, `${ts} - ----------`, `${ts} - 🤖Action Generation Output🤖`);
      const thought = b === (spec.batches[t] ?? 1) - 1 ? spec.thoughts?.[t] : `batch ${b}: nothing here`;
      for (const l of (thought ?? "").split("\n")) lines.push(`${ts} - ${l}`);
      lines.push(`${ts} - ----------`, `${ts} - (Multichoice Question) - Batch ${b}`, `${ts} - A. <button id=0>Search</button>`);
    }
  }
  return lines.join("\n") + "\n";
}

export async function writeSeeActResearch(saveDir: string, tasks: ResearchTaskSpec[], seed = 1): Promise<string> {
  let s = seed;
  for (const spec of tasks) {
    const dir = path.join(saveDir, spec.taskId);
    fs.mkdirSync(path.join(dir, "image_inputs"), { recursive: true });
    fs.writeFileSync(
      path.join(dir, "result.json"),
      JSON.stringify(
        {
          confirmed_task: spec.task,
          website: spec.website,
          task_id: spec.taskId,
          success_or_not: spec.successOrNot ?? "",
          num_step: spec.history.length,
          action_history: spec.history,
          exit_by: spec.exitBy,
        },
        null,
        4,
      ),
    );
    fs.writeFileSync(path.join(dir, "config.toml"), TOML);
    fs.writeFileSync(path.join(dir, `${spec.taskId}.log`), logText(spec));
    for (const [t, n] of Object.entries(spec.batches)) {
      for (let b = 0; b < n; b++) fs.writeFileSync(path.join(dir, "image_inputs", `${t}_${b}_crop.jpg`), await tinyJpeg(s++));
    }
  }
  return saveDir;
}

export interface PackageSessionSpec {
  folder: string;
  tasks: string[];
  website: string;
  predictions: unknown[];
  history: string[];
  /** Screens to write (1-based t); default one per prediction. */
  screens?: number[];
  grounding?: string;
}

export async function writeSeeActPackage(saveDir: string, sessions: PackageSessionSpec[], seed = 50): Promise<string> {
  let s = seed;
  for (const spec of sessions) {
    const dir = path.join(saveDir, spec.folder);
    fs.mkdirSync(path.join(dir, "screenshots"), { recursive: true });
    fs.writeFileSync(path.join(dir, "all_predictions.json"), JSON.stringify(spec.predictions, null, 4));
    fs.writeFileSync(
      path.join(dir, "result.json"),
      JSON.stringify({ task: spec.tasks, website: spec.website, num_step: spec.history.length, action_history: spec.history }, null, 4),
    );
    fs.writeFileSync(path.join(dir, "action_history.txt"), spec.history.join("\n") + "\n");
    fs.writeFileSync(
      path.join(dir, "config.toml"),
      `[basic]\nsave_file_dir = "seeact_agent_files"\n\n[agent]\ngrounding_strategy = "${spec.grounding ?? "text_choice_som"}"\nmax_auto_op = 50\n\n[openai]\nmodel = "gpt-4o"\ntemperature = 0.9\n`,
    );
    const screens = spec.screens ?? spec.predictions.map((_, i) => i + 1);
    for (const t of screens) fs.writeFileSync(path.join(dir, "screenshots", `screen_${t}.png`), await tinyPng(s++, 128, 72));
  }
  return saveDir;
}

export function packageElement(description: string, box: [number, number, number, number], extra: Record<string, unknown> = {}) {
  const [x, y, w, h] = box;
  return {
    center_point: [Number(((x + w / 2) / 1280).toFixed(3)), Number(((y + h / 2) / 720).toFixed(3))],
    description,
    tag_with_role: 'button type="submit"',
    box_raw: box,
    box: [x, y, x + w, y + h],
    selector: `<Locator frame=<Frame name= url='https://www.example.com/'> selector='internal:role=button >> nth=3'>`,
    tag: "button",
    ...extra,
  };
}

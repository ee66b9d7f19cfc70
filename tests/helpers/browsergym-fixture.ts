/**
 * Writes BrowserGym/AgentLab experiment folders and AgentRewardBench dataset trees the way their writers do
 * (../shared/docs/trajectory-formats.md §4–5). Pickles are stand-in bytes: Verdict must never open them.
 */
import fs from "node:fs";
import path from "node:path";
import { tinyJpeg } from "./seeact-fixture";
import { tinyPng } from "./webvoyager-fixture";

export interface ExperimentSpec {
  date?: string;
  agent: string;
  task: string;
  seed: number;
  /** Steps with a screenshot_step_<k>.png. */
  screenshots: number[];
  /** Steps saved as .jpg instead. */
  jpg?: number[];
  /** Steps with a screenshot_som_step_<k>.png. */
  som?: number[];
  /** Steps with a step_<k>.pkl.gz. */
  pickles?: number[];
  /** summary_info.json content; null = no file. */
  summary: Record<string, unknown> | null;
  stepsInfo?: unknown;
  /** experiment.log content (default: the "Running experiment" line only). */
  log?: string;
  /** Folder name as a user left it (renamed); default experimentDirName(spec). */
  dirName?: string;
}

/** Bytes that would fail loudly if anything tried to unpickle or even gunzip them. */
const NOT_A_PICKLE = Buffer.from("this is not a pickle; Verdict must never open step pickles\n");

export function experimentDirName(spec: ExperimentSpec): string {
  return `${spec.date ?? "2024-08-01_10-20-52"}_${spec.agent}_on_${spec.task}_${spec.seed}`;
}

export async function writeExperiment(study: string, spec: ExperimentSpec, seed = 1): Promise<string> {
  const dir = path.join(study, spec.dirName ?? experimentDirName(spec));
  fs.mkdirSync(dir, { recursive: true });
  let s = seed;
  for (const k of spec.screenshots) fs.writeFileSync(path.join(dir, `screenshot_step_${k}.png`), await tinyPng(s++, 128, 72));
  for (const k of spec.jpg ?? []) fs.writeFileSync(path.join(dir, `screenshot_step_${k}.jpg`), await tinyJpeg(s++, 128, 72));
  for (const k of spec.som ?? []) fs.writeFileSync(path.join(dir, `screenshot_som_step_${k}.png`), await tinyPng(s++ + 500, 128, 72));
  for (const k of spec.pickles ?? spec.screenshots) fs.writeFileSync(path.join(dir, `step_${k}.pkl.gz`), NOT_A_PICKLE);
  fs.writeFileSync(path.join(dir, "exp_args.pkl"), NOT_A_PICKLE);
  fs.writeFileSync(path.join(dir, "goal_object.pkl.gz"), NOT_A_PICKLE);
  fs.writeFileSync(path.join(dir, "package_versions.txt"), "browsergym==0.13.0\nagentlab==0.3.2\n");
  fs.writeFileSync(path.join(dir, "experiment.log"), spec.log ?? "2024-08-01 10:20:52,000 - 4242 - agentlab - INFO - Running experiment\n");
  if (spec.summary) fs.writeFileSync(path.join(dir, "summary_info.json"), JSON.stringify(spec.summary, null, 4));
  if (spec.stepsInfo !== undefined) fs.writeFileSync(path.join(dir, "steps_info.json"), JSON.stringify(spec.stepsInfo));
  return dir;
}

/**
 * experiment.log as BrowserGym's loop writes it: the "Running experiment" record, the agent's prompt with its
 * `# Goal` section, an `action:` record per step (prose around a fenced call, or the bare call), HTTP noise, and
 * the uncaught-exception warning when the run crashed.
 */
export function experimentLog(spec: { expName: string; goal: string; actions: string[]; crash?: string }): string {
  let t = 0;
  const rec = (logger: string, level: string, msg: string) =>
    `2024-12-18 12:51:${String(t++ % 60).padStart(2, "0")},610 - 20100 - ${logger} - ${level} - ${msg}\n`;
  let out = rec("browsergym.experiments.loop", "INFO", `Running experiment ${spec.expName} in:\n  results/2024-12-18_12-51-50_${spec.expName}`);
  for (const action of spec.actions) {
    out += rec(
      "agent",
      "INFO",
      `# Instructions\n\nReview the current state of the page.\n\n# Goal\n\n${spec.goal}\n# Currently open tabs\n\nTab 0 (active tab)\n  URL: http://localhost/\n\n# Action Space\n\nnoop(wait_ms: float = 1000)\n    Examples:\n        noop()\n`,
    );
    out += rec("httpx", "INFO", 'HTTP Request: POST https://api.openai.com/v1/chat/completions "HTTP/1.1 200 OK"');
    out += rec("browsergym.experiments.loop", "INFO", `action:\n${action}\n`);
  }
  if (spec.crash)
    out += rec(
      "browsergym.experiments.loop",
      "WARNING",
      `Exception uncaught by agent or environment in task x.\n${spec.crash}\nTraceback (most recent call last):\n  File "loop.py", line 1\n`,
    );
  out += rec("browsergym.experiments.loop", "INFO", "Saving summary info.");
  return out;
}

export function summary(nSteps: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    n_steps: nSteps,
    cum_reward: 0.0,
    cum_raw_reward: 0,
    err_msg: null,
    stack_trace: null,
    "stats.cum_steps": nSteps,
    "stats.cum_step_elapsed": 8.8,
    terminated: true,
    truncated: false,
    ...over,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// AgentRewardBench

export interface ArbStepSpec {
  action: string | null;
  reasoning?: string | null;
  url?: string;
  lastActionError?: string;
  /** bid → [bbox, set_of_marks] */
  elements?: Record<string, [[number, number, number, number] | null, boolean]>;
  axtreePruned?: string;
  /** Bytes of filler in the dropped fields (axtree_obj, axtree, chat_messages). */
  filler?: number;
}

export interface ArbSpec {
  benchmark: string;
  agent: string;
  experiment: string;
  taskId: string;
  goal: string | null;
  model?: string;
  summary?: Record<string, unknown> | null;
  steps: ArbStepSpec[];
  /** Steps whose screenshot file is written. */
  screenshots: number[];
}

export function arbStep(spec: ArbSpec, k: number, s: ArbStepSpec): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  for (const [bid, [bbox, marked]] of Object.entries(s.elements ?? {})) {
    props[bid] = { visibility: 1.0, bbox, clickable: true, set_of_marks: marked };
  }
  const filler = "x".repeat(s.filler ?? 200);
  return {
    num: k,
    reasoning: s.reasoning ?? null,
    action: s.action,
    screenshot_path: `trajectories/screenshots/${spec.benchmark}/${spec.agent}/${spec.taskId}/screenshot_step_${k}.png`,
    url: s.url ?? "http://localhost:9999/",
    open_pages_urls: [s.url ?? "http://localhost:9999/"],
    focused_element: "",
    last_action_error: s.lastActionError ?? "",
    stats: { step_elapsed: 1.25, agent_elapsed: 0.8 },
    axtree: `RootWebArea 'Page' ${filler}`,
    axtree_obj: { nodes: [{ nodeId: "1", role: { value: "RootWebArea" }, name: { value: filler } }] },
    axtree_pruned: s.axtreePruned ?? "",
    chat_messages: [
      {
        role: "user",
        content: [
          { type: "text", text: filler },
          { type: "image_url", image_url: "REMOVED" },
        ],
      },
    ],
    bounding_boxes: props,
    extra_element_properties: props,
  };
}

export function arbTrajectory(spec: ArbSpec): Record<string, unknown> {
  return {
    benchmark: spec.benchmark,
    agent: spec.agent,
    model: spec.model ?? "gpt-4o-2024-11-20",
    valid: true,
    experiment: spec.experiment,
    goal: spec.goal,
    seed: 23,
    model_args: { model_name: spec.model ?? "gpt-4o-2024-11-20", temperature: 0.1, vision_support: true },
    flags: { obs: { use_screenshot: true, use_som: false }, action: { multiaction: false } },
    summary_info: spec.summary === undefined ? summary(spec.steps.length - 1, { cum_reward: 1.0 }) : spec.summary,
    package_version: "0.3.2",
    steps: spec.steps.map((s, k) => arbStep(spec, k, s)),
  };
}

/** Writes `<root>/trajectories/{cleaned,screenshots}/…` for one trajectory; returns the trajectory file. */
export async function writeArb(root: string, spec: ArbSpec, seed = 1): Promise<string> {
  const file = path.join(root, "trajectories", "cleaned", spec.benchmark, spec.agent, spec.experiment, `${spec.taskId}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(arbTrajectory(spec)));
  const shots = path.join(root, "trajectories", "screenshots", spec.benchmark, spec.agent, spec.taskId);
  fs.mkdirSync(shots, { recursive: true });
  let s = seed;
  for (const k of spec.screenshots) fs.writeFileSync(path.join(shots, `screenshot_step_${k}.png`), await tinyPng(s++, 160, 90));
  return file;
}

export function writeJudgment(
  root: string,
  spec: Pick<ArbSpec, "benchmark" | "agent" | "taskId">,
  judge: string,
  body: Record<string, unknown>,
  suffix = "",
): string {
  const file = path.join(root, "trajectories", "judgments", spec.benchmark, spec.agent, judge, `${spec.taskId}${suffix}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(body));
  return file;
}

export function judgeResponse(judge: string, content: string): Record<string, unknown> {
  return {
    benchmark: "visualwebarena",
    goal: "…",
    agent: "GenericAgent-gpt-4o-2024-11-20",
    judge,
    judge_model_name: "gpt-4o-2024-11-20",
    provider: "openai",
    judge_args: { use_screenshot: true, use_axtree: false },
    completion_args: { temperature: 0.0, seed: 0 },
    cost: { input_price: 0.01 },
    response: { id: "chatcmpl-x", choices: [{ message: { role: "assistant", content } }], usage: { prompt_tokens: 10 } },
    chat_messages: { regular: [{ role: "user", content: "…" }], pruned: [] },
    trajectory_info: { valid: true, model: "gpt-4o", seed: 23, summary_info: { cum_reward: 1.0 } },
  };
}

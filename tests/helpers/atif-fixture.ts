/**
 * ATIF trajectories as other harnesses write them (server/domain/imports/atif.ts): a computer-use agent in Harbor's
 * trial layout (`<job>/<trial>/agent/trajectory.json`, `agent/images/…`, `<trial>/result.json` with the verifier's
 * reward), with screenshots as image content parts in the observations.
 */
import fs from "node:fs";
import path from "node:path";
import { tinyPng } from "./webvoyager-fixture";

export const HARBOR_INSTRUCTION = "Open the pricing page of shop.test and report the price of the Pro plan.";

const image = (p: string) => [{ type: "image", source: { media_type: "image/png", path: p } }];

/** The steps a computer-use agent records: a screenshot call, a click at a point, typing, a scroll, the answer. */
export function computerUseTrajectory(opts: { imageDir?: string; sessionId?: string; model?: string } = {}) {
  const dir = opts.imageDir ?? "images";
  return {
    schema_version: "ATIF-v1.6",
    session_id: opts.sessionId ?? "navigator",
    agent: { name: "navigator", version: "0.1.0", model_name: opts.model ?? "gemini/gemini-3-flash-preview" },
    steps: [
      { step_id: 1, timestamp: "2026-02-09T08:20:01+00:00", source: "system", message: "You operate a browser through tools." },
      { step_id: 2, timestamp: "2026-02-09T08:20:02+00:00", source: "user", message: HARBOR_INSTRUCTION },
      {
        step_id: 3,
        source: "agent",
        message: "",
        tool_calls: [{ tool_call_id: "c1", function_name: "computer_screenshot", arguments: {} }],
        observation: { results: [{ source_call_id: "c1", content: image(`${dir}/step_3_screenshot_1.png`) }] },
        metrics: { prompt_tokens: 2632, completion_tokens: 10 },
      },
      {
        step_id: 4,
        source: "agent",
        message: "The Pricing link is in the header.",
        reasoning_content: "Pricing should list the Pro plan.",
        tool_calls: [{ tool_call_id: "c2", function_name: "computer_click", arguments: { x: 600, y: 475, button: "left" } }],
        observation: {
          results: [{ source_call_id: "c2", content: "OK: pyautogui.click(600, 475, button='left')" }, { content: image(`${dir}/step_4_screenshot_2.png`) }],
        },
      },
      {
        step_id: 5,
        source: "agent",
        message: "",
        tool_calls: [
          { tool_call_id: "c3", function_name: "computer_scroll", arguments: { x: 500, y: 500, direction: "down", amount: 400 } },
          { tool_call_id: "c4", function_name: "computer_type", arguments: { text: "pro plan" } },
        ],
        observation: {
          results: [
            { source_call_id: "c3", content: "Error: element not scrollable" },
            { source_call_id: "c4", content: image(`${dir}/step_5_screenshot_3.png`) },
          ],
        },
      },
      { step_id: 6, source: "agent", message: "The Pro plan costs $29 per month." },
    ],
    final_metrics: { total_steps: 6 },
  };
}

/** A Harbor job folder with one trial per entry: `<job>/<task>__<id>/agent/trajectory.json` + images + result.json. */
export async function writeHarborJob(
  job: string,
  trials: { task: string; id: string; reward: number | null; missingImage?: boolean }[],
  seed = 1,
): Promise<string[]> {
  const out: string[] = [];
  for (const t of trials) {
    const trial = path.join(job, `${t.task}__${t.id}`);
    const agent = path.join(trial, "agent");
    fs.mkdirSync(path.join(agent, "images"), { recursive: true });
    fs.writeFileSync(path.join(agent, "trajectory.json"), JSON.stringify(computerUseTrajectory(), null, 2));
    for (const [i, name] of ["step_3_screenshot_1.png", "step_4_screenshot_2.png", "step_5_screenshot_3.png"].entries()) {
      if (t.missingImage && i === 1) continue;
      fs.writeFileSync(path.join(agent, "images", name), await tinyPng(seed++, 96, 64));
    }
    // Harbor writes a recording and its own logs beside the trajectory; a mini-swe-agent file looks similar by name.
    fs.writeFileSync(path.join(agent, "mini-swe-agent.trajectory.json"), JSON.stringify({ info: {}, messages: [] }));
    fs.writeFileSync(path.join(trial, "trial.log"), "started\n");
    fs.writeFileSync(
      path.join(trial, "result.json"),
      JSON.stringify(
        {
          task_name: t.task,
          trial_name: `${t.task}__${t.id}`,
          source: null,
          verifier_result: t.reward === null ? null : { rewards: { reward: t.reward } },
          exception_info: null,
        },
        null,
        4,
      ),
    );
    out.push(trial);
  }
  fs.writeFileSync(path.join(job, "result.json"), JSON.stringify({ id: "job", n_total_trials: trials.length }));
  return out;
}

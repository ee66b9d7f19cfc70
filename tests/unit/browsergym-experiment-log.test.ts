import { describe, expect, it } from "vitest";
import { parseExpDirName, parseExperimentLog, splitLoggedAction } from "../../server/importers/browsergym";

const rec = (logger: string, level: string, msg: string) => `2025-01-22 11:03:29,100 - 777 - ${logger} - ${level} - ${msg}`;

describe("parseExperimentLog", () => {
  it("collects the experiment name, the goal section, each action record and the crash", () => {
    const log = [
      rec("browsergym.experiments.loop", "INFO", "Running experiment GenericAgent-gpt-4o_on_miniwob.click-dialog_28 in:"),
      "  results/2025-01-22_11-03-29_GenericAgent-gpt-4o_on_miniwob.click-dialog_28",
      rec("agent", "INFO", "# Instructions"),
      "",
      "## Goal:",
      'Click the button in the dialog box labeled "x".',
      "Then close it.",
      "",
      "# Currently open tabs",
      "Tab 0 (active tab)",
      "  Title: Click Dialog",
      "  URL: http://localhost:8000/miniwob/click-dialog.html",
      "# Observation of current step:",
      rec("browsergym.experiments.loop", "INFO", "Agent chose action:"),
      "click('12')",
      rec("httpx", "INFO", 'HTTP Request: POST https://example.test "HTTP/1.1 200 OK"'),
      rec("browsergym.experiments.loop", "INFO", "action: noop()"),
      rec("browsergym.experiments.loop", "WARNING", "Exception uncaught by agent or environment in task miniwob.click-dialog."),
      "ValueError: boom",
      rec("browsergym.experiments.loop", "INFO", "Saving summary info."),
    ].join("\n");
    expect(parseExperimentLog(log)).toEqual({
      expName: "GenericAgent-gpt-4o_on_miniwob.click-dialog_28",
      goal: 'Click the button in the dialog box labeled "x".\nThen close it.',
      actions: ["click('12')", "noop()"],
      // The second action had no prompt logged before it.
      urls: ["http://localhost:8000/miniwob/click-dialog.html", null],
      crash: { message: "Exception uncaught by agent or environment in task miniwob.click-dialog.\nValueError: boom", afterActions: 2 },
    });
  });

  it("keeps only the last run of a log a re-run appended to", () => {
    const run = (goal: string, action: string) => [
      rec("browsergym.experiments.loop", "INFO", "Running experiment A_on_miniwob.x_1 in:"),
      rec("agent", "INFO", `# Goal\n${goal}\n# Action Space`),
      rec("browsergym.experiments.loop", "INFO", `action:\n${action}`),
    ];
    const log = [
      ...run("first goal", "click('1')"),
      rec("browsergym.experiments.loop", "WARNING", "Exception uncaught by agent or environment in task x."),
      ...run("second goal", "click('2')"),
    ].join("\n");
    expect(parseExperimentLog(log)).toEqual({ expName: "A_on_miniwob.x_1", goal: "second goal", actions: ["click('2')"], urls: [null], crash: null });
  });

  it("gives nothing for text that is not a BrowserGym log", () => {
    expect(parseExperimentLog("hello\naction:\nclick('1')\n")).toEqual({ expName: null, goal: null, actions: [], urls: [], crash: null });
  });
});

describe("splitLoggedAction", () => {
  it("takes the fenced calls of a prose answer and keeps the prose as the thought", () => {
    expect(splitLoggedAction("I will search.\n\n```fill('112', 'x')```\n")).toEqual({ thought: "I will search.", code: "fill('112', 'x')" });
    expect(splitLoggedAction("Two steps.\n```python\nclick('1')\n```\nthen\n```click('2')```")).toEqual({
      thought: "Two steps.",
      code: "click('1')\nclick('2')",
    });
    expect(splitLoggedAction("  click('a51')\n")).toEqual({ thought: null, code: "click('a51')" });
  });
});

describe("parseExpDirName", () => {
  it("reads BrowserGym's folder names, AgentLab's re-run index and names users extended after the seed", () => {
    expect(parseExpDirName("2024-12-18_12-51-50_DemoAgentArgs_on_workarena.servicenow.knowledge-base-search_5")).toEqual({
      date: "2024-12-18_12-51-50",
      agent: "DemoAgentArgs",
      task: "workarena.servicenow.knowledge-base-search",
      seed: 5,
    });
    expect(parseExpDirName("2024-08-01_10-20-52_GenericAgent_on_miniwob.ascending-numbers_64_e6d2d5")).toMatchObject({
      task: "miniwob.ascending-numbers",
      seed: 64,
    });
    expect(parseExpDirName("2024-12-18_12-51-50_DemoAgentArgs_on_webarena.310_0 (copy)")).toMatchObject({ task: "webarena.310", seed: 0 });
    expect(parseExpDirName("2024-12-18_12-51-50_DemoAgentArgs_on_webarena.310_3-rerun_final")).toMatchObject({ task: "webarena.310", seed: 3 });
    expect(parseExpDirName("my best run")).toBeNull();
  });
});

/**
 * The folder name AgentLab gives an experiment (ExpArgs.prepare and _make_dir, AgentLab 69cd893): the date, the
 * experiment name `<agent>_on_<task>_<seed>` with / \\ : * ? < > | turned into _, and `_<i>` (i ≥ 1) when a folder of
 * that name already exists. Restated here as the specification the parser is checked against.
 */
function agentLabDirName(date: string, agent: string, task: string, seed: number, existing: Set<string>): string {
  const exp = `${agent}_on_${task}_${seed}`.replace(/[\\/:*?<>|]/g, "_");
  for (let i = 0; ; i++) {
    const name = `${date}_${exp}${i > 0 ? `_${i}` : ""}`;
    if (!existing.has(name)) return name;
  }
}

describe("parseExpDirName against AgentLab's own naming", () => {
  const date = "2025-01-22_11-03-29";
  const cases: [string, string, number][] = [
    ["GenericAgent-gpt-4o-mini", "workarena.servicenow.DL_01", 0],
    ["GenericAgent-gpt-4o-mini", "workarena.servicenow.DL_01", 12],
    ["GenericAgent-anthropic_claude-3.7-sonnet", "miniwob.click-dialog", 28],
    ["GenericAgent-meta-llama_Llama-3.3-70B-Instruct", "webarena.310", 0],
    ["MyAgent", "custom.task_2024_07", 3],
    ["MyAgent", "assistantbench.improved.validation.17", 4281554102],
  ];
  it.each(cases)("%s on %s, seed %i", (agent, task, seed) => {
    const name = agentLabDirName(date, agent, task, seed, new Set());
    expect(parseExpDirName(name, false)).toEqual({ date, agent, task, seed });
  });

  it("a second folder of the same name within the same second is the same experiment (AgentLab's _1 suffix)", () => {
    const existing = new Set<string>();
    const first = agentLabDirName(date, "A", "workarena.servicenow.DL_01", 0, existing);
    existing.add(first);
    const second = agentLabDirName(date, "A", "workarena.servicenow.DL_01", 0, existing);
    existing.add(second);
    expect(second).toBe(`${first}_1`);
    expect(parseExpDirName(second, false, existing)).toEqual({ date, agent: "A", task: "workarena.servicenow.DL_01", seed: 0 });
    // Alone, the same name is task …DL_01_0 with seed 1: nothing shows the suffix.
    expect(parseExpDirName(second, false)).toMatchObject({ task: "workarena.servicenow.DL_01_0", seed: 1 });
  });

  it("BrowserGym's 2024 runner's six-digit hex id after the seed", () => {
    expect(parseExpDirName(`${date}_A_on_miniwob.click-test_7_0a1b2c`, false)).toMatchObject({ task: "miniwob.click-test", seed: 7 });
    // All digits: a hex id only when the study's other folders show hex ids.
    const siblings = new Set([`${date}_A_on_miniwob.click-test_7_0a1b2c`]);
    expect(parseExpDirName(`${date}_A_on_miniwob.click-test_8_123456`, false, siblings)).toMatchObject({ task: "miniwob.click-test", seed: 8 });
    expect(parseExpDirName(`${date}_A_on_miniwob.click-test_8_123456`, false)).toMatchObject({ task: "miniwob.click-test_8", seed: 123456 });
  });
});

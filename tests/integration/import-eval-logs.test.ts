/**
 * Evaluator logs always land or say why: a WebVoyager auto-evaluation log that names its run folder as it was before
 * a fork renamed it still gives every trajectory its verdict (matched by task folder), each log's report says how
 * many blocks matched and names the others with the reason, evaluators are named from file names (never a path),
 * and several logs of one judge are stored as runs of it, whose run-to-run consistency is measured.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listVerdicts } from "../../db/repositories/evaluation/verdicts";
import { runCli } from "../../server/cli/main";
import { judgeRunConsistencies } from "../../server/services/analytics/judge-consistency";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, type TestContext } from "../helpers/context";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";

let ctx: TestContext;
beforeEach(() => {
  ctx = createTestContext("verdict-eval-logs-");
});
afterEach(async () => {
  await ctx.cleanup();
});

const header = (dir: string) => `--------------------- ${dir} ---------------------`;
const judged = (dir: string, res: "1" | "0") =>
  [
    header(dir),
    "Calling gpt4v API to get the auto evaluation......",
    "{'role': 'user', 'content': [{'type': 'text', 'text': 'TASK: t\\nResult Response: r\\n15 screenshots at the end: '}]}",
    res === "1" ? "SUCCESS" : "NOT SUCCESS",
    `Auto_eval_res: ${res}`,
    "",
  ].join("\n");
const noAnswer = (dir: string) => [header(dir), `Not find answer for ${dir}`, ""].join("\n");
const interrupted = (dir: string) => [header(dir), "Calling gpt4v API to get the auto evaluation......", ""].join("\n");

/** A fork's results: one run folder renamed after the evaluator ran (the log still names the old folder). */
async function fork() {
  const root = path.join(ctx.dir, "webvoyager_fork");
  const t = (n: number, answer: boolean) => ({
    id: `amazon--${n}`,
    intent: `Amazon task ${n}.`,
    url: "https://www.amazon.com/",
    actions: answer ? ["Click [0]", `ANSWER; item ${n}`] : ["Click [0]"],
  });
  await writeWebVoyagerFixture(path.join(root, "results", "20250414_gpt4o_final"), [t(1, true), t(2, true), t(3, true), t(4, false)], 5);
  return root;
}
const OLD = "results/20250414_14_44_45";

async function cli(argv: string[]) {
  let out = "";
  let err = "";
  const code = await runCli(argv, {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    interactive: false,
    env: { ...process.env, VERDICT_DB: ctx.config.dbPath, VERDICT_DATA_DIR: ctx.dir },
    cwd: ctx.dir,
  });
  return { code, out, err };
}

describe("auto-evaluation logs", () => {
  it("a log naming the run folder before the fork renamed it lands by task folder, and the report accounts for every block", async () => {
    const root = await fork();
    const log = path.join(ctx.dir, "judge-output", "gpt4o.log");
    fs.mkdirSync(path.dirname(log), { recursive: true });
    fs.writeFileSync(
      log,
      [
        judged(`${OLD}/taskamazon--1`, "1"),
        judged(`${OLD}/taskamazon--2`, "0"),
        interrupted(`${OLD}/taskamazon--3`),
        judged(`${OLD}/taskamazon--3`, "1"),
        noAnswer(`${OLD}/taskamazon--4`),
        judged(`${OLD}/taskamazon--9`, "1"),
      ].join(""),
    );
    const report = await runImport(ctx, { path: root, evalLogs: [log] });
    expect(report.created).toBe(4);
    expect(report.verdicts).toBe(4);
    expect(report.evaluatorLogs).toEqual([
      {
        file: log,
        evaluator: "webvoyager:auto_eval (gpt4o.log)",
        run: "",
        blocks: 6,
        matched: 4,
        verdicts: { success: 2, failure: 2 },
        unmatched: [
          { block: `${OLD}/taskamazon--9`, reason: "no task folder taskamazon--9 in this import" },
          { block: `${OLD}/taskamazon--3`, reason: 'has no "Auto_eval_res:" line (the evaluator stopped before it gave a result)' },
        ],
      },
    ]);
    const rows = (await listVerdicts(ctx.db)).map((v) => [v.evaluatorName, v.k, v.verdict]).sort();
    expect(rows).toEqual([
      ["webvoyager:auto_eval (gpt4o.log)", "15", "failure"],
      ["webvoyager:auto_eval (gpt4o.log)", "15", "failure"],
      ["webvoyager:auto_eval (gpt4o.log)", "15", "success"],
      ["webvoyager:auto_eval (gpt4o.log)", "15", "success"],
    ]);

    // The command line says the same in words, with the verdict counts.
    const again = await cli(["import", root, "--eval-log", log, "--no-warm"]);
    expect(again.code).toBe(0);
    expect(again.err).toContain(`${log}: webvoyager:auto_eval (gpt4o.log): 4 of 6 blocks matched (2 success, 2 failure)`);
    expect(again.err).toContain(`not matched: ${OLD}/taskamazon--9: no task folder taskamazon--9 in this import`);
  });

  it("a log that matches nothing says so as a warning instead of passing in silence", async () => {
    const root = await fork();
    const log = path.join(ctx.dir, "other.log");
    fs.writeFileSync(log, judged("results/run/taskgoogle--1", "1"));
    const report = await runImport(ctx, { path: root, evalLogs: [log] });
    expect(report.verdicts).toBe(0);
    expect(report.warnings).toEqual([
      {
        path: log,
        message: "none of its 1 blocks matched a trajectory of this import (results/run/taskgoogle--1: no task folder taskgoogle--1 in this import)",
      },
    ]);
  });

  it("several logs of one judge are stored as its runs, and their run-to-run consistency is measured", async () => {
    const root = await fork();
    const dir = path.join(root, "evaluation");
    fs.mkdirSync(dir);
    // Run 1: S F S F; run 2: S S S F. Hand-worked: 1 flip of 4 (25%); Cohen κ = (0.75 − 0.5) / 0.5 = 0.5;
    // Fleiss κ: P̄ = 0.75, P̄e = (5/8)² + (3/8)² = 0.53125, κ = 0.21875 / 0.46875 = 0.4667.
    const runOf = (verdicts: ("1" | "0")[]) => verdicts.map((v, i) => judged(`${OLD}/taskamazon--${i + 1}`, v)).join("");
    fs.writeFileSync(path.join(dir, "gpt4o_run1.log"), runOf(["1", "0", "1", "0"]));
    fs.writeFileSync(path.join(dir, "gpt4o_run2.log"), runOf(["1", "1", "1", "0"]));
    const report = await runImport(ctx, { path: root });
    expect(report.evaluatorLogs.map((l) => [path.basename(l.file), l.evaluator, l.run, l.matched])).toEqual([
      ["gpt4o_run1.log", "webvoyager:auto_eval (gpt4o.log)", "run:gpt4o_run1.log", 4],
      ["gpt4o_run2.log", "webvoyager:auto_eval (gpt4o.log)", "run:gpt4o_run2.log", 4],
    ]);
    const [c] = await judgeRunConsistencies(ctx.db);
    expect(c).toMatchObject({
      evaluatorName: "webvoyager:auto_eval (gpt4o.log)",
      k: "15",
      runs: ["run:gpt4o_run1.log", "run:gpt4o_run2.log"],
      items: 4,
      flips: 1,
      flipRate: 0.25,
    });
    expect(c!.pairs[0]!.kappa).toBeCloseTo(0.5, 12);
    expect(c!.fleissKappa).toBeCloseTo(0.21875 / 0.46875, 12);

    const out = await cli(["judge-consistency", "--json"]);
    expect(JSON.parse(out.out).judges[0]).toMatchObject({ flips: 1, items: 4 });
    const text = await cli(["judge-consistency"]);
    expect(text.out).toContain("flip rate 25.0% (1 of 4)");
    expect(text.out).toMatch(/gpt4o_run1\.log\s+gpt4o_run2\.log\s+4\s+1\s+0\.500/);
  });

  it("logs of the same file name judging the same folders are told apart by a number, never by their folders", async () => {
    const root = await fork();
    for (const [folder, verdict] of [
      ["evaluation", "1"],
      ["eval_results", "0"],
    ] as const) {
      fs.mkdirSync(path.join(root, folder));
      fs.writeFileSync(path.join(root, folder, "evaluation.log"), judged(`${OLD}/taskamazon--1`, verdict));
    }
    const report = await runImport(ctx, { path: root });
    expect(report.evaluatorLogs.map((l) => [l.evaluator, l.run]).sort()).toEqual([
      ["webvoyager:auto_eval", "run:evaluation.log"],
      ["webvoyager:auto_eval", "run:evaluation.log #2"],
    ]);
    const names = (await listVerdicts(ctx.db)).map((v) => `${v.evaluatorName} ${v.promptVersion}`);
    expect(names.some((n) => n.includes("/") || n.includes("eval_results"))).toBe(false);
  });

  it("a log inside each run folder judges that run only, and logs that judge different runs are one evaluator", async () => {
    const root = await fork();
    await writeWebVoyagerFixture(
      path.join(root, "results", "20250415_claude"),
      [{ id: "amazon--1", intent: "Amazon task 1.", url: "https://www.amazon.com/", actions: ["ANSWER; other"] }],
      50,
    );
    // auto_eval.py run inside each run folder prints bare task folders.
    fs.writeFileSync(path.join(root, "results", "20250414_gpt4o_final", "evaluation.log"), judged("taskamazon--1", "1"));
    fs.writeFileSync(path.join(root, "results", "20250415_claude", "evaluation.log"), judged("taskamazon--1", "0"));
    const report = await runImport(ctx, { path: root });
    expect(report.evaluatorLogs.map((l) => [l.evaluator, l.run, l.matched])).toEqual([
      ["webvoyager:auto_eval", "", 1],
      ["webvoyager:auto_eval", "", 1],
    ]);
    const byRun = new Map(report.trajectories.filter((t) => t.externalTaskId === "amazon--1").map((t) => [t.sourcePath.split("/")[2], t.id]));
    const verdicts = await listVerdicts(ctx.db);
    expect(verdicts.find((v) => v.trajectoryId === byRun.get("20250414_gpt4o_final"))!.verdict).toBe("success");
    expect(verdicts.find((v) => v.trajectoryId === byRun.get("20250415_claude"))!.verdict).toBe("failure");
  });
});

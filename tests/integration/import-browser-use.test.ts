/**
 * Browser Use histories: both generations of its history files, one file or a folder of them, screenshots inside the
 * file, beside it or in a folder given with --screenshots (never followed to another machine's path), the element
 * index, click point and XPath kept, `done` as the answer with its success as the agent's own claim, and its trace
 * judge as a verdict.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listVerdicts } from "../../db/repositories/evaluation/verdicts";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { detectImporter } from "../../server/importers/registry";
import { runImport } from "../../server/services/imports/ingest";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { newHistory, oldHistory, writeScreens } from "../helpers/browser-use-fixture";
import type { TestContext } from "../helpers/context";
import { LFS_POINTER } from "../helpers/online-mind2web-fixture";

let ctx: TestContext;
const TASK_ID = "005be9dd91c95669d6ddde9ae667125c";
const TASK = "Find the price of the green wireless controller on ShopSite.";

function write(file: string, data: unknown) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(data, null, 2));
  return file;
}

describeEachBackend("Browser Use histories", (backend) => {
  beforeEach(async () => {
    ctx = await createBackendContext(backend);
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  it("reads an older release's history: inline screenshots, element boxes scaled to the screenshot, done as the answer", async () => {
    const file = write(path.join(ctx.dir, "runs", "gpt-4o", `${TASK_ID}.json`), { task: TASK, ...(await oldHistory()) });
    expect((await detectImporter(file)).format).toBe("browser-use");
    const report = await runImport(ctx, { path: file });
    expect(report.skipped).toEqual([]);
    const [t] = report.trajectories;
    expect(t).toMatchObject({ externalTaskId: TASK_ID, steps: 4, screenshots: 4, finalAnswer: "The controller costs $59.99" });
    const d = (await getTrajectoryDetail(ctx.db, t!.id))!;
    expect([d.taskSet.name, d.task.intent, d.run.name, d.run.agentName]).toEqual(["Browser Use tasks", TASK, "gpt-4o", "Browser Use"]);
    expect(d.trajectory.outcome).toBe("answered");
    expect(d.trajectory.outcomeDetail).toBe("the agent reported success (its own claim, not a verdict)");
    // Two actions in one step: one multi-call action, each call with its element index.
    expect(d.steps[1]!.action).toEqual({
      type: "type",
      target: "5",
      value: "green controller",
      submit: false,
      calls: [
        { type: "type", target: "5", value: "green controller", submit: false },
        { type: "click", target: "6" },
      ],
    });
    // The viewport is 1280 wide, the screenshots 2560: boxes double.
    expect(d.steps[1]!.elements).toEqual([
      { label: "5", bbox: [400, 34, 840, 72], tag: "input", text: "Search ShopSite", xpath: "html/body/div[1]/input[5]" },
      { label: "6", bbox: [1256, 34, 128, 72], tag: "button", text: "Search", xpath: "html/body/div[1]/button[6]" },
    ]);
    expect(d.steps[2]!.action).toEqual({ type: "scroll", direction: "down", target: null, delta: [0, 400] });
    expect(d.steps[3]!.action).toEqual({ type: "answer", value: "The controller costs $59.99" });
    expect(d.steps[1]!.thought).toBe(
      "Evaluation of the previous goal: Success - the shop is open\nMemory: On the home page\nNext goal: Search for the controller",
    );
    expect(d.steps.map((s) => s.url)).toEqual([
      "about:blank",
      "https://shop.example.test/",
      "https://shop.example.test/s?k=green",
      "https://shop.example.test/p/1",
    ]);
    expect(d.steps[0]!.durationMs).toBe(2500);
    // The success claim is not a verdict.
    expect(await listVerdicts(ctx.db, { trajectoryId: t!.id })).toEqual([]);

    const again = await runImport(ctx, { path: file });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 1]);
  });

  it("reads a newer release's history: the task from the state message, click points, XPaths, screenshots beside the file by name, its judge", async () => {
    const dir = path.join(ctx.dir, "bu-runs");
    const file = write(path.join(dir, "history.json"), newHistory(TASK));
    await writeScreens(path.join(dir, "screenshots"), [1, 2, 3]);
    const report = await runImport(ctx, { path: file });
    const [t] = report.trajectories;
    expect(t).toMatchObject({ steps: 4, screenshots: 3, finalAnswer: "It is not sold here." });
    const d = (await getTrajectoryDetail(ctx.db, t!.id))!;
    expect(d.task.intent).toBe(TASK);
    expect(d.task.externalId).toMatch(/^browser-use\.[0-9a-f]{12}$/);
    expect(d.steps[1]!.action).toEqual({ type: "click", target: "12", coords: [660, 35] });
    expect(d.steps[1]!.elements).toEqual([{ label: "12", bbox: [628, 17, 64, 36], tag: "button", text: "Search", xpath: "html/body/header/form/button" }]);
    expect(d.steps[1]!.thought).toBe("Evaluation of the previous goal: Shop open\nMemory: Home\nNext goal: Click the search button");
    expect(d.steps[0]!.thought).toMatch(/^The task asks for the price\.\nEvaluation of the previous goal: Start/);
    expect(d.steps[2]!.action).toMatchObject({
      type: "scroll",
      direction: "down",
      value: "0.5 pages",
      calls: [{ type: "scroll" }, { type: "unparsed", parseError: 'Browser Use action "teleport" is not one Verdict knows' }],
    });
    expect(d.steps[2]!.error).toBe("Action teleport is not registered");
    expect(d.trajectory.outcomeDetail).toBe("the agent reported failure (its own claim, not a verdict)");
    const verdicts = await listVerdicts(ctx.db, { trajectoryId: t!.id });
    expect(verdicts.map((v) => [v.evaluatorName, v.verdict, v.rationale])).toEqual([
      ["Browser Use judge", "failure", "The shop does sell it; the agent gave up.\nFailure: Stopped early"],
    ]);
    expect(report.warnings).toEqual([]);
  });

  it("never follows another machine's screenshot paths: --screenshots DIR supplies them, else a warning names what is missing", async () => {
    // The history names files under the test's own folder, which exist: they must still not be read from there.
    const machine = path.join(ctx.dir, "machine", "screenshots");
    await writeScreens(machine, [1, 2, 3]);
    const dir = path.join(ctx.dir, "shared-run");
    const file = write(path.join(dir, `${TASK_ID}.json`), newHistory(TASK, machine));
    const without = await runImport(ctx, { path: dir });
    expect(without.trajectories[0]).toMatchObject({ screenshots: 0 });
    expect(without.warnings.map((w) => w.message)).toEqual([
      `3 of 4 screenshots named in the history were not found (looked in shared-run): step_1.png, step_2.png, step_3.png; give their folder with --screenshots DIR`,
    ]);
    fs.rmSync(path.join(ctx.dir, "machine"), { recursive: true });
    const given = path.join(ctx.dir, "downloaded");
    await writeScreens(path.join(given, TASK_ID), [1, 2, 3]);
    const withDir = await runImport(ctx, { path: file, screenshotsDir: given });
    expect(withDir.trajectories[0]).toMatchObject({ screenshots: 3, status: "updated" });
    expect(withDir.warnings).toEqual([]);
  });

  it("imports a folder of histories at any depth, joins a task list by file name, and lists what it cannot read", async () => {
    const root = path.join(ctx.dir, "om2w-browser-use");
    write(path.join(root, "Online_Mind2Web.json"), [
      { task_id: TASK_ID, confirmed_task: TASK, website: "https://shop.example.test/", reference_length: 5, level: "medium" },
    ]);
    write(path.join(root, "run-1", "histories", `${TASK_ID}.json`), await oldHistory({ done: false }));
    write(path.join(root, "run-1", "histories", "0170ca95038b05fa58d463fe627ac605", "agent_history.json"), newHistory("Check if I need a visa."));
    fs.writeFileSync(path.join(root, "run-1", "histories", "broken.json"), '{"history": [{"model_output": {"action": [');
    fs.writeFileSync(path.join(root, "run-1", "histories", "history_lfs.json"), LFS_POINTER);
    const report = await runImport(ctx, { path: root });
    expect(report.format).toBe("browser-use");
    expect(report.trajectories.map((t) => t.externalTaskId).sort()).toEqual([TASK_ID, "0170ca95038b05fa58d463fe627ac605"]);
    expect(report.skipped.map((s) => [path.basename(s.path), s.reason.split(" (")[0]])).toEqual([
      ["broken.json", "is not valid JSON"],
      ["history_lfs.json", "is a Git LFS pointer file, not the history"],
    ]);
    const t = report.trajectories.find((x) => x.externalTaskId === TASK_ID)!;
    const d = (await getTrajectoryDetail(ctx.db, t.id))!;
    expect([d.taskSet.name, d.task.site, d.task.difficulty?.overall]).toEqual(["Online-Mind2Web", "shop.example.test", "medium"]);
    expect([d.trajectory.outcome, d.trajectory.outcomeDetail, d.trajectory.finalAnswer]).toEqual([
      "unknown",
      "the history ends without done (step limit or interruption)",
      null,
    ]);
    // A history in a folder of its own is named by the folder; the run is the folder holding those.
    const other = (await getTrajectoryDetail(ctx.db, report.trajectories.find((x) => x !== t)!.id))!;
    expect([other.run.name, d.run.name]).toEqual(["histories", "histories"]);
  });
});

describe("npm run cli -- import --screenshots", { timeout: 240_000 }, () => {
  it("passes the folder to the importer, read against the folder the command was typed in; a missing one is a usage error", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-bu-cli-"));
    try {
      const file = write(path.join(dir, "runs", `${TASK_ID}.json`), newHistory(TASK));
      await writeScreens(path.join(dir, "shots"), [1, 2, 3]);
      const root = path.resolve(__dirname, "..", "..");
      const cli = async (args: string[]) => {
        try {
          const r = await promisify(execFile)(process.execPath, ["--import", "tsx", path.join(root, "scripts", "cli.ts"), ...args], {
            cwd: root,
            env: { ...process.env, INIT_CWD: dir, VERDICT_DATA_DIR: dir, VERDICT_DB: path.join(dir, "cli.db") },
          });
          return { code: 0, stdout: r.stdout };
        } catch (e) {
          return { code: (e as { code: number }).code, stdout: (e as { stdout: string }).stdout };
        }
      };
      const ok = await cli(["import", file, "--screenshots", "shots", "--json", "--no-warm"]);
      expect(ok.code).toBe(0);
      expect(JSON.parse(ok.stdout).trajectories[0]).toMatchObject({ screenshots: 3 });
      const missing = await cli(["import", file, "--screenshots", "nope", "--json"]);
      expect(missing.code).toBe(2);
      expect(JSON.parse(missing.stdout)).toEqual({ error: "--screenshots nope: no such folder", exitCode: 2 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

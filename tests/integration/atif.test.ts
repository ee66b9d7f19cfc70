/**
 * ATIF in and out. Any harness's ATIF trajectories import (steps from agent turns, screenshots from image content,
 * tool calls as actions with their points, Harbor's trial layout with its reward); every Verdict trajectory exports
 * as ATIF with its screenshots beside it, and the export re-imports equal: into a fresh installation with the same
 * task, run, steps, actions, boxes, images and verdicts, and into the same one as unchanged.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exportCommand } from "../../server/cli/commands/export";
import { importCommand } from "../../server/cli/commands/import";
import type { CliIO } from "../../server/cli/types";
import { atifImporter } from "../../server/importers/atif";
import { detectImporter } from "../../server/importers/registry";
import type { ImportItem, ImportTrajectory } from "../../server/importers/types";
import { trajectoryToBundle } from "../../server/services/bundle-io";
import { runImport } from "../../server/services/imports/ingest";
import { exportAtif } from "../../server/services/trajectories/atif-export";
import { computerUseTrajectory, HARBOR_INSTRUCTION, writeHarborJob } from "../helpers/atif-fixture";
import { createTestContext, type TestContext } from "../helpers/context";
import { newHistory, oldHistory, writeScreens } from "../helpers/browser-use-fixture";
import { tinyPng, writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";

let ctx: TestContext;
let other: TestContext;
beforeEach(() => {
  ctx = createTestContext();
  other = createTestContext();
});
afterEach(async () => {
  await ctx.cleanup();
  await other.cleanup();
});

async function items(input: string): Promise<ImportItem[]> {
  const out: ImportItem[] = [];
  for await (const item of atifImporter.read(input, {})) out.push(item);
  return out;
}

async function trajectories(input: string): Promise<ImportTrajectory[]> {
  return (await items(input)).flatMap((i) => (i.kind === "trajectory" ? [i.trajectory] : []));
}

/** A stored trajectory as everything Verdict knows about it (its bundle form: task, run, steps, images, verdicts). */
async function stored(c: TestContext, id: number) {
  return trajectoryToBundle(c.db, id, new Map());
}

describe("reading any harness's ATIF", () => {
  it("a Harbor job: agent turns are steps, screenshots come from the observation before each, tool calls are actions", async () => {
    const job = path.join(ctx.dir, "jobs", "2026-02-09__00-15-22");
    await writeHarborJob(job, [{ task: "shop-pricing", id: "kFdZhTa", reward: 0.8333 }]);
    expect((await detectImporter(path.join(ctx.dir, "jobs"))).format).toBe("atif");
    const [t, ...rest] = await trajectories(path.join(ctx.dir, "jobs"));
    expect(rest).toEqual([]);
    expect(t!.task).toMatchObject({ externalId: "shop-pricing", intent: HARBOR_INSTRUCTION, taskSet: { name: "ATIF", benchmark: "atif" } });
    expect(t!.run).toMatchObject({
      name: "jobs/2026-02-09__00-15-22 · navigator",
      agentName: "navigator",
      model: "gemini/gemini-3-flash-preview",
      sourceSystem: "atif",
    });
    expect(t!.steps.map((s) => [s.action.type, s.screenshot ? path.basename(s.screenshot.origin) : null])).toEqual([
      ["noop", null],
      ["click", "step_3_screenshot_1.png"],
      ["scroll", "step_4_screenshot_2.png"],
      ["answer", "step_5_screenshot_3.png"],
    ]);
    expect(t!.steps[1]!.action).toEqual({ type: "click", coords: [600, 475] });
    expect(t!.steps[1]!.thought).toBe("Pricing should list the Pro plan.");
    expect(t!.steps[1]!.actionRaw).toBe('computer_click({"x":600,"y":475,"button":"left"})');
    expect(t!.steps[2]!.action.calls?.map((c) => c.type)).toEqual(["scroll", "type"]);
    expect(t!.steps[2]!.action).toMatchObject({ direction: "down", coords: [500, 500] });
    expect(t!.steps[2]!.error).toBe("Error: element not scrollable");
    expect(t!.finalAnswer).toBe("The Pro plan costs $29 per month.");
    expect(t!.outcome).toBe("answered");
    expect(t!.verdicts).toEqual([expect.objectContaining({ evaluator: "harbor:reward", evaluatorKind: "rule", verdict: "success", score: 0.8333 })]);
    expect(t!.warnings).toBeUndefined();
  });

  it("trials of one task are its attempts; a missing image costs its step the image, with a warning", async () => {
    const job = path.join(ctx.dir, "job");
    await writeHarborJob(job, [
      { task: "shop-pricing", id: "a1", reward: 1 },
      { task: "shop-pricing", id: "b2", reward: 0, missingImage: true },
    ]);
    const report = await runImport(ctx, { path: job });
    expect(report.format).toBe("atif");
    expect(report.trajectories.map((t) => [t.externalTaskId, t.screenshots])).toEqual([
      ["shop-pricing", 3],
      ["shop-pricing", 2],
    ]);
    expect(report.warnings).toEqual([
      {
        path: path.join("job", "shop-pricing__b2", "agent", "trajectory.json"),
        message: "step 3: images/step_4_screenshot_2.png is missing, so the step has no image",
      },
    ]);
    const second = await stored(ctx, report.trajectories[1]!.id);
    expect(second.attempt).toBe(1);
    expect(second.verdicts.map((v) => [v.evaluator, v.verdict])).toEqual([["harbor:reward", "failure"]]);
  });

  it("a single file; images outside the folder or on the web are not read; embedded images are", async () => {
    const doc = computerUseTrajectory();
    const png = (await tinyPng(9, 40, 30)).toString("base64");
    (doc.steps[2]!.observation!.results[0]!.content as { source: { path: string } }[])[0]!.source.path = "/etc/passwd.png";
    (doc.steps[3]!.observation!.results[1]!.content as { source: { path: string } }[])[0]!.source.path = "https://example.com/shot.png";
    (doc.steps[4]!.observation!.results[1]!.content as { source: { path: string } }[])[0]!.source.path = `data:image/png;base64,${png}`;
    const file = path.join(ctx.dir, "one", "navigator.trajectory.json");
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, JSON.stringify(doc));
    expect((await detectImporter(file)).format).toBe("atif");
    const [t] = await trajectories(file);
    expect(t!.task.externalId).toMatch(/^atif-[0-9a-f]{12}$/);
    expect(t!.steps.map((s) => !!s.screenshot)).toEqual([false, false, false, true]);
    expect(t!.warnings).toEqual([
      "step 2: /etc/passwd.png is outside the imported folder and was not read, so the step has no image",
      "step 3: https://example.com/shot.png is a web address; Verdict does not fetch images, so the step has no image",
    ]);
    const report = await runImport(ctx, { path: file });
    expect(report.trajectories[0]).toMatchObject({ screenshots: 1 });
  });

  it("a file that is not ATIF beside ATIF files is left alone; an ATIF file that breaks the format is skipped with why", async () => {
    const job = path.join(ctx.dir, "job");
    const [trial] = await writeHarborJob(job, [{ task: "shop-pricing", id: "a1", reward: 1 }]);
    const bad = path.join(job, "broken__x", "agent", "trajectory.json");
    fs.mkdirSync(path.dirname(bad), { recursive: true });
    fs.writeFileSync(bad, JSON.stringify({ schema_version: "ATIF-v1.6", agent: { name: "x" }, steps: [{ step_id: 1, source: "robot", message: "hi" }] }));
    const got = await items(job);
    expect(got.filter((i) => i.kind === "trajectory").map((i) => (i.kind === "trajectory" ? i.trajectory.sourcePath : ""))).toEqual([
      path.join(trial!, "agent", "trajectory.json"),
    ]);
    expect(got.filter((i) => i.kind === "skipped")).toEqual([
      { kind: "skipped", path: bad, reason: expect.stringMatching(/^is not an ATIF trajectory: steps\.0\.source: /) },
    ]);
  });
});

describe("exporting as ATIF and importing it back", () => {
  /** A WebVoyager run with Set-of-Marks element lists, a raw screenshot, a failed action and an auto_eval verdict. */
  async function webVoyagerRun(): Promise<string> {
    const root = path.join(ctx.dir, "wv");
    const run = await writeWebVoyagerFixture(path.join(root, "results", "run-1"), [
      { id: "Shop--1", intent: "Find the price of a lamp.", url: "https://shop.test/", actions: ["Type [1]; lamp", "Click [2]", "ANSWER; $12"] },
      { id: "Shop--2", intent: "Find a chair.", url: "https://shop.test/", actions: ["Scroll [WINDOW]; down", "Click [0]"] },
    ]);
    fs.writeFileSync(path.join(run, "taskShop--1", "screenshot2_no_box.png"), await tinyPng(77));
    fs.writeFileSync(
      path.join(root, "evaluation.log"),
      [
        "--------------------- results/run-1/taskShop--1 ---------------------",
        "TASK: t\\nResult Response: r\\n3 screenshots at the end: ",
        "Looks right. SUCCESS",
        "Auto_eval_res: 1",
        "",
      ].join("\n"),
    );
    return root;
  }

  it("a WebVoyager trajectory: export, re-import into another installation, equal; into the same one, unchanged", async () => {
    const first = await runImport(ctx, { path: await webVoyagerRun() });
    const ids = first.trajectories.map((t) => t.id);
    const original = await stored(ctx, ids[0]!);
    expect(original.verdicts).toHaveLength(1);
    expect(original.steps[1]!.rawScreenshot).not.toBeNull();

    const out = path.join(ctx.dir, "atif-out");
    const result = await exportAtif(ctx, ids, out);
    expect(result).toMatchObject({ trajectories: 2 });
    const doc = JSON.parse(fs.readFileSync(path.join(out, `trajectory-${ids[0]}.atif.json`), "utf8"));
    // What other ATIF readers see: the task with the first screenshot, one agent step per action with its tool call.
    expect(doc.schema_version).toBe("ATIF-v1.6");
    expect(doc.steps.map((s: { source: string }) => s.source)).toEqual(["user", "agent", "agent", "agent"]);
    expect(doc.steps[0].message[0]).toEqual({ type: "text", text: "Find the price of a lamp." });
    expect(doc.steps[1].tool_calls).toEqual([{ tool_call_id: "call_1", function_name: "type", arguments: { target: "1", value: "lamp", submit: true } }]);
    for (const s of doc.steps) {
      for (const part of [
        ...(Array.isArray(s.message) ? s.message : []),
        ...(s.observation?.results ?? []).flatMap((r: { content: unknown }) => (Array.isArray(r.content) ? r.content : [])),
      ]) {
        if (part.type === "image") expect(fs.existsSync(path.join(out, part.source.path))).toBe(true);
      }
    }

    const back = await runImport(other, { path: out });
    expect(back.format).toBe("atif");
    expect(back.trajectories.map((t) => t.status)).toEqual(["created", "created"]);
    for (const [i, id] of ids.entries()) {
      expect(await stored(other, back.trajectories[i]!.id)).toEqual(await stored(ctx, id));
    }

    const again = await runImport(ctx, { path: out });
    expect(again.trajectories.map((t) => t.status)).toEqual(["unchanged", "unchanged"]);
  });

  it("from the command line: export --format atif to a zip, and import that zip", async () => {
    const first = await runImport(ctx, { path: await webVoyagerRun() });
    const io = (): CliIO & { out: () => string } => {
      let stdout = "";
      return {
        stdout: (t) => void (stdout += t),
        stderr: () => {},
        interactive: false,
        env: { ...process.env, VERDICT_DATA_DIR: other.dir, VERDICT_DB: path.join(other.dir, "verdict.db") },
        cwd: ctx.dir,
        out: () => stdout,
      };
    };
    // Export from ctx's database through the service the command calls, then the command itself on other's.
    const zip = path.join(ctx.dir, "lamp.zip");
    await exportAtif(ctx, [first.trajectories[0]!.id], zip);
    const imp = io();
    expect(await importCommand.run(["lamp.zip", "--json", "--no-warm"], imp)).toBe(0);
    const report = JSON.parse(imp.out());
    expect(report).toMatchObject({ format: "atif", created: 1 });
    expect(await stored(other, report.trajectories[0].id)).toEqual(await stored(ctx, first.trajectories[0]!.id));

    const exp = io();
    expect(await exportCommand.run([String(report.trajectories[0].id), "again", "--format", "atif", "--json"], exp)).toBe(0);
    expect(JSON.parse(exp.out())).toMatchObject({ trajectories: 1, images: 4 });
    expect(fs.existsSync(path.join(ctx.dir, "again", `trajectory-${report.trajectories[0].id}.atif.json`))).toBe(true);
    expect(await exportCommand.run(["1", "x", "--format", "csv"], io()).catch((e: Error) => e.message)).toBe('--format: native or atif, got "csv"');
  });

  /** Export everything `first` imported, re-import it elsewhere (equal) and here (unchanged). */
  async function roundTrip(first: { trajectories: { id: number }[] }) {
    const ids = first.trajectories.map((t) => t.id);
    const out = path.join(ctx.dir, "atif-out");
    await exportAtif(ctx, ids, out);
    const back = await runImport(other, { path: out });
    expect(back.format).toBe("atif");
    expect(back.skipped).toEqual([]);
    expect(back.trajectories).toHaveLength(ids.length);
    for (const [i, id] of ids.entries()) expect(await stored(other, back.trajectories[i]!.id)).toEqual(await stored(ctx, id));
    const again = await runImport(ctx, { path: out });
    expect(again.trajectories.map((t) => t.status)).toEqual(ids.map(() => "unchanged"));
    return ids;
  }

  it("Online-Mind2Web trajectories (pixel actions, full-page screenshots, WebJudge verdicts with key points) re-import equal", async () => {
    const src = path.join(ctx.dir, "om2w");
    fs.cpSync(path.join(__dirname, "..", "fixtures", "online-mind2web-mini"), src, { recursive: true });
    const first = await runImport(ctx, { path: src });
    expect(first.format).toBe("online-mind2web");
    const ids = await roundTrip(first);
    const withJudge = await Promise.all(ids.map((id) => stored(ctx, id)));
    // The trip carried what only Verdict's extra holds: coordinates and the judge's key points and screenshots.
    expect(withJudge.some((t) => t.steps.some((s) => s.action.coords))).toBe(true);
    expect(withJudge.some((t) => t.verdicts.some((v) => v.stepIndices?.length && v.details))).toBe(true);
  });

  it("Browser Use trajectories (inline and side-by-side screenshots, element XPaths, the agent's judge) re-import equal", async () => {
    const dir = path.join(ctx.dir, "bu");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "task-1.json"), JSON.stringify({ task: "Find the price of the green controller.", ...(await oldHistory()) }));
    const newer = path.join(dir, "newer");
    fs.mkdirSync(newer);
    fs.writeFileSync(path.join(newer, "history.json"), JSON.stringify(newHistory("Is the blue lamp sold here?")));
    await writeScreens(path.join(newer, "screenshots"), [1, 2, 3], [320, 200]);
    const first = await runImport(ctx, { path: dir });
    expect(first.format).toBe("browser-use");
    const ids = await roundTrip(first);
    const all = await Promise.all(ids.map((id) => stored(ctx, id)));
    expect(all.some((t) => t.steps.some((s) => s.elements?.some((e) => e.xpath)))).toBe(true);
    expect(all.some((t) => t.verdicts.length > 0)).toBe(true);
  });
});

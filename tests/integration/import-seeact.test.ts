import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sqliteClient } from "../../db/database";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { seeActImporter } from "../../server/importers/seeact";
import type { ImportTrajectory } from "../../server/importers/types";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, type TestContext } from "../helpers/context";
import { escapeRegExp, storeSnapshot } from "../helpers/db-snapshot";
import { packageElement, writeSeeActPackage, writeSeeActResearch, type ResearchTaskSpec } from "../helpers/seeact-fixture";

let ctx: TestContext;
beforeEach(() => {
  ctx = createTestContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

const THUMBTACK: ResearchTaskSpec = {
  taskId: "demo task 1.5",
  task: "Find a wedding photographer near Columbus and open the first profile.",
  website: "https://www.thumbtack.com/",
  history: [
    "[textbox]  Search on Thumbtack -> TYPE: wedding photographer",
    '[button type="submit"]  Search -> CLICK',
    "[a]  Profile -> Failed to CLICK because Timeout 10000ms exceeded., did a HOVER instead",
  ],
  exitBy: "The model determined a completion.",
  // Step 3 has no crop (SeeAct failed to screenshot it): a gap.
  batches: { 1: 2, 2: 1, 4: 1 },
  thoughts: { 1: "I need the search box first.\nThen type the query.", 2: "Click search.", 4: "The profile is open; the task is done." },
};

const WALMART: ResearchTaskSpec = {
  taskId: "3cbbbbaa-6fc9-4341-a7ab-c85027a26b87",
  task: "Show me jobs for MBA & Graduate Internships.",
  website: "careers.walmart",
  history: ["No Operation", "Human intervention with a message: closed the cookie banner", "No Operation"],
  exitBy: "no executable operations for 2 times.",
  successOrNot: "0",
  batches: { 1: 1, 3: 1, 4: 1 },
};

async function trajectories(input: string): Promise<ImportTrajectory[]> {
  const out: ImportTrajectory[] = [];
  for await (const item of seeActImporter.read(input, {})) if (item.kind === "trajectory") out.push(item.trajectory);
  return out;
}

describe("SeeAct research tool output", () => {
  it("maps history to time steps, keeps gaps, adds the terminating step, reads thoughts from the log", async () => {
    const root = await writeSeeActResearch(path.join(ctx.dir, "online results v1.0"), [THUMBTACK, WALMART]);
    const report = await runImport(ctx, { path: root });
    expect(report.format).toBe("seeact");
    expect(report.created).toBe(2);

    const t = report.trajectories.find((x) => x.externalTaskId === "demo task 1.5")!;
    expect(t).toMatchObject({ steps: 4, screenshots: 3, finalAnswer: null });
    const d = (await getTrajectoryDetail(ctx.db, t.id))!;
    expect(d.taskSet.name).toBe("SeeAct online tasks");
    expect(d.task.intent).toBe(THUMBTACK.task);
    expect(d.task.startUrl).toBe("https://www.thumbtack.com/");
    expect(d.task.site).toBe("www.thumbtack.com");
    expect(d.run.model).toBe("gpt-4-vision-preview");
    // The API key line of config.toml is never read into the run's config.
    expect(JSON.stringify(d.run.config)).not.toContain("sk-test");
    expect(d.run.config).toMatchObject({ model: "gpt-4-vision-preview", max_op: 30, temperature: 0 });
    expect(d.trajectory.outcome).toBe("answered");
    expect(d.steps.map((s) => s.action)).toEqual([
      { type: "type", target: null, value: "wedding photographer", submit: false },
      { type: "click", target: null },
      { type: "hover", target: null },
      { type: "answer", value: null },
    ]);
    expect(d.steps.map((s) => s.actionRaw)).toEqual([...THUMBTACK.history, "TERMINATE"]);
    expect(d.steps[2]!.error).toBe("Failed to CLICK because Timeout 10000ms exceeded.; did a HOVER instead");
    expect(d.steps.map((s) => s.screenshotHash !== null)).toEqual([true, true, false, true]);
    expect(d.steps.map((s) => s.thought)).toEqual([
      "I need the search box first.\nThen type the query.",
      "Click search.",
      null,
      "The profile is open; the task is done.",
    ]);
    expect(d.steps.every((s) => !s.marksBurnedIn && s.elements === null)).toBe(true);
    // Step 1 had two batches: the later batch's crop is the step's screenshot.
    const firstShot = fs.readFileSync(path.join(root, "demo task 1.5", "image_inputs", "1_1_crop.jpg"));
    expect(fs.readFileSync(ctx.store.pathFor(d.steps[0]!.screenshotHash!))).toEqual(firstShot);
    const mime = sqliteClient(ctx.db).prepare("select mime from screenshots where hash = ?").get(d.steps[0]!.screenshotHash) as { mime: string };
    expect(mime.mime).toBe("image/jpeg");

    const w = (await getTrajectoryDetail(ctx.db, report.trajectories.find((x) => x.externalTaskId === WALMART.taskId)!.id))!;
    expect(w.trajectory.outcome).toBe("error");
    expect(w.trajectory.outcomeDetail).toBe("no executable operations for 2 times.");
    expect(w.task.site).toBe("careers.walmart");
    expect(w.task.startUrl).toBeNull();
    expect(w.steps.map((s) => s.action.type)).toEqual(["noop", "noop", "noop", "unparsed"]);
    expect(w.steps[1]!.action.value).toBe("Human intervention: closed the cookie banner");
    expect(w.steps[3]!.action.parseError).toBe("SeeAct does not record the action of the step that ended the run (no executable operations for 2 times.)");

    const again = await runImport(ctx, { path: root });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 2]);
  });

  it("stores success_or_not as a verdict: automatic 0 as a rule, a hand label as human", async () => {
    const root = await writeSeeActResearch(path.join(ctx.dir, "res"), [{ ...THUMBTACK, successOrNot: "1" }, WALMART]);
    const byId = new Map((await trajectories(root)).map((t) => [t.task.externalId, t]));
    expect(byId.get(THUMBTACK.taskId)!.verdicts).toEqual([
      { evaluator: "seeact:success_or_not", evaluatorKind: "human", verdict: "success", score: 1, rationale: null, raw: { success_or_not: "1" } },
    ]);
    expect(byId.get(WALMART.taskId)!.verdicts).toMatchObject([{ evaluatorKind: "rule", verdict: "failure", score: 0 }]);
    const unlabelled = await trajectories(await writeSeeActResearch(path.join(ctx.dir, "res2"), [THUMBTACK]));
    expect(unlabelled[0]!.verdicts).toEqual([]);
  });

  it("imports one task folder on its own under the same run", async () => {
    const root = await writeSeeActResearch(path.join(ctx.dir, "res"), [THUMBTACK, WALMART]);
    const all = await trajectories(root);
    const one = await trajectories(path.join(root, "demo task 1.5"));
    expect(one).toHaveLength(1);
    expect(one[0]!.run.runKey).toBe(all[0]!.run.runKey);
    expect(one[0]!.run.runKey).toBe("seeact:res");
  });
});

describe("SeeAct pip package output", () => {
  const session = {
    folder: "20240601_101500",
    tasks: ["Find the cheapest flight from Columbus to Chicago on July 4."],
    website: "https://www.google.com/travel/flights",
    predictions: [
      {
        action_generation: "I should type the origin.",
        action_grounding: "ELEMENT: B\nACTION: TYPE\nVALUE: Columbus",
        element: packageElement("Where from?", [100, 200, 300, 40]),
        action: "TYPE",
        value: "Columbus",
      },
      {
        action_generation: "Now search.",
        action_grounding: "ELEMENT: H\nACTION: CLICK\nVALUE: None",
        element: { ...packageElement("Search", [587, 596.6, 93, 54]), box_raw: undefined, option: "H" },
        action: "CLICK",
        value: "None",
      },
      {
        action_generation: "Scroll to see prices.",
        action_grounding: "ELEMENT: Z\nACTION: SCROLL DOWN\nVALUE: None",
        element: null,
        action: "SCROLL DOWN",
        value: "None",
      },
      {
        action_generation: "The cheapest is $120.",
        action_grounding: "ACTION: SAY\nVALUE: $120",
        element: null,
        action: "SAY",
        value: "The cheapest flight is $120",
      },
      { action_generation: "Done.", action_grounding: "ACTION: TERMINATE", element: null, action: "TERMINATE", value: "None" },
    ],
    history: [
      '[input role="combobox"] Where from? -> TYPE: Columbus',
      "Failed to perform CLICK on Search with value 'None': Timeout 2000ms exceeded",
      "SCROLL DOWN",
      "SAY: The cheapest flight is $120",
      "TERMINATE",
    ],
  };

  it("turns the chosen element's box into one SoM element targeted by the action", async () => {
    const root = await writeSeeActPackage(path.join(ctx.dir, "seeact_agent_files"), [session, { ...session, folder: "20240601_113000" }]);
    const report = await runImport(ctx, { path: root });
    expect(report.format).toBe("seeact");
    expect(report.trajectories.map((t) => t.steps)).toEqual([5, 5]);
    const first = (await getTrajectoryDetail(ctx.db, report.trajectories[0]!.id))!;
    const second = (await getTrajectoryDetail(ctx.db, report.trajectories[1]!.id))!;
    // Two sessions of the same task are attempts 0 and 1 of one task.
    expect([first.trajectory.attempt, second.trajectory.attempt]).toEqual([0, 1]);
    expect(first.task.id).toBe(second.task.id);
    expect(first.task.externalId).toMatch(/^seeact\.[0-9a-f]{12}$/);
    expect(first.run.agentName).toBe("SeeAct (pip package)");
    expect(first.run.model).toBe("gpt-4o");
    expect(first.trajectory.outcome).toBe("answered");
    expect(first.trajectory.finalAnswer).toBe("The cheapest flight is $120");
    expect(first.steps.map((s) => s.action)).toEqual([
      { type: "type", target: "B", value: "Columbus", submit: false },
      { type: "click", target: "H" },
      { type: "scroll", direction: "down" },
      { type: "answer", value: "The cheapest flight is $120" },
      { type: "answer", value: null },
    ]);
    expect(first.steps[0]!.elements).toEqual([{ label: "B", bbox: [100, 200, 300, 40], tag: "button", text: "Where from?" }]);
    // No box_raw: the [x1, y1, x2, y2] box is converted.
    expect(first.steps[1]!.elements).toEqual([{ label: "H", bbox: [587, 596.6, 93, expect.closeTo(54, 6)], tag: "button", text: "Search" }]);
    expect(first.steps[1]!.error).toBe("Failed to perform CLICK: Timeout 2000ms exceeded");
    expect(first.steps[2]!.elements).toBeNull();
    expect(first.steps[0]!.thought).toBe("I should type the origin.");
    expect(first.steps.every((s) => s.marksBurnedIn && s.screenshotHash)).toBe(true);

    const one = await trajectories(path.join(root, "20240601_113000"));
    expect(one[0]!.attempt).toBe(1);
  });

  it("steps without a screenshot stay, and a run cut short is outcome unknown", async () => {
    const root = await writeSeeActPackage(path.join(ctx.dir, "pkg"), [
      { ...session, predictions: session.predictions.slice(0, 3), history: session.history.slice(0, 3), screens: [1, 3], grounding: "pixel_2_stage" },
    ]);
    const [t] = await trajectories(root);
    expect(t!.outcome).toBe("unknown");
    expect(t!.finalAnswer).toBeNull();
    expect(t!.steps.map((s) => s.screenshot !== null)).toEqual([true, false, true]);
    expect(t!.steps.every((s) => !s.marksBurnedIn)).toBe(true);
  });
});

describe("malformed SeeAct output is rejected by a strict import with an exact error and nothing written", () => {
  async function expectRejected(setup: (root: string) => string | RegExp) {
    await runImport(ctx, { path: await writeSeeActResearch(path.join(ctx.dir, "ok"), [THUMBTACK]) });
    const before = await storeSnapshot(ctx);
    const root = await writeSeeActResearch(path.join(ctx.dir, "bad"), [THUMBTACK, WALMART], 300);
    await writeSeeActPackage(root, [
      {
        folder: "20240601_000000",
        tasks: ["t"],
        website: "https://x.test/",
        predictions: [{ action: "CLICK", value: "None", element: null }],
        history: ["NONE"],
      },
    ]);
    const expected = setup(root);
    await expect(runImport(ctx, { path: root, format: "seeact", strict: true })).rejects.toThrow(expected);
    expect(await storeSnapshot(ctx)).toEqual(before);
  }

  it("result.json that is not JSON", async () => {
    await expectRejected((root) => {
      const f = path.join(root, WALMART.taskId, "result.json");
      fs.writeFileSync(f, '{"confirmed_task": "x", ');
      return new RegExp(`^${escapeRegExp(f)}: is not valid JSON \\(`);
    });
  });

  it("a result.json without the task text", async () => {
    await expectRejected((root) => {
      const f = path.join(root, WALMART.taskId, "result.json");
      const j = JSON.parse(fs.readFileSync(f, "utf8"));
      delete j.confirmed_task;
      fs.writeFileSync(f, JSON.stringify(j));
      return `${f}: "confirmed_task" is missing or not a non-empty string`;
    });
  });

  it("an action history that is not a list", async () => {
    await expectRejected((root) => {
      const f = path.join(root, "demo task 1.5", "result.json");
      const j = JSON.parse(fs.readFileSync(f, "utf8"));
      j.action_history = "CLICK";
      fs.writeFileSync(f, JSON.stringify(j));
      return `${f}: "action_history" is not a list`;
    });
  });

  it("a pip session without result.json", async () => {
    await expectRejected((root) => {
      const f = path.join(root, "20240601_000000", "result.json");
      fs.rmSync(f);
      return `${f}: is missing; the task text is only recorded there`;
    });
  });

  it("a prediction that is not an object", async () => {
    await expectRejected((root) => {
      const f = path.join(root, "20240601_000000", "all_predictions.json");
      fs.writeFileSync(f, JSON.stringify([{ action: "CLICK" }, "CLICK"]));
      return `${f}: prediction 1 is not an object`;
    });
  });

  it("a crop that is not an image", async () => {
    await expectRejected((root) => {
      const f = path.join(root, "demo task 1.5", "image_inputs", "2_0_crop.jpg");
      fs.writeFileSync(f, "not a jpeg");
      return `${f}: is not a PNG, JPEG, WebP or GIF image`;
    });
  });

  it("a folder without SeeAct output", async () => {
    const empty = path.join(ctx.dir, "nothing here");
    fs.mkdirSync(path.join(empty, "sub"), { recursive: true });
    await expect(runImport(ctx, { path: empty, format: "seeact" })).rejects.toThrow(
      `${empty}: no SeeAct output found (a folder with result.json, or all_predictions.json for the pip package)`,
    );
  });
});

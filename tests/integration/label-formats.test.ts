/**
 * Label exports and imports with round trips, on a real SQLite database: every format is exported from a campaign,
 * imported into a fresh campaign over the same trajectories, and the labels compared per trajectory and annotator.
 * Also the published shapes (Online-Mind2Web human_label.json entries, AgentRewardBench columns), import errors
 * naming file, line and field, and the CLI commands end to end.
 */
import { closeDatabase } from "../../db/database";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../db/client";
import type { Actor } from "../../server/domain/access/actor";
import { ARB_COLUMNS, CUA_COLUMNS, LABEL_FORMATS, type LabelFormat } from "../../server/domain/annotation/label-formats";
import { parseCsvTable } from "../../server/domain/csv";
import { AppError } from "../../server/errors";
import {
  adjudicate,
  campaignLabelRows,
  createCampaign,
  exportLabelsAs,
  importLabelsAs,
  MIND2WEB_DEFAULT_ANNOTATOR,
  submitLabel,
} from "../../server/services/annotation";
import { cliRunner } from "../helpers/cli";
import { createTestContext, type TestContext } from "../helpers/context";
import { makeActor, seedTrajectories } from "../helpers/annotation-fixture";

let ctx: TestContext;
let researcher: Actor;
let ann: Actor[];
beforeEach(async () => {
  ctx = createTestContext("verdict-label-formats-");
  researcher = await makeActor(ctx, "Rita Researcher", "researcher");
  ann = [await makeActor(ctx, "Ann One", "annotator"), await makeActor(ctx, "Ben Two", "annotator"), await makeActor(ctx, "Cat Three", "annotator")];
});
afterEach(async () => {
  await ctx.cleanup();
});

let key = 0;
async function submit(
  a: Actor,
  campaignId: number,
  trajectoryId: number,
  v: { verdict: string; category?: string | null; firstFailingStep?: number | null; note?: string | null },
) {
  await submitLabel(ctx.db, a, { campaignId, trajectoryId, ...v, idempotencyKey: `formats-${++key}` });
}

/** Two agents ("Browser Use", "Operator") on the same three tasks, labelled by three annotators. */
async function labelledCampaign() {
  const tasks = ["b7258ee05d75e6c50673a59914db412e", "ade4c09ad3fdb1607209750924cd232f", "fb7b4f784cfde003e2548fdf4e8d6b4f"];
  const bu = await seedTrajectories(ctx.db, 3, {
    taskSet: "Online-Mind2Web",
    benchmark: "online-mind2web",
    agentName: "Browser Use",
    model: "model-bu",
    taskIds: tasks,
  });
  const op = await seedTrajectories(ctx.db, 3, {
    taskSet: "Online-Mind2Web",
    benchmark: "online-mind2web",
    agentName: "Operator",
    model: "model-op",
    taskIds: tasks,
  });
  const c = await createCampaign(ctx.db, researcher, {
    name: "Source",
    trajectoryIds: [...bu, ...op],
    annotatorIds: ann.map((a) => a.userId),
    annotatorsPerItem: 3,
    labelSchema: { allowUnsure: true, allowNotExecutable: true, agreementOn: "verdict" },
  });
  const [a, b, d] = ann as [Actor, Actor, Actor];
  // bu[0]: unanimous success. bu[1]: unanimous failure, categories and steps differ. bu[2]: not executable ×3.
  for (const x of [a, b, d]) await submit(x, c.id, bu[0]!, { verdict: "success", note: x === a ? 'said "done", checked the cart' : null });
  await submit(a, c.id, bu[1]!, { verdict: "failure", category: "hallucination", firstFailingStep: 2, note: "made up the price" });
  await submit(b, c.id, bu[1]!, { verdict: "failure", category: "navigation stuck", firstFailingStep: 1 });
  await submit(d, c.id, bu[1]!, { verdict: "failure", category: "other" });
  for (const x of [a, b, d]) await submit(x, c.id, bu[2]!, { verdict: "not_executable", note: x === b ? "CAPTCHA" : null });
  // op[0]: disputed, then adjudicated to failure. op[1]: an unsure label (disputed, left so). op[2]: two labels only.
  await submit(a, c.id, op[0]!, { verdict: "success" });
  await submit(b, c.id, op[0]!, { verdict: "failure", category: "other" });
  await submit(d, c.id, op[0]!, { verdict: "success" });
  await adjudicate(ctx.db, researcher, {
    campaignId: c.id,
    trajectoryId: op[0]!,
    verdict: "failure",
    category: "prompt misalignment",
    reason: "the dates were wrong",
  });
  await submit(a, c.id, op[1]!, { verdict: "unsure", note: "cannot see the last page" });
  await submit(b, c.id, op[1]!, { verdict: "success" });
  await submit(d, c.id, op[1]!, { verdict: "success" });
  await submit(a, c.id, op[2]!, { verdict: "failure", category: "visual grounding issue" });
  await submit(b, c.id, op[2]!, { verdict: "failure", category: "visual grounding issue" });
  return { c, bu, op, tasks };
}

type Values = { verdict: string; category: string | null; first_failing_step_number: number | null; note: string | null };

/** Each annotator's label per trajectory, from the export rows of a campaign. */
async function labelsByTrajectoryAndAnnotator(campaignId: number, kind: "annotation" | "consolidated" = "annotation"): Promise<Map<string, Values>> {
  const out = new Map<string, Values>();
  for (const r of await campaignLabelRows(ctx.db, campaignId)) {
    if (r.kind !== kind) continue;
    out.set(`${r.trajectory_id} ${kind === "annotation" ? r.annotator_name : ""}`, {
      verdict: r.verdict as string,
      category: r.category as string | null,
      first_failing_step_number: r.first_failing_step_number as number | null,
      note: r.note as string | null,
    });
  }
  return out;
}

async function roundTrip(campaignId: number, format: LabelFormat) {
  const file = await exportLabelsAs(ctx.db, researcher, campaignId, format);
  const report = await importLabelsAs(ctx.db, researcher, { format, text: file.body, source: file.fileName, campaign: { name: `Round trip ${format}` } });
  return { file, report, imported: report.campaignId! };
}

describe("round trips", () => {
  it.each(["verdict-csv", "verdict-jsonl", "cuaverifierbench"] as const)(
    "%s: every annotator's label comes back whole (verdict, category, failing step, note)",
    async (format) => {
      const { c } = await labelledCampaign();
      const { report, imported } = await roundTrip(c.id, format);
      expect(report.unmatchedCount).toBe(0);
      expect(report.created).toBe(17);
      const before = await labelsByTrajectoryAndAnnotator(c.id);
      const after = await labelsByTrajectoryAndAnnotator(imported);
      expect(after.size).toBe(17);
      expect(after).toEqual(before);
    },
  );

  it("agentrewardbench: each annotator's success verdict comes back; not executable labels are left out and counted", async () => {
    const { c } = await labelledCampaign();
    const { file, report, imported } = await roundTrip(c.id, "agentrewardbench");
    expect(parseCsvTable(file.body).header).toEqual([...ARB_COLUMNS]);
    expect(file.leftOut).toBe(3);
    expect(report.created).toBe(14);
    const verdicts = (m: Map<string, Values>) => new Map([...m].filter(([, v]) => v.verdict !== "not_executable").map(([k, v]) => [k, v.verdict]));
    expect(verdicts(await labelsByTrajectoryAndAnnotator(imported))).toEqual(verdicts(await labelsByTrajectoryAndAnnotator(c.id)));
  });

  it("online-mind2web: the consolidated label of each task and agent comes back as 0 / 1 / 2", async () => {
    const { c, bu, op, tasks } = await labelledCampaign();
    const { file, report, imported } = await roundTrip(c.id, "online-mind2web");
    // The published file's structure: an array of {task_id, confirmed_task, <Agent>_human_label: "0"|"1"|"2"}.
    const parsed = JSON.parse(file.body) as Record<string, string>[];
    expect(parsed).toEqual([
      { task_id: tasks[0], confirmed_task: "Do thing 1", Browser_Use_human_label: "1", Operator_human_label: "0" },
      { task_id: tasks[1], confirmed_task: "Do thing 2", Browser_Use_human_label: "0" },
      { task_id: tasks[2], confirmed_task: "Do thing 3", Browser_Use_human_label: "2" },
    ]);
    expect(report.created).toBe(4);
    expect(report.annotators).toEqual([MIND2WEB_DEFAULT_ANNOTATOR]);
    const source = await labelsByTrajectoryAndAnnotator(c.id, "consolidated");
    const back = await labelsByTrajectoryAndAnnotator(imported);
    expect(new Map([...back].map(([k, v]) => [k.split(" ")[0], v.verdict]))).toEqual(new Map([...source].map(([k, v]) => [k.split(" ")[0], v.verdict])));
    expect([...back.keys()].sort()).toEqual([bu[0], bu[1], bu[2], op[0]].map((t) => `${t} ${MIND2WEB_DEFAULT_ANNOTATOR}`).sort());
  });

  it("every format is covered above", async () => {
    expect([...LABEL_FORMATS].sort()).toEqual(["agentrewardbench", "cuaverifierbench", "online-mind2web", "verdict-csv", "verdict-jsonl"]);
  });
});

describe("published shapes and import errors", () => {
  it("reads entries in the published human_label.json shape (agent names with spaces written with underscores)", async () => {
    const tasks = ["b7258ee05d75e6c50673a59914db412e"];
    const agents = ["Operator", "Agent-E", "Browser Use", "Claude Computer Use", "SeeAct"];
    const ids: number[] = [];
    for (const agent of agents)
      ids.push((await seedTrajectories(ctx.db, 1, { taskSet: "OM2W", agentName: agent, model: `model-${agent}`, taskIds: tasks }))[0]!);
    // The first entry of Online-Mind2Web's data/human_label.json, as published.
    const text =
      '[{"task_id": "b7258ee05d75e6c50673a59914db412e", "confirmed_task": "Find the store location and hours of the closest Gamestop to zip code 90028 and set it as the home store on Gamestop.", "Operator_human_label": "1", "Agent-E_human_label": "1", "Browser_Use_human_label": "1", "Claude_Computer_Use_human_label": "0", "SeeAct_human_label": "1"}]';
    const report = await importLabelsAs(ctx.db, researcher, {
      format: "online-mind2web",
      text,
      source: "human_label.json",
      campaign: { name: "OM2W human" },
      annotator: "OSU annotators",
    });
    expect(report).toMatchObject({ created: 5, unmatchedCount: 0, annotators: ["OSU annotators"] });
    const got = await labelsByTrajectoryAndAnnotator(report.campaignId!);
    expect(agents.map((_, i) => got.get(`${ids[i]} OSU annotators`)!.verdict)).toEqual(["success", "success", "success", "failure", "success"]);
  });

  const message = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (e) {
      if (e instanceof AppError) return e.message;
      throw e;
    }
    throw new Error("expected an error");
  };

  it("names the file, line and field of a bad value", async () => {
    await seedTrajectories(ctx.db, 1);
    const imp = (format: string, text: string, source: string) => async () =>
      await importLabelsAs(ctx.db, researcher, { format, text, source, campaign: { name: `Bad ${++key}` } });
    expect(
      await message(
        imp(
          "online-mind2web",
          '[\n  {"task_id": "task-1", "agent_human_label": "1"},\n  {"task_id": "task-1", "other_human_label": "yes"}\n]',
          "human_label.json",
        ),
      ),
    ).toBe('human_label.json: line 3 (task 2), field "other_human_label": "yes" is not a label; use "0" (failure), "1" (success) or "2" (not executable)');
    expect(await message(imp("online-mind2web", '[{"confirmed_task": "x"}]', "h.json"))).toBe(
      'h.json: line 1 (task 1), field "task_id": missing or not a string',
    );
    expect(await message(imp("verdict-jsonl", '{"kind": "annotation"}\n{oops\n', "labels.jsonl"))).toMatch(/^labels\.jsonl: line 2: not a JSON object/);
    const cua = [CUA_COLUMNS.join(","), "1,Ann,blind,perhaps,,task-1,agent,,"].join("\n");
    expect(await message(imp("cuaverifierbench", cua, "cua.csv"))).toMatch(/^cua\.csv: line 2, column "verdict": verdict "perhaps" is not mapped/);
    expect(await message(imp("agentrewardbench", "annotator_name,task_id\nA,x\n", "annotations.csv"))).toMatch(
      /^annotations\.csv: the verdict column "trajectory_success" is not in the header/,
    );
    expect(await message(imp("parquet", "", "x"))).toMatch(/^format: one of verdict-csv, /);
  });
});

describe("CLI", () => {
  let dir: string;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-cli-label-files-"));
  });
  afterEach(async () => fs.rmSync(dir, { recursive: true, force: true }));

  it("labels import --format online-mind2web and labels export --format online-mind2web give the labels back; the old command names still work and say so", async () => {
    const env = { ...process.env, VERDICT_DATA_DIR: dir, VERDICT_DB: path.join(dir, "cli.db"), VERDICT_AUTH_SECRET: "" };
    // Each command's first call starts scripts/cli.ts; its later calls run in this process (tests/helpers/cli.ts).
    const runCli = cliRunner();
    const cli = (args: string[]) => runCli(args, env);
    expect(
      (await cli(["user", "add", "--email", "admin@example.org", "--name", "Admin", "--role", "admin", "--password", "admin-password", "--json"])).code,
    ).toBe(0);
    const db = openDatabase(path.join(dir, "cli.db"));
    const ids = await seedTrajectories(db, 2, { agentName: "Browser Use", taskIds: ["t-1", "t-2"] });
    await closeDatabase(db);
    const source = path.join(dir, "human_label.json");
    fs.writeFileSync(
      source,
      JSON.stringify([
        { task_id: "t-1", confirmed_task: "a", Browser_Use_human_label: "1" },
        { task_id: "t-2", confirmed_task: "b", Browser_Use_human_label: "2" },
      ]),
    );
    const imported = await cli(["labels", "import", source, "--format", "online-mind2web", "--new-campaign", "From OM2W", "--json"]);
    expect(imported.code, imported.stderr).toBe(0);
    const report = JSON.parse(imported.stdout) as { campaignId: number; created: number };
    expect(report.created).toBe(2);
    const out = path.join(dir, "out", "human_label.json");
    const exported = await cli(["labels", "export", String(report.campaignId), "--format", "online-mind2web", "--out", out, "--json"]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(out, "utf8"))).toEqual([
      { task_id: "t-1", confirmed_task: "Do thing 1", Browser_Use_human_label: "1" },
      { task_id: "t-2", confirmed_task: "Do thing 2", Browser_Use_human_label: "2" },
    ]);
    expect(ids).toHaveLength(2);
    const bad = await cli(["labels", "export", String(report.campaignId), "--format", "xml"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown --format "xml"/);
    const both = await cli([
      "labels",
      "import",
      source,
      "--format",
      "online-mind2web",
      "--preset",
      "agentrewardbench",
      "--campaign",
      String(report.campaignId),
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/not both/);

    // The old names, kept for one release: the same work, with a note on stderr that leaves --json's stdout clean.
    const oldOut = path.join(dir, "out", "old.json");
    const oldExport = await cli(["export-labels", String(report.campaignId), "--format", "online-mind2web", "--out", oldOut, "--json"]);
    expect(oldExport.code, oldExport.stderr).toBe(0);
    expect(oldExport.stderr).toMatch(/`export-labels` is now `labels export`/);
    expect(JSON.parse(oldExport.stdout)).toMatchObject({ file: oldOut, format: "online-mind2web" });
    expect(fs.readFileSync(oldOut, "utf8")).toBe(fs.readFileSync(out, "utf8"));
    const oldImport = await cli(["import-labels", source, "--format", "online-mind2web", "--campaign", String(report.campaignId), "--dry-run", "--json"]);
    expect(oldImport.code, oldImport.stderr).toBe(0);
    expect(oldImport.stderr).toMatch(/`import-labels` is now `labels import`/);
    expect(JSON.parse(oldImport.stdout)).toMatchObject({ campaignId: report.campaignId, created: 0 });
    expect((await cli(["export-labels", String(report.campaignId)])).code).toBe(2);
  }, 300_000);
});

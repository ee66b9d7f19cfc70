/**
 * An uploaded zip is read alone: its importer never opens task files, reference answers or evaluator logs in the
 * server's folders above the unpacked upload (security review 2, L3: a zip holding only `taskSecretSite--7/`
 * imported a task text another team kept in the data folder). The job's report and the trajectory's Path name the
 * zip and the paths inside it, never a server path.
 */
import fs from "node:fs";
import path from "node:path";
import yazl from "yazl";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { listVerdicts } from "../../db/repositories/evaluation/verdicts";
import { importJobStatus, startImport } from "../../server/services/imports/jobs";
import { runQueuedImports } from "../helpers/workers";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, type TestContext } from "../helpers/context";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";

let ctx: TestContext;
beforeEach(() => {
  ctx = createTestContext("verdict-boundary-");
});
afterEach(async () => {
  await ctx.cleanup();
});

const SECRET = "CONFIDENTIAL task text kept in the data folder by another team";

/** What another team left in the server's folders: a task file, reference answers and an evaluator log. */
function plantAbove(dir: string) {
  fs.mkdirSync(path.join(dir, "data"), { recursive: true });
  fs.writeFileSync(
    path.join(dir, "secret.jsonl"),
    JSON.stringify({ web_name: "SecretSite", id: "SecretSite--7", ques: SECRET, web: "https://secret.test/" }) + "\n",
  );
  fs.writeFileSync(
    path.join(dir, "data", "reference_answer.json"),
    JSON.stringify({ SecretSite: { notice: "internal", answers: [{ id: 7, type: "golden", ans: "the secret answer" }] } }),
  );
  fs.writeFileSync(
    path.join(dir, "evaluation.log"),
    ["--------------------- results/run/taskSecretSite--7 ---------------------", "{'role': 'user', 'content': []}", "SUCCESS", "Auto_eval_res: 1", ""].join(
      "\n",
    ),
  );
}

async function zipOf(folder: string, file: string, prefix: string) {
  const zip = new yazl.ZipFile();
  for (const rel of fs.readdirSync(folder, { recursive: true }) as string[]) {
    const abs = path.join(folder, rel);
    if (fs.statSync(abs).isFile()) zip.addFile(abs, `${prefix}${rel.split(path.sep).join("/")}`);
  }
  zip.end();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await new Promise<void>((r) => zip.outputStream.pipe(fs.createWriteStream(file)).on("close", () => r()));
  return file;
}

describe("imports read nothing above what they were given", () => {
  it("an uploaded task folder takes its task from its own transcript, not from files in the server's data folder", async () => {
    plantAbove(ctx.config.dataDir);
    const src = await writeWebVoyagerFixture(path.join(ctx.dir, "made-elsewhere"), [
      { id: "SecretSite--7", intent: "The task as the agent saw it.", url: "https://secret.test/", actions: ["Click [0]", "ANSWER; x"] },
    ]);
    const upload = await zipOf(path.join(src, "taskSecretSite--7"), path.join(ctx.config.dataDir, "imports", "u.zip"), "taskSecretSite--7/");
    const id = await startImport(ctx, { kind: "upload", file: upload, name: "one-task.zip" }, { requestedBy: null });
    await runQueuedImports(ctx);
    const view = await importJobStatus(ctx, id);
    expect(view.error).toBeNull();
    const report = view.report!;
    expect(report.created).toBe(1);
    const d = (await getTrajectoryDetail(ctx.db, report.trajectories[0]!.id))!;
    expect(d.task.intent).toBe("The task as the agent saw it.");
    expect(d.task.referenceAnswers).toEqual([]);
    expect(await listVerdicts(ctx.db)).toEqual([]);
    expect(report.sources).toEqual([]);
    expect(report.evaluatorLogs).toEqual([]);
    // The Path and the whole report name the zip, never a folder of this server.
    expect(d.trajectory.sourcePath).toBe("one-task.zip: taskSecretSite--7");
    expect(JSON.stringify(view)).not.toContain(ctx.dir);
    expect(JSON.stringify(view)).not.toContain(SECRET);
  });

  it("a folder given with a boundary (the server's import root) reads task files up to it and not above", async () => {
    plantAbove(ctx.dir);
    const root = path.join(ctx.dir, "import-root");
    const run = await writeWebVoyagerFixture(path.join(root, "results", "run"), [
      { id: "SecretSite--7", intent: "From the transcript.", url: "https://secret.test/", actions: ["ANSWER; y"] },
    ]);
    const report = await runImport(ctx, { path: run, boundary: root });
    const d = (await getTrajectoryDetail(ctx.db, report.trajectories[0]!.id))!;
    expect(d.task.intent).toBe("From the transcript.");
    expect(report.sources).toEqual([]);
    // Inside the boundary a task file beside the results is read, and the report says so.
    fs.writeFileSync(
      path.join(root, "tasks.jsonl"),
      JSON.stringify({ web_name: "SecretSite", id: "SecretSite--7", ques: "Kept beside the results.", web: "https://secret.test/" }) + "\n",
    );
    const again = await runImport(ctx, { path: run, boundary: root });
    expect(again.sources).toEqual([{ path: path.join(root, "tasks.jsonl"), role: "task file" }]);
    expect((await getTrajectoryDetail(ctx.db, again.trajectories[0]!.id))!.task.intent).toBe("Kept beside the results.");
  });
});

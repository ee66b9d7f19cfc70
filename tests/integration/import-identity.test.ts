/**
 * Identity by content: a trajectory is the same trajectory wherever its files sat. The same zip uploaded twice, the
 * same results folder imported from two places, a folder imported through its parent and a folder that gained runs
 * change nothing that was there; rows imported before identity by content are recognised too. Paths are stored as
 * the person knows them (the zip and the path inside it, the folder from what was imported down).
 */
import fs from "node:fs";
import path from "node:path";
import yazl from "yazl";
import { afterEach, beforeEach, expect, it } from "vitest";
import { rawAll, rawRun } from "../../db/database";
import { enqueueJobs } from "../../db/repositories/jobs";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { sql } from "drizzle-orm";
import { importJobStatus, startImport } from "../../server/services/imports/jobs";
import { runQueuedImports } from "../helpers/workers";
import { runImport } from "../../server/services/imports/ingest";
import { collectStats } from "../../server/services/stats";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";

let ctx: TestContext;

const task = (id: string, answer: string) => ({ id, intent: `Task ${id}.`, url: "https://id.test/", actions: ["Click [0]", `ANSWER; ${answer}`] });

/** A results folder of two timestamped runs, as WebVoyager writes them. */
async function results(root: string, seed = 1) {
  await writeWebVoyagerFixture(path.join(root, "20250414_14_44_45"), [task("Shop--1", "a"), task("Shop--2", "b")], seed);
  await writeWebVoyagerFixture(path.join(root, "20250415_09_00_00"), [task("Shop--1", "c")], seed + 20);
  return root;
}

/** Zips a folder's files; `prefix` is the folder the entries sit in ("" for the zip's top level). */
async function zipOf(folder: string, file: string, prefix: string) {
  const zip = new yazl.ZipFile();
  for (const rel of (fs.readdirSync(folder, { recursive: true }) as string[]).sort()) {
    const abs = path.join(folder, rel);
    if (fs.statSync(abs).isFile()) zip.addFile(abs, `${prefix}${rel.split(path.sep).join("/")}`);
  }
  zip.end();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await new Promise<void>((r) => zip.outputStream.pipe(fs.createWriteStream(file)).on("close", () => r()));
  return file;
}

async function upload(zipFile: string, name: string) {
  const id = await startImport(ctx, { kind: "upload", file: zipFile, name }, { requestedBy: null });
  await runQueuedImports(ctx);
  const view = await importJobStatus(ctx, id);
  expect(view.error).toBeNull();
  return view.report!;
}

async function counts() {
  const s = await collectStats(ctx.db);
  return { runs: s.runs, trajectories: s.trajectories };
}

describeEachBackend("identity by content", (backend) => {
  beforeEach(async () => {
    ctx = await createBackendContext(backend);
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  it("the same zip uploaded twice: the second import changes nothing, and the Path names the zip and the path inside", async () => {
    const src = await results(path.join(ctx.dir, "src", "results"));
    const zip = () => zipOf(src, path.join(ctx.dir, "imports", `upload-${Date.now()}.zip`), "results/");
    const first = await upload(await zip(), "study.zip");
    expect([first.created, first.updated, first.unchanged]).toEqual([3, 0, 0]);
    const second = await upload(await zip(), "study.zip");
    expect([second.created, second.updated, second.unchanged]).toEqual([0, 0, 3]);
    expect(second.trajectories.map((t) => t.id).sort()).toEqual(first.trajectories.map((t) => t.id).sort());
    expect(await counts()).toEqual({ runs: 2, trajectories: 3 });
    // The same zip under another name holds the same runs: still nothing new.
    const renamed = await upload(await zip(), "study (1).zip");
    expect([renamed.created, renamed.updated, renamed.unchanged]).toEqual([0, 0, 3]);
    expect(await counts()).toEqual({ runs: 2, trajectories: 3 });

    const d = (await getTrajectoryDetail(ctx.db, first.trajectories[0]!.id))!;
    expect(d.trajectory.sourcePath).toBe("study.zip: results/20250414_14_44_45/taskShop--1");
    expect(d.run.name).toBe("results/20250414_14_44_45");
    expect(d.run.runKey).toBe("webvoyager:results/20250414_14_44_45");
    // Nothing anywhere names the server's folders.
    const paths = await rawAll<{ p: string | null }>(ctx.db, sql`select source_path as p from trajectories union all select run_key as p from agent_runs`);
    expect(paths.filter((r) => r.p?.includes(ctx.dir) || r.p?.includes("imports"))).toEqual([]);
  });

  it("a zip whose task folders sit at its top level: the run is the zip, and uploading it twice changes nothing", async () => {
    const src = await writeWebVoyagerFixture(path.join(ctx.dir, "src", "flat"), [task("Flat--1", "x"), task("Flat--2", "y")], 40);
    const zip = () => zipOf(src, path.join(ctx.dir, "imports", `upload-${Date.now()}.zip`), "");
    const first = await upload(await zip(), "gpt4o-run.zip");
    expect(first.created).toBe(2);
    const d = (await getTrajectoryDetail(ctx.db, first.trajectories[0]!.id))!;
    expect(d.run.name).toBe("gpt4o-run");
    expect(d.trajectory.sourcePath).toBe("gpt4o-run.zip: taskFlat--1");
    const second = await upload(await zip(), "gpt4o-run.zip");
    expect([second.created, second.updated, second.unchanged]).toEqual([0, 0, 2]);
    // The same folder imported from the command line under the zip's name is the same run too.
    const copy = path.join(ctx.dir, "elsewhere", "gpt4o-run");
    fs.cpSync(src, copy, { recursive: true });
    const cli = await runImport(ctx, { path: copy });
    expect([cli.created, cli.updated, cli.unchanged]).toEqual([0, 0, 2]);
    expect(await counts()).toEqual({ runs: 1, trajectories: 2 });
  });

  it("the same folder imported from two places, or through its parent: unchanged, counted once", async () => {
    const a = await results(path.join(ctx.dir, "alice", "results"));
    const first = await runImport(ctx, { path: a });
    expect(first.created).toBe(3);
    const b = path.join(ctx.dir, "bob", "copy-of-results");
    fs.cpSync(a, b, { recursive: true });
    const second = await runImport(ctx, { path: b });
    expect([second.created, second.updated, second.unchanged]).toEqual([0, 0, 3]);
    const parent = await runImport(ctx, { path: path.dirname(a) });
    expect([parent.created, parent.updated, parent.unchanged]).toEqual([0, 0, 3]);
    const oneRun = await runImport(ctx, { path: path.join(b, "20250415_09_00_00") });
    expect([oneRun.created, oneRun.updated, oneRun.unchanged]).toEqual([0, 0, 1]);
    expect(await counts()).toEqual({ runs: 2, trajectories: 3 });
    // The Path is the folder from what was imported down, as the first import named it.
    expect((await getTrajectoryDetail(ctx.db, first.trajectories[0]!.id))!.trajectory.sourcePath).toBe("results/20250414_14_44_45/taskShop--1");
  });

  it("a folder that gained a run and a task: only those are created, in the runs they belong to", async () => {
    const root = await results(path.join(ctx.dir, "results"));
    const first = await runImport(ctx, { path: root });
    // A new run, and a task the first run finished later. Its folder sorts first, so it is read before the run's
    // other trajectories tell which stored run this is.
    await writeWebVoyagerFixture(path.join(root, "20250501_08_00_00"), [task("Shop--3", "d")], 60);
    await writeWebVoyagerFixture(path.join(root, "20250414_14_44_45"), [task("Shop--0", "e")], 80);
    const copy = path.join(ctx.dir, "moved", "results-2");
    fs.cpSync(root, copy, { recursive: true });
    const second = await runImport(ctx, { path: copy });
    expect([second.created, second.updated, second.unchanged]).toEqual([2, 0, 3]);
    const run = (id: string) => second.trajectories.find((t) => t.externalTaskId === id)!.runId;
    expect(run("Shop--0")).toBe(first.trajectories.find((t) => t.externalTaskId === "Shop--2")!.runId);
    expect(run("Shop--3")).not.toBe(run("Shop--0"));
    expect(await counts()).toEqual({ runs: 3, trajectories: 5 });
  });

  it("rows imported before identity by content (absolute run folders, upload folders) are recognised and named as the zip", async () => {
    const root = await results(path.join(ctx.dir, "old", "results"));
    const first = await runImport(ctx, { path: root });
    // What an earlier Verdict stored: the run keyed by its absolute folder, a content hash of another kind, no
    // source identity; and for an upload, the server's unpacked folder as the Path and the run's name.
    const uploadDir = path.join(ctx.dir, "data", "imports", "upload-1700000000000-a1b2c3d4e5f6.zip.d");
    const [one, two, three] = first.trajectories;
    for (const [i, t] of [one!, two!, three!].entries()) {
      await rawRun(ctx.db, sql`update trajectories set content_hash = ${`old-${i}`}, identity_hash = null where id = ${t.id}`);
    }
    await rawRun(
      ctx.db,
      sql`update trajectories set source_path = ${path.join(uploadDir, "results", "20250415_09_00_00", "taskShop--1")} where id = ${three!.id}`,
    );
    await rawRun(ctx.db, sql`update agent_runs set run_key = ${`webvoyager:${path.join(root, "20250414_14_44_45")}`} where id = ${one!.runId}`);
    await rawRun(
      ctx.db,
      sql`update agent_runs set run_key = ${`webvoyager:${path.join(uploadDir, "results", "20250415_09_00_00")}`}, name = ${"upload-1700000000000-a1b2c3d4e5f6.zip.d"} where id = ${three!.runId}`,
    );
    await enqueueJobs(ctx.db, [
      {
        type: "import.source",
        payload: {
          source: { kind: "upload", file: path.join(ctx.dir, "data", "imports", "upload-1700000000000-a1b2c3d4e5f6.zip"), name: "march.zip" },
          format: "auto",
          requestedBy: null,
        },
        groupKey: "import:old",
        maxAttempts: 1,
      },
    ]);

    const copy = path.join(ctx.dir, "new-place", "results");
    fs.cpSync(root, copy, { recursive: true });
    const again = await runImport(ctx, { path: copy });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 3]);
    expect(await counts()).toEqual({ runs: 2, trajectories: 3 });
    const three2 = (await getTrajectoryDetail(ctx.db, three!.id))!;
    expect(three2.trajectory.sourcePath).toBe("march.zip: results/20250415_09_00_00/taskShop--1");
    expect(three2.run.name).toBe("march");
  });
});

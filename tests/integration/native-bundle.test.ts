import fs from "node:fs";
import path from "node:path";
import yazl from "yazl";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sqliteClient } from "../../db/database";
import { getTrajectoryDetail, trajectoryIds } from "../../db/repositories/trajectories";
import { listVerdicts, upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { analyticsOverview } from "../../server/services/analytics";
import { bundleJsonSchema } from "../../server/domain/imports/bundle";
import { exportBundle } from "../../server/services/bundle-io";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, type TestContext } from "../helpers/context";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";

let a: TestContext;
let b: TestContext;
beforeEach(() => {
  a = createTestContext();
  b = createTestContext();
});
afterEach(async () => {
  await a.cleanup();
  await b.cleanup();
});

async function seed(ctx: TestContext) {
  const root = await writeWebVoyagerFixture(path.join(ctx.dir, "src", "run"), [
    { id: "Shop--1", intent: "Buy a lamp.", url: "https://shop.test/", actions: ["Type [1]; lamp", "Click [0]", "ANSWER; done"] },
    { id: "Shop--2", intent: "Find socks.", url: "https://shop.test/", actions: ["Click [2]", "GoBack"] },
  ]);
  return runImport(ctx, { path: root });
}

async function comparable(ctx: TestContext, id: number) {
  const d = (await getTrajectoryDetail(ctx.db, id))!;
  return {
    task: { ...d.task, id: 0, taskSetId: 0, createdAt: 0 },
    taskSet: d.taskSet.name,
    run: { ...d.run, id: 0, createdAt: 0 },
    // The source identity is that of the files read (a bundle's are other files); the content hash is the same.
    trajectory: { ...d.trajectory, id: 0, runId: 0, taskId: 0, createdAt: 0, updatedAt: 0, sourcePath: null, sourceFormat: null, identityHash: null },
    steps: d.steps.map((s) => ({ ...s, id: 0, trajectoryId: 0 })),
  };
}

describe("native bundle", () => {
  it.each(["folder", "zip"])("round-trips through a %s: same trajectory, byte-identical images", async (kind) => {
    const report = await seed(a);
    const ids = await trajectoryIds(a.db);
    const out = path.join(a.dir, kind === "zip" ? "export.zip" : "export");
    const result = await exportBundle(a, ids, out);
    expect(result).toMatchObject({ trajectories: 2, images: 5 });

    const imported = await runImport(b, { path: out });
    expect(imported.format).toBe("native");
    expect(imported.created).toBe(2);
    for (const t of report.trajectories) {
      const twin = imported.trajectories.find((x) => x.externalTaskId === t.externalTaskId)!;
      expect(await comparable(b, twin.id)).toEqual(await comparable(a, t.id));
      for (const s of (await getTrajectoryDetail(a.db, t.id))!.steps) {
        expect(fs.readFileSync(b.store.pathFor(s.screenshotHash!)).equals(fs.readFileSync(a.store.pathFor(s.screenshotHash!)))).toBe(true);
      }
    }
    // Importing the export into the database it came from changes nothing.
    const back = await runImport(a, { path: out });
    expect([back.created, back.updated, back.unchanged]).toEqual([0, 0, 2]);
  });

  it("carries evaluator verdicts: kept with k and prompt version elsewhere, not doubled when re-imported here", async () => {
    // WebVoyager's auto-evaluator log beside the run: imported verdicts, from elsewhere.
    const log = ["Shop--1", "Shop--2"].map(
      (t, i) =>
        `--------------------- results/run/task${t} ---------------------\n{'role': 'user', 'content': []}\nLooks ${i ? "wrong" : "right"}.\nAuto_eval_res: ${i ? 0 : 1}\n`,
    );
    fs.mkdirSync(path.join(a.dir, "src"), { recursive: true });
    fs.writeFileSync(path.join(a.dir, "src", "auto_eval.log"), log.join(""));
    const seeded = await seed(a);
    expect(seeded.verdicts).toBe(2);
    const ids = await trajectoryIds(a.db);
    // A judge of this database at two screenshot windows.
    for (const [i, id] of ids.entries()) {
      for (const k of ["1", "3"]) {
        await upsertVerdict(a.db, {
          trajectoryId: id,
          kind: "judge",
          origin: "verdict",
          evaluatorKey: "judge:7",
          evaluatorName: "Lamp judge",
          k,
          promptVersion: "wv-1",
          verdict: i === 0 ? "success" : "failure",
          score: null,
          rationale: `k=${k} says so`,
          rawReply: "SUCCESS",
          model: "judge-model",
        });
      }
    }
    const out = path.join(a.dir, "with-verdicts.zip");
    await exportBundle(a, ids, out);

    const imported = await runImport(b, { path: out });
    expect(imported.created).toBe(2);
    const rows = async (ctx: TestContext) =>
      (await listVerdicts(ctx.db))
        .map((v) => [v.evaluatorKey, v.evaluatorName, v.kind, v.origin, v.k, v.promptVersion, v.verdict, v.rationale, v.rawReply, v.model].join("|"))
        .sort();
    const there = await rows(b);
    expect(there).toHaveLength(6);
    expect(there).toContain("import:Lamp judge|Lamp judge|judge|import|3|wv-1|failure|k=3 says so|SUCCESS|judge-model");
    expect(there).toContain(
      `import:webvoyager:auto_eval|webvoyager:auto_eval|judge|import|||failure|Looks wrong.|${log[1]!.trim().split("\n").slice(1).join("\n")}|`,
    );
    // The judge's settings stay apart in the other database's analytics.
    const columns = (await analyticsOverview(b.db, { scope: {}, unparseable: "exclude", difficulty: "overall" })).columns.map((c) => c.label);
    expect(columns).toEqual(expect.arrayContaining(["Lamp judge · k = 1", "Lamp judge · k = 3"]));

    // Back into the database it came from: its own judge verdicts are not imported again, nothing changes.
    const before = await rows(a);
    const back = await runImport(a, { path: out });
    expect([back.created, back.updated, back.unchanged]).toEqual([0, 0, 2]);
    expect(await rows(a)).toEqual(before);
    // And the copy in the other database, exported and imported there again, is unchanged too.
    const again = path.join(b.dir, "again.zip");
    await exportBundle(b, await trajectoryIds(b.db), again);
    const twice = await runImport(b, { path: again });
    expect([twice.created, twice.updated, twice.unchanged]).toEqual([0, 0, 2]);
    expect(await rows(b)).toEqual(there);
  });

  it("publishes a JSON Schema generated from the zod schema", () => {
    const schema = bundleJsonSchema() as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(["format", "version", "trajectories"]));
    const committed = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "docs", "bundle.schema.json"), "utf8"));
    expect(committed).toEqual(schema);
  });
});

function snapshot(ctx: TestContext) {
  const count = (t: string) => (sqliteClient(ctx.db).prepare(`select count(*) n from ${t}`).get() as { n: number }).n;
  const files = fs.existsSync(ctx.store.root) ? fs.readdirSync(ctx.store.root, { recursive: true }).filter((f) => !String(f).includes(".staging")).length : 0;
  return {
    tasks: count("tasks"),
    runs: count("agent_runs"),
    trajectories: count("trajectories"),
    steps: count("steps"),
    screenshots: count("screenshots"),
    files,
  };
}

/** yazl refuses unsafe names, so entries are written under same-length stand-ins and renamed in the bytes. */
async function makeZip(file: string, entries: Record<string, Buffer | string>, renames: Record<string, string> = {}) {
  const zip = new yazl.ZipFile();
  for (const [name, data] of Object.entries(entries)) zip.addBuffer(Buffer.from(data), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  let bytes = Buffer.concat(chunks);
  for (const [from, to] of Object.entries(renames)) {
    expect(from.length).toBe(to.length);
    bytes = Buffer.from(bytes.toString("latin1").split(from).join(to), "latin1");
  }
  fs.writeFileSync(file, bytes);
}

describe("malformed input is rejected with an exact error and nothing written", () => {
  it("truncated interact_messages.json names the file", async () => {
    await seed(b);
    const before = snapshot(b);
    const root = await writeWebVoyagerFixture(
      path.join(b.dir, "bad"),
      [
        { id: "Ok--1", intent: "fine", url: "https://x.test/", actions: ["Click [0]", "ANSWER; y"] },
        { id: "Bad--1", intent: "broken", url: "https://x.test/", actions: ["Click [0]", "ANSWER; y"] },
      ],
      900,
    );
    const file = path.join(root, "taskBad--1", "interact_messages.json");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").slice(0, 80));
    await expect(runImport(b, { path: root, strict: true })).rejects.toThrow(new RegExp(`^${escape(file)}: is not valid JSON \\(`));
    expect(snapshot(b)).toEqual(before);
  });

  it("a missing screenshot is not malformed input: the step is kept without an image", async () => {
    const root = await writeWebVoyagerFixture(
      path.join(b.dir, "bad"),
      [
        { id: "Ok--1", intent: "fine", url: "https://x.test/", actions: ["Click [0]", "ANSWER; y"] },
        { id: "Gap--1", intent: "gap", url: "https://x.test/", actions: ["Click [0]", "Click [1]", "ANSWER; y"] },
      ],
      700,
    );
    const missing = path.join(root, "taskGap--1", "screenshot2.png");
    fs.rmSync(missing);
    const before = snapshot(b);
    // --strict refuses a trajectory that needed a repair, and writes nothing.
    await expect(runImport(b, { path: root, strict: true })).rejects.toThrow("--strict refuses trajectories that needed a repair");
    expect(snapshot(b)).toEqual(before);
    const report = await runImport(b, { path: root });
    expect(report.trajectories.find((t) => t.externalTaskId === "Gap--1")).toMatchObject({ steps: 3, screenshots: 2 });
  });

  it("a non-image file named .png is refused", async () => {
    const root = await writeWebVoyagerFixture(
      path.join(b.dir, "bad"),
      [{ id: "Fake--1", intent: "fake", url: "https://x.test/", actions: ["Click [0]", "ANSWER; y"] }],
      300,
    );
    const fake = path.join(root, "taskFake--1", "screenshot2.png");
    fs.writeFileSync(fake, "<html>definitely not a png</html>");
    const before = snapshot(b);
    await expect(runImport(b, { path: root })).rejects.toThrow(`${fake}: is not a PNG, JPEG, WebP or GIF image`);
    expect(snapshot(b)).toEqual(before);
  });

  it("a trajectory with an unknown action type is skipped with its location; --strict refuses the bundle", async () => {
    await seed(a);
    const out = path.join(a.dir, "exp");
    await exportBundle(a, await trajectoryIds(a.db), out);
    const manifestFile = path.join(out, "manifest.json");
    const m = JSON.parse(fs.readFileSync(manifestFile, "utf8"));
    m.trajectories[1].steps[0].action.type = "teleport";
    fs.writeFileSync(manifestFile, JSON.stringify(m));
    const before = snapshot(b);
    const problem = /^is not a valid Verdict bundle trajectory: steps\[0\]\.action\.type: Invalid option/;
    await expect(runImport(b, { path: out, strict: true })).rejects.toThrow(new RegExp(`^${escape(out)}#trajectories\\[1\\]: ${problem.source.slice(1)}`));
    expect(snapshot(b)).toEqual(before);
    // Validated trajectory by trajectory: the others are imported, the broken one is reported with its first problem.
    const report = await runImport(b, { path: out });
    expect(report.skipped).toEqual([{ path: `${out}#trajectories[1]`, reason: expect.stringMatching(problem) }]);
    // Stored as the person knows the folder: by its own name.
    expect(report.trajectories.map((t) => t.sourcePath)).toEqual(
      m.trajectories.map((_: unknown, i: number) => `exp#trajectories[${i}]`).filter((p: string) => !p.endsWith("[1]")),
    );
  });

  it("an image whose bytes do not match the manifest hash is refused", async () => {
    await seed(a);
    const out = path.join(a.dir, "exp");
    await exportBundle(a, await trajectoryIds(a.db), out);
    const img = fs.readdirSync(path.join(out, "images"))[0]!;
    fs.writeFileSync(path.join(out, "images", img), Buffer.concat([fs.readFileSync(path.join(out, "images", img)), Buffer.from("x")]));
    const before = snapshot(b);
    await expect(runImport(b, { path: out, strict: true })).rejects.toThrow(`images/${img}: content does not match the sha256 in the manifest`);
    expect(snapshot(b)).toEqual(before);
  });

  it("a zip with a ../ entry name is refused before anything is read", async () => {
    const zipFile = path.join(b.dir, "evil.zip");
    await makeZip(zipFile, { "manifest.json": "{}", "zz/escape.png": "x" }, { "zz/escape.png": "../escape.png" });
    const before = snapshot(b);
    await expect(runImport(b, { path: zipFile })).rejects.toThrow(`${zipFile}: unsafe entry name "../escape.png": it climbs out of the bundle with '..'`);
    expect(snapshot(b)).toEqual(before);
    expect(fs.existsSync(path.join(b.dir, "escape.png"))).toBe(false);
  });

  it("an unknown format is refused with the list of formats", async () => {
    const file = path.join(b.dir, "notes.txt");
    fs.writeFileSync(file, "hello");
    await expect(runImport(b, { path: file })).rejects.toThrow(/notes\.txt: cannot tell which format this is \(known: native, webvoyager/);
  });
});

function escape(s: string) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

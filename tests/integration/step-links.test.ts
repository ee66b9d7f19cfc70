/**
 * Stable step links (issue 31, item 2): `/t/<content key>?id=<row>&step=N` finds the trajectory again after a
 * re-import on both engines: a deleted trajectory imported again (new row, same content) by its content, one a
 * re-import changed in place (same row, new content hash) by its row; a link to nothing left is a clear 404 for a
 * researcher, and an annotator gets the player's one refusal whether the link leads somewhere or not.
 */
import fs from "node:fs";
import path from "node:path";
import yazl from "yazl";
import { afterEach, beforeEach, expect, it } from "vitest";
import { deleteTrajectory, setTrajectoryHashes } from "../../db/repositories/trajectories";
import { importJobStatus, startImport } from "../../server/services/imports/jobs";
import { NOT_BROWSABLE_MESSAGE } from "../../server/services/access/scope";
import { parseRegionParam } from "../../server/domain/evaluation/citations";
import { linkKeyOf, pickLinkTarget, stepLinkPath, parseRegion, regionCorners, regionOfCorners } from "../../server/domain/trajectories/step-links";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { callerWithRole } from "../helpers/trpc";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";
import { runQueuedImports } from "../helpers/workers";

async function zipOf(folder: string, file: string): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const rel of fs.readdirSync(folder, { recursive: true }) as string[]) {
    const abs = path.join(folder, rel);
    if (fs.statSync(abs).isFile()) zip.addFile(abs, `results/${rel.split(path.sep).join("/")}`);
  }
  zip.end();
  await new Promise<void>((r) => zip.outputStream.pipe(fs.createWriteStream(file)).on("close", () => r()));
  return file;
}

it("picks the linked row while it holds the content, else the row holding it, else the linked row", () => {
  const key = "ab".repeat(32);
  expect(pickLinkTarget({ id: 4, contentHash: `v2:${key}` }, { id: 9 }, key)).toBe(4);
  expect(pickLinkTarget(null, { id: 9 }, key)).toBe(9);
  expect(pickLinkTarget({ id: 4, contentHash: "v2:other" }, { id: 9 }, key)).toBe(9);
  expect(pickLinkTarget({ id: 4, contentHash: "v2:other" }, null, key)).toBe(4);
  expect(pickLinkTarget(null, null, key)).toBeNull();
  expect(stepLinkPath({ key, id: 4 }, 3, { x: 10, y: 20, width: 30, height: 40 })).toBe(`/t/${key}?id=4&step=3&region=10%2C20%2C30%2C40`);
  expect(parseRegion("10,20,30,40")).toEqual({ x: 10, y: 20, width: 30, height: 40 });
  expect([parseRegion("10,20,0,40"), parseRegion("-1,2,3,4"), parseRegion("1,2,3"), parseRegion(null)]).toEqual([null, null, null, null]);
});

it("hands a link's region (x,y,w,h) to the player as the corners it draws by, and back", () => {
  expect(regionCorners({ x: 10, y: 20, width: 30, height: 40 })).toEqual([10, 20, 40, 60]);
  expect(regionOfCorners([10, 20, 40, 60])).toEqual({ x: 10, y: 20, width: 30, height: 40 });
  // The player's own reading of a corners region accepts what the link page hands it.
  expect(parseRegionParam(regionCorners(parseRegion("300,200,50,40")!).join(","))).toEqual([300, 200, 350, 240]);
});

describeEachBackend("stable step links", (backend) => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await createBackendContext(backend);
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  async function importZip(zip: string): Promise<number[]> {
    const copy = path.join(ctx.dir, "imports", `u-${Date.now()}-${Math.random()}.zip`);
    fs.mkdirSync(path.dirname(copy), { recursive: true });
    fs.copyFileSync(zip, copy);
    const job = await startImport(ctx, { kind: "upload", file: copy, name: "results.zip" }, { requestedBy: null });
    await runQueuedImports(ctx);
    const view = await importJobStatus(ctx, job);
    expect(view.error).toBeNull();
    return view.report!.trajectories.map((t) => t.id);
  }

  it("finds the trajectory again after it is deleted and imported again, or changed in place", async () => {
    const src = await writeWebVoyagerFixture(path.join(ctx.dir, "src"), [
      { id: "Link--1", intent: "Find it.", url: "https://link.test/", actions: ["Click [0]", "Type [1]; it", "ANSWER; here"] },
    ]);
    const zip = await zipOf(src, path.join(ctx.dir, "results.zip"));
    const [first] = (await importZip(zip)) as [number];
    const researcher = await callerWithRole(ctx, "researcher");
    const { trajectory } = await researcher.trajectories.byId({ id: first });
    const key = trajectory.linkKey;
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(await researcher.trajectories.resolveLink({ key, id: first })).toEqual({ id: first });

    // Deleted, then the same folder imported again: a new row with the same content; the old link finds it.
    await deleteTrajectory(ctx.db, first);
    const [second] = (await importZip(zip)) as [number];
    expect(second).not.toBe(first);
    expect(await researcher.trajectories.resolveLink({ key, id: first })).toEqual({ id: second });
    expect(await researcher.trajectories.resolveLink({ key })).toEqual({ id: second });

    // A later import changed the trajectory in place (same row, another content hash): the row id in the link holds.
    await setTrajectoryHashes(ctx.db, second, { contentHash: `v2:${"c".repeat(64)}` });
    expect(await researcher.trajectories.resolveLink({ key, id: second })).toEqual({ id: second });
    expect((await researcher.trajectories.byId({ id: second })).trajectory.linkKey).toBe(linkKeyOf(`v2:${"c".repeat(64)}`));

    // Nothing left: a researcher is told so; an annotator gets the player's refusal, as for a trajectory not theirs.
    await expect(researcher.trajectories.resolveLink({ key })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const annotator = await callerWithRole(ctx, "annotator");
    await expect(annotator.trajectories.resolveLink({ key })).rejects.toMatchObject({ code: "FORBIDDEN", message: NOT_BROWSABLE_MESSAGE });
    await expect(annotator.trajectories.resolveLink({ key, id: second })).rejects.toMatchObject({ code: "FORBIDDEN", message: NOT_BROWSABLE_MESSAGE });
  });
});

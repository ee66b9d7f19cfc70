/**
 * Native bundles: verdicts come back exactly as they left (a null raw stays null), and a folder bundle cannot use
 * symbolic links to pull files from outside it into the store (security review L4).
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listVerdicts, upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { trajectoryIds } from "../../db/repositories/trajectories";
import { exportBundle } from "../../server/services/bundle-io";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, type TestContext } from "../helpers/context";
import { storeSnapshot } from "../helpers/db-snapshot";
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

async function exported(ctx: TestContext, name: string): Promise<string> {
  const out = path.join(ctx.dir, name);
  await exportBundle(ctx, await trajectoryIds(ctx.db), out);
  return out;
}

describe("verdict round trip", () => {
  it("a verdict with no raw reply comes back with none, and re-imports change nothing", async () => {
    await seed(a);
    for (const id of (await trajectoryIds(a.db))) {
      await upsertVerdict(a.db, { trajectoryId: id, kind: "human", origin: "verdict", evaluatorKey: "import:lab-review", evaluatorName: "lab-review", verdict: "success", score: 1, rationale: "Checked by hand.", rawReply: null, model: null });
    }
    const out = await exported(a, "export");
    const manifest = JSON.parse(fs.readFileSync(path.join(out, "manifest.json"), "utf8")) as { trajectories: { verdicts: { raw: unknown }[] }[] };
    expect(manifest.trajectories.flatMap((t) => t.verdicts.map((v) => v.raw))).toEqual([null, null]);

    await runImport(b, { path: out });
    expect((await listVerdicts(b.db)).map((v) => [v.evaluatorKey, v.rawReply])).toEqual([
      ["import:lab-review", null],
      ["import:lab-review", null],
    ]);
    const again = await runImport(b, { path: await exported(b, "again") });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 2]);
    expect((await listVerdicts(b.db)).map((v) => v.rawReply)).toEqual([null, null]);
  });
});

describe("symbolic links in a folder bundle", () => {
  it("an image linked to a file outside the bundle is refused: a strict import writes nothing, a plain one skips what uses it", async () => {
    await seed(a);
    const out = await exported(a, "export");
    const img = fs.readdirSync(path.join(out, "images"))[0]!;
    // The outside file even has the right bytes: the link itself is what is refused.
    const outside = path.join(a.dir, "elsewhere.png");
    fs.copyFileSync(path.join(out, "images", img), outside);
    fs.rmSync(path.join(out, "images", img));
    fs.symlinkSync(outside, path.join(out, "images", img));
    const refusal = `${path.join(out, "images", img)}: is a link to a file outside the bundle folder`;
    const before = await storeSnapshot(b);
    await expect(runImport(b, { path: out, strict: true })).rejects.toThrow(refusal);
    expect(await storeSnapshot(b)).toEqual(before);
    // Without --strict the trajectories that use the linked image are skipped with that reason; the rest import.
    const report = await runImport(b, { path: out });
    expect(report.skipped.length).toBeGreaterThan(0);
    for (const s of report.skipped) expect(`${s.path}: ${s.reason}`).toBe(refusal);
    expect(report.created + report.skipped.length).toBe(2);
  });

  it("a manifest linked to a file outside the bundle is refused", async () => {
    await seed(a);
    const out = await exported(a, "export");
    const outside = path.join(a.dir, "manifest-elsewhere.json");
    fs.renameSync(path.join(out, "manifest.json"), outside);
    fs.symlinkSync(outside, path.join(out, "manifest.json"));
    await expect(runImport(b, { path: out, format: "native" })).rejects.toThrow(`${path.join(out, "manifest.json")}: is a link to a file outside the bundle folder`);
  });

  it("links that stay inside the bundle, and a bundle folder reached through a link, are read", async () => {
    await seed(a);
    const out = await exported(a, "export");
    const img = fs.readdirSync(path.join(out, "images"))[0]!;
    fs.renameSync(path.join(out, "images", img), path.join(out, "kept.bin"));
    fs.symlinkSync(path.join("..", "kept.bin"), path.join(out, "images", img));
    const linkedRoot = path.join(b.dir, "linked-export");
    fs.symlinkSync(out, linkedRoot);
    const report = await runImport(b, { path: linkedRoot });
    expect(report.created).toBe(2);
  });
});

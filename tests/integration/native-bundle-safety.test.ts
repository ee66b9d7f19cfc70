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
    for (const id of await trajectoryIds(a.db)) {
      await upsertVerdict(a.db, {
        trajectoryId: id,
        kind: "human",
        origin: "verdict",
        evaluatorKey: "import:lab-review",
        evaluatorName: "lab-review",
        verdict: "success",
        score: 1,
        rationale: "Checked by hand.",
        rawReply: null,
        model: null,
      });
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
    await expect(runImport(b, { path: out, format: "native" })).rejects.toThrow(
      `${path.join(out, "manifest.json")}: is a link to a file outside the bundle folder`,
    );
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

describe("a bundle's manifest is read as a stream under limits (security review 2, N1)", () => {
  const saved = process.env.VERDICT_BUNDLE_MANIFEST_MAX_MB;
  afterEach(() => {
    if (saved === undefined) delete process.env.VERDICT_BUNDLE_MANIFEST_MAX_MB;
    else process.env.VERDICT_BUNDLE_MANIFEST_MAX_MB = saved;
  });

  it("a manifest over VERDICT_BUNDLE_MANIFEST_MAX_MB is refused before it is read, naming the limit", async () => {
    await seed(a);
    const out = await exported(a, "big");
    const file = path.join(out, "manifest.json");
    const m = JSON.parse(fs.readFileSync(file, "utf8")) as { generator?: string };
    m.generator = "x".repeat(1_200_000);
    fs.writeFileSync(file, JSON.stringify(m));
    process.env.VERDICT_BUNDLE_MANIFEST_MAX_MB = "1";
    const before = await storeSnapshot(b);
    await expect(runImport(b, { path: out })).rejects.toThrow(
      `${file}: is 1.1 MB, more than the 1 MB a bundle manifest may have (VERDICT_BUNDLE_MANIFEST_MAX_MB); split the bundle into several`,
    );
    expect(await storeSnapshot(b)).toEqual(before);
  });

  it("a trajectory of 200,000 invalid steps is skipped with its first problem, its neighbours imported", async () => {
    await seed(a);
    const out = await exported(a, "steps");
    const file = path.join(out, "manifest.json");
    const m = JSON.parse(fs.readFileSync(file, "utf8")) as { trajectories: { steps: unknown[] }[] };
    m.trajectories[0]!.steps = Array.from({ length: 200_000 }, () => ({}));
    fs.writeFileSync(file, JSON.stringify(m));
    const report = await runImport(b, { path: out });
    // One problem, not 200,000 × the step's fields: validation stopped at the first.
    expect(report.skipped).toEqual([
      {
        path: `${out}#trajectories[0]`,
        reason: "is not a valid Verdict bundle trajectory: steps[0].index: Invalid input: expected number, received undefined",
      },
    ]);
    expect(report.trajectories.map((t) => t.sourcePath)).toEqual([`${path.basename(out)}#trajectories[1]`]);
  });

  it("the manifest's own fields are read wherever they stand, also after the trajectories", async () => {
    await seed(a);
    const out = await exported(a, "reordered");
    const file = path.join(out, "manifest.json");
    const { trajectories, ...header } = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
    fs.writeFileSync(file, JSON.stringify({ trajectories, ...header }));
    const report = await runImport(b, { path: out });
    expect(report.skipped).toEqual([]);
    expect(report.created).toBe(2);
    fs.writeFileSync(file, JSON.stringify({ trajectories, ...header, format: "something-else" }));
    await expect(runImport(b, { path: out })).rejects.toThrow(
      `${file}: is not a valid Verdict bundle manifest: format: Invalid input: expected "verdict.trajectory-bundle"`,
    );
  });
});

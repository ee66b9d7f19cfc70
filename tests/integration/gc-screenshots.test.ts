/**
 * `cli gc-screenshots` on the data folder: removes stored screenshots (and their variants) that no row refers to
 * once they are old enough, keeps young ones (an import still running may own them) and every referenced one.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sqliteClient } from "../../db/database";
import { runCli } from "../../server/cli/main";
import { runImport } from "../../server/services/imports/ingest";
import { sha256 } from "../../server/storage/screenshot-store";
import { createTestContext, type TestContext } from "../helpers/context";

const FIXTURE = path.resolve(__dirname, "..", "fixtures", "webvoyager-mini", "results");

let ctx: TestContext;
beforeEach(() => {
  ctx = createTestContext("verdict-gc-");
});
afterEach(async () => {
  await ctx.cleanup();
});

function place(file: string, bytes: string, ageHours: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
  const t = new Date(Date.now() - ageHours * 3_600_000);
  fs.utimesSync(file, t, t);
}

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(argv, {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    interactive: false,
    env: { ...process.env, VERDICT_DB: ctx.config.dbPath, VERDICT_DATA_DIR: ctx.dir },
  });
  return { code, out, err };
}

describe("cli gc-screenshots", () => {
  it("removes old unreferenced screenshots and their variants, keeps young and referenced ones", async () => {
    await runImport(ctx, { path: FIXTURE });
    const referenced = (sqliteClient(ctx.db).prepare("select hash from screenshots").all() as { hash: string }[]).map((r) => r.hash);
    const oldOrphan = sha256(Buffer.from("old orphan"));
    const youngOrphan = sha256(Buffer.from("young orphan"));
    place(ctx.store.pathFor(oldOrphan), "old orphan", 48);
    place(ctx.store.pathFor(youngOrphan), "young orphan", 1);
    const orphanVariant = path.join(ctx.dir, "variants", oldOrphan.slice(0, 2), `${oldOrphan}-w320.webp`);
    const keptVariant = path.join(ctx.dir, "variants", referenced[0]!.slice(0, 2), `${referenced[0]}-w320.webp`);
    place(orphanVariant, "v", 48);
    place(keptVariant, "v", 48);

    const dry = await cli(["gc-screenshots", "--dry-run", "--json"]);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.out)).toMatchObject({ dryRun: true, removed: [oldOrphan], removedVariants: [`${oldOrphan}-w320.webp`], keptYoung: 1 });
    expect(fs.existsSync(ctx.store.pathFor(oldOrphan))).toBe(true);

    const real = await cli(["gc-screenshots", "--json"]);
    expect(JSON.parse(real.out)).toMatchObject({ dryRun: false, removed: [oldOrphan], keptYoung: 1 });
    expect(fs.existsSync(ctx.store.pathFor(oldOrphan))).toBe(false);
    expect(fs.existsSync(orphanVariant)).toBe(false);
    expect(fs.existsSync(ctx.store.pathFor(youngOrphan))).toBe(true);
    expect(fs.existsSync(keptVariant)).toBe(true);
    for (const h of referenced) expect(fs.existsSync(ctx.store.pathFor(h))).toBe(true);

    expect((await cli(["gc-screenshots", "--min-age-hours", "0"])).code).toBe(2);
  });
});

/**
 * The per-trajectory import report: a folder imports every trajectory it can read, skips the others with the
 * file and the problem, reports repairs as warnings; `strict` is all-or-nothing. Plus the store's safety around
 * commits (staging sweep, no orphan rows, no file deleted under another trajectory) and the zip limits.
 */
import fs from "node:fs";
import path from "node:path";
import { asc, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { rawRun, tablesOf } from "../../db/database";
import { ImportRefusedError, runImport } from "../../server/services/imports/ingest";
import { sha256 } from "../../server/storage/screenshot-store";
import { webVoyagerImporter } from "../../server/importers/webvoyager";
import type { Importer } from "../../server/importers/types";
import { openZipReader } from "../../server/importers/zip";
import { importLimitsFromEnv } from "../../server/config";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { escapeRegExp, storeSnapshot } from "../helpers/db-snapshot";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";
import { writeZipBomb } from "../helpers/zip-bomb";
import yauzl from "yauzl";

describeEachBackend("import report", (backend) => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await createBackendContext(backend);
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  const task = (id: string, steps = 2) => ({
    id,
    intent: `Do ${id}.`,
    url: "https://site.test/",
    actions: [...Array.from({ length: steps - 1 }, () => "Click [0]"), "ANSWER; ok"],
  });

  /** Three trajectories; the second has a step screenshot that is not an image. */
  async function folderWithOneBroken(root: string, seed = 1) {
    await writeWebVoyagerFixture(root, [task("Good--1"), task("Bad--1"), task("Good--2")], seed);
    const broken = path.join(root, "taskBad--1", "screenshot2.png");
    fs.writeFileSync(broken, "not an image at all");
    return { root, broken };
  }

  /** The WebVoyager importer, plus a repair note on one trajectory (as the importers add them). */
  function withWarning(taskId: string, message: string): Importer {
    return {
      ...webVoyagerImporter,
      async *read(input, options) {
        for await (const item of webVoyagerImporter.read(input, options)) {
          if (item.kind === "trajectory" && item.trajectory.task.externalId.endsWith(taskId)) {
            yield { ...item, trajectory: { ...item.trajectory, warnings: [message] } };
          } else yield item;
        }
      },
    };
  }

  describe("per-trajectory import", () => {
    it("imports the readable trajectories, skips the broken one with its file and problem, and is idempotent", async () => {
      const { root, broken } = await folderWithOneBroken(path.join(ctx.dir, "src"));
      const report = await runImport(ctx, { path: root });
      expect(report.trajectories.map((t) => t.externalTaskId).sort()).toEqual(["Good--1", "Good--2"].map((id) => expect.stringContaining(id)));
      expect(report).toMatchObject({ created: 2, updated: 0, unchanged: 0, warnings: [] });
      expect(report.skipped).toEqual([{ path: broken, reason: "is not a PNG, JPEG, WebP or GIF image" }]);
      // Tasks first seen through a trajectory are counted.
      expect(report.tasks.created).toBe(2);
      expect(await storeSnapshot(ctx)).toMatchObject({ trajectories: 2, steps: 4, screenshots: 4, files: 4 });
      // Every trajectory names its run, for links in the report.
      for (const t of report.trajectories) expect(t.runId).toBeGreaterThan(0);

      const again = await runImport(ctx, { path: root });
      expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 2, tasks: { created: 0, updated: 0, unchanged: 0 } });
      expect(again.skipped).toHaveLength(1);
    });

    it("checks every image of a trajectory before staging any: a broken one costs its reads, nothing is hashed into the store", async () => {
      const { root } = await folderWithOneBroken(path.join(ctx.dir, "src"));
      const badFirst = sha256(fs.readFileSync(path.join(root, "taskBad--1", "screenshot1.png")));
      const staged: string[] = [];
      const beginBatch = ctx.store.beginBatch.bind(ctx.store);
      vi.spyOn(ctx.store, "beginBatch").mockImplementation(() => {
        const batch = beginBatch();
        const put = batch.put.bind(batch);
        batch.put = async (hash, bytes) => {
          staged.push(hash);
          return put(hash, bytes);
        };
        return batch;
      });
      const report = await runImport(ctx, { path: root });
      expect(report.created).toBe(2);
      expect(staged).toHaveLength(4);
      expect(staged).not.toContain(badFirst);
    });

    it("a trajectory larger than the kept-bytes budget reads its images again and imports the same", async () => {
      const root = await writeWebVoyagerFixture(path.join(ctx.dir, "src"), [task("Long--1", 6)]);
      const report = await runImport(ctx, { path: root, keptImageBytes: 1 });
      expect(report.created).toBe(1);
      const other = await createBackendContext(backend);
      try {
        await runImport(other, { path: root });
        const hashes = async (c: TestContext) => {
          const { steps } = tablesOf(c.db);
          return (await c.db.select({ hash: steps.screenshotHash }).from(steps).orderBy(asc(steps.index))).map((r) => r.hash);
        };
        expect(await hashes(ctx)).toEqual(await hashes(other));
        expect(await hashes(ctx)).toHaveLength(6);
      } finally {
        await other.cleanup();
      }
    });

    it("imports a repaired trajectory with its warning; strict refuses it and writes nothing", async () => {
      const root = await writeWebVoyagerFixture(path.join(ctx.dir, "src"), [task("A--1"), task("B--1")]);
      const importer = withWarning("B--1", "step 2 has no screenshot");
      const before = await storeSnapshot(ctx);
      const refused = runImport(ctx, { path: root, importer, strict: true });
      await expect(refused).rejects.toThrow("step 2 has no screenshot (--strict refuses trajectories that needed a repair)");
      expect(await storeSnapshot(ctx)).toEqual(before);

      const report = await runImport(ctx, { path: root, importer });
      expect(report.created).toBe(2);
      const b = report.trajectories.find((t) => t.externalTaskId.endsWith("B--1"))!;
      expect(b.warnings).toEqual(["step 2 has no screenshot"]);
      expect(report.warnings).toEqual([{ path: b.sourcePath, message: "step 2 has no screenshot" }]);
      expect(report.skipped).toEqual([]);
    });

    it("strict refuses a folder with a broken trajectory with nothing written, naming the file", async () => {
      const { root, broken } = await folderWithOneBroken(path.join(ctx.dir, "src"));
      const before = await storeSnapshot(ctx);
      await expect(runImport(ctx, { path: root, strict: true })).rejects.toThrow(`${broken}: is not a PNG, JPEG, WebP or GIF image`);
      expect(await storeSnapshot(ctx)).toEqual(before);
      expect(fs.readdirSync(ctx.store.stagingRoot)).toEqual([]);
    });

    it("importer-reported skips are listed, and a source with nothing importable fails with every reason", async () => {
      const root = await writeWebVoyagerFixture(path.join(ctx.dir, "src"), [task("A--1")]);
      const skipping: Importer = {
        ...webVoyagerImporter,
        async *read() {
          yield { kind: "skipped", path: "/x/one.json", reason: "is not valid JSON" };
          yield { kind: "skipped", path: "/x/two.json", reason: "has no steps" };
        },
      };
      const err = await runImport(ctx, { path: root, importer: skipping }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ImportRefusedError);
      expect((err as Error).message).toBe("/x/one.json: is not valid JSON (and 1 more skipped)");
      expect((err as ImportRefusedError).skipped).toEqual([
        { path: "/x/one.json", reason: "is not valid JSON" },
        { path: "/x/two.json", reason: "has no steps" },
      ]);
    });

    it("each trajectory commits on its own: a later failure keeps the earlier ones and their files", async () => {
      const root = await writeWebVoyagerFixture(path.join(ctx.dir, "src"), [task("A--1"), task("B--1")]);
      const failing: Importer = {
        ...webVoyagerImporter,
        async *read(input, options) {
          let n = 0;
          for await (const item of webVoyagerImporter.read(input, options)) {
            if (item.kind === "trajectory" && n++ === 1) {
              // The source breaks part-way: what was read before stays imported.
              await new Promise((r) => setTimeout(r, 50));
              throw new (await import("../../server/importers/types")).ImportError(item.trajectory.sourcePath, "the rest of the source is unreadable");
            }
            yield item;
          }
        },
      };
      const report = await runImport(ctx, { path: root, importer: failing });
      expect(report.created).toBe(1);
      expect(report.skipped).toEqual([{ path: expect.any(String), reason: "the rest of the source is unreadable" }]);
      const snap = await storeSnapshot(ctx);
      expect(snap).toMatchObject({ trajectories: 1, screenshots: 2, files: 2 });
    });
  });

  describe("imports at once", () => {
    it("two imports of the same folder store each trajectory once and report each once, as created or unchanged", async () => {
      const root = await writeWebVoyagerFixture(path.join(ctx.dir, "src"), [task("A--1", 3), task("B--1", 3), task("C--1", 3)]);
      // On PostgreSQL the two collide on the same keys and one transaction is run again: what it wrote in the lost
      // attempt must not be counted.
      const [one, two] = await Promise.all([runImport(ctx, { path: root }), runImport(ctx, { path: root })]);
      expect(one.created + two.created).toBe(3);
      expect(one.unchanged + two.unchanged).toBe(3);
      expect(one.trajectories.length + two.trajectories.length).toBe(6);
      expect(one.tasks.created + two.tasks.created).toBe(3);
      expect(one.screenshotsAdded + two.screenshotsAdded).toBe(9);
      expect(await storeSnapshot(ctx)).toMatchObject({ taskSets: 1, tasks: 3, runs: 1, trajectories: 3, steps: 9, screenshots: 9, files: 9 });
      const ids = (r: typeof one) => r.trajectories.map((t) => t.id).sort();
      expect(ids(one)).toEqual(ids(two));
    });
  });

  describe("screenshot store safety", () => {
    it("sweeps staging folders left by killed imports, keeps those of running ones", async () => {
      fs.mkdirSync(ctx.store.stagingRoot, { recursive: true });
      // A pid that cannot be running (above the kernel's pid_max), and this process' own recent folder.
      const dead = path.join(ctx.store.stagingRoot, `99999999-${Date.now()}-abcd0123`);
      const old = path.join(ctx.store.stagingRoot, `${process.pid}-${Date.now() - 48 * 3600_000}-abcd0123`);
      const live = path.join(ctx.store.stagingRoot, `${process.pid}-${Date.now()}-abcd0123`);
      for (const d of [dead, old, live]) {
        fs.mkdirSync(d);
        fs.writeFileSync(path.join(d, "f"), "x");
      }
      const root = await writeWebVoyagerFixture(path.join(ctx.dir, "src"), [task("A--1")]);
      await runImport(ctx, { path: root });
      expect(fs.readdirSync(ctx.store.stagingRoot).sort()).toEqual([path.basename(live)]);
    });

    it("a trajectory whose commit fails never leaves a row without its file, nor removes a file another trajectory uses", async () => {
      // Two trajectories share their first screenshot (same seed); the second one's row write fails.
      const root = path.join(ctx.dir, "src");
      await writeWebVoyagerFixture(root, [task("A--1")], 5);
      await writeWebVoyagerFixture(path.join(ctx.dir, "tmp"), [task("B--1", 3)], 5);
      fs.cpSync(path.join(ctx.dir, "tmp", "taskB--1"), path.join(root, "taskB--1"), { recursive: true });
      if (backend === "sqlite") {
        await rawRun(
          ctx.db,
          sql.raw(
            `create trigger refuse_b before insert on trajectories when new.source_path like '%B--1%' begin select raise(abort, 'disk full (test)'); end`,
          ),
        );
      } else {
        await rawRun(
          ctx.db,
          sql.raw(`create function refuse_b() returns trigger language plpgsql as $$ begin
            if new.source_path like '%B--1%' then raise exception 'disk full (test)'; end if; return new; end $$`),
        );
        await rawRun(ctx.db, sql.raw(`create trigger refuse_b before insert on trajectories for each row execute function refuse_b()`));
      }
      const failure = (await runImport(ctx, { path: root }).catch((e: unknown) => e)) as Error & { cause?: Error };
      // PostgreSQL's driver error arrives as the cause of drizzle's "Failed query".
      expect(`${failure.message} ${failure.cause?.message ?? ""}`).toContain("disk full (test)");
      // A committed; its two files are there and every screenshot row has its file.
      const { screenshots } = tablesOf(ctx.db);
      const rows = await ctx.db.select({ hash: screenshots.hash }).from(screenshots);
      expect(rows).toHaveLength(2);
      for (const r of rows) expect(fs.existsSync(ctx.store.pathFor(r.hash))).toBe(true);
      // SQLite holds the write lock while B's files move, so they move back: B's own third screenshot did not stay.
      // PostgreSQL cannot know that no other server committed a row naming them meanwhile: it leaves the unused file
      // for garbage collection.
      expect((await storeSnapshot(ctx)).files).toBe(backend === "sqlite" ? 2 : 3);
    });
  });

  describe("zip limits", () => {
    it("refuses a 400 MB zip bomb from its directory, without expanding anything, with a clear error", async () => {
      const bomb = writeZipBomb(path.join(ctx.dir, "bomb.zip"));
      expect(fs.statSync(bomb).size).toBeLessThan(1024 * 1024);
      // Every entry's data is read through openReadStream: refused from the directory means it is never called.
      const reads = vi.spyOn(yauzl.ZipFile.prototype, "openReadStream");
      try {
        await expect(runImport(ctx, { path: bomb })).rejects.toThrow(
          new RegExp(
            `^${escapeRegExp(bomb)}: entry "manifest.json" expands \\d+ times \\(400 MB from \\d+ KB\\), more than the 100× allowed \\(VERDICT_ZIP_MAX_RATIO\\): refused as a possible zip bomb$`,
          ),
        );
        expect(reads).not.toHaveBeenCalled();
      } finally {
        reads.mockRestore();
      }
    });

    it("applies the configured entry, total and single-entry limits", async () => {
      const root = await writeWebVoyagerFixture(path.join(ctx.dir, "src"), [task("A--1", 3)]);
      const yazl = (await import("yazl")).default;
      const zip = new yazl.ZipFile();
      for (const f of fs.readdirSync(path.join(root, "taskA--1"))) zip.addFile(path.join(root, "taskA--1", f), `taskA--1/${f}`);
      zip.end();
      const file = path.join(ctx.dir, "small.zip");
      await new Promise<void>((r) => zip.outputStream.pipe(fs.createWriteStream(file)).on("close", () => r()));
      const limits = importLimitsFromEnv({} as NodeJS.ProcessEnv);
      await expect(openZipReader(file, { ...limits, zipMaxEntries: 3 })).rejects.toThrow(
        `${file}: has 4 entries, more than the 3 allowed (VERDICT_ZIP_MAX_ENTRIES)`,
      );
      await expect(openZipReader(file, { ...limits, zipMaxTotalBytes: 100 })).rejects.toThrow("expands to more than 0 MB in total (VERDICT_ZIP_MAX_TOTAL_MB)");
      await expect(openZipReader(file, { ...limits, zipMaxEntryBytes: 10 })).rejects.toThrow(
        /entry "taskA--1\/[^"]+" expands to 0 MB, more than the 0 MB allowed for one entry/,
      );
      const ok = await openZipReader(file, limits);
      expect(ok.names()).toHaveLength(4);
      ok.close();
      expect(() => importLimitsFromEnv({ VERDICT_ZIP_MAX_RATIO: "lots" } as unknown as NodeJS.ProcessEnv)).toThrow(
        'VERDICT_ZIP_MAX_RATIO must be a positive number, got "lots"',
      );
    });
  });
});

/**
 * The browser's API over real imports: tRPC procedures through a server-side caller (no HTTP) and the image
 * variant service behind /api/screenshots, on a throwaway database filled by the real importers.
 */
import fs from "node:fs";
import path from "node:path";
import { TRPCError } from "@trpc/server";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertScreenshotIfMissing } from "../../db/repositories/screenshots";
import { createCaller } from "../../server/api/root";
import { createTRPCContext } from "../../server/api/trpc";
import { fromJsonText } from "../../server/domain/player/paging";
import { NotFoundError } from "../../server/errors";
import {
  ENCODE_CONCURRENCY,
  encodesInProgress,
  encodesWaitingByRank,
  getScreenshotImage,
  runInEncodeSlot,
  variantPath,
  warmingSettled,
  warmVariants,
} from "../../server/services/images";
import { runImport } from "../../server/services/imports/ingest";
import { sha256 } from "../../server/storage/screenshot-store";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";

const fixtures = path.resolve(__dirname, "..", "fixtures");

describeEachBackend("player API", (backend) => {
  let ctx: TestContext;
  let api: ReturnType<typeof createCaller>;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    ctx = await createBackendContext(backend);
    for (const source of [path.join(fixtures, "webvoyager-mini", "results", "20240301_10_00_00"), path.join(fixtures, "native-mini")]) {
      const report = await runImport(ctx, { path: source });
      for (const t of report.trajectories) ids[t.externalTaskId] = t.id;
    }
    // A signed-in admin: the browser's procedures are for signed-in users once accounts exist. (Passed as a
    // variable so the call type-checks whether or not the context factory takes a session yet.)
    const opts = { headers: new Headers(), session: { userId: "test-admin", name: "Test Admin", email: "admin@example.test", role: "admin" as const } };
    api = createCaller(await createTRPCContext(opts, ctx));
  });

  afterAll(async () => {
    await ctx?.cleanup();
  });

  describe("trajectories.byId", () => {
    it("returns the task, the run and the first window of steps with their screenshots' pixel size", async () => {
      const t = await api.trajectories.byId({ id: ids["shop-structured-1"]! });
      expect(t.task).toMatchObject({ externalId: "shop-structured-1", site: "ShopSite", referenceAnswers: [{ kind: "must_include", text: "59.99" }] });
      expect(t.run).toMatchObject({ name: "native-mini", model: "fixture-model-1" });
      expect(t.trajectory).toMatchObject({ outcome: "answered", finalAnswer: "$59.99", stepCount: 7 });
      expect(t.stepCount).toBe(7);
      expect(fromJsonText(t.index).count).toBe(7);
      expect(t.window.from).toBe(0);
      const steps = fromJsonText(t.window.steps);
      expect(steps.map((s) => s.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
      expect(steps.every((s) => s.screenshot && s.screenshot.width === 1024 && s.screenshot.height === 768)).toBe(true);
      expect(steps[1]!.elements?.find((e) => e.label === "4")?.bbox).toEqual([40, 150, expect.any(Number), 24]);
    });

    it("keeps WebVoyager's raw screenshot and burned-in flag", async () => {
      const t = await api.trajectories.byId({ id: ids["ShopSite--0"]! });
      const steps = fromJsonText(t.window.steps);
      expect(steps[2]!.marksBurnedIn).toBe(true);
      expect(steps[2]!.rawScreenshot).toMatchObject({ width: 1024, height: 768 });
      expect(steps[2]!.rawScreenshot!.hash).not.toBe(steps[2]!.screenshot!.hash);
      expect(steps[0]!.rawScreenshot).toBeNull();
    });

    it("answers NOT_FOUND with the id for an unknown trajectory, BAD_REQUEST for a malformed one", async () => {
      await expect(api.trajectories.byId({ id: 999_999 })).rejects.toMatchObject({ code: "NOT_FOUND", message: "No trajectory with id 999999" });
      const err = await api.trajectories.byId({ id: -1 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TRPCError);
      expect((err as TRPCError).code).toBe("BAD_REQUEST");
    });
  });

  describe("trajectories.list", () => {
    it("filters, sorts and pages", async () => {
      const all = await api.trajectories.list({});
      expect(all.total).toBe(3);
      const noAnswer = await api.trajectories.list({ hasAnswer: false });
      expect(noAnswer.rows.map((r) => r.externalTaskId)).toEqual(["Shop Site Deals--1"]);
      const bySteps = await api.trajectories.list({ sort: "steps", dir: "asc" });
      expect(bySteps.rows.map((r) => r.stepCount)).toEqual([5, 7, 7]);
      const page2 = await api.trajectories.list({ pageSize: 2, page: 2, sort: "id", dir: "asc" });
      expect(page2).toMatchObject({ total: 3, pageCount: 2, page: 2 });
      expect(page2.rows).toHaveLength(1);
      const search = await api.trajectories.list({ q: "price", site: "ShopSite" });
      expect(search.rows.map((r) => r.externalTaskId).sort()).toEqual(["ShopSite--0", "shop-structured-1"]);
      // Search ignores case on every engine.
      expect((await api.trajectories.list({ q: "PRICE", site: "ShopSite" })).total).toBe(2);
      const byTask = await api.trajectories.list({ taskId: all.rows.find((r) => r.externalTaskId === "ShopSite--0")!.taskId });
      expect(byTask.total).toBe(1);
    });

    it("offers the filter choices that exist", async () => {
      const o = await api.trajectories.filterOptions();
      expect(o.sites).toEqual(["Shop Site Deals", "ShopSite"]);
      expect(o.models).toEqual(["fixture-model-1"]);
      expect(o.outcomes.sort()).toEqual(["answered", "unknown"]);
      expect(o.runs.map((r) => r.name).sort()).toEqual(["20240301_10_00_00", "native-mini"]);
    });
  });

  describe("catalog pages", () => {
    it("summarises task sets, runs and tasks with counts from their own rows", async () => {
      const sets = await api.taskSets.list();
      const wv = sets.find((s) => s.name === "WebVoyager")!;
      expect(wv).toMatchObject({ taskCount: 2, trajectoryCount: 2, answeredCount: 1, runCount: 1 });
      const shop = sets.find((s) => s.name === "Fixture shop")!;
      expect(shop).toMatchObject({ taskCount: 1, trajectoryCount: 1, answeredCount: 1, runCount: 1 });

      const set = await api.taskSets.byId({ id: wv.id });
      expect(set.tasks.rows.map((t) => [t.externalId, t.trajectoryCount, t.answeredCount, t.referenceCount])).toEqual([
        ["Shop Site Deals--1", 1, 0, 0],
        ["ShopSite--0", 1, 1, 1],
      ]);
      expect(set.outcomes).toEqual({ answered: 1, unknown: 1 });
      expect((await api.taskSets.byId({ id: wv.id, q: "cheapest" })).tasks.total).toBe(1);

      const runs = await api.runs.list();
      const wvRun = runs.find((r) => r.name === "20240301_10_00_00")!;
      expect(wvRun).toMatchObject({ trajectoryCount: 2, answeredCount: 1, meanSteps: 6, taskSetNames: "WebVoyager" });
      const run = await api.runs.byId({ id: wvRun.id });
      expect(run.sites.map((s) => [s.site, s.trajectories, s.answered])).toEqual([
        ["Shop Site Deals", 1, 0],
        ["ShopSite", 1, 1],
      ]);

      const task = await api.tasks.byId({ id: set.tasks.rows[1]!.id });
      expect(task.trajectories.map((t) => t.externalTaskId)).toEqual(["ShopSite--0"]);
      await expect(api.runs.byId({ id: 424242 })).rejects.toMatchObject({ code: "NOT_FOUND", message: "No agent run with id 424242" });
    });
  });

  describe("screenshot images", () => {
    const hashOf = async () => fromJsonText((await api.trajectories.byId({ id: ids["shop-structured-1"]! })).window.steps)[0]!.screenshot!.hash;

    it("serves the original bytes as stored", async () => {
      const hash = await hashOf();
      const img = await getScreenshotImage(ctx, hash, { kind: "original" });
      expect(img.mime).toBe("image/png");
      expect(img.etag).toBe(`"${hash}"`);
      expect(img.body.equals(fs.readFileSync(ctx.store.pathFor(hash)))).toBe(true);
    });

    it("makes a resized variant once and serves it from disk afterwards", async () => {
      const hash = await hashOf();
      const file = variantPath(ctx.config.dataDir, hash, 320, "webp");
      expect(fs.existsSync(file)).toBe(false);
      const first = await getScreenshotImage(ctx, hash, { kind: "variant", width: 320, format: "webp" });
      expect(first.mime).toBe("image/webp");
      expect(await sharp(first.body).metadata()).toMatchObject({ format: "webp", width: 320, height: 240 });
      expect(fs.existsSync(file)).toBe(true);
      const mtime = fs.statSync(file).mtimeMs;
      const second = await getScreenshotImage(ctx, hash, { kind: "variant", width: 320, format: "webp" });
      expect(second.body.equals(first.body)).toBe(true);
      expect(fs.statSync(file).mtimeMs).toBe(mtime);
      // Much smaller than the PNG it came from.
      expect(first.body.byteLength).toBeLessThan(fs.statSync(ctx.store.pathFor(hash)).size / 2);
    });

    it("never upscales, and concurrent requests for one variant get the same bytes", async () => {
      const hash = await hashOf();
      const [a, b] = await Promise.all([
        getScreenshotImage(ctx, hash, { kind: "variant", width: 1920, format: "avif" }),
        getScreenshotImage(ctx, hash, { kind: "variant", width: 1920, format: "avif" }),
      ]);
      expect(a.body.equals(b.body)).toBe(true);
      expect(a.etag).toBe(`"${hash}-w1024.avif"`);
      expect((await sharp(a.body).metadata()).width).toBe(1024);
    });

    /** A stored screenshot of noise (so encoding it takes a while), distinct per seed. */
    const storeNoise = async (seed: number): Promise<string> => {
      const raw = Buffer.alloc(800 * 600 * 3);
      let x = seed * 2654435761;
      for (let i = 0; i < raw.length; i++) raw[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
      const png = await sharp(raw, { raw: { width: 800, height: 600, channels: 3 } })
        .png({ compressionLevel: 1 })
        .toBuffer();
      const hash = sha256(png);
      const batch = ctx.store.beginBatch();
      await batch.put(hash, png);
      await batch.publish();
      await insertScreenshotIfMissing(ctx.db, { hash, mime: "image/png", width: 800, height: 600, bytes: png.byteLength });
      return hash;
    };
    const stored = (hashes: string[], width: number) => hashes.filter((h) => fs.existsSync(variantPath(ctx.config.dataDir, h, width, "webp"))).length;

    /**
     * Holds one encode slot until `release` is called, so the test decides when encodes may start: requests line up
     * while every slot is held, and the order in which the slots are handed out does not depend on how busy the
     * machine is.
     */
    const holdEncodeSlot = () => {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const done = runInEncodeSlot("view", () => held);
      return { release, done };
    };
    /** Waits until the line of encodes waiting for a slot is as `ready` wants it (at least 4,000 polls 5 ms apart). */
    const lineUp = async (ready: (ranks: number[]) => boolean, what: string) => {
      for (let polls = 0; !ready(encodesWaitingByRank()); polls++) {
        if (polls === 4_000) throw new Error(`the encode line never became ${what}: ranks ${JSON.stringify(encodesWaitingByRank())}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const RANK = { view: 2, thumbnail: 1, warmUp: 0 };

    it("encodes a screenshot a viewer waits for before the warm-up backlog, and stage-sized ones before thumbnails", async () => {
      const backlog = await Promise.all(Array.from({ length: 8 }, (_, i) => storeNoise(100 + i)));
      const [thumb, stage] = await Promise.all([storeNoise(200), storeNoise(201)]);
      const holds = Array.from({ length: ENCODE_CONCURRENCY }, holdEncodeSlot);
      expect(encodesInProgress()).toBe(ENCODE_CONCURRENCY);
      await warmVariants(ctx, backlog, { kind: "variant", width: 640, format: "webp" });
      // Each warm-up worker waits for a slot with its first screenshot.
      await lineUp((ranks) => ranks.length === ENCODE_CONCURRENCY, "a warm-up per worker");
      expect(encodesWaitingByRank()).toEqual(Array(ENCODE_CONCURRENCY).fill(RANK.warmUp));
      // Asked after the backlog: the thumbnail first, then the step on the stage.
      const doneOrder: string[] = [];
      const warmedWhenDone: Record<string, number> = {};
      const thumbDone = getScreenshotImage(ctx, thumb, { kind: "variant", width: 120, format: "webp" }).then(() => {
        doneOrder.push("thumb");
        warmedWhenDone.thumb = stored(backlog, 640);
      });
      const stageDone = getScreenshotImage(ctx, stage, { kind: "variant", width: 720, format: "webp" }).then(() => {
        doneOrder.push("stage");
        warmedWhenDone.stage = stored(backlog, 640);
      });
      await lineUp((ranks) => ranks.length === ENCODE_CONCURRENCY + 2, "the warm-ups and both viewer requests");
      // One slot free: it goes to the stage image, then to the thumbnail, and only then to the warm-ups.
      holds[0]!.release();
      await Promise.all([thumbDone, stageDone]);
      expect(doneOrder).toEqual(["stage", "thumb"]);
      expect(warmedWhenDone).toEqual({ stage: 0, thumb: 0 });
      for (const hold of holds) hold.release();
      await Promise.all(holds.map((hold) => hold.done));
      await warmingSettled();
      expect(stored(backlog, 640)).toBe(backlog.length);
    });

    it("moves a warm-up a viewer comes to wait for ahead of what waits with less hurry", async () => {
      const [wanted, ...thumbs] = await Promise.all(Array.from({ length: 7 }, (_, i) => storeNoise(300 + i)));
      const holds = Array.from({ length: ENCODE_CONCURRENCY }, holdEncodeSlot);
      // Every slot busy; a warm-up of `wanted`, then six thumbnails, wait in line.
      await warmVariants(ctx, [wanted!], { kind: "variant", width: 320, format: "webp" });
      await lineUp((ranks) => ranks.length === 1, "the warm-up");
      const thumbsDone = thumbs.map((h) => getScreenshotImage(ctx, h, { kind: "variant", width: 320, format: "webp" }));
      await lineUp((ranks) => ranks.length === 1 + thumbs.length, "the warm-up and six thumbnails");
      expect(encodesWaitingByRank()).toEqual([RANK.warmUp, ...thumbs.map(() => RANK.thumbnail)]);
      // A viewer now asks for the variant the warm-up will make: it shares that encode, whose place in line rises.
      let thumbsWhenWanted = -1;
      const wantedDone = getScreenshotImage(ctx, wanted!, { kind: "variant", width: 320, format: "webp" }).then(() => (thumbsWhenWanted = stored(thumbs, 320)));
      await lineUp((ranks) => ranks[0] === RANK.thumbnail, "the warm-up raised to a viewer's thumbnail");
      expect(encodesWaitingByRank()).toHaveLength(1 + thumbs.length);
      // One slot free: the raised warm-up waited longest among equals, so it goes before every thumbnail (without
      // the raise it would wait for all six).
      holds[0]!.release();
      await wantedDone;
      expect(thumbsWhenWanted).toBe(0);
      for (const hold of holds) hold.release();
      await Promise.all([...holds.map((hold) => hold.done), ...thumbsDone]);
      await warmingSettled();
      expect(stored(thumbs, 320)).toBe(thumbs.length);
    });

    it("is a NotFoundError for malformed, unknown and missing-file hashes", async () => {
      for (const bad of ["../../etc/passwd", "abc", "0".repeat(64)]) {
        await expect(getScreenshotImage(ctx, bad, { kind: "original" })).rejects.toBeInstanceOf(NotFoundError);
      }
      // A row whose file has gone from the store.
      const hash = "f".repeat(64);
      await insertScreenshotIfMissing(ctx.db, { hash, mime: "image/png", width: 10, height: 10, bytes: 10 });
      await expect(getScreenshotImage(ctx, hash, { kind: "original" })).rejects.toThrow("No screenshot file with id");
    });
  });
});

/**
 * Finished live-run bundles in the installation's bucket, so runner workers on several hosts need no shared data
 * folder: a scripted run on real Chromium and the bundled demo sites, with S3 (s3rver on 127.0.0.1) configured,
 * leaves its bundle under `<prefix>live-runs/run-<runId>/trajectory-<trajectoryId>/` (manifest and every screenshot
 * it names, byte for byte, importable as it is) and nothing in the worker's `live-runs/` folder; without a bucket the
 * folder is kept as before; and a bucket that refuses the upload leaves the folder and the run's outcome as they
 * were, with a log line naming the folder and the error.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ensureTaskSet, upsertTask } from "../../db/repositories/catalog";
import { listJobs } from "../../db/repositories/jobs";
import { liveGroupKey } from "../../db/repositories/live/runs";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { launchChromium } from "../../server/browser/launch";
import type { S3Config } from "../../server/config";
import { loadConfig } from "../../server/config";
import { startDemoSites, type DemoSitesServer } from "../../server/demo-sites/server";
import { bundleManifestSchema, type BundleManifest } from "../../server/domain/imports/bundle";
import { liveRunRequestSchema } from "../../server/domain/live/settings";
import { runImport, taskValues } from "../../server/services/imports/ingest";
import { liveRunDetail, startLiveRun } from "../../server/services/live/live-runs";
import { runRunnerWorker } from "../../server/services/live/worker";
import { ScreenshotStore } from "../../server/storage/screenshot-store";
import { LiveBundleBucket } from "../../server/storage/live-bundles";
import { s3ClientFor, s3Sdk } from "../../server/storage/s3-object-store";
import { createBackendContext, describeEachBackend, onOneEngine } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { LOCAL_JUDGE_ENV } from "../helpers/judge-fixtures";
import { startTestS3, type TestS3 } from "../helpers/s3";
import { chromiumSkipReason, titled } from "../helpers/requirements";

const browserConfig = loadConfig();
const chromiumPath = browserConfig.chromiumPath;
const noChromium = chromiumSkipReason();
const haveChromium = noChromium === null;
if (!haveChromium) console.warn(`Skipping live-run bundle tests on S3: no Chromium at ${chromiumPath} (apt-get install -y chromium, or set CHROMIUM_PATH).`);

const PREFIX = "lab-a/";

let sites: DemoSitesServer | undefined;
let s3: TestS3;

beforeAll(async () => {
  s3 = await startTestS3();
  if (haveChromium) sites = await startDemoSites();
});
afterAll(async () => {
  await sites?.close();
  await s3?.stop();
});

function sha(bytes: Uint8Array): string {
  return crypto.createHash("sha256").update(bytes).digest("hex");
}

/** Every key under `prefix` in the test bucket, with its bytes. */
async function bucketObjects(prefix: string, config: S3Config = s3.config()): Promise<Map<string, Buffer>> {
  const [sdk, client] = await Promise.all([s3Sdk(), s3ClientFor(config)]);
  const out = new Map<string, Buffer>();
  let token: string | undefined;
  do {
    const page = await client.send(new sdk.ListObjectsV2Command({ Bucket: config.bucket, Prefix: prefix, ContinuationToken: token }));
    for (const o of page.Contents ?? []) {
      const res = await client.send(new sdk.GetObjectCommand({ Bucket: config.bucket, Key: o.Key! }));
      out.set(o.Key!, Buffer.from(await res.Body!.transformToByteArray()));
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out;
}

/** The files a bundle's manifest names: the manifest itself and every screenshot of every step. */
function namedFiles(manifest: BundleManifest): Map<string, string> {
  const files = new Map<string, string>();
  for (const t of manifest.trajectories) {
    for (const s of t.steps) {
      for (const img of [s.screenshot, s.rawScreenshot]) if (img) files.set(img.file, img.sha256);
    }
  }
  return files;
}

describeEachBackend("finished live-run bundles and the bucket", (backend) => {
  // Where a bundle goes when there is no bucket or the bucket refuses it is the worker's and the bucket's business, the
  // same on either database engine: `once` runs those on one engine. The upload with a bucket, whose location the
  // trajectory's row then names, runs on both.
  const once = onOneEngine(backend);
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-live-s3-");
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  /** The installation with `bundles` as its bucket configuration and `store` holding its screenshots. */
  function installation(bundles: S3Config | undefined, store: ScreenshotStore) {
    return { ...ctx, config: { ...ctx.config, objectStorage: bundles }, store };
  }

  /** A three-step scripted run on the demo recipe site, carried out by a worker of `installation` in this process. */
  async function scriptedRun(app: ReturnType<typeof installation>) {
    const taskSet = { name: "Bundle tasks", benchmark: "adhoc" };
    const task = await upsertTask(
      app.db,
      await ensureTaskSet(app.db, taskSet),
      taskValues({
        taskSet,
        externalId: "bundle.shakshuka",
        site: null,
        intent: "How many eggs does the shakshuka need?",
        startUrl: `${sites!.baseUrl}/recipes/`,
        inputImages: [],
        referenceAnswers: [],
        evaluatorConfig: null,
        difficulty: null,
        tags: [],
        extra: null,
      }),
    );
    const { runId } = await startLiveRun(
      { db: app.db, env: LOCAL_JUDGE_ENV },
      liveRunRequestSchema.parse({
        tasks: { from: "tasks", taskIds: [task.id] },
        policy: { kind: "scripted", source: "actions", actions: ["type [{{input:e.g. lentil}}] [shakshuka]", "click [{{a:Shakshuka}}]", "stop [4 eggs]"] },
        settings: { maxSteps: 10 },
      }),
    );
    const log: string[] = [];
    const summary = await runRunnerWorker({
      ctx: app,
      env: LOCAL_JUDGE_ENV,
      concurrency: 1,
      groupKey: liveGroupKey(runId),
      untilIdle: true,
      demo: { baseUrl: sites!.baseUrl, origins: [`127.0.0.1:${sites!.port}`] },
      resolveHost: async () => [],
      launch: ({ egressProxy }) => launchChromium({ config: browserConfig, egressProxy }),
      log: (line) => log.push(line),
    });
    const tasks = (await liveRunDetail({ db: app.db, env: {} }, runId)).tasks;
    expect(tasks).toHaveLength(1);
    const detail = (await getTrajectoryDetail(app.db, tasks[0]!.trajectoryId!))!;
    const jobs = await listJobs(app.db, { groupKey: liveGroupKey(runId) });
    expect(jobs).toHaveLength(1);
    return { runId, summary, detail, job: jobs[0]!, log, localDir: path.join(ctx.dir, "live-runs", `run-${runId}`, `trajectory-${detail.trajectory.id}`) };
  }

  describe.skipIf(!haveChromium)(titled("a scripted live run", noChromium), () => {
    it("with a bucket: the bundle is uploaded under <prefix>live-runs/run-<id>/trajectory-<id>/ byte for byte, the trajectory names it, and the worker's folder is gone", async () => {
      const bucket = s3.config({ keyPrefix: PREFIX });
      const app = installation(bucket, new ScreenshotStore(ctx.dir, bucket));
      const { runId, summary, detail, job, log, localDir } = await scriptedRun(app);
      expect(summary.succeeded, log.join("\n")).toBe(1);
      expect(detail.trajectory).toMatchObject({ outcome: "answered", finalAnswer: "4 eggs", stepCount: 3 });

      const prefix = `${PREFIX}live-runs/run-${runId}/trajectory-${detail.trajectory.id}/`;
      const location = `s3://${s3.bucket}/${prefix}`;
      expect(detail.trajectory.sourcePath).toBe(location);
      expect(job.result).toMatchObject({ bundleDir: location, bundleUploadError: null });
      expect(fs.existsSync(localDir)).toBe(false);
      expect(fs.existsSync(path.join(ctx.dir, "live-runs", `run-${runId}`))).toBe(false);

      const objects = await bucketObjects(prefix);
      const manifest = bundleManifestSchema.parse(JSON.parse(objects.get(`${prefix}manifest.json`)!.toString("utf8"))) as BundleManifest;
      expect(manifest.trajectories).toHaveLength(1);
      expect(manifest.trajectories[0]).toMatchObject({ outcome: "answered", finalAnswer: "4 eggs" });
      expect(manifest.trajectories[0]!.steps.map((s) => s.screenshot?.sha256)).toEqual(detail.steps.map((s) => s.screenshotHash));
      expect(manifest.trajectories[0]!.steps.map((s) => s.rawScreenshot?.sha256)).toEqual(detail.steps.map((s) => s.rawScreenshotHash));
      // Exactly the bundle: the manifest and every screenshot it names, each with the bytes the run recorded.
      const named = namedFiles(manifest);
      expect(named.size).toBe(6);
      expect([...objects.keys()].sort()).toEqual([`${prefix}manifest.json`, ...[...named.keys()].map((f) => prefix + f)].sort());
      for (const [file, hash] of named) {
        const bytes = objects.get(prefix + file)!;
        expect(sha(bytes), file).toBe(hash);
        expect(bytes.equals(await app.store.read(hash)), file).toBe(true);
      }

      // A copy of the prefix is the bundle the runner wrote: importing it changes nothing.
      const copy = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-bundle-copy-"));
      try {
        for (const [key, bytes] of objects) {
          const file = path.join(copy, key.slice(prefix.length));
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fs.writeFileSync(file, bytes);
        }
        const again = await runImport({ db: app.db, store: app.store }, { path: copy, format: "native" });
        expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 1 });
      } finally {
        fs.rmSync(copy, { recursive: true, force: true });
      }
    });

    once("without a bucket: the bundle stays in the worker's live-runs/ folder, as before", async () => {
      s3.resetEvents();
      const { summary, detail, job, log, localDir } = await scriptedRun(installation(undefined, ctx.store));
      expect(summary.succeeded, log.join("\n")).toBe(1);
      expect(detail.trajectory).toMatchObject({ outcome: "answered", finalAnswer: "4 eggs", stepCount: 3, sourcePath: localDir });
      expect(job.result).toMatchObject({ bundleDir: localDir });
      const manifest = JSON.parse(fs.readFileSync(path.join(localDir, "manifest.json"), "utf8")) as BundleManifest;
      for (const [file, hash] of namedFiles(manifest)) expect(sha(fs.readFileSync(path.join(localDir, file))), file).toBe(hash);
      expect(s3.puts).toEqual([]);
    });

    once("with a bucket that refuses the upload: the folder stays, the outcome is the run's own, and the log names the folder and the error", async () => {
      // Screenshots go to the working bucket; the bundle's bucket is a server that has stopped.
      const dead = await startTestS3("verdict-gone");
      await dead.stop();
      const refusing = dead.config({ keyPrefix: PREFIX });
      const app = installation(refusing, new ScreenshotStore(ctx.dir, s3.config({ keyPrefix: PREFIX })));
      const { runId, summary, detail, job, log, localDir } = await scriptedRun(app);
      expect(summary.succeeded, log.join("\n")).toBe(1);
      expect(detail.trajectory).toMatchObject({ outcome: "answered", finalAnswer: "4 eggs", stepCount: 3, sourcePath: localDir });

      const manifest = JSON.parse(fs.readFileSync(path.join(localDir, "manifest.json"), "utf8")) as BundleManifest;
      expect(manifest.trajectories[0]).toMatchObject({ outcome: "answered", finalAnswer: "4 eggs" });
      const named = namedFiles(manifest);
      expect(named.size).toBe(6);
      for (const [file, hash] of named) expect(sha(fs.readFileSync(path.join(localDir, file))), file).toBe(hash);

      const target = `s3://verdict-gone/${PREFIX}live-runs/run-${runId}/trajectory-${detail.trajectory.id}/`;
      const line = log.find((l) => l.includes("the bundle stays in"));
      expect(line, log.join("\n")).toBeDefined();
      expect(line).toContain(localDir);
      expect(line).toContain(`uploading it to ${target} failed: `);
      const result = job.result as { bundleDir: string; bundleUploadError: string | null };
      expect(result.bundleDir).toBe(localDir);
      expect(result.bundleUploadError).toBeTruthy();
      expect(line).toContain(result.bundleUploadError!);
    });
  });
});

describe("a bundle uploaded again for the same trajectory (a task that started over)", () => {
  it("replaces the earlier upload: files the new bundle lacks are removed, other trajectories' objects are not", async () => {
    const config = s3.config({ keyPrefix: "again/" });
    const bucket = new LiveBundleBucket(config);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-bundle-again-"));
    try {
      fs.mkdirSync(path.join(dir, "images"));
      fs.mkdirSync(path.join(dir, "downloads"));
      fs.writeFileSync(path.join(dir, "manifest.json"), '{"first":true}');
      fs.writeFileSync(path.join(dir, "images", "a.png"), "first image");
      fs.writeFileSync(path.join(dir, "downloads", "1-report.pdf"), "a download");
      const first = await bucket.upload(dir, 7, 3);
      expect(first.files.sort()).toEqual(["downloads/1-report.pdf", "images/a.png", "manifest.json"]);
      expect(first.location).toBe(`s3://${s3.bucket}/again/live-runs/run-7/trajectory-3/`);
      // A neighbour whose id starts the same way must not be taken for part of this bundle.
      await bucket.upload(path.join(dir, "images"), 7, 31);

      fs.rmSync(path.join(dir, "downloads"), { recursive: true });
      fs.writeFileSync(path.join(dir, "manifest.json"), '{"second":true}');
      const second = await bucket.upload(dir, 7, 3);
      expect(second.removedStale).toBe(1);

      const objects = await bucketObjects("again/", config);
      expect([...objects.keys()].sort()).toEqual([
        "again/live-runs/run-7/trajectory-3/images/a.png",
        "again/live-runs/run-7/trajectory-3/manifest.json",
        "again/live-runs/run-7/trajectory-31/a.png",
      ]);
      expect(objects.get("again/live-runs/run-7/trajectory-3/manifest.json")!.toString()).toBe('{"second":true}');
      // The folder itself is left for the caller to remove.
      expect(fs.readdirSync(dir).sort()).toEqual(["images", "manifest.json"]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

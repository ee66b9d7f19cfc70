/**
 * Screenshots in an S3-compatible bucket (s3rver on 127.0.0.1, tests/helpers/s3.ts): an import uploads every image
 * under its content-addressed key before the rows commit, re-importing uploads nothing, a trajectory whose commit
 * fails leaves no rows, and the screenshot route serves the bucket's bytes (originals and variants) with the same
 * access checks and caching as from the data folder, or redirects to a presigned URL when asked to. Uploaded import
 * zips wait in the bucket, so any web server of the installation can run their import.
 */
import { closeDatabase } from "../../db/database";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqliteClient } from "../../db/database";
import { createAppContext, type AppContext } from "../../server/context";
import { createCampaign } from "../../server/services/annotation";
import { runImport } from "../../server/services/imports/ingest";
import { IMPORT_JOB_TYPE, importJobStatus, newUploadPath, startImport } from "../../server/services/imports/jobs";
import { enqueueJobs, jobsOfGroup } from "../../server/services/jobs/queue";
import { collectUnreferencedObjects } from "../../server/services/operations/garbage";
import { checkUploadKey, uploadStagingFor } from "../../server/storage/upload-staging";
import yazl from "yazl";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";
import { makeActor } from "../helpers/annotation-fixture";
import { rawRequest, startRouteServer, type RouteServer } from "../helpers/route-server";
import { startTestS3, type TestS3 } from "../helpers/s3";
import { runQueuedImports } from "../helpers/workers";

const FIXTURE = path.resolve(__dirname, "..", "fixtures", "webvoyager-mini");
const PREFIX = "lab-a/";
const PASSWORD = "correct-horse-battery";

let s3: TestS3;
let dir: string;
let ctx: AppContext;
let server: RouteServer;
const saved = { ...process.env };

function sha(bytes: Uint8Array): string {
  return crypto.createHash("sha256").update(bytes).digest("hex");
}

function fixtureImages(): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const f of fs.readdirSync(path.join(FIXTURE, "results"), { recursive: true, encoding: "utf8" })) {
    if (f.endsWith(".png")) {
      const bytes = fs.readFileSync(path.join(FIXTURE, "results", f));
      out.set(sha(bytes), bytes);
    }
  }
  return out;
}

function count(table: string): number {
  return (sqliteClient(ctx.db).prepare(`select count(*) n from ${table}`).get() as { n: number }).n;
}

async function cookieOf(email: string): Promise<string> {
  const res = await rawRequest(`${server.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: server.url },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  expect(res.status, res.body).toBe(200);
  return (res.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]).join("; ");
}

async function getBytes(url: string, cookie: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const res = await fetch(url, { headers: { Cookie: cookie, ...headers }, redirect: "manual" });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

beforeAll(async () => {
  s3 = await startTestS3();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-s3-"));
  ctx = createAppContext({
    dbPath: path.join(dir, "verdict.db"),
    dataDir: dir,
    chromiumPath: "/usr/bin/chromium",
    objectStorage: s3.config({ keyPrefix: PREFIX }),
  });
  // The route handlers read the installation from the environment on every request, like the web server.
  Object.assign(process.env, { VERDICT_DB: path.join(dir, "verdict.db"), VERDICT_DATA_DIR: dir }, s3.env({ keyPrefix: PREFIX }));
  server = await startRouteServer();
});

afterAll(async () => {
  await server?.close();
  if (ctx) await closeDatabase(ctx.db);
  await s3?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  process.env = saved;
});

describe("an import with screenshots in S3", () => {
  it("uploads every image once under sha256/<ab>/<hash>, nothing into the data folder, and re-imports without a single upload", async () => {
    const images = fixtureImages();
    const report = await runImport(ctx, { path: path.join(FIXTURE, "results") });
    expect(report.created).toBe(2);
    expect(report.screenshotsAdded).toBe(images.size);

    const expectedKeys = [...images.keys()].map((h) => `${PREFIX}sha256/${h.slice(0, 2)}/${h}`).sort();
    expect([...s3.puts].sort()).toEqual(expectedKeys);
    const listed = [];
    for await (const o of ctx.store.originals.list()) listed.push(o.name);
    expect(listed.sort()).toEqual([...images.keys()].sort());
    for (const [hash, bytes] of images) expect(sha(await ctx.store.read(hash))).toBe(sha(bytes));
    // Nothing landed in the data folder's store.
    expect(fs.existsSync(path.join(dir, "screenshots")) ? fs.readdirSync(path.join(dir, "screenshots")).filter((n) => n !== ".staging") : []).toEqual([]);

    s3.resetEvents();
    const again = await runImport(ctx, { path: path.join(FIXTURE, "results") });
    expect([again.created, again.updated, again.unchanged, again.screenshotsAdded]).toEqual([0, 0, 2, 0]);
    expect(s3.puts).toEqual([]);
  });

  it("a trajectory whose commit fails leaves no rows; its uploads are unused objects that garbage collection removes", async () => {
    const src = fs.mkdtempSync(path.join(dir, "src-"));
    fs.cpSync(path.join(FIXTURE, "results"), src, { recursive: true });
    // One new image, so the failing trajectory has an object nobody else uses.
    const shop = path.join(src, "20240301_10_00_00", "taskShopSite--0");
    const fresh = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 9, g: 200, b: 30 } } })
      .png()
      .toBuffer();
    fs.writeFileSync(path.join(shop, "screenshot5.png"), fresh);
    fs.writeFileSync(
      path.join(shop, "interact_messages.json"),
      fs.readFileSync(path.join(shop, "interact_messages.json"), "utf8").replace("Find a green", "Find a green (changed)"),
    );
    const before = { trajectories: count("trajectories"), steps: count("steps"), screenshots: count("screenshots") };
    sqliteClient(ctx.db).exec(`create trigger refuse_shop before update on trajectories begin select raise(abort, 'disk full (test)'); end`);
    sqliteClient(ctx.db).exec(`create trigger refuse_shop_insert before insert on trajectories begin select raise(abort, 'disk full (test)'); end`);
    try {
      await expect(runImport(ctx, { path: src })).rejects.toThrow("disk full (test)");
    } finally {
      sqliteClient(ctx.db).exec("drop trigger refuse_shop; drop trigger refuse_shop_insert");
    }
    expect({ trajectories: count("trajectories"), steps: count("steps"), screenshots: count("screenshots") }).toEqual(before);
    // Every screenshot row still has its object.
    for (const { hash } of sqliteClient(ctx.db).prepare("select hash from screenshots").all() as { hash: string }[])
      expect(await ctx.store.has(hash)).toBe(true);

    // The fresh image was uploaded (before the commit) and is referenced by no row: collected once old enough.
    const freshHash = sha(fresh);
    expect(await ctx.store.has(freshHash)).toBe(true);
    const young = await collectUnreferencedObjects(ctx, { minAgeMs: 3_600_000 });
    expect(young.removed).toEqual([]);
    const old = await collectUnreferencedObjects(ctx, { minAgeMs: 0 });
    expect(old.removed).toEqual([freshHash]);
    expect(await ctx.store.has(freshHash)).toBe(false);
    expect(s3.deletes).toEqual([`${PREFIX}sha256/${freshHash.slice(0, 2)}/${freshHash}`]);
  });

  it("a repeated put of a screenshot still uploading resolves only once it is in the bucket", async () => {
    const batch = ctx.store.beginBatch();
    const bytes = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 10, b: 90 } } })
      .png()
      .toBuffer();
    const hash = sha(bytes);
    const first = batch.put(hash, bytes);
    await batch.put(hash, bytes);
    expect(() => batch.publishSync([hash])).not.toThrow();
    await first;
    expect(await ctx.store.has(hash)).toBe(true);
    // No row names it: removed again, like any unused object.
    await ctx.store.originals.delete(hash);
  });
});

describe("the screenshot route with screenshots in S3", () => {
  let hash: string;
  let bytes: Buffer;
  let researcher: string;
  let member: string;
  let outsider: string;

  beforeAll(async () => {
    const admin = await makeActor(ctx, "S3 Admin", "admin");
    await makeActor(ctx, "S3 Researcher", "researcher");
    const inCampaign = await makeActor(ctx, "S3 Member", "annotator");
    await makeActor(ctx, "S3 Outsider", "annotator");
    const trajectoryId = (sqliteClient(ctx.db).prepare("select id from trajectories order by id limit 1").get() as { id: number }).id;
    await createCampaign(ctx.db, admin, { name: "S3 campaign", trajectoryIds: [trajectoryId], annotatorsPerItem: 1, annotatorIds: [inCampaign.userId] });
    hash = (
      sqliteClient(ctx.db)
        .prepare("select screenshot_hash h from steps where trajectory_id = ? and screenshot_hash is not null order by idx limit 1")
        .get(trajectoryId) as { h: string }
    ).h;
    bytes = await ctx.store.read(hash);
    researcher = await cookieOf("s3.researcher@test.example");
    member = await cookieOf("s3.member@test.example");
    outsider = await cookieOf("s3.outsider@test.example");
  });

  it("serves the original's bytes with its hash as ETag, immutable, and 304 on revalidation", async () => {
    const res = await getBytes(`${server.url}/api/screenshots/${hash}`, researcher);
    expect(res.status).toBe(200);
    expect(sha(res.body)).toBe(hash);
    expect(res.body.equals(bytes)).toBe(true);
    expect(res.headers.get("etag")).toBe(`"${hash}"`);
    expect(res.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
    expect((await getBytes(`${server.url}/api/screenshots/${hash}`, researcher, { "If-None-Match": `"${hash}"` })).status).toBe(304);
  });

  it("serves an annotator the screenshots of their campaign and refuses one outside it", async () => {
    const mine = await getBytes(`${server.url}/api/screenshots/${hash}`, member);
    expect(mine.status).toBe(200);
    expect(sha(mine.body)).toBe(hash);
    const theirs = await getBytes(`${server.url}/api/screenshots/${hash}`, outsider);
    expect(theirs.status).toBe(404);
    expect(theirs.body.toString()).not.toContain("PNG");
    expect((await getBytes(`${server.url}/api/screenshots/${hash}`, "")).status).toBe(401);
  });

  it("makes a variant once, stores it under variants/ in the bucket, and serves it from there afterwards", async () => {
    s3.resetEvents();
    const first = await getBytes(`${server.url}/api/screenshots/${hash}?w=160&f=webp`, researcher);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("image/webp");
    const meta = await sharp(first.body).metadata();
    expect(meta.format).toBe("webp");
    expect(meta.width).toBe(160);
    const key = `${PREFIX}variants/${hash.slice(0, 2)}/${hash}-w160.webp`;
    expect(s3.puts).toEqual([key]);
    const second = await getBytes(`${server.url}/api/screenshots/${hash}?w=160&f=webp`, researcher);
    expect(second.body.equals(first.body)).toBe(true);
    expect(s3.puts).toEqual([key]);
    expect(fs.existsSync(path.join(dir, "variants"))).toBe(false);
  });

  it("with VERDICT_S3_PRESIGN=1 redirects an allowed viewer to a short-lived URL of the bucket, and still refuses the others", async () => {
    process.env.VERDICT_S3_PRESIGN = "1";
    try {
      const res = await getBytes(`${server.url}/api/screenshots/${hash}`, member);
      expect(res.status).toBe(302);
      expect(res.headers.get("cache-control")).toBe("private, no-store");
      const location = new URL(res.headers.get("location")!);
      expect(location.origin).toBe(s3.endpoint);
      expect(location.pathname).toBe(`/${s3.bucket}/${PREFIX}sha256/${hash.slice(0, 2)}/${hash}`);
      expect(location.searchParams.get("X-Amz-Expires")).toBe("300");
      const fromBucket = await fetch(location);
      expect(fromBucket.status).toBe(200);
      expect(sha(Buffer.from(await fromBucket.arrayBuffer()))).toBe(hash);

      const variant = await getBytes(`${server.url}/api/screenshots/${hash}?w=320&f=webp`, member);
      expect(variant.status).toBe(302);
      const variantBytes = Buffer.from(await (await fetch(variant.headers.get("location")!)).arrayBuffer());
      expect((await sharp(variantBytes).metadata()).width).toBe(320);

      const refused = await getBytes(`${server.url}/api/screenshots/${hash}`, outsider);
      expect(refused.status).toBe(404);
      expect(refused.headers.get("location")).toBeNull();
    } finally {
      process.env.VERDICT_S3_PRESIGN = "0";
    }
  });
});

describe("uploaded import zips with a bucket configured", () => {
  async function uploadZip(into: AppContext, tasks: string[]): Promise<string> {
    const src = await writeWebVoyagerFixture(
      path.join(dir, `upload-src-${crypto.randomBytes(4).toString("hex")}`),
      tasks.map((id) => ({ id, intent: `Task ${id}.`, url: "https://upload.test/", actions: ["Click [0]", "ANSWER; done"] })),
    );
    const file = await newUploadPath(into);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const zip = new yazl.ZipFile();
    for (const rel of fs.readdirSync(src, { recursive: true }) as string[]) {
      if (fs.statSync(path.join(src, rel)).isFile()) zip.addFile(path.join(src, rel), `results/${rel.split(path.sep).join("/")}`);
    }
    zip.end();
    await new Promise<void>((resolve) => zip.outputStream.pipe(fs.createWriteStream(file)).on("close", () => resolve()));
    return file;
  }

  it("wait in the bucket, not on the disk of the server that received them, and are removed once imported", async () => {
    const file = await uploadZip(ctx, ["Up--1"]);
    const key = `${PREFIX}uploads/${path.basename(file)}`;
    s3.resetEvents();
    const id = await startImport(ctx, { kind: "upload", file, name: "mine.zip" }, { requestedBy: null });
    expect(fs.existsSync(file)).toBe(false);
    expect(s3.puts).toContain(key);
    await runQueuedImports(ctx);
    const view = await importJobStatus(ctx, id);
    expect(view.error).toBeNull();
    expect(view.report).toMatchObject({ format: "webvoyager", created: 1 });
    // Paths in the report name the upload, not a server folder.
    expect(view.report!.trajectories[0]!.sourcePath).toMatch(/^mine\.zip: results\//);
    expect(s3.deletes).toContain(key);
    expect(fs.readdirSync(path.join(dir, "imports"))).toEqual([]);
  });

  it("are imported by another web server (its own data folder) from the bucket", async () => {
    const file = await uploadZip(ctx, ["Up--2", "Up--3"]);
    const key = path.basename(file);
    // The receiving server staged the zip and stopped before running its import.
    await uploadStagingFor(ctx.config.objectStorage)!.stage(file, key);
    const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-s3-other-"));
    const other = createAppContext({
      dbPath: path.join(dir, "verdict.db"),
      dataDir: otherDir,
      chromiumPath: "/usr/bin/chromium",
      objectStorage: s3.config({ keyPrefix: PREFIX }),
    });
    try {
      const groupKey = `import:${crypto.randomUUID()}`;
      await enqueueJobs(other.db, [
        {
          type: IMPORT_JOB_TYPE,
          payload: { source: { kind: "upload", file: "/srv/web-a/imports/" + key, name: "theirs.zip", staged: key }, format: "auto", requestedBy: null },
          groupKey,
          maxAttempts: 1,
        },
      ]);
      await runQueuedImports(other);
      const job = (await jobsOfGroup(other.db, groupKey))[0]!;
      const view = await importJobStatus(other, job.id);
      expect(view.error).toBeNull();
      expect(view.report).toMatchObject({ created: 2 });
      expect(fs.readdirSync(path.join(otherDir, "imports"))).toEqual([]);
      expect(s3.deletes).toContain(`${PREFIX}uploads/${key}`);

      // A staged zip that is gone (removed by hand, an expired bucket rule) fails with what to do.
      const lost = await uploadZip(ctx, ["Up--4"]);
      const lostKey = path.basename(lost);
      await uploadStagingFor(ctx.config.objectStorage)!.stage(lost, lostKey);
      await uploadStagingFor(ctx.config.objectStorage)!.remove(lostKey);
      const lostGroup = `import:${crypto.randomUUID()}`;
      await enqueueJobs(other.db, [
        {
          type: IMPORT_JOB_TYPE,
          payload: { source: { kind: "upload", file: lost, name: "gone.zip", staged: lostKey }, format: "auto", requestedBy: null },
          groupKey: lostGroup,
          maxAttempts: 1,
        },
      ]);
      await runQueuedImports(other);
      const failed = await importJobStatus(other, (await jobsOfGroup(other.db, lostGroup))[0]!.id);
      expect(failed.status).toBe("failed");
      expect(failed.error).toBe(`gone.zip: the uploaded file is no longer in s3://${s3.bucket}/${PREFIX}uploads/; upload it again`);

      // A worker of the installation started without the bucket's settings says so, and leaves the upload staged.
      const waiting = await uploadZip(ctx, ["Up--5"]);
      const waitingKey = path.basename(waiting);
      await uploadStagingFor(ctx.config.objectStorage)!.stage(waiting, waitingKey);
      const unconfigured = createAppContext({ dbPath: path.join(dir, "verdict.db"), dataDir: otherDir, chromiumPath: "/usr/bin/chromium" });
      try {
        const waitingGroup = `import:${crypto.randomUUID()}`;
        await enqueueJobs(unconfigured.db, [
          {
            type: IMPORT_JOB_TYPE,
            payload: { source: { kind: "upload", file: waiting, name: "waiting.zip", staged: waitingKey }, format: "auto", requestedBy: null },
            groupKey: waitingGroup,
            maxAttempts: 1,
          },
        ]);
        await runQueuedImports(unconfigured);
        const refused = await importJobStatus(unconfigured, (await jobsOfGroup(unconfigured.db, waitingGroup))[0]!.id);
        expect(refused.status).toBe("failed");
        expect(refused.error).toBe("waiting.zip: the upload waits in object storage, which this worker is not configured for (VERDICT_S3_BUCKET)");
        expect(await uploadStagingFor(ctx.config.objectStorage)!.fetch(waitingKey, path.join(otherDir, "still-there.zip"))).toBe(true);
      } finally {
        await closeDatabase(unconfigured.db);
      }
    } finally {
      await closeDatabase(other.db);
      fs.rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it("keys are the server's own names only", () => {
    expect(() => checkUploadKey("../sha256/ab/x")).toThrow(/Not an upload key/);
    expect(checkUploadKey("upload-1700000000000-0123456789ab.zip")).toBe("upload-1700000000000-0123456789ab.zip");
  });
});

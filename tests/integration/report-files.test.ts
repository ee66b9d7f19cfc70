/**
 * Report zips kept for download, in the data folder and in an S3-compatible bucket (s3rver, tests/helpers/s3.ts):
 * written from a stream in parts (several parts in the bucket), read back byte for byte, and nothing left behind
 * when the stream fails midway. Keys a client could choose are refused.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkReportKey, newReportKey, reportFilesFor, type ReportFileStore } from "../../server/storage/report-files";
import { startTestS3, type TestS3 } from "../helpers/s3";

const PART = 8 * 1024;

/** `n` chunks of 3,000 random bytes, then an error when `fail` is set. */
function source(n: number, fail = false): { stream: Readable; bytes: Buffer } {
  const chunks = Array.from({ length: n }, () => crypto.randomBytes(3000));
  async function* gen() {
    for (const c of chunks) yield c;
    if (fail) throw new Error("the zip broke");
  }
  return { stream: Readable.from(gen()), bytes: Buffer.concat(chunks) };
}

async function readAll(store: ReportFileStore, key: string): Promise<Buffer | null> {
  const opened = await store.open(key);
  if (!opened) return null;
  const parts: Buffer[] = [];
  for await (const c of opened.body) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

let s3: TestS3;
let dir: string;
beforeAll(async () => {
  s3 = await startTestS3();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-report-files-"));
});
afterAll(async () => {
  await s3.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.each(["folder", "bucket"] as const)("report files in a %s", (kind) => {
  const store = () =>
    reportFilesFor(kind === "folder" ? { dataDir: dir } : { dataDir: dir, objectStorage: s3.config({ keyPrefix: "lab/" }) }, { partBytes: PART });

  it("writes a stream in parts and reads it back byte for byte; removes it", async () => {
    const key = newReportKey();
    const { stream, bytes } = source(10);
    s3.resetEvents();
    expect(await store().write(key, stream)).toBe(bytes.length);
    expect((await readAll(store(), key))!.equals(bytes)).toBe(true);
    const opened = (await store().open(key))!;
    opened.body.destroy();
    expect(opened.size).toBe(bytes.length);
    if (kind === "bucket") expect(s3.puts).toEqual([`lab/reports/${key}`]);
    else expect(fs.readdirSync(path.join(dir, "reports"))).toContain(key);
    await store().remove(key);
    expect(await store().open(key)).toBeNull();
  });

  it("keeps nothing when the stream fails midway", async () => {
    const key = newReportKey();
    s3.resetEvents();
    await expect(store().write(key, source(10, true).stream)).rejects.toThrow("the zip broke");
    expect(await store().open(key)).toBeNull();
    if (kind === "bucket") expect(s3.puts).toEqual([]);
    else expect(fs.readdirSync(path.join(dir, "reports")).filter((f) => f.includes(key))).toEqual([]);
  });

  it("refuses keys the server did not make", async () => {
    for (const key of ["../secrets.zip", "report-1-abc.zip", "upload-1-0123456789ab.zip", "report-1-0123456789ab.zip/.."]) {
      await expect(store().write(key, source(1).stream)).rejects.toThrow("Not a report key");
      await expect(store().open(key)).rejects.toThrow("Not a report key");
    }
    expect(checkReportKey(newReportKey())).toMatch(/^report-\d+-[0-9a-f]{12}\.zip$/);
  });
});

/**
 * An import prepares several trajectories at once, and one screenshot often appears in more than one of them: a
 * repeated put of a screenshot still being written must not resolve before it is staged, or the trajectory that
 * commits first publishes a file that is not there yet (seen as "ENOENT: rename …/.staging/…").
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ScreenshotStore } from "../../server/storage/screenshot-store";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-batch-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("a screenshot batch in the data folder", () => {
  it("resolves a repeated put only once the first one has staged the bytes", async () => {
    const store = new ScreenshotStore(dir);
    const batch = store.beginBatch();
    const bytes = crypto.randomBytes(2048);
    const hash = crypto.createHash("sha256").update(bytes).digest("hex");
    const first = batch.put(hash, bytes);
    // The second trajectory's put, while the first is still writing, and its commit right after.
    await batch.put(hash, bytes);
    expect(() => batch.publishSync([hash])).not.toThrow();
    await first;
    expect(fs.readFileSync(store.pathFor(hash))).toEqual(bytes);
    await batch.discardStaging();
  });

  it("forgets a screenshot whose write failed, so publishing it is refused with a clear error", async () => {
    const store = new ScreenshotStore(dir);
    const batch = store.beginBatch();
    const bytes = crypto.randomBytes(64);
    const hash = crypto.createHash("sha256").update(bytes).digest("hex");
    // The staging folder cannot be made: a file stands where it should be.
    fs.mkdirSync(path.dirname(store.stagingRoot), { recursive: true });
    fs.writeFileSync(store.stagingRoot, "not a folder");
    await expect(batch.put(hash, bytes)).rejects.toThrow();
    expect(() => batch.publishSync([hash], () => "step 3")).toThrow(/vanished from the screenshot store/);
  });
});

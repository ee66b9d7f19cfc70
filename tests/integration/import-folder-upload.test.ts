/**
 * Folder uploads (the Import page's folder drop and picker): files declared by path, size and SHA-256, sent once
 * each, imported by the same job as a zip with the same report; resumed after a reload without sending a file twice;
 * the same content refused the second time unless confirmed; hostile paths and oversized folders refused by name.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { DeclaredFile } from "../../server/domain/imports/folder-upload";
import { beginFolderUpload, expireFolderUploads, finishFolderUpload, receiveFolderFile } from "../../server/services/imports/folder-uploads";
import { importJobStatus, recentImports } from "../../server/services/imports/jobs";
import { importLimitsFromEnv } from "../../server/config";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";
import { runQueuedImports } from "../helpers/workers";

let ctx: TestContext;
const USER = "folder-sender";

/** The folder as a browser declares it: every file's path below the folder, its size and content hash. */
function declare(folder: string): { files: DeclaredFile[]; content: Map<string, Buffer> } {
  const files: DeclaredFile[] = [];
  const content = new Map<string, Buffer>();
  for (const rel of (fs.readdirSync(folder, { recursive: true }) as string[]).sort()) {
    const abs = path.join(folder, rel);
    if (!fs.statSync(abs).isFile()) continue;
    const bytes = fs.readFileSync(abs);
    const sha256 = crypto.createHash("sha256").update(bytes).digest("hex");
    files.push({ path: rel.split(path.sep).join("/"), size: bytes.length, sha256 });
    content.set(sha256, bytes);
  }
  return { files, content };
}

async function send(sessionId: string, content: Map<string, Buffer>, shas: string[], user = USER) {
  const out: boolean[] = [];
  for (const sha of shas) out.push((await receiveFolderFile(ctx, user, sessionId, sha, Readable.from([content.get(sha)!]))).stored);
  return out;
}

async function fixture(name: string) {
  const src = await writeWebVoyagerFixture(path.join(ctx.dir, name), [
    { id: "Fold--1", intent: "One.", url: "https://fold.test/", actions: ["Click [0]", "ANSWER; a"] },
    { id: "Fold--2", intent: "Two.", url: "https://fold.test/", actions: ["Click [0]", "ANSWER; b"] },
  ]);
  fs.writeFileSync(path.join(src, "taskFold--2", "screenshot1.png"), "nope");
  return src;
}

describeEachBackend("folder uploads", (backend) => {
  beforeEach(async () => {
    ctx = await createBackendContext(backend);
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  it("imports a folder sent file by file with the zip import's job and report, resuming without resending", async () => {
    const { files, content } = declare(await fixture("results"));
    const plan = await beginFolderUpload(ctx, USER, { name: "results", files });
    expect(plan).toMatchObject({ accepted: files.length, refused: [], earlier: null });
    expect(new Set(plan.missing)).toEqual(new Set(files.map((f) => f.sha256)));
    const half = plan.missing.slice(0, Math.ceil(plan.missing.length / 2));
    expect(await send(plan.sessionId, content, half)).toEqual(half.map(() => true));
    await expect(finishFolderUpload(ctx, USER, plan.sessionId)).rejects.toThrow(/files have not arrived yet/);

    // The page is reloaded and the same folder chosen again: only what did not arrive is asked for.
    const again = await beginFolderUpload(ctx, USER, { name: "results", files: [...files].reverse() });
    expect(again.sessionId).toBe(plan.sessionId);
    expect(new Set(again.missing)).toEqual(new Set(plan.missing.filter((s) => !half.includes(s))));
    expect(await send(plan.sessionId, content, [half[0]!])).toEqual([false]);
    await send(plan.sessionId, content, again.missing);

    const { jobId } = await finishFolderUpload(ctx, USER, plan.sessionId);
    await runQueuedImports(ctx);
    const view = await importJobStatus(ctx, jobId);
    expect(view.status).toBe("succeeded");
    expect(view.source).toBe("results (folder)");
    expect(view.report).toMatchObject({ format: "webvoyager", created: 1 });
    expect(view.report!.skipped).toEqual([{ path: "results (folder): results/taskFold--2/screenshot1.png", reason: "is not a PNG, JPEG, WebP or GIF image" }]);
    // Nothing of the upload waits once it is imported.
    expect(fs.readdirSync(path.join(ctx.dir, "imports"))).toEqual([]);
    const sender = fs.readdirSync(path.join(ctx.config.dataDir, "folder-uploads")).find((d) => d !== "imported")!;
    expect(fs.readdirSync(path.join(ctx.config.dataDir, "folder-uploads", sender, "files"))).toEqual([]);
  });

  it("refuses the same content a second time, under other names, until the sender confirms", async () => {
    const first = declare(await fixture("results"));
    const plan = await beginFolderUpload(ctx, USER, { name: "results", files: first.files });
    await send(plan.sessionId, first.content, plan.missing);
    const { jobId } = await finishFolderUpload(ctx, USER, plan.sessionId);

    const renamed = first.files.map((f) => ({ ...f, path: `copy/${f.path.replace(/^task/, "run-")}` }));
    // Someone else learns that the content was imported and when, not under what name or by which import.
    const second = await beginFolderUpload(ctx, "someone-else", { name: "results-copy", files: renamed });
    expect(second.earlier).toEqual({ byYou: false, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    await send(second.sessionId, first.content, second.missing, "someone-else");
    const refusal = finishFolderUpload(ctx, "someone-else", second.sessionId);
    await expect(refusal).rejects.toThrow(/^results-copy: a folder with the same files was imported by someone else \(\d{4}-/);
    await expect(refusal).rejects.not.toThrow(/"results"|#\d/);
    // The sender of the first import is told which one it was.
    const mine = await beginFolderUpload(ctx, USER, { name: "again", files: renamed });
    expect(mine.earlier).toEqual({ byYou: true, jobId, name: "results", at: second.earlier!.at });
    const { jobId: secondJob } = await finishFolderUpload(ctx, "someone-else", second.sessionId, { again: true });
    expect(secondJob).not.toBe(jobId);
    // A changed file makes it another folder.
    const changed = [...first.files.slice(1), { path: "extra.txt", size: 1, sha256: crypto.createHash("sha256").update("x").digest("hex") }];
    expect((await beginFolderUpload(ctx, USER, { name: "results", files: changed })).earlier).toBeNull();
  });

  it("starts one import when two requests finish the same upload at once, and answers both with its job", async () => {
    const { files, content } = declare(await fixture("results"));
    const plan = await beginFolderUpload(ctx, USER, { name: "results", files });
    await send(plan.sessionId, content, plan.missing);
    // Both requests are under way before either has looked at the upload: a barrier both pass together.
    let open!: () => void;
    const barrier = new Promise<void>((resolve) => (open = resolve));
    const finishing = [0, 1].map(async () => {
      await barrier;
      return finishFolderUpload(ctx, USER, plan.sessionId);
    });
    open();
    const [a, b] = await Promise.all(finishing);
    expect(a).toEqual(b);
    expect((await recentImports(ctx)).map((j) => j.id)).toEqual([a!.jobId]);
    // A late third request (a retry after a lost answer) gets the same job; declaring the folder again is a new attempt.
    expect(await finishFolderUpload(ctx, USER, plan.sessionId)).toEqual(a);
    const again = await beginFolderUpload(ctx, USER, { name: "results", files });
    expect(again.sessionId).toBe(plan.sessionId);
    await send(again.sessionId, content, again.missing);
    await expect(finishFolderUpload(ctx, USER, again.sessionId)).rejects.toThrow(/same files was imported as "results" \(import #/);
    const { jobId } = await finishFolderUpload(ctx, USER, again.sessionId, { again: true });
    expect(jobId).not.toBe(a!.jobId);
    await runQueuedImports(ctx);
    expect((await importJobStatus(ctx, a!.jobId)).report).toMatchObject({ created: 1 });
  });

  it("removes uploads left unfinished past the expiry with the files only they needed, and keeps those still under way", async () => {
    const { files, content } = declare(await fixture("results"));
    const expiry = ctx.config.importLimits?.folderUploadExpiryMs ?? importLimitsFromEnv({}).folderUploadExpiryMs;
    const abandoned = await beginFolderUpload(ctx, USER, { name: "results", files });
    await send(abandoned.sessionId, content, abandoned.missing.slice(0, 2));
    const other = declare(await fixture("other"));
    other.files.push({ path: "note.txt", size: 4, sha256: crypto.createHash("sha256").update("note").digest("hex") });
    other.content.set(other.files.at(-1)!.sha256, Buffer.from("note"));
    const active = await beginFolderUpload(ctx, "another-sender", { name: "other", files: other.files });
    await send(active.sessionId, other.content, active.missing.slice(0, 1), "another-sender");
    const sessionsOf = (dir: string) => fs.readdirSync(path.join(ctx.config.dataDir, "folder-uploads", dir, "sessions"));
    const senders = fs.readdirSync(path.join(ctx.config.dataDir, "folder-uploads"));
    expect(senders).toHaveLength(2);

    // Just before the expiry nothing goes; the abandoned upload's last file arrived before the other's.
    const abandonedSession = senders
      .map((d) => path.join(ctx.config.dataDir, "folder-uploads", d, "sessions"))
      .find((d) => fs.readdirSync(d).includes(`${abandoned.sessionId}.json`))!;
    const touched = fs.statSync(path.join(abandonedSession, `${abandoned.sessionId}.json`)).mtimeMs;
    expect(await expireFolderUploads(ctx, touched + expiry - 1)).toEqual({ sessions: 0, files: 0 });
    const later = touched + expiry + 1;
    const now = new Date(later);
    const activeDir = senders.find((d) => !abandonedSession.includes(d))!;
    for (const f of sessionsOf(activeDir)) fs.utimesSync(path.join(ctx.config.dataDir, "folder-uploads", activeDir, "sessions", f), now, now);
    expect(await expireFolderUploads(ctx, later)).toEqual({ sessions: 1, files: 2 });
    expect(fs.readdirSync(abandonedSession)).toEqual([]);
    expect(fs.readdirSync(path.join(abandonedSession, "..", "files"))).toEqual([]);
    await expect(finishFolderUpload(ctx, USER, abandoned.sessionId)).rejects.toThrow(/No folder upload/);
    // The upload still under way keeps its session and its file.
    expect(sessionsOf(activeDir)).toEqual([`${active.sessionId}.json`]);
    expect(fs.readdirSync(path.join(ctx.config.dataDir, "folder-uploads", activeDir, "files"))).toHaveLength(1);
    // Choosing the abandoned folder again starts afresh.
    expect(new Set((await beginFolderUpload(ctx, USER, { name: "results", files })).missing)).toEqual(new Set(abandoned.missing));
  });

  it("names every hostile path and keeps the rest; content that is not what was declared is not kept", async () => {
    const sha = (s: string) => crypto.createHash("sha256").update(s).digest("hex");
    const good = { path: "run/a.json", size: 2, sha256: sha("{}") };
    const hostile = [
      "../escape.json",
      "run/../../escape.json",
      "/etc/passwd",
      "C:/Windows/win.ini",
      "run\\a.json",
      "run//a.json",
      "./a.json",
      "run/\u0000.json",
      "",
    ];
    const plan = await beginFolderUpload(ctx, USER, {
      name: "../../x",
      files: [good, ...hostile.map((p) => ({ path: p, size: 2, sha256: sha(p) })), { ...good }, { path: "run/b.json", size: 2, sha256: "not-a-hash" }],
    });
    expect(plan.accepted).toBe(1);
    expect(plan.refused.map((r) => r.path)).toEqual([...hostile.slice(0, -1), "(no path)", "run/a.json", "run/b.json"]);
    expect(plan.refused.map((r) => r.reason)).toEqual([
      'has ".." in its path, which would lead out of the folder',
      'has ".." in its path, which would lead out of the folder',
      "has an absolute path",
      "has an absolute path",
      "has a backslash in its path (folder paths use /)",
      "has an empty or '.' part in its path",
      "has an empty or '.' part in its path",
      "has a control character in its path",
      "has no path",
      "is declared twice",
      "has no valid SHA-256 of its content",
    ]);
    await expect(receiveFolderFile(ctx, USER, plan.sessionId, sha("../escape.json"), Readable.from([Buffer.from("{}")]))).rejects.toThrow(
      /was declared in this upload/,
    );
    await expect(receiveFolderFile(ctx, USER, plan.sessionId, good.sha256, Readable.from([Buffer.from("[]")]))).rejects.toThrow(
      /does not have the declared SHA-256/,
    );
    await expect(receiveFolderFile(ctx, USER, plan.sessionId, good.sha256, Readable.from([Buffer.from("{}  ")]))).rejects.toThrow(
      /more bytes arrived than the 2 declared/,
    );
    await expect(finishFolderUpload(ctx, USER, plan.sessionId)).rejects.toThrow(/^x: 1 of its files have not arrived yet \(run\/a\.json\)/);
    // Another person cannot send into or finish this upload.
    await expect(receiveFolderFile(ctx, "intruder", plan.sessionId, good.sha256, Readable.from([Buffer.from("{}")]))).rejects.toThrow(/No folder upload/);
    await expect(finishFolderUpload(ctx, "intruder", plan.sessionId)).rejects.toThrow(/No folder upload/);
    await expect(finishFolderUpload(ctx, USER, "../../etc")).rejects.toThrow(/No folder upload/);
    expect(await send(plan.sessionId, new Map([[good.sha256, Buffer.from("{}")]]), [good.sha256])).toEqual([true]);
  });

  it("refuses too many files or too many bytes as a whole, and names a file larger than one file may be", async () => {
    ctx.config.importLimits = { ...importLimitsFromEnv({}), zipMaxEntries: 3, zipMaxEntryBytes: 10, zipMaxTotalBytes: 25 };
    const f = (i: number, size: number) => ({ path: `r/${i}.json`, size, sha256: crypto.createHash("sha256").update(String(i)).digest("hex") });
    const plan = await beginFolderUpload(ctx, USER, { name: "r", files: [f(1, 5), f(2, 11)] });
    expect(plan.refused).toEqual([{ path: "r/2.json", reason: "is 11 bytes, more than the 10 one file may have (VERDICT_ZIP_MAX_ENTRY_MB)" }]);
    await expect(beginFolderUpload(ctx, USER, { name: "r", files: [1, 2, 3, 4].map((i) => f(i, 1)) })).rejects.toThrow(
      "r: 4 files declared, more than the 3 one import may hold (VERDICT_ZIP_MAX_ENTRIES)",
    );
    // Files it would refuse count too: a declaration is not read further than one import may hold.
    await expect(beginFolderUpload(ctx, USER, { name: "r", files: [f(1, 1), f(2, 1), f(3, 99), f(4, 99)] })).rejects.toThrow(
      "r: 4 files declared, more than the 3",
    );
    await expect(beginFolderUpload(ctx, USER, { name: "r", files: [1, 2, 3].map((i) => f(i, 9)) })).rejects.toThrow(
      "r: 27 bytes in all, more than the 25 one import may hold (VERDICT_ZIP_MAX_TOTAL_MB)",
    );
    // A size or hash of another JSON type is taken as the value it was checked as, so the totals add up.
    const loose = [1, 2, 3].map((i) => ({ ...f(i, 9), size: "9", sha256: [f(i, 9).sha256] })) as unknown as DeclaredFile[];
    await expect(beginFolderUpload(ctx, USER, { name: "r", files: loose })).rejects.toThrow("r: 27 bytes in all");
    const two = await beginFolderUpload(ctx, USER, { name: "r", files: loose.slice(0, 2) });
    expect(two).toMatchObject({ accepted: 2, totalBytes: 18, missing: [f(1, 9).sha256, f(2, 9).sha256] });
    await expect(beginFolderUpload(ctx, USER, { name: "r", files: [f(9, 11)] })).rejects.toThrow(
      /none of its 1 files can be uploaded \(r\/9\.json is 11 bytes/,
    );
  });
});

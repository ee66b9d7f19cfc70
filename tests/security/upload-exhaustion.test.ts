/**
 * Security review 2: uploads that exhausted the web server, replayed as the review ran them, over real HTTP against
 * the web server running as its own process (tests/helpers/web-server-child.ts) with a worker beside it as the quick
 * start runs one (`npm run worker`). While each attack runs, /api/health is probed one request after another; the
 * server must keep answering (every probe within PROBE_TIMEOUT_MS, and probes answered while the attack was still
 * going on) and the attack must end with a readable refusal. No bound tighter than that: on a loaded machine a
 * healthy server's answer can take a second or more, while the review's blocked server took 21 s and 44 s.
 *
 * - N1: a researcher's 4.7 MB bundle upload whose manifest.json is 2,000,000 tiny objects (about 27 MB) was parsed
 *   whole and validated by zod inside the web server: health checks timed out and the server died of heap exhaustion.
 * - N5a: a 24.5 MB CSV sent to `analytics.csvAgreement` blocked every request for 44 s (parsed on the web server's
 *   event loop); `campaigns.importLabels` the same.
 * - N5b: 40 unauthenticated 30 MB bodies to `campaigns.importLabels` were each read in full before the session was
 *   checked: the server's memory went from 311 to 951 MB and a health check took 21 s.
 *
 * These run on one database engine (the first of VERDICT_TEST_BACKENDS, SQLite in CI): what is under test is where
 * the bytes are read (a worker, not the web server's event loop) and when a body is refused, which no engine changes.
 * How jobs are queued and claimed on each engine is job-queue-contract.test.ts's subject, and the health route's
 * database check on each engine health.test.ts's.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import yazl from "yazl";
import { getJob } from "../../db/repositories/jobs";
import { MAX_INVALID_TRAJECTORIES } from "../../server/importers/native";
import { createBackendContext, describeOnOneEngine } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { signedInClient, type HttpClient } from "../helpers/http-client";
import { installationEnv, startTsx, startWebServer, type StartedProcess } from "../helpers/processes";
import { healthWhile } from "../helpers/responsiveness";

/** A manifest of `count` tiny objects (random numbers, so the zip compresses it about as well as the review's did). */
function tinyObjectsManifest(count: number, header: Record<string, unknown>): Buffer {
  const head = JSON.stringify(header).slice(0, -1);
  const parts: string[] = [`${head}${head.length > 1 ? "," : ""}"trajectories":[`];
  for (let i = 0; i < count; i++) parts.push(`${i ? "," : ""}\n  {"x": ${crypto.randomInt(100, 1_000)}}`);
  parts.push("\n]}");
  return Buffer.from(parts.join(""));
}

/** A CSV of ratings (item, rater, label) of about `bytes` bytes; the review's was 24.5 MB, 1.84 million rows. */
function ratingsCsv(bytes: number): { text: string; rows: number } {
  const labels = ["success", "failure", "unclear"];
  const lines = ["item,rater,label"];
  let size = lines[0]!.length + 1;
  for (let i = 0; size < bytes; i++) {
    const line = `t${i % 250_000},r${i % 7},${labels[(i * 7919) % 3]}`;
    lines.push(line);
    size += line.length + 1;
  }
  return { text: lines.join("\n"), rows: lines.length - 1 };
}

/**
 * Sends `body`'s headers (its full Content-Length) and only its first 64 KB, then waits for the answer: a server that
 * refuses by the declared size answers without waiting for the rest (and a client that kept writing would meet a
 * closed connection instead of the answer).
 */
function answerToDeclaredSize(url: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", agent: false, headers: { ...headers, "Content-Length": String(body.length) } }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, body: text });
        req.destroy();
      });
    });
    req.on("error", reject);
    req.write(body.subarray(0, 64 * 1024));
  });
}

/** The resident memory of process `pid`, MB. */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function zipOf(files: Record<string, Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, body] of Object.entries(files)) zip.addBuffer(body, name, { compress: true });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Far below the review's stalls (21 s, 44 s), far above what a loaded two-core machine adds to an answer. */
const PROBE_TIMEOUT_MS = 10_000;

describeOnOneEngine("uploads cannot exhaust the web server", (backend) => {
  let ctx: TestContext;
  let web: StartedProcess & { url: string };
  let worker: StartedProcess;
  let researcher: HttpClient;

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-exhaustion-");
    web = await startWebServer(ctx);
    worker = startTsx("npm run worker", "scripts/run-worker.ts", [], installationEnv(ctx, { VERDICT_WORKER_JOBS: "uploads" }));
    await worker.waitFor(/\[worker \d+\] worker on/);
    researcher = await signedInClient(ctx, web.url, "researcher");
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await web?.stop();
    await ctx?.cleanup();
  });

  /** Uploads `zip`, probes the web server's health until the import job has ended, and returns both. */
  async function uploadUnderWatch(name: string, zip: Buffer) {
    const res = await researcher.upload(name, zip);
    expect(res.status, res.body).toBe(202);
    const jobId = (JSON.parse(res.body) as { jobId: number }).jobId;
    // The job's state is read from the database, not through the server being measured.
    const ended = async () => ["succeeded", "failed", "cancelled"].includes((await getJob(ctx.db, jobId))?.status ?? "");
    const health = await healthWhile(web.url, ended, { maxMs: 180_000, timeoutMs: PROBE_TIMEOUT_MS });
    return { jobId, health, ended: await ended() };
  }

  it("N1: the review's manifest of 2,000,000 tiny objects is refused by a worker while the web server keeps answering", async () => {
    const manifest = tinyObjectsManifest(2_000_000, { version: 1 });
    expect(manifest.length).toBeGreaterThan(25_000_000);
    const zip = await zipOf({ "manifest.json": manifest });
    expect(zip.length).toBeLessThan(6_000_000);

    const { jobId, health, ended } = await uploadUnderWatch("manifest20.zip", zip);
    expect(ended).toBe(true);
    expect(health.failures).toBe(0);
    expect(health.answeredDuring).toBeGreaterThan(0);
    const view = await researcher.query<{ status: string; error: string | null }>("imports.status", { id: jobId });
    expect(view.status).toBe("failed");
    expect(view.error).toMatch(
      /^manifest20\.zip: manifest\.json: is not a valid Verdict bundle manifest: format: Invalid input: expected "verdict\.trajectory-bundle"/,
    );
    // The worker logs the job's end after recording it: read its output once that line is there, so that a crash while
    // the job ended would be in it.
    await worker.waitFor(new RegExp(`job ${jobId} \\([^)]*\\) failed`), 120_000);
    expect(worker.output()).not.toMatch(/heap out of memory|was killed|exited with code/);
  });

  it(`N1: with a valid header, trajectories are validated one by one and reading stops after ${MAX_INVALID_TRAJECTORIES} invalid ones`, async () => {
    const manifest = tinyObjectsManifest(2_000_000, { format: "verdict.trajectory-bundle", version: 1 });
    const { jobId, health, ended } = await uploadUnderWatch("manifest-valid-header.zip", await zipOf({ "manifest.json": manifest }));
    expect(ended).toBe(true);
    expect(health.failures).toBe(0);
    expect(health.answeredDuring).toBeGreaterThan(0);
    const view = await researcher.query<{ status: string; error: string | null; skipped: { path: string; reason: string }[] }>("imports.status", { id: jobId });
    expect(view.status).toBe("failed");
    const invalid = view.skipped.filter((s) => /#trajectories\[\d+\]$/.test(s.path));
    expect(invalid).toHaveLength(MAX_INVALID_TRAJECTORIES);
    expect(invalid[0]).toEqual({
      path: "manifest-valid-header.zip#trajectories[0]",
      reason: expect.stringMatching(/^is not a valid Verdict bundle trajectory: task: Invalid input: expected object, received undefined/),
    });
    expect(view.skipped.at(-1)).toEqual({
      path: "manifest-valid-header.zip: manifest.json",
      reason: `${MAX_INVALID_TRAJECTORIES} of its first ${MAX_INVALID_TRAJECTORIES} trajectories are not valid; the other ${2_000_000 - MAX_INVALID_TRAJECTORIES} were not read (fix the bundle and import it again: what was imported is kept, and not imported twice)`,
    });
  });

  it("N5a: the review's 24.5 MB CSV is refused at once, and a CSV as large as the page takes is analysed by a worker while the server keeps answering", async () => {
    const review = ratingsCsv(24_500_000);
    const refused = await answerToDeclaredSize(
      `${web.url}/api/trpc/analytics.csvAgreement`,
      { Cookie: researcher.cookie, Origin: web.url, "Content-Type": "application/json" },
      Buffer.from(JSON.stringify({ json: { fileName: "ratings.csv", text: review.text, itemColumns: ["item"], raterColumn: "rater", labelColumn: "label" } })),
    );
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body).error.json.message).toMatch(/larger than this server accepts \(12 MiB\)/);

    const csv = ratingsCsv(9_900_000);
    const { jobId } = await researcher.mutation<{ jobId: number }>("analytics.csvAgreement", {
      fileName: "ratings.csv",
      text: csv.text,
      itemColumns: ["item"],
      raterColumn: "rater",
      labelColumn: "label",
    });
    const ended = async () => ["succeeded", "failed"].includes((await getJob(ctx.db, jobId))?.status ?? "");
    const health = await healthWhile(web.url, ended, { maxMs: 180_000, timeoutMs: PROBE_TIMEOUT_MS });
    expect(await ended()).toBe(true);
    expect(health.failures).toBe(0);
    expect(health.answeredDuring).toBeGreaterThan(0);
    const job = await researcher.query<{ status: string; error: string | null; result: { rows: number; fileName: string } | null }>(
      "analytics.csvAgreementJob",
      { id: jobId },
    );
    expect(job.error).toBeNull();
    expect(job.result).toMatchObject({ fileName: "ratings.csv", rows: csv.rows });
    // Only the person who started it reads it.
    const other = await signedInClient(ctx, web.url, "researcher");
    await expect(other.query("analytics.csvAgreementJob", { id: jobId })).rejects.toThrow(/HTTP 404/);
  });

  it("N5a: a label import of a CSV as large as the page takes is read by a worker while the server keeps answering", async () => {
    // AgentRewardBench's annotations.csv layout (the page's first preset), as large as the page takes.
    const rows = ["annotator_name,benchmark,task_id,model_name,trajectory_success"];
    let size = 0;
    for (let i = 0; size < 9_800_000; i++) {
      const line = `a${i % 5},webarena,${i},gpt-4o,${i % 2 ? "Successful" : "Unsuccessful"}`;
      rows.push(line);
      size += line.length + 1;
    }
    const presets = await researcher.query<{ name: string; mapping: unknown }[]>("campaigns.importPresets");
    const { jobId } = await researcher.mutation<{ jobId: number }>("campaigns.importLabels", {
      csv: rows.join("\n"),
      source: "labels.csv",
      mapping: presets.find((p) => p.name === "agentrewardbench")!.mapping,
      campaign: { name: "n5 imported labels" },
      dryRun: true,
    });
    const ended = async () => ["succeeded", "failed"].includes((await getJob(ctx.db, jobId))?.status ?? "");
    const health = await healthWhile(web.url, ended, { maxMs: 180_000, timeoutMs: PROBE_TIMEOUT_MS });
    expect(await ended()).toBe(true);
    expect(health.failures).toBe(0);
    expect(health.answeredDuring).toBeGreaterThan(0);
    const job = await researcher.query<{ status: string; error: string | null; result: { rows: number; unmatchedCount: number } | null }>(
      "campaigns.importLabelsJob",
      { id: jobId },
    );
    // Every row read by the worker; none names a trajectory of this installation (a dry run writes nothing anyway).
    expect(job.error).toBeNull();
    expect(job.result).toMatchObject({ rows: rows.length - 1, unmatchedCount: rows.length - 1 });
  });

  it("N5b: 40 unauthenticated 30 MB bodies are refused before they are read: memory and health hold", async () => {
    const pid = web.child.pid!;
    const before = rssMb(pid);
    let peak = before;
    const attacker = startTsx("attacker", "tests/helpers/body-flood-child.ts", [`${web.url}/api/trpc/campaigns.importLabels?batch=1`, "40", "30"], process.env);
    const health = await healthWhile(
      web.url,
      async () => {
        peak = Math.max(peak, rssMb(pid));
        return attacker.child.exitCode !== null;
      },
      { everyMs: 100, maxMs: 120_000, minProbes: 10, timeoutMs: PROBE_TIMEOUT_MS },
    );
    const { statuses, body } = JSON.parse((await attacker.waitFor(/\{"statuses".*\}/))[0]) as { statuses: number[]; body: string };
    // Each one refused: answered 401, or (the server closes the connection once it has answered, and the kernel may
    // drop an answer not yet read when the client keeps sending) cut off; none read and accepted.
    expect(statuses).toHaveLength(40);
    expect(statuses.filter((s) => s !== 401 && s !== 0)).toEqual([]);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
    expect(JSON.parse(body)[0].error.json.message).toBe("Sign in to upload files");
    expect(health.failures).toBe(0);
    expect(health.answeredDuring).toBeGreaterThan(0);
    // The review saw 311 → 951 MB: each body was buffered up to the limit before the session was checked.
    expect(peak - before).toBeLessThan(150);
  });
});

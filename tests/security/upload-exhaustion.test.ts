/**
 * Security review 2: uploads that exhausted the web server, replayed as the review ran them, over real HTTP against
 * the web server running as its own process (tests/helpers/web-server-child.ts) with a worker beside it as the quick
 * start runs one (`npm run worker`). While each attack runs, /api/health is probed one request after another; the
 * server must keep answering (p95 under 1 s) and the attack must end with a readable refusal.
 *
 * - N1: a researcher's 4.7 MB bundle upload whose manifest.json is 2,000,000 tiny objects (about 27 MB) was parsed
 *   whole and validated by zod inside the web server: health checks timed out and the server died of heap exhaustion.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import yazl from "yazl";
import { getJob } from "../../db/repositories/jobs";
import { MAX_INVALID_TRAJECTORIES } from "../../server/importers/native";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
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

async function zipOf(files: Record<string, Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, body] of Object.entries(files)) zip.addBuffer(body, name, { compress: true });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

describeEachBackend("uploads cannot exhaust the web server", (backend) => {
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
    const health = await healthWhile(web.url, ended, { maxMs: 180_000 });
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
    expect(health.p95).toBeLessThan(1_000);
    const view = await researcher.query<{ status: string; error: string | null }>("imports.status", { id: jobId });
    expect(view.status).toBe("failed");
    expect(view.error).toMatch(/^manifest20\.zip: manifest\.json: is not a valid Verdict bundle manifest: format: Invalid input: expected "verdict\.trajectory-bundle"/);
    expect(worker.output()).not.toMatch(/heap out of memory|was killed|exited with code/);
  });

  it(`N1: with a valid header, trajectories are validated one by one and reading stops after ${MAX_INVALID_TRAJECTORIES} invalid ones`, async () => {
    const manifest = tinyObjectsManifest(2_000_000, { format: "verdict.trajectory-bundle", version: 1 });
    const { jobId, health, ended } = await uploadUnderWatch("manifest-valid-header.zip", await zipOf({ "manifest.json": manifest }));
    expect(ended).toBe(true);
    expect(health.failures).toBe(0);
    expect(health.p95).toBeLessThan(1_000);
    const view = await researcher.query<{ status: string; error: string | null; skipped: { path: string; reason: string }[] }>("imports.status", { id: jobId });
    expect(view.status).toBe("failed");
    const invalid = view.skipped.filter((s) => /#trajectories\[\d+\]$/.test(s.path));
    expect(invalid).toHaveLength(MAX_INVALID_TRAJECTORIES);
    expect(invalid[0]).toEqual({ path: "manifest-valid-header.zip#trajectories[0]", reason: expect.stringMatching(/^is not a valid Verdict bundle trajectory: task: Invalid input: expected object, received undefined/) });
    expect(view.skipped.at(-1)).toEqual({
      path: "manifest-valid-header.zip: manifest.json",
      reason: `${MAX_INVALID_TRAJECTORIES} of its first ${MAX_INVALID_TRAJECTORIES} trajectories are not valid; the other ${2_000_000 - MAX_INVALID_TRAJECTORIES} were not read (fix the bundle and import it again: what was imported is kept, and not imported twice)`,
    });
  });
});

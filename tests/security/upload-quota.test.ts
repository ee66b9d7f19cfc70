/**
 * Security review 2, L2: import disk use was unbounded. Uploads wait on disk until a worker imports them, and
 * "4 parallel 200 MB uploads queued behind a slow job held 820 MB under data/imports": nothing limited how much one
 * person, or everyone, could leave waiting. Replayed over real HTTP against the web server as its own process, with
 * no worker running (so that every accepted upload stays queued, as behind a slow job), at small quotas:
 * 1 MB per person (VERDICT_IMPORT_QUEUED_MB_PER_USER) and 2 MB in all (VERDICT_IMPORT_QUEUED_MB).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import yazl from "yazl";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { signedInClient, type HttpClient } from "../helpers/http-client";
import { startWebServer, type StartedProcess } from "../helpers/processes";
import { rawRequest } from "../helpers/route-server";

/** A zip of `kb` KB that does not compress (random bytes, stored), so that its size on disk is what was sent. */
async function zipOfSize(kb: number): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(crypto.randomBytes(kb * 1024), "results/noise.bin", { compress: false });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Bytes of the uploads waiting in the installation's upload folder. */
function waitingBytes(ctx: TestContext): number {
  const dir = path.join(ctx.config.dataDir, "imports");
  if (!fs.existsSync(dir)) return 0;
  return fs.readdirSync(dir).reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0);
}

const MB = 1024 * 1024;

describeEachBackend("upload quotas (review 2, L2)", (backend) => {
  let ctx: TestContext;
  let web: StartedProcess & { url: string };
  let alice: HttpClient;
  let bob: HttpClient;
  let carol: HttpClient;

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-quota-");
    web = await startWebServer(ctx, { VERDICT_IMPORT_QUEUED_MB_PER_USER: "1", VERDICT_IMPORT_QUEUED_MB: "2" });
    [alice, bob, carol] = await Promise.all([
      signedInClient(ctx, web.url, "researcher"),
      signedInClient(ctx, web.url, "researcher"),
      signedInClient(ctx, web.url, "researcher"),
    ]);
  }, 120_000);

  afterAll(async () => {
    await web?.stop();
    await ctx?.cleanup();
  });

  it("parallel uploads of one person stop at their quota, another person's upload still fits, and the installation stops at its own", async () => {
    // The review's four parallel uploads, at this scale: 4 × 400 KB against 1 MB.
    const zips = await Promise.all([0, 1, 2, 3].map(() => zipOfSize(400)));
    const answers = await Promise.all(zips.map((z, i) => alice.upload(`part${i}.zip`, z)));
    expect(answers.map((a) => `${a.status} ${a.body.slice(0, 200)}`).sort()).toEqual([
      expect.stringMatching(/^202 /),
      expect.stringMatching(/^202 /),
      expect.stringMatching(/^409 /),
      expect.stringMatching(/^409 /),
    ]);
    const refused = answers.filter((a) => a.status !== 202);
    for (const a of refused) expect(JSON.parse(a.body).error).toMatch(/more than the 1 MB one person may have waiting \(VERDICT_IMPORT_QUEUED_MB_PER_USER\)/);
    // What was refused is not kept: only the two accepted uploads wait on disk.
    expect(waitingBytes(ctx)).toBe(zips[0]!.length * 2);

    // A declared size that does not fit is refused before the body is read.
    const declared = await rawRequest(`${web.url}/api/imports?name=more.zip`, {
      method: "POST",
      headers: { Cookie: alice.cookie, Origin: web.url, "Content-Type": "application/zip", "Content-Length": String(300 * 1024) },
      body: Buffer.alloc(300 * 1024),
    });
    expect(declared.status).toBe(409);

    // Another researcher has a quota of their own.
    expect((await bob.upload("bob.zip", await zipOfSize(900))).status).toBe(202);
    // Together they now hold about 1.7 MB of the installation's 2 MB: a third person's 400 KB no longer fits.
    const third = await carol.upload("carol.zip", await zipOfSize(400));
    expect(third.status).toBe(409);
    expect(JSON.parse(third.body).error).toMatch(/more than the 2 MB it keeps \(VERDICT_IMPORT_QUEUED_MB\)/);
    expect(waitingBytes(ctx)).toBeLessThanOrEqual(2 * MB);
  });

  it("a CSV for a worker counts against the same quota", async () => {
    // alice has 2 × 400 KB waiting: 300 KB more of CSV does not fit in her 1 MB.
    const csv = ["item,rater,label", ...Array.from({ length: 30_000 }, (_, i) => `t${i},r${i % 3},ok`)].join("\n");
    expect(csv.length).toBeGreaterThan(300 * 1024);
    const res = await alice.mutationResponse("analytics.csvAgreement", {
      fileName: "ratings.csv",
      text: csv,
      itemColumns: ["item"],
      raterColumn: "rater",
      labelColumn: "label",
    });
    expect(res.status).toBe(409);
    expect(JSON.parse(res.body).error.json.message).toMatch(/VERDICT_IMPORT_QUEUED_MB_PER_USER/);
  });
});

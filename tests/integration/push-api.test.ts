/**
 * The push API end to end (issue 31, item 1), on both engines: the Node example of docs/guide/api.md runs as a
 * script of its own with a researcher's token, pushes a zip of a WebVoyager results folder over real HTTP to the
 * route handlers, waits for the import a worker runs, and reads each trajectory back with its evaluations. An
 * external evaluator then posts verdicts (stored once however often sent, replaced when they change, refused
 * when malformed) and the list and the trajectory show them.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import yazl from "yazl";
import { afterAll, beforeAll, expect, it } from "vitest";
import { tablesOf } from "../../db/database";
import { closeSharedDatabases } from "../../server/context";
import { createAccount } from "../../server/services/accounts";
import { createApiToken } from "../../server/services/accounts/api-tokens";
import { recentImports, runImportWorker } from "../../server/services/imports/jobs";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { startRouteServer, type RouteServer } from "../helpers/route-server";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";

const root = path.resolve(import.meta.dirname, "..", "..");
const SCRIPT = path.join(root, "docs", "guide", "examples", "push-results.mjs");

async function zipFolder(folder: string, file: string): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const rel of fs.readdirSync(folder, { recursive: true }) as string[]) {
    const abs = path.join(folder, rel);
    if (fs.statSync(abs).isFile()) zip.addFile(abs, `results/${rel.split(path.sep).join("/")}`);
  }
  zip.end();
  await new Promise<void>((r) => zip.outputStream.pipe(fs.createWriteStream(file)).on("close", () => r()));
  return file;
}

/** Runs the documented script to its end; its exit code, stdout and stderr. */
function runScript(args: string[], token: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], {
      env: { PATH: process.env.PATH ?? "", VERDICT_TOKEN: token } as unknown as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

interface Evaluations {
  hidden?: boolean;
  verdicts: { evaluatorName: string; verdict: string; rationale: string | null; promptVersion: string }[];
}

describeEachBackend("pushing results and verdicts with an API token", (backend) => {
  let ctx: TestContext;
  let server: RouteServer;
  let token: string;
  let trajectoryIds: number[] = [];
  const saved = { ...process.env };

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-push-api-");
    process.env.VERDICT_DATA_DIR = ctx.dir;
    process.env.VERDICT_DB = ctx.config.dbPath;
    if (ctx.config.postgresUrl) process.env.VERDICT_DATABASE_URL = ctx.config.postgresUrl;
    else delete process.env.VERDICT_DATABASE_URL;
    const { user } = await createAccount(ctx, { email: "ci@push.test", name: "CI", role: "researcher", password: "correct-horse-battery" });
    token = (await createApiToken(ctx, { userId: user.id, name: user.name, role: user.role }, { ownerId: user.id, name: "nightly CI", scope: "read-write" }))
      .token;
    server = await startRouteServer();
  });

  afterAll(async () => {
    await server?.close();
    await closeSharedDatabases();
    await ctx?.cleanup();
    process.env = saved;
  });

  const call = async (pathName: string, init: RequestInit = {}) => {
    const res = await fetch(`${server.url}${pathName}`, {
      ...init,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...init.headers },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it("a script pushes a zip, waits for the import and reads the trajectories back", async () => {
    const src = await writeWebVoyagerFixture(path.join(ctx.dir, "src"), [
      { id: "Push--1", intent: "Find the opening hours.", url: "https://push.test/", actions: ["Click [0]", "Type [1]; hours", "ANSWER; 9 to 5"] },
      { id: "Push--2", intent: "Find the phone number.", url: "https://push.test/", actions: ["Click [0]", "ANSWER; 555-0100"] },
    ]);
    const zip = await zipFolder(src, path.join(ctx.dir, "push-results.zip"));
    // A worker process's import lane, running until the script is done.
    const stop = new AbortController();
    const worker = runImportWorker(ctx, { signal: stop.signal });
    const run = await runScript([server.url, zip], token).finally(() => stop.abort());
    await worker;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^import \d+ queued/);
    const out = JSON.parse(run.stdout) as { created: number; trajectories: { id: number; task: string; steps: number; evaluations: Evaluations }[] };
    expect(out.created).toBe(2);
    expect(out.trajectories.map((t) => [t.task, t.steps]).sort()).toEqual([
      ["Push--1", 3],
      ["Push--2", 2],
    ]);
    expect(out.trajectories.every((t) => t.evaluations.hidden !== true && Array.isArray(t.evaluations.verdicts))).toBe(true);
    trajectoryIds = out.trajectories.map((t) => t.id);
    // The push is the Import page's job: its list of recent imports shows it.
    expect((await recentImports(ctx)).map((j) => [j.source, j.status, j.report?.created])).toEqual([["push-results.zip", "succeeded", 2]]);
  });

  it("an external evaluator's verdicts are stored once, replaced when they change, and read back", async () => {
    const [first, second] = trajectoryIds as [number, number];
    const body = {
      evaluator: "lab-judge",
      verdict: "failure",
      rationale: "Typed into the wrong box.",
      firstFailingStep: 1,
      promptVersion: "v3",
      key: "ci-run-7/Push--1",
    };
    const post = (id: number, b: unknown) => call(`/api/v1/trajectories/${id}/verdicts`, { method: "POST", body: JSON.stringify(b) });
    const created = await post(first, body);
    expect(created).toMatchObject({ status: 201, body: { status: "created", evaluatorKey: "external:lab-judge" } });
    // A retry with the same key, and the same content without the key: nothing new.
    expect(await post(first, body)).toMatchObject({ status: 200, body: { status: "unchanged", id: created.body.id } });
    const { key: _key, ...withoutKey } = body;
    expect(await post(first, withoutKey)).toMatchObject({ status: 200, body: { status: "unchanged", id: created.body.id } });
    expect(await post(first, { ...withoutKey, verdict: "success", firstFailingStep: null })).toMatchObject({
      status: 200,
      body: { status: "replaced", id: created.body.id },
    });
    expect(await post(second, { evaluator: "lab-judge", verdict: "success", promptVersion: "v3" })).toMatchObject({ status: 201 });

    // Validated: a verdict word, a step that exists, a known field shape.
    const bad = [
      [{ evaluator: "lab-judge", verdict: "maybe" }, /verdict/],
      [{ evaluator: "lab-judge", verdict: "failure", firstFailingStep: 9 }, /has 2 steps/],
      [{ evaluator: "", verdict: "failure" }, /evaluator/],
      [{ evaluator: "lab-judge", verdict: "failure", score: 7 }, /score/],
    ] as const;
    for (const [b, message] of bad) {
      const res = await post(second, b);
      expect(res.status, JSON.stringify(b)).toBe(400);
      expect(String(res.body.error), JSON.stringify(b)).toMatch(message);
    }
    expect((await call(`/api/v1/trajectories/999999/verdicts`, { method: "POST", body: JSON.stringify({ evaluator: "x", verdict: "success" }) })).status).toBe(
      404,
    );
    expect((await call(`/api/v1/trajectories/${first}/verdicts`, { method: "POST", body: "{not json" })).status).toBe(400);

    const { evaluatorVerdicts } = tablesOf(ctx.db);
    const stored = (await ctx.db.select().from(evaluatorVerdicts)).filter((v) => v.evaluatorKey === "external:lab-judge");
    expect(stored.map((v) => [v.trajectoryId, v.verdict, v.promptVersion]).sort()).toEqual(
      [
        [first, "success", "v3"],
        [second, "success", "v3"],
      ].sort(),
    );

    const one = await call(`/api/v1/trajectories/${first}`);
    expect(one.status).toBe(200);
    const verdicts = (one.body.evaluations as Evaluations).verdicts.filter((v) => v.evaluatorName === "lab-judge");
    expect(verdicts).toMatchObject([{ verdict: "success", rationale: "Typed into the wrong box.", promptVersion: "v3" }]);
    expect((one.body.steps as unknown[]).length).toBe(3);

    const list = await call(`/api/v1/trajectories?pageSize=25`);
    expect(list.status).toBe(200);
    expect((list.body.rows as { id: number }[]).map((r) => r.id).sort()).toEqual([...trajectoryIds].sort());
  });
});

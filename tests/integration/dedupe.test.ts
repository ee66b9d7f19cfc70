/**
 * `dedupe`: trajectories an earlier Verdict stored twice (the same results folder imported from two places, before
 * identity by content) become one, with every label and verdict of both copies on the one kept; copies whose labels
 * or verdicts clash are left and reported; a dry run writes nothing. On SQLite and PostgreSQL.
 */
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { rawAll, rawRun } from "../../db/database";
import { upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { runCli } from "../../server/cli/main";
import { importLabelsCsv } from "../../server/services/annotation";
import { runImport } from "../../server/services/imports/ingest";
import { dedupeTrajectories } from "../../server/services/imports/dedupe";
import { dedupeJobHandler } from "../../server/services/imports/dedupe-job";
import { DEDUPE_JOB_TYPE } from "../../server/services/imports/dedupe-jobs";
import { runWorker } from "../../server/services/jobs/worker";
import { getJob } from "../../db/repositories/jobs";
import { collectStats } from "../../server/services/stats";
import type { Actor } from "../../server/domain/access/actor";
import { makeActor } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { callerWithRole } from "../helpers/trpc";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";

let ctx: TestContext;
let admin: Actor;

const task = (id: string, answer: string) => ({ id, intent: `Task ${id}.`, url: "https://id.test/", actions: ["Click [0]", `ANSWER; ${answer}`] });

/** One run folder of three tasks, as WebVoyager writes it. */
async function runFolder(root: string) {
  const dir = path.join(root, "results", "20250414_14_44_45");
  await writeWebVoyagerFixture(dir, [task("Shop--1", "a"), task("Shop--2", "b"), task("Shop--3", "c")], 7);
  return path.join(root, "results");
}

/**
 * What an earlier Verdict left: the folder imported from one place, then a copy of it imported from another, each
 * time as a run of its own keyed by the absolute folder. Today's import would recognise the copy, so the first
 * import's rows are hidden from it (a content hash of the current kind that matches nothing) and then given the
 * kind of hash old rows had.
 */
async function storedTwice() {
  const first = await runImport(ctx, { path: await runFolder(path.join(ctx.dir, "lab")) });
  for (const t of first.trajectories)
    await rawRun(ctx.db, sql`update trajectories set content_hash = ${`v2:hidden-${t.id}`}, identity_hash = null where id = ${t.id}`);
  await rawRun(
    ctx.db,
    sql`update agent_runs set run_key = ${`webvoyager:${path.join(ctx.dir, "lab", "results", "20250414_14_44_45")}`} where id = ${first.trajectories[0]!.runId}`,
  );
  const second = await runImport(ctx, { path: await runFolder(path.join(ctx.dir, "laptop")) });
  expect(second.created).toBe(3);
  for (const t of first.trajectories) await rawRun(ctx.db, sql`update trajectories set content_hash = ${`old-${t.id}`} where id = ${t.id}`);
  const byTask = (r: typeof first) => Object.fromEntries(r.trajectories.map((t) => [t.externalTaskId, t.id]));
  return { a: byTask(first), b: byTask(second), runA: first.trajectories[0]!.runId, runB: second.trajectories[0]!.runId };
}

async function labelsOf(trajectoryId: number) {
  return (
    await rawAll<{ annotator_name: string; verdict: string }>(
      ctx.db,
      sql`select annotator_name, verdict from labels where trajectory_id = ${trajectoryId} order by annotator_name`,
    )
  ).map((l) => `${l.annotator_name} ${l.verdict}`);
}
async function verdictsOf(trajectoryId: number) {
  return (
    await rawAll<{ evaluator_key: string; verdict: string }>(
      ctx.db,
      sql`select evaluator_key, verdict from evaluator_verdicts where trajectory_id = ${trajectoryId} order by evaluator_key`,
    )
  ).map((v) => `${v.evaluator_key} ${v.verdict}`);
}
const judged = (trajectoryId: number, evaluator: string, verdict: "success" | "failure") =>
  upsertVerdict(ctx.db, { trajectoryId, kind: "judge", origin: "import", evaluatorKey: `import:${evaluator}`, evaluatorName: evaluator, verdict });

describeEachBackend("dedupe", (backend) => {
  beforeEach(async () => {
    ctx = await createBackendContext(backend);
    admin = await makeActor(ctx, "Admin", "admin");
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  it("folds copies into the oldest with every label and verdict, leaves a clashing copy with why, and a dry run writes nothing", async () => {
    const { a, b, runA, runB } = await storedTwice();
    expect((await collectStats(ctx.db)).trajectories).toBe(6);
    // Annotators labelled whichever copy they were given, in one campaign of two labels an item.
    const csv = [
      "annotator,trajectory,verdict",
      `Ann,${a["Shop--1"]},success`,
      `Bob,${b["Shop--1"]},success`,
      `Ann,${a["Shop--2"]},failure`,
      `Ann,${b["Shop--2"]},success`,
      `Bob,${b["Shop--3"]},failure`,
    ].join("\n");
    const labelled = await importLabelsCsv(ctx.db, admin, {
      csv,
      source: "labels.csv",
      mapping: { annotator: "annotator", verdict: "verdict", trajectoryId: "trajectory" },
      campaign: { name: "Study", annotatorsPerItem: 2 },
    });
    expect(labelled.created).toBe(5);
    // A judge's log was imported with each copy: the same verdict twice, and one verdict only the copy has.
    await judged(a["Shop--1"]!, "gpt4o", "success");
    await judged(b["Shop--1"]!, "gpt4o", "success");
    await judged(b["Shop--3"]!, "gpt4o", "failure");

    const dry = await dedupeTrajectories(ctx.db, admin, { dryRun: true });
    expect(dry).toMatchObject({
      dryRun: true,
      merged: 2,
      left: 1,
      moved: { items: 1, itemsFolded: 1, labels: 2, verdicts: 1, verdictsSame: 1 },
      runsRemoved: 0,
    });
    expect((await collectStats(ctx.db)).trajectories).toBe(6);
    expect(await labelsOf(b["Shop--1"]!)).toEqual(["Bob success"]);

    const done = await dedupeTrajectories(ctx.db, admin);
    expect({ ...done, dryRun: true, identitiesComputed: dry.identitiesComputed }).toEqual(dry);
    expect(done.groups.map((g) => [g.kept.id, g.merged.map((m) => m.id), g.left.map((l) => l.id)])).toEqual(
      [
        [a["Shop--1"], [b["Shop--1"]], []],
        [a["Shop--2"], [], [b["Shop--2"]]],
        [a["Shop--3"], [b["Shop--3"]], []],
      ].sort((x, y) => (x[0] as number) - (y[0] as number)),
    );
    expect(done.groups.find((g) => g.left.length)!.left[0]!.reasons).toEqual([
      `campaign ${labelled.campaignId}: an annotator labelled both copies (import:Ann)`,
    ]);
    const stats = await collectStats(ctx.db);
    expect(stats.trajectories).toBe(4);

    // Shop--1: both annotators' labels on the one item, consolidated as their agreement; the judge's verdict once.
    expect(await labelsOf(a["Shop--1"]!)).toEqual(["Ann success", "Bob success"]);
    const [item] = await rawAll<{ state: string; label_count: number; consolidated: string | null }>(
      ctx.db,
      sql`select i.state, i.label_count, c.verdict as consolidated from campaign_items i left join consolidated_labels c on c.item_id = i.id where i.trajectory_id = ${a["Shop--1"]!}`,
    );
    expect(item).toMatchObject({ state: "agreed", consolidated: "success" });
    expect(Number(item!.label_count)).toBe(2);
    expect(await verdictsOf(a["Shop--1"]!)).toEqual(["import:gpt4o success"]);
    // Shop--3: the copy's item and verdict moved to the kept trajectory.
    expect(await labelsOf(a["Shop--3"]!)).toEqual(["Bob failure"]);
    expect(await verdictsOf(a["Shop--3"]!)).toEqual(["import:gpt4o failure"]);
    // Shop--2: both copies kept with their labels; the copy's run stays for it.
    expect(await labelsOf(a["Shop--2"]!)).toEqual(["Ann failure"]);
    expect(await labelsOf(b["Shop--2"]!)).toEqual(["Ann success"]);
    const runs = (await rawAll<{ id: number }>(ctx.db, sql`select id from agent_runs order by id`)).map((r) => Number(r.id));
    expect(runs).toEqual([runA, runB]);

    // Again: nothing more to merge, the clash still reported.
    const again = await dedupeTrajectories(ctx.db, admin);
    expect([again.merged, again.left, again.identitiesComputed]).toEqual([0, 1, 0]);
  }, 300_000);

  it("removes a run that held only copies; the CLI prints the groups whole and exits 0 when nothing is left over", async () => {
    const { a, b, runA, runB } = await storedTwice();
    const io = () => {
      const out = { text: "", code: 0 };
      return {
        out,
        io: {
          stdout: (t: string) => (out.text += t),
          stderr: (t: string) => (out.text += t),
          interactive: false,
          env: {
            ...process.env,
            VERDICT_DATA_DIR: path.join(ctx.dir, "data"),
            VERDICT_DB: ctx.config.dbPath,
            ...(ctx.config.postgresUrl ? { VERDICT_DATABASE_URL: ctx.config.postgresUrl } : {}),
          },
        },
      };
    };
    const dry = io();
    const dryCode = await runCli(["dedupe", "--dry-run", "--as", "admin@test.example"], dry.io);
    expect(dryCode).toBe(0);
    expect(dry.out.text).toContain("Dry run (nothing written): 3 trajectories are stored more than once; 3 copies would be merged, 0 left.");
    expect(dry.out.text).toContain("1 run would be removed with its last trajectory");
    // Each copy on a line of its own, its run and where it was read from whole.
    expect(dry.out.text).toMatch(new RegExp(`keep\\s+${a["Shop--1"]}\\s+${runA}\\s+results/20250414_14_44_45\\s+results/20250414_14_44_45/taskShop--1\\n`));
    expect(dry.out.text).toMatch(new RegExp(`merge\\s+${b["Shop--1"]}\\s+${runB}\\s+results/20250414_14_44_45\\s+results/20250414_14_44_45/taskShop--1\\n`));
    const real = io();
    expect(await runCli(["dedupe", "--json", "--as", "admin@test.example"], real.io)).toBe(0);
    expect(JSON.parse(real.out.text)).toMatchObject({ dryRun: false, merged: 3, left: 0, runsRemoved: 1 });
    expect((await rawAll<{ id: number }>(ctx.db, sql`select id from agent_runs where id = ${runB}`)).length).toBe(0);
    expect((await collectStats(ctx.db)).trajectories).toBe(3);
    // Annotators may not merge anything.
    const annotator = await makeActor(ctx, "Annie", "annotator");
    await expect(dedupeTrajectories(ctx.db, annotator, { dryRun: true })).rejects.toThrow(/merge duplicate trajectories/);
  }, 300_000);

  it("the dashboard's procedures queue the dry run and the merge for a worker: admins see and merge, researchers are refused", async () => {
    const { a, b } = await storedTwice();
    const researcher = await callerWithRole(ctx, "researcher");
    await expect(researcher.imports.dedupe({ dryRun: true })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(researcher.imports.dedupe({ dryRun: false })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const adminCaller = await callerWithRole(ctx, "admin");
    const throughWorker = async (dryRun: boolean) => {
      const before = (await collectStats(ctx.db)).trajectories;
      const { jobId } = await adminCaller.imports.dedupe({ dryRun });
      // Queued, not done in the request: nothing has changed until a worker takes it.
      expect(await adminCaller.imports.dedupeJob({ id: jobId })).toMatchObject({ status: "queued", result: null });
      expect((await collectStats(ctx.db)).trajectories).toBe(before);
      await runWorker({ db: ctx.db, handlers: { [DEDUPE_JOB_TYPE]: dedupeJobHandler(ctx) }, concurrency: 1, untilIdle: true });
      const job = await adminCaller.imports.dedupeJob({ id: jobId });
      expect(job.status, job.error ?? "").toBe("succeeded");
      // Only the admins read it: a researcher's poll finds no such job.
      await expect(researcher.imports.dedupeJob({ id: jobId })).rejects.toMatchObject({ code: "FORBIDDEN" });
      return job.result!;
    };
    const plan = await throughWorker(true);
    expect(plan).toMatchObject({ dryRun: true, merged: 3, left: 0 });
    expect(plan.groups[0]).toMatchObject({ kept: { id: a["Shop--1"] }, merged: [{ id: b["Shop--1"] }] });
    expect((await collectStats(ctx.db)).trajectories).toBe(6);
    expect(await throughWorker(false)).toMatchObject({ dryRun: false, merged: 3 });
    expect((await collectStats(ctx.db)).trajectories).toBe(3);
    expect((await throughWorker(true)).groups).toEqual([]);
  }, 300_000);

  it("a merge queued by an admin who is no longer one merges nothing", async () => {
    await storedTwice();
    const adminCaller = await callerWithRole(ctx, "admin");
    const { jobId } = await adminCaller.imports.dedupe({ dryRun: false });
    const job = await getJob(ctx.db, jobId);
    const requestedBy = (job!.payload as { requestedBy: string }).requestedBy;
    await rawRun(ctx.db, sql`update users set role = 'researcher' where id = ${requestedBy}`);
    await runWorker({ db: ctx.db, handlers: { [DEDUPE_JOB_TYPE]: dedupeJobHandler(ctx) }, concurrency: 1, untilIdle: true });
    const after = await getJob(ctx.db, jobId);
    expect(after!.status).toBe("failed");
    expect(after!.error).toMatch(/merge duplicate trajectories/);
    expect((await collectStats(ctx.db)).trajectories).toBe(6);
  }, 300_000);
});

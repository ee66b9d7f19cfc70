/**
 * Pairwise campaigns (issue 30, item 5) on both engines, through tRPC as each role would call it: a researcher
 * creates one from three agents' attempts at three tasks, an annotator answers every pair by left/right without
 * learning which agent is on which side, answers are revised with their history kept, and the researcher reads the
 * Bradley–Terry ranking and the preference pairs. Annotators are refused the ranking and the export.
 */
import { TRPCError } from "@trpc/server";
import { afterEach, beforeEach, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { tablesOf } from "../../db/database";
import { pairwiseItemByNumber } from "../../db/repositories/annotation/pairwise";
import { mayFetchScreenshot } from "../../server/services/access";
import { sideOfA } from "../../server/domain/annotation/pairwise-pairs";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { seedTrajectories } from "../helpers/annotation-fixture";
import { callerAs, testUser } from "../helpers/trpc";
import { runCliInProcess } from "../helpers/cli";

const environment = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "VERDICT_DATABASE_URL" && k !== "VERDICT_DB")) as NodeJS.ProcessEnv;

const TASKS = ["task-1", "task-2", "task-3"];
const AGENTS = ["alpha", "beta", "gamma"];
/** The preferred agent of each pair in the test's annotator's eyes: alpha beats everyone; beta and gamma tie. */
const STRENGTH: Record<string, number> = { "alpha run": 2, "beta run": 1, "gamma run": 1 };

async function refusedWith(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof TRPCError) return `${e.code}: ${e.message}`;
    throw e;
  }
  throw new Error("expected a refusal");
}

describeEachBackend("pairwise campaigns", (backend) => {
  let ctx: TestContext;
  let trajectoryIds: number[];
  const runOf = new Map<number, string>();
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-pairwise-");
    trajectoryIds = [];
    for (const agent of AGENTS) {
      const ids = await seedTrajectories(ctx.db, 3, { agentName: agent, taskIds: TASKS });
      for (const id of ids) runOf.set(id, `${agent} run`);
      trajectoryIds.push(...ids);
    }
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  async function setUp() {
    const researcherSession = await testUser(ctx, "researcher", "Rita Researcher");
    const annotatorSession = await testUser(ctx, "annotator", "Ann Annotator");
    const outsiderSession = await testUser(ctx, "annotator", "Otto Outsider");
    const researcher = await callerAs(ctx, researcherSession);
    const created = await researcher.pairwise.create({ name: "Which attempt is better", trajectoryIds, annotatorIds: [annotatorSession.userId], seed: 5 });
    return {
      researcher,
      annotator: await callerAs(ctx, annotatorSession),
      outsider: await callerAs(ctx, outsiderSession),
      campaignId: created.campaign.id,
      created,
    };
  }

  /** The side the test's annotator prefers, read from the stored pair (the annotator's API never tells it). */
  async function preferredSide(campaignId: number, itemNo: number): Promise<"left" | "right" | "tie"> {
    const item = (await pairwiseItemByNumber(ctx.db, campaignId, itemNo))!;
    const a = STRENGTH[runOf.get(item.trajectoryA)!]!;
    const b = STRENGTH[runOf.get(item.trajectoryB)!]!;
    if (a === b) return "tie";
    const aSide = sideOfA(item.sideSeed);
    return a > b ? aSide : aSide === "left" ? "right" : "left";
  }

  it("plans every pair of agents per task, hides the agents from the annotator and ranks them from the answers", async () => {
    const { researcher, annotator, campaignId, created } = await setUp();
    expect(created).toMatchObject({ pairs: 9, tasksWithoutPair: 0, repeatsLeftOut: 0 });
    expect(created.campaign.kind).toBe("pairwise");
    expect(await annotator.pairwise.campaign({ campaignId })).toMatchObject({ items: 9, answered: 0 });

    const seen: number[] = [];
    for (;;) {
      const next = await annotator.pairwise.next({ campaignId });
      if (!next) break;
      const view = await annotator.pairwise.item({ campaignId, itemNo: next.itemNo });
      const text = JSON.stringify(view);
      // Nothing in what the annotator reads names an agent, a run or a trajectory.
      for (const agent of AGENTS) expect(text).not.toContain(agent);
      for (const side of [view.left, view.right]) {
        expect(side.trajectory.id).toBe(0);
        expect(side.run).toMatchObject({ id: 0, model: null });
        expect(side.trajectory.linkKey).toBe("");
        expect(side.agentHidden).toBe(true);
      }
      expect(view.left.task.intent).toBe(view.right.task.intent);
      const steps = await annotator.pairwise.steps({ campaignId, itemNo: next.itemNo, side: "right", from: 0, count: 2 });
      expect(JSON.parse(steps.steps) as unknown[]).toHaveLength(2);
      const choice = await preferredSide(campaignId, next.itemNo);
      const saved = await annotator.pairwise.submit({ campaignId, itemNo: next.itemNo, choice });
      expect(saved).toEqual({ itemNo: next.itemNo, choice, revision: 1 });
      expect(JSON.stringify(saved)).not.toMatch(/"a"|"b"/);
      seen.push(next.itemNo);
    }
    expect(seen.sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);

    const { ranking, progress } = await researcher.pairwise.ranking({ campaignId });
    expect(progress).toEqual({ items: 9, complete: 9, answers: 9 });
    if (!ranking.ok) throw new Error(ranking.reason);
    // alpha won all 6 of its pairs, so its maximum-likelihood strength is infinite: the stated prior applies.
    expect(ranking.prior).not.toBeNull();
    expect(ranking.agents[0]).toMatchObject({ agent: "alpha run", wins: 6, losses: 0, ties: 0, rank: 1 });
    expect(ranking.agents.slice(1).map((a) => a.ties)).toEqual([3, 3]);
    expect(ranking.agents[1]!.logStrength).toBeCloseTo(ranking.agents[2]!.logStrength, 9);
    expect(ranking.method).toContain("Bradley–Terry");

    const exported = await researcher.pairwise.preferencePairs({ campaignId });
    expect(exported.lines).toBe(9);
    const lines = exported.jsonl
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const l of lines) {
      expect(Object.keys(l).slice(0, 4)).toEqual(["task", "a", "b", "winner"]);
      expect(TASKS).toContain(l.task);
      expect(runOf.get(l.trajectory_a as number)).toBe(l.a);
      expect(runOf.get(l.trajectory_b as number)).toBe(l.b);
      const expected = l.a === "alpha run" ? "a" : l.b === "alpha run" ? "b" : "tie";
      expect(l.winner).toBe(expected);
    }
  });

  it("keeps every revision of an answer and exports the latest", async () => {
    const { researcher, annotator, campaignId } = await setUp();
    const { itemNo } = (await annotator.pairwise.next({ campaignId }))!;
    await annotator.pairwise.submit({ campaignId, itemNo, choice: "left" });
    expect(await annotator.pairwise.next({ campaignId })).not.toEqual({ itemNo });
    const revised = await annotator.pairwise.submit({ campaignId, itemNo, choice: "both_fail", timeSpentMs: 1200 });
    expect(revised.revision).toBe(2);
    const mine = await annotator.pairwise.myAnswer({ campaignId, itemNo });
    expect(mine).toMatchObject({ choice: "both_fail", revision: 2 });
    expect(mine!.history.map((h) => [h.revision, h.choice])).toEqual([
      [1, "left"],
      [2, "both_fail"],
    ]);
    const exported = await researcher.pairwise.preferencePairs({ campaignId });
    expect(exported.lines).toBe(1);
    expect(JSON.parse(exported.jsonl)).toMatchObject({ winner: "both_fail", revision: 2, item: itemNo, annotator: "Ann Annotator" });
    const { ranking } = await researcher.pairwise.ranking({ campaignId });
    expect(ranking).toMatchObject({ ok: false, comparisons: 0, bothFail: 1 });

    // The CLI's label export gives the same lines, and refuses the format for a label campaign.
    const cliEnv = {
      ...environment,
      VERDICT_DATA_DIR: ctx.dir,
      VERDICT_DB: ctx.config.dbPath,
      ...(ctx.config.postgresUrl ? { VERDICT_DATABASE_URL: ctx.config.postgresUrl } : {}),
      VERDICT_AUTH_SECRET: "",
    };
    const as = ["--as", "test-researcher-rita-researcher@test.example"];
    const viaCli = await runCliInProcess(["labels", "export", String(campaignId), "--format", "preference-pairs", ...as], cliEnv);
    expect(viaCli).toMatchObject({ code: 0, stdout: exported.jsonl });
    const plain = await researcher.campaigns.create({ name: "Plain", trajectoryIds: trajectoryIds.slice(0, 2) });
    const refused = await runCliInProcess(["labels", "export", String(plain.id), "--format", "preference-pairs", ...as], cliEnv);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("is not a pairwise campaign");
  });

  it("counts a pairwise campaign's pairs and answers in the campaign list and the annotator's queue, not as zero items", async () => {
    const { researcher, annotator, outsider, campaignId } = await setUp();
    const listed = () => researcher.campaigns.list().then((all) => all.find((c) => c.id === campaignId)!);
    const queued = () => annotator.labelling.myCampaigns().then((all) => all.find((c) => c.id === campaignId)!);
    expect(await listed()).toMatchObject({ kind: "pairwise", items: 9, counts: { items: 9, open: 9, labels: 0 } });
    expect(await queued()).toMatchObject({ kind: "pairwise", items: 9, myLabels: 0, remaining: 9, counts: null });
    expect(await annotator.labelling.campaign({ id: campaignId })).toMatchObject({ kind: "pairwise", isAnnotator: true });
    for (let n = 0; n < 4; n++) {
      const { itemNo } = (await annotator.pairwise.next({ campaignId }))!;
      await annotator.pairwise.submit({ campaignId, itemNo, choice: n % 2 ? "tie" : "left" });
    }
    expect(await listed()).toMatchObject({ items: 9, counts: { items: 9, open: 5, labels: 4 } });
    expect(await queued()).toMatchObject({ items: 9, myLabels: 4, remaining: 5 });
    // Someone who is not its annotator is not given it.
    expect((await outsider.labelling.myCampaigns()).some((c) => c.id === campaignId)).toBe(false);
  });

  it("refuses annotators the ranking and the export, outsiders the pairs, and a researcher who still has pairs to answer the ranking", async () => {
    const { researcher, annotator, outsider, campaignId } = await setUp();
    expect(await refusedWith(annotator.pairwise.ranking({ campaignId }))).toMatch(/^FORBIDDEN/);
    expect(await refusedWith(annotator.pairwise.preferencePairs({ campaignId }))).toMatch(/^FORBIDDEN/);
    expect(await refusedWith(annotator.pairwise.create({ name: "Mine", trajectoryIds }))).toMatch(/^FORBIDDEN/);
    expect(await refusedWith(outsider.pairwise.item({ campaignId, itemNo: 1 }))).toMatch(/^FORBIDDEN: You are not an annotator/);
    expect(await refusedWith(outsider.pairwise.submit({ campaignId, itemNo: 1, choice: "left" }))).toMatch(/^FORBIDDEN/);
    expect(await refusedWith(annotator.pairwise.item({ campaignId, itemNo: 99 }))).toMatch(/^NOT_FOUND/);

    const researcherSession = await testUser(ctx, "researcher", "Rita Researcher");
    const labelling = await researcher.pairwise.create({ name: "Rita answers too", trajectoryIds, annotatorIds: [researcherSession.userId] });
    expect(await refusedWith(researcher.pairwise.ranking({ campaignId: labelling.campaign.id }))).toMatch(/^FORBIDDEN: You answer in campaign/);
    expect(await refusedWith(researcher.pairwise.preferencePairs({ campaignId: labelling.campaign.id }))).toMatch(/^FORBIDDEN/);
  });

  it("lets a pair's annotators, and no other annotator, fetch both attempts' screenshots", async () => {
    const { campaignId } = await setUp();
    const { screenshots, steps } = tablesOf(ctx.db);
    const hash = "c".repeat(64);
    await ctx.db.insert(screenshots).values({ hash, mime: "image/png", width: 10, height: 10, bytes: 1 });
    await ctx.db.update(steps).set({ screenshotHash: hash }).where(eq(steps.trajectoryId, trajectoryIds[0]!));
    const ann = await testUser(ctx, "annotator", "Ann Annotator");
    const outsider = await testUser(ctx, "annotator", "Otto Outsider");
    expect(await mayFetchScreenshot(ctx.db, ann, hash)).toBe(true);
    expect(await mayFetchScreenshot(ctx.db, outsider, hash)).toBe(false);
    expect(await mayFetchScreenshot(ctx.db, ann, "d".repeat(64))).toBe(false);
    expect(campaignId).toBeGreaterThan(0);
  });

  it("refuses a selection in which no task has two agents, and a label campaign asked for pairs", async () => {
    const { researcher } = await setUp();
    const oneAgent = trajectoryIds.filter((id) => runOf.get(id) === "alpha run");
    expect(await refusedWith(researcher.pairwise.create({ name: "Lonely", trajectoryIds: oneAgent }))).toMatch(
      /^BAD_REQUEST: the selection gives no pair: each of its 3 tasks was attempted by only one agent/,
    );
    const label = await researcher.campaigns.create({ name: "Plain labels", trajectoryIds });
    expect(await refusedWith(researcher.pairwise.ranking({ campaignId: label.id }))).toMatch(/is not a pairwise campaign/);
  });
});

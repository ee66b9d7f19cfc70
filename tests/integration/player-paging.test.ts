/**
 * Step paging through the real tRPC procedures on a real SQLite database (security review M8): a 10,000-step
 * trajectory with realistic per-step text opens with a small first payload, further windows come by
 * trajectories.steps (by id) and labelling.itemSteps (by campaign item, blind), under the same access checks.
 */
import { TRPCError } from "@trpc/server";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getItemByTrajectory } from "../../db/repositories/annotation/campaigns";
import { createCampaign } from "../../server/services/annotation";
import { HIDDEN_AGENT } from "../../server/services/access";
import { fromJsonText, STEP_WINDOW, unpackStepIndex } from "../../server/domain/player/paging";
import { createTestContext, type TestContext } from "../helpers/context";
import { seedLongTrajectory } from "../helpers/long-trajectory";
import { callerAs, testUser } from "../helpers/trpc";

const STEPS = 10_000;
let ctx: TestContext;
let longId: number;
let shortId: number;
let campaignId: number;
const people = {} as Record<"researcher" | "annotator" | "outsider", Awaited<ReturnType<typeof testUser>>>;

beforeAll(async () => {
  ctx = createTestContext("verdict-paging-");
  longId = await seedLongTrajectory(ctx.db, { steps: STEPS, model: "secret-model-xyz", runName: "secret-run-xyz" });
  shortId = await seedLongTrajectory(ctx.db, { steps: 7, externalTaskId: "short-7", model: "secret-model-xyz", runName: "secret-run-xyz" });
  people.researcher = await testUser(ctx, "researcher");
  people.annotator = await testUser(ctx, "annotator", "Paging Annotator");
  people.outsider = await testUser(ctx, "annotator", "Paging Outsider");
  const researcher = { userId: people.researcher.userId, name: "R", role: "researcher" as const };
  campaignId = (
    await createCampaign(ctx.db, researcher, {
      name: "Long ones",
      trajectoryIds: [longId, shortId],
      annotatorsPerItem: 1,
      annotatorIds: [people.annotator.userId],
    })
  ).id;
  // The outsider labels in another campaign, so they are an annotator with a queue, just not this one.
  const otherId = await seedLongTrajectory(ctx.db, { steps: 3, externalTaskId: "other-3" });
  await createCampaign(ctx.db, researcher, { name: "Elsewhere", trajectoryIds: [otherId], annotatorsPerItem: 1, annotatorIds: [people.outsider.userId] });
}, 120_000);
afterAll(async () => ctx?.cleanup());

const wireBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(superjson.serialize(v)));
const itemNo = async (t: number) => (await getItemByTrajectory(ctx.db, campaignId, t))!.itemNo!;

describe("opening a 10,000-step trajectory", () => {
  it("sends the header, an index of every step and one window of details, in under 1 MB", async () => {
    const api = await callerAs(ctx, people.researcher);
    const t = await api.trajectories.byId({ id: longId });
    const bytes = wireBytes(t);
    // Whole, this trajectory is ~60 MB of JSON; the first payload must stay under 1 MB.
    expect(bytes).toBeLessThan(1024 * 1024);
    expect(t.trajectory.stepCount).toBe(STEPS);
    expect(t.stepCount).toBe(STEPS);
    expect(t.window).toMatchObject({ from: 0 });
    const firstSteps = fromJsonText(t.window.steps);
    expect(firstSteps).toHaveLength(STEP_WINDOW);
    expect(firstSteps[0]!.thought!.length).toBe(2048);
    expect(firstSteps[0]!.elements).toHaveLength(30);
    // The index gives the filmstrip every step's screenshot, size and short action.
    const index = unpackStepIndex(fromJsonText(t.index));
    expect(index).toHaveLength(STEPS);
    expect(index[STEPS - 1]).toMatchObject({ position: STEPS - 1, action: "Answer", shot: { width: 1280, height: 800 } });
    expect(index[9_998]!.shot!.hash).toMatch(/^[0-9a-f]{64}$/);
    const window = await api.trajectories.steps({ id: longId, from: 9_950 });
    expect(fromJsonText(window.steps)[48]!.screenshot!.hash).toBe(index[9_998]!.shot!.hash);
    console.log(
      `first payload ${(bytes / 1024).toFixed(0)} KB (index ${(wireBytes(t.index) / 1024).toFixed(0)} KB), window of ${STEP_WINDOW} ${(wireBytes(window) / 1024).toFixed(0)} KB`,
    );
  });

  // That the window is one range read on the (trajectory, step) index on both engines: tests/integration/query-plans.test.ts.
  it("serves later windows by id, cut short at the end, and refuses windows past the end clearly", async () => {
    const api = await callerAs(ctx, people.researcher);
    const mid = await api.trajectories.steps({ id: longId, from: 5_000 });
    expect(mid.from).toBe(5_000);
    const midSteps = fromJsonText(mid.steps);
    expect(midSteps.map((s) => s.index)).toEqual(Array.from({ length: STEP_WINDOW }, (_, i) => 5_000 + i));
    expect(midSteps[0]!.thought).toMatch(/^Step 5000: /);
    const tail = await api.trajectories.steps({ id: longId, from: 9_990, count: 50 });
    expect(fromJsonText(tail.steps).map((s) => s.index)).toEqual(Array.from({ length: 10 }, (_, i) => 9_990 + i));
    await expect(api.trajectories.steps({ id: longId, from: STEPS })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: 'step window "from" 10000 is out of range: the trajectory has 10000 steps (positions 0–9999)',
    });
    await expect(api.trajectories.steps({ id: 999_999, from: 0 })).rejects.toMatchObject({ code: "NOT_FOUND", message: "No trajectory with id 999999" });
    const tooMany = await api.trajectories.steps({ id: longId, from: 0, count: 5_000 }).catch((e: unknown) => e);
    expect(tooMany).toBeInstanceOf(TRPCError);
    expect((tooMany as TRPCError).code).toBe("BAD_REQUEST");
  });

  it("warms the screenshots around the playhead, not all 10,000", async () => {
    const api = await callerAs(ctx, people.researcher);
    // 500 steps from the playhead on and the 100 before it, each with its own screenshot.
    expect(await api.trajectories.warmImages({ id: longId, width: 800, fromStep: 5_000 })).toEqual({ queued: 600 });
    expect(await api.trajectories.warmImages({ id: shortId, width: 800, fromStep: 3 })).toEqual({ queued: 7 });
  });
});

describe("windows of a campaign item, blind", () => {
  it("gives the item's annotator its windows by item number, with nothing that names the agent", async () => {
    const api = await callerAs(ctx, people.annotator);
    const first = await api.labelling.item({ campaignId, itemNo: await itemNo(longId) });
    expect(first).toMatchObject({ agentHidden: true, trajectory: { id: 0 }, run: { name: HIDDEN_AGENT, model: null } });
    const w = await api.labelling.itemSteps({ campaignId, itemNo: await itemNo(longId), from: 200 });
    expect(fromJsonText(w.steps).map((s) => s.index)).toEqual(Array.from({ length: STEP_WINDOW }, (_, i) => 200 + i));
    // Everything sent, the JSON texts decoded too.
    const text = JSON.stringify([first, fromJsonText(first.index), fromJsonText(first.window.steps), fromJsonText(w.steps)]);
    expect(text).not.toContain("secret-model-xyz");
    expect(text).not.toContain("secret-run-xyz");
    expect(text).not.toContain("long-agent");
    expect(text).not.toMatch(new RegExp(`"(trajectoryId|runId)":`));
    await expect(api.labelling.itemSteps({ campaignId, itemNo: await itemNo(shortId), from: 7 })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: 'step window "from" 7 is out of range: the trajectory has 7 steps (positions 0–6)',
    });
  });

  it("refuses an annotator outside the campaign, and the item's annotator by trajectory id", async () => {
    const outsider = await callerAs(ctx, people.outsider);
    await expect(outsider.labelling.itemSteps({ campaignId, itemNo: await itemNo(longId), from: 0 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(outsider.trajectories.steps({ id: longId, from: 0 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    // Blind: the annotator still to label it cannot address it by id, windows included.
    await expect((await callerAs(ctx, people.annotator)).trajectories.steps({ id: longId, from: 0 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect((await callerAs(ctx, people.annotator)).labelling.itemSteps({ campaignId, itemNo: 99, from: 0 })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

/**
 * The QA reviewers' page as an attacker would try it, on every database backend: a plain annotator of the
 * campaign, and a QA reviewer of another campaign, call every QA procedure and get FORBIDDEN; a QA reviewer of
 * the campaign sees the annotators' labels of items whose labelling is over, never the agent, never a trajectory
 * id, nothing of an item still being labelled, and nothing of an item they still label blind elsewhere.
 */
import { TRPCError } from "@trpc/server";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { tablesOf } from "../../db/database";
import { getItemByTrajectory } from "../../db/repositories/annotation/campaigns";
import type { RequestSession } from "../../server/api/trpc";
import { createCampaign, updateQualitySettings } from "../../server/services/annotation";
import { mayFetchScreenshot } from "../../server/services/access";
import { seedTrajectories } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { callerAs, testUser } from "../helpers/trpc";

const AGENT = "agent-secretive";
const MODEL = "model-secret-42";
const NOTE = "ANNOTATOR-REASONING-NOTE";

describeEachBackend("the QA page's role boundary", (backend) => {
  let ctx: TestContext;
  let researcher: RequestSession;
  let annotators: RequestSession[];
  let plain: RequestSession;
  let qaA: RequestSession;
  let qaB: RequestSession;
  let campaignA: number;
  let campaignB: number;
  let ids: number[];
  const itemNos: Record<string, number> = {};
  const hash = "ab".repeat(32);

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-qa-page-");
    researcher = await testUser(ctx, "researcher", "Rita Researcher");
    annotators = [];
    for (const n of ["Ann One", "Ann Two", "Ann Three"]) annotators.push(await testUser(ctx, "annotator", n));
    plain = await testUser(ctx, "annotator", "Plain Annotator");
    qaA = await testUser(ctx, "annotator", "Quinn QA");
    qaB = await testUser(ctx, "annotator", "Bea QA");
    ids = await seedTrajectories(ctx.db, 4, { agentName: AGENT, model: MODEL, taskSet: "QA set" });
    const asActor = (s: RequestSession) => ({ userId: s.userId, name: s.name, role: s.role });
    const a = await createCampaign(ctx.db, asActor(researcher), {
      name: "OM2W A",
      template: "online-mind2web",
      trajectoryIds: ids.slice(0, 3),
      annotatorIds: [...annotators, plain].map((u) => u.userId),
      qaReviewerIds: [qaA.userId],
    });
    campaignA = a.id;
    await updateQualitySettings(ctx.db, asActor(researcher), campaignA, { assignmentStrategy: "disputed_first" });
    const b = await createCampaign(ctx.db, asActor(researcher), {
      name: "OM2W B",
      template: "online-mind2web",
      trajectoryIds: [ids[3]!],
      annotatorIds: annotators.map((u) => u.userId),
      qaReviewerIds: [qaB.userId],
    });
    campaignB = b.id;
    for (const [name, t] of [
      ["agreed", ids[0]!],
      ["disputed", ids[1]!],
      ["open", ids[2]!],
      ["b", ids[3]!],
    ] as const) {
      itemNos[name] = (await getItemByTrajectory(ctx.db, name === "b" ? campaignB : campaignA, t))!.itemNo!;
    }
    const label = async (who: RequestSession, campaignId: number, itemNo: number, verdict: "success" | "failure", key: string) =>
      await (
        await callerAs(ctx, who)
      ).labelling.submit({
        campaignId,
        itemNo,
        verdict,
        ...(verdict === "failure" ? { category: "wrong navigation", firstFailingStep: 1 } : {}),
        note: NOTE,
        idempotencyKey: `qa-page-${key}`,
      });
    for (const [i, who] of annotators.entries()) {
      await label(who, campaignA, itemNos.agreed!, "success", `agreed-${i}`);
      await label(who, campaignA, itemNos.disputed!, i === 2 ? "failure" : "success", `disputed-${i}`);
      await label(who, campaignB, itemNos.b!, "success", `b-${i}`);
    }
    await label(annotators[0]!, campaignA, itemNos.open!, "success", "open-0");
    const { steps, screenshots } = tablesOf(ctx.db);
    await ctx.db.insert(screenshots).values({ hash, mime: "image/png", width: 10, height: 10, bytes: 1 });
    await ctx.db.update(steps).set({ screenshotHash: hash }).where(eq(steps.trajectoryId, ids[1]!));
  });
  afterAll(async () => {
    await ctx?.cleanup();
  });

  /** Every QA procedure on one item of a campaign, as `who`: the error codes they get back. */
  async function codes(who: RequestSession, campaignId: number, itemNo: number): Promise<Record<string, string>> {
    const api = await callerAs(ctx, who);
    const calls: Record<string, () => Promise<unknown>> = {
      queue: () => api.qa.queue({ campaignId }),
      item: () => api.qa.item({ campaignId, itemNo }),
      trajectory: () => api.qa.trajectory({ campaignId, itemNo }),
      steps: () => api.qa.steps({ campaignId, itemNo, from: 0 }),
      warmImages: () => api.qa.warmImages({ campaignId, itemNo, width: 640 }),
      submit: () => api.qa.submit({ campaignId, itemNo, decision: "corrected", verdict: "success", reason: "attack", disagreementSource: "annotator_error" }),
    };
    const out: Record<string, string> = {};
    for (const [name, call] of Object.entries(calls)) {
      try {
        await call();
        out[name] = "OK";
      } catch (e) {
        if (!(e instanceof TRPCError)) throw e;
        out[name] = e.code;
      }
    }
    return out;
  }

  const allForbidden = { queue: "FORBIDDEN", item: "FORBIDDEN", trajectory: "FORBIDDEN", steps: "FORBIDDEN", warmImages: "FORBIDDEN", submit: "FORBIDDEN" };

  it("a plain annotator of the campaign can call none of it, and is offered no QA page", async () => {
    expect(await codes(plain, campaignA, itemNos.disputed!)).toEqual(allForbidden);
    const api = await callerAs(ctx, plain);
    expect(await api.qa.campaigns()).toEqual([]);
    expect(await api.qa.isReviewer()).toBe(false);
    // The campaign's own annotators (who labelled the item) are not QA reviewers either.
    expect(await codes(annotators[0]!, campaignA, itemNos.disputed!)).toEqual(allForbidden);
    expect(await mayFetchScreenshot(ctx.db, { userId: qaB.userId, role: "annotator" }, hash)).toBe(false);
  });

  it("a QA reviewer of campaign B cannot review campaign A", async () => {
    expect(await codes(qaB, campaignA, itemNos.disputed!)).toEqual(allForbidden);
    expect((await (await callerAs(ctx, qaB)).qa.campaigns()).map((c) => c.id)).toEqual([campaignB]);
  });

  it("a QA reviewer of A sees the labels, disputed first, by item number, without the agent", async () => {
    const api = await callerAs(ctx, qaA);
    expect(await api.qa.isReviewer()).toBe(true);
    expect(await api.qa.campaigns()).toEqual([expect.objectContaining({ id: campaignA, pending: 2, qaStage: true })]);
    const queue = await api.qa.queue({ campaignId: campaignA });
    expect(queue.items.map((i) => [i.itemNo, i.state])).toEqual([
      [itemNos.disputed, "disputed"],
      [itemNos.agreed, "agreed"],
    ]);
    expect(queue.items.every((i) => i.trajectoryId === null && i.runName === null && i.model === null)).toBe(true);
    const item = await api.qa.item({ campaignId: campaignA, itemNo: itemNos.disputed! });
    expect(item.labels.map((l) => l.verdict).sort()).toEqual(["failure", "success", "success"]);
    expect(item.labels[0]!.note).toBe(NOTE);
    expect(item.consolidated).toBeNull();
    const player = await api.qa.trajectory({ campaignId: campaignA, itemNo: itemNos.disputed! });
    expect(player.agentHidden).toBe(true);
    expect(player.trajectory.id).toBe(0);
    const everything = JSON.stringify([queue, item, player, await api.qa.steps({ campaignId: campaignA, itemNo: itemNos.disputed!, from: 0 })]);
    for (const secret of [AGENT, MODEL, `"trajectoryId":${ids[1]}`, annotators[0]!.userId]) expect(everything).not.toContain(secret);
    expect(await mayFetchScreenshot(ctx.db, { userId: qaA.userId, role: "annotator" }, hash)).toBe(true);
  });

  it("an item still being labelled is closed to QA", async () => {
    const c = await codes(qaA, campaignA, itemNos.open!);
    expect(c).toMatchObject({ item: "CONFLICT", trajectory: "CONFLICT", steps: "CONFLICT", submit: "CONFLICT" });
  });

  it("a QA reviewer who still labels the trajectory blind in another campaign sees none of its labels", async () => {
    const asActor = (s: RequestSession) => ({ userId: s.userId, name: s.name, role: s.role });
    const other = await createCampaign(ctx.db, asActor(researcher), { name: "Blind C", trajectoryIds: [ids[0]!], annotatorIds: [qaA.userId] });
    try {
      const api = await callerAs(ctx, qaA);
      const blocked = await codes(qaA, campaignA, itemNos.agreed!);
      expect(blocked).toMatchObject({ item: "FORBIDDEN", trajectory: "FORBIDDEN", steps: "FORBIDDEN", submit: "FORBIDDEN" });
      const row = (await api.qa.queue({ campaignId: campaignA })).items.find((i) => i.itemNo === itemNos.agreed);
      expect(row).toMatchObject({ blind: true, labels: [] });
    } finally {
      const { annotationCampaigns } = tablesOf(ctx.db);
      await ctx.db.delete(annotationCampaigns).where(eq(annotationCampaigns.id, other.id));
    }
    // Once that campaign is gone, the item opens to them again.
    expect((await (await callerAs(ctx, qaA)).qa.item({ campaignId: campaignA, itemNo: itemNos.agreed! })).labels).toHaveLength(3);
  });

  it("the QA reviewer resolves the disputed item; the answer names no trajectory", async () => {
    const api = await callerAs(ctx, qaA);
    const r = await api.qa.submit({
      campaignId: campaignA,
      itemNo: itemNos.disputed!,
      decision: "corrected",
      verdict: "failure",
      category: "wrong navigation",
      firstFailingStep: 1,
      reason: "step 2 opens the wrong page",
      confidence: "high",
      disagreementSource: "annotator_error",
    });
    expect(r).toEqual({
      itemNo: itemNos.disputed,
      qaStatus: "done",
      decision: "corrected",
      consolidated: { verdict: "failure", category: "wrong navigation", firstFailingStep: 1, method: "adjudicated" },
    });
    expect((await api.qa.queue({ campaignId: campaignA })).items.map((i) => i.itemNo)).toEqual([itemNos.agreed]);
    await expect(api.qa.submit({ campaignId: campaignA, itemNo: itemNos.disputed!, decision: "confirmed", reason: "again" })).rejects.toMatchObject({
      code: "CONFLICT",
    });
  });
});

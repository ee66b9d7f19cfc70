/**
 * Submit & next in one call (issue 30, item 7): `labelling.submit` with `andNext` stores the label and reserves the
 * next item as `labelling.next` would, so the labelling page goes from Ctrl+Enter to the next item in one round trip.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { findLiveReservation, getItemByTrajectory } from "../../db/repositories/annotation/campaigns";
import { createCampaign } from "../../server/services/annotation";
import { seedTrajectories } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { callerAs, testUser } from "../helpers/trpc";

describeEachBackend("labelling.submit with andNext", (backend) => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-submit-next-");
  });
  afterEach(async () => ctx.cleanup());

  it("stores the label, then reserves and returns the item `next` would give, and null once nothing is left", async () => {
    const ids = await seedTrajectories(ctx.db, 3, { taskSet: "Submit and next" });
    const researcher = await testUser(ctx, "researcher");
    const annotatorSession = await testUser(ctx, "annotator", "Quick Annotator");
    const campaign = await createCampaign(
      ctx.db,
      { userId: researcher.userId, name: "R", role: "researcher" },
      { name: "Submit and next", trajectoryIds: ids, annotatorsPerItem: 1, annotatorIds: [annotatorSession.userId] },
    );
    const api = await callerAs(ctx, annotatorSession);
    const itemNoOf = async (t: number) => (await getItemByTrajectory(ctx.db, campaign.id, t))!.itemNo!;

    const seen: number[] = [];
    let current = (await api.labelling.next({ campaignId: campaign.id }))!;
    for (let i = 0; i < ids.length; i++) {
      seen.push(current.itemNo);
      const result = await api.labelling.submit({
        campaignId: campaign.id,
        itemNo: current.itemNo,
        verdict: i === 1 ? "failure" : "success",
        category: i === 1 ? "other" : null,
        idempotencyKey: `submit-next-${i}`,
        andNext: true,
      });
      expect(result.revision).toBe(1);
      // The label is stored before the next item is handed out.
      expect((await api.labelling.mine({ campaignId: campaign.id, itemNo: current.itemNo })).label).toMatchObject({
        verdict: i === 1 ? "failure" : "success",
      });
      const next = result.next;
      if (i === ids.length - 1) {
        expect(next).toBeNull();
        break;
      }
      expect(next).toMatchObject({ campaignId: campaign.id, resumed: false });
      expect(seen).not.toContain(next!.itemNo);
      // Reserved for this annotator: `next` resumes the same item rather than handing out another.
      const reserved = await findLiveReservation(ctx.db, campaign.id, annotatorSession.userId, Date.now());
      expect(await itemNoOf(reserved!.trajectoryId)).toBe(next!.itemNo);
      expect(await api.labelling.next({ campaignId: campaign.id })).toMatchObject({ itemNo: next!.itemNo, resumed: true });
      current = next!;
    }
    expect(seen.sort()).toEqual((await Promise.all(ids.map(itemNoOf))).sort());

    // Without andNext the answer is the label alone and nothing more is reserved.
    const plain = await api.labelling.submit({
      campaignId: campaign.id,
      itemNo: seen[0]!,
      verdict: "failure",
      category: "other",
      idempotencyKey: "submit-next-plain",
    });
    expect(plain.revision).toBe(2);
    expect(plain.next).toBeUndefined();
  });
});

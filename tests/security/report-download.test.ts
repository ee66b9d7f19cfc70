/**
 * Reports asked for on the dashboard, as an attacker would try them: an annotator may not ask for one; nobody but
 * the person who asked (and admins) sees the job or downloads its zip; a researcher who has started labelling some
 * trajectories blind since the report was built may no longer download its labels and verdicts; a report built
 * blind holds none and stays theirs to download. On both engines, through the worker that runs the jobs.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { tablesOf } from "../../db/database";
import type { Actor } from "../../server/domain/access/actor";
import { createCampaign, nextItem, submitItemLabel } from "../../server/services/annotation";
import { runWorker } from "../../server/services/jobs/worker";
import { reportJobHandler } from "../../server/services/trajectories/report-job";
import { openReportDownload, REPORT_JOB_TYPE, reportJob, startReport } from "../../server/services/trajectories/report-jobs";
import { makeActor } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { seedTrajectories } from "../helpers/judge-fixtures";

describeEachBackend("dashboard reports and their downloads", (backend) => {
  let ctx: TestContext;
  let ids: number[];
  const people: Record<"rita" | "bea" | "ann" | "ada", Actor> = {} as never;
  const work = () => runWorker({ db: ctx.db, handlers: { [REPORT_JOB_TYPE]: reportJobHandler(ctx) }, concurrency: 1, untilIdle: true });

  async function bytesOf(actor: Actor, id: number): Promise<Buffer> {
    const file = await openReportDownload(ctx, actor, id);
    const parts: Buffer[] = [];
    for await (const c of file.body) parts.push(c as Buffer);
    const bytes = Buffer.concat(parts);
    expect(bytes.length).toBe(file.size);
    return bytes;
  }

  beforeAll(async () => {
    ctx = await createBackendContext(backend);
    people.rita = await makeActor(ctx, "Rita", "researcher");
    people.bea = await makeActor(ctx, "Bea", "researcher");
    people.ann = await makeActor(ctx, "Ann", "annotator");
    people.ada = await makeActor(ctx, "Ada", "admin");
    ids = (await seedTrajectories(ctx, [{ steps: 2 }, { steps: 2 }, { steps: 2 }], "report-download")).map((t) => t.id);
    const { evaluatorVerdicts } = tablesOf(ctx.db);
    for (const trajectoryId of ids) {
      await ctx.db
        .insert(evaluatorVerdicts)
        .values({ trajectoryId, kind: "judge", origin: "verdict", evaluatorKey: "judge:1", evaluatorName: "Judge", verdict: "failure", rationale: "secret" });
    }
  }, 60_000);
  afterAll(async () => ctx?.cleanup());

  it("an annotator may not ask for a report", async () => {
    await expect(startReport(ctx, people.ann, { selection: {}, labels: "all", judges: "all" })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("only the person who asked and admins see the report; one who labels blind since may not download it", async () => {
    const id = await startReport(ctx, people.rita, { selection: {}, labels: "all", judges: "all" });
    expect((await reportJob(ctx, people.rita, id)).status).toBe("queued");
    await work();
    const view = await reportJob(ctx, people.rita, id);
    expect(view).toMatchObject({ status: "succeeded", progress: { phase: "writing", done: 3, total: 3 } });
    expect(view.result).toMatchObject({ blind: false, manifest: { counts: { trajectories: 3, judgeVerdicts: 3 } } });
    expect(view.result).not.toHaveProperty("key");
    expect((await bytesOf(people.rita, id)).subarray(0, 2).toString()).toBe("PK");
    expect((await bytesOf(people.ada, id)).length).toBe(view.result!.bytes);
    for (const someone of [people.bea, people.ann]) {
      await expect(reportJob(ctx, someone, id)).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(openReportDownload(ctx, someone, id)).rejects.toMatchObject({ code: "NOT_FOUND" });
    }
    // Rita is given a trajectory of the report to label blind: its verdicts are no longer hers to see.
    await createCampaign(ctx.db, people.ada, { name: "Blind for Rita", trajectoryIds: [ids[0]!], annotatorsPerItem: 1, annotatorIds: [people.rita.userId] });
    await expect(openReportDownload(ctx, people.rita, id)).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("a report built blind holds no evaluation and stays downloadable; a selection with nothing in it fails in words", async () => {
    const campaign = await createCampaign(ctx.db, people.ada, {
      name: "Blind for Bea",
      trajectoryIds: [ids[1]!, ids[2]!],
      annotatorsPerItem: 1,
      annotatorIds: [people.bea.userId],
    });
    // Bea labels one of her two items: she may browse that one, and the other stays blind for her.
    const item = (await nextItem(ctx.db, people.bea, campaign.id))!;
    await submitItemLabel(ctx.db, people.bea, { campaignId: campaign.id, itemNo: item.itemNo, verdict: "success", idempotencyKey: "bea-report-1" });
    const id = await startReport(ctx, people.bea, { selection: {}, labels: "all", judges: "all" });
    const empty = await startReport(ctx, people.bea, { selection: { ids: [ids[0]!] }, labels: "all", judges: "all" });
    await work();
    const view = await reportJob(ctx, people.bea, id);
    expect(view.result).toMatchObject({ blind: true, manifest: { counts: { trajectories: 1, judgeVerdicts: 0, humanLabels: 0 } } });
    expect((await bytesOf(people.bea, id)).length).toBe(view.result!.bytes);
    expect(await reportJob(ctx, people.bea, empty)).toMatchObject({ status: "failed", error: expect.stringContaining("Nothing to report") });
    await expect(openReportDownload(ctx, people.bea, empty)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

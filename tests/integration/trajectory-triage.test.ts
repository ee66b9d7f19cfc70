/**
 * Triage of the trajectory list against hand-worked data: the analytics fixture's 12 trajectories (labels,
 * judge k = 1 / k = 3, rule; see tests/helpers/analytics-fixture.ts) plus, added here, a second campaign that
 * relabels T2 and disputes T1, item states, a loop heuristic's verdicts, and T13 that nobody labelled or judged.
 * Every filter is checked as the exact set of trajectories it returns, through the tRPC router on real SQLite.
 *
 * Worked by hand (human = latest campaign's consolidated label; agreement with the judge at k = 1):
 *   T1  S  disputed(C2)  judge S  rule S   agree
 *   T2  S (C2 relabel)  agreed(C2)  judge S  rule F  agree
 *   T3  F hallucination  adjudicated  judge F  rule not_evaluable  agree
 *   T4  S  open  judge S  rule S  agree
 *   T5  S  agreed  judge unparseable  rule S  —
 *   T6  F navigation stuck  open  judge F  rule F  agree; loop heuristic fires
 *   T7  S  open  judge S  rule S  agree; loop heuristic passes
 *   T8  F visual grounding  open  judge F  rule F  agree
 *   T9  unsure  disputed  judge F  no rule  no human verdict
 *   T10 F hallucination  open  judge S  rule F  disagree
 *   T11 none  open  judge S  no rule  no human verdict
 *   T12 F (no category)  open  judge F  no rule  agree
 *   T13 none  in no campaign  no verdicts  no rule  no human verdict
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqliteClient } from "../../db/database";
import { addCampaignAnnotators, getItemByTrajectory, insertCampaign, insertCampaignItems, setItemState } from "../../db/repositories/annotation/campaigns";
import { upsertConsolidated } from "../../db/repositories/annotation/labels";
import { upsertTask } from "../../db/repositories/catalog";
import { upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { saveTrajectory } from "../../db/repositories/trajectories";
import type { createCaller } from "../../server/api/root";
import { defaultLabelSchema } from "../../server/domain/annotation/label-schema";
import { seededSample } from "../../server/domain/sampling";
import type { TrajectoryListInput } from "../../server/domain/trajectory-list-query";
import { matchingTrajectoryIds } from "../../server/services/trajectory-views";
import { seedAnalyticsFixture, type AnalyticsFixture } from "../helpers/analytics-fixture";
import { createTestContext, type TestContext } from "../helpers/context";
import { callerWithRole, testUser } from "../helpers/trpc";

let ctx: TestContext;
let fx: AnalyticsFixture;
let researcher: ReturnType<typeof createCaller>;
let annotator: ReturnType<typeof createCaller>;
let judgeK1: string;
let loop: string;
const id = (name: string) => (name === "T13" ? t13 : fx.ids[name]!);
let t13 = 0;

beforeAll(async () => {
  ctx = createTestContext("verdict-triage-");
  fx = await seedAnalyticsFixture(ctx.db);
  const db = ctx.db;
  const { id: taskId } = await upsertTask(db, fx.taskSetId, {
    externalId: "Shop--unlabelled",
    site: "Shop",
    intent: "Nobody looked at this one",
    startUrl: null,
    contentHash: "task-t13",
  });
  t13 = (
    await saveTrajectory(db, {
      runId: fx.runIds.alpha,
      taskId,
      attempt: 0,
      finalAnswer: "x",
      outcome: "answered",
      outcomeDetail: null,
      stepCount: 1,
      sourceFormat: "test",
      sourcePath: null,
      contentHash: "t13",
      steps: [{ index: 0, url: null, thought: null, actionRaw: null, action: { type: "scroll", direction: "down" } }],
    })
  ).id;
  const item = async (campaignId: number, name: string) => (await getItemByTrajectory(db, campaignId, id(name)))!.id;
  await setItemState(db, await item(fx.campaignId, "T3"), "adjudicated");
  await setItemState(db, await item(fx.campaignId, "T5"), "agreed");
  await setItemState(db, await item(fx.campaignId, "T9"), "disputed");
  const c2 = await insertCampaign(db, {
    name: "Second look",
    labelSchema: defaultLabelSchema(),
    annotatorsPerItem: 2,
    selection: { description: "T1, T2" },
    origin: "import",
  });
  await insertCampaignItems(db, c2, [id("T1"), id("T2")]);
  await setItemState(db, await item(c2, "T1"), "disputed");
  await setItemState(db, await item(c2, "T2"), "agreed");
  await upsertConsolidated(db, {
    campaignId: c2,
    itemId: await item(c2, "T2"),
    trajectoryId: id("T2"),
    verdict: "success",
    category: null,
    firstFailingStep: null,
    method: "unanimous",
    basedOn: [],
  });
  loop = "heuristic:loop||1";
  for (const [name, verdict] of [
    ["T6", "failure"],
    ["T7", "success"],
  ] as const) {
    await upsertVerdict(db, {
      trajectoryId: id(name),
      kind: "rule",
      origin: "verdict",
      evaluatorKey: "heuristic:loop",
      evaluatorName: "Heuristic: loop",
      k: "",
      promptVersion: "1",
      verdict,
    });
  }
  judgeK1 = `${fx.judgeKey}|1|v1`;
  researcher = await callerWithRole(ctx, "researcher");
  annotator = await callerWithRole(ctx, "annotator");
});

afterAll(() => ctx?.cleanup());

const names = (...n: string[]) => n.map(id).sort((a, b) => a - b);

async function listIds(input: TrajectoryListInput): Promise<number[]> {
  const page = await researcher.trajectories.list({ pageSize: 200, ...input });
  return page.rows.map((r) => r.id).sort((a, b) => a - b);
}

describe("triage filters (exact sets)", () => {
  it("human label: latest campaign's consolidated label, or none", async () => {
    expect(await listIds({ human: "success" })).toEqual(names("T1", "T2", "T4", "T5", "T7"));
    expect(await listIds({ human: "failure" })).toEqual(names("T3", "T6", "T8", "T10", "T12"));
    expect(await listIds({ human: "unsure" })).toEqual(names("T9"));
    expect(await listIds({ human: "none" })).toEqual(names("T11", "T13"));
  });

  it("error category of that label (T2's navigation failure was relabelled success)", async () => {
    expect(await listIds({ category: "navigation stuck" })).toEqual(names("T6"));
    expect(await listIds({ category: "hallucination" })).toEqual(names("T3", "T10"));
  });

  it("item state of the latest campaign holding the trajectory", async () => {
    expect(await listIds({ state: "open" })).toEqual(names("T4", "T6", "T7", "T8", "T10", "T11", "T12"));
    expect(await listIds({ state: "disputed" })).toEqual(names("T1", "T9"));
    expect(await listIds({ state: "agreed" })).toEqual(names("T2", "T5"));
    expect(await listIds({ state: "adjudicated" })).toEqual(names("T3"));
    expect(await listIds({ state: "none" })).toEqual(names("T13"));
  });

  it("a chosen evaluator's verdict, or none", async () => {
    expect(await listIds({ evaluator: judgeK1, verdict: "success" })).toEqual(names("T1", "T2", "T4", "T7", "T10", "T11"));
    expect(await listIds({ evaluator: judgeK1, verdict: "failure" })).toEqual(names("T3", "T6", "T8", "T9", "T12"));
    expect(await listIds({ evaluator: judgeK1, verdict: "unparseable" })).toEqual(names("T5"));
    expect(await listIds({ evaluator: judgeK1, verdict: "none" })).toEqual(names("T13"));
    // k = 3 is another evaluator: T5 is a success there.
    expect(await listIds({ evaluator: `${fx.judgeKey}|3|v1`, verdict: "unparseable" })).toEqual(names("T12"));
    expect(await listIds({ evaluator: loop, verdict: "failure" })).toEqual(names("T6"));
  });

  it("agreement between humans and the chosen evaluator", async () => {
    expect(await listIds({ evaluator: judgeK1, agreement: "agree" })).toEqual(names("T1", "T2", "T3", "T4", "T6", "T7", "T8", "T12"));
    expect(await listIds({ evaluator: judgeK1, agreement: "disagree" })).toEqual(names("T10"));
    expect(await listIds({ evaluator: judgeK1, agreement: "no_human" })).toEqual(names("T9", "T11", "T13"));
  });

  it("rule result", async () => {
    expect(await listIds({ rule: "success" })).toEqual(names("T1", "T4", "T5", "T7"));
    expect(await listIds({ rule: "failure" })).toEqual(names("T2", "T6", "T8", "T10"));
    expect(await listIds({ rule: "not_evaluable" })).toEqual(names("T3"));
    expect(await listIds({ rule: "none" })).toEqual(names("T9", "T11", "T12", "T13"));
  });

  it("combines with the list's own filters and counts against the whole catalog", async () => {
    // "The judge says success, humans say failure."
    expect(await listIds({ evaluator: judgeK1, verdict: "success", human: "failure" })).toEqual(names("T10"));
    expect(await listIds({ runId: fx.runIds.alpha, human: "failure" })).toEqual(names("T3", "T6"));
    expect(await listIds({ site: "Wiki", rule: "none" })).toEqual(names("T11", "T12"));
    const page = await researcher.trajectories.list({ human: "failure", pageSize: 2 });
    expect(page.total).toBe(5);
    expect(page.all).toBe(13);
    expect(page.rows).toHaveLength(2);
  });

  it("sorts by human label and by verdict, those without one last", async () => {
    const human = async (dir: "asc" | "desc") => (await researcher.trajectories.list({ sort: "human", dir, pageSize: 200 })).rows.map((r) => r.id);
    expect(await human("asc")).toEqual(["T12", "T10", "T8", "T6", "T3", "T9", "T7", "T5", "T4", "T2", "T1", "T13", "T11"].map(id));
    expect(await human("desc")).toEqual(["T7", "T5", "T4", "T2", "T1", "T9", "T12", "T10", "T8", "T6", "T3", "T13", "T11"].map(id));
    const byVerdict = (await researcher.trajectories.list({ sort: "verdict", dir: "asc", evaluator: judgeK1, pageSize: 200 })).rows.map((r) => r.id);
    expect(byVerdict).toEqual(["T12", "T9", "T8", "T6", "T3", "T5", "T11", "T10", "T7", "T4", "T2", "T1", "T13"].map(id));
  });

  it("shows each row's label, state, verdict, rule results and heuristic flags", async () => {
    const page = await researcher.trajectories.list({ evaluator: judgeK1, pageSize: 200 });
    expect(page.triage).toBe(true);
    const row = (name: string) => page.rows.find((r) => r.id === id(name))!.triage!;
    expect(row("T2")).toMatchObject({
      human: { verdict: "success", category: null },
      state: { state: "agreed" },
      verdict: "success",
      rules: [{ name: "VisualWebArena rules", verdict: "failure" }],
      flags: [],
    });
    expect(row("T6")).toMatchObject({
      human: { verdict: "failure", category: "navigation stuck" },
      state: { state: "open" },
      verdict: "failure",
      flags: ["Heuristic: loop"],
    });
    expect(row("T13")).toEqual({ human: null, state: null, verdict: null, rules: [], flags: [] });
  });

  it("offers the evaluators and categories to choose from", async () => {
    const options = await researcher.trajectories.filterOptions();
    expect(options.evaluators.map((e) => e.ref)).toEqual(expect.arrayContaining([judgeK1, `${fx.judgeKey}|3|v1`, loop, "rule:vwa||1"]));
    expect(options.evaluators.find((e) => e.ref === loop)?.kind).toBe("heuristic");
    expect(options.categories).toEqual(["hallucination", "navigation stuck", "visual grounding issue"]);
  });

  it("refuses a verdict filter without its evaluator, naming the field", async () => {
    await expect(researcher.trajectories.list({ verdict: "success" })).rejects.toThrow(/verdict: choose the evaluator/);
  });
});

describe("seeded samples", () => {
  it("the same seed and filter give the same sample, the one the pure sampler draws", async () => {
    const failures = names("T3", "T6", "T8", "T10", "T12");
    const a = await listIds({ human: "failure", sample: 3, seed: 7 });
    const b = await listIds({ human: "failure", sample: 3, seed: 7 });
    expect(a).toEqual(b);
    expect(a).toEqual(
      seededSample(
        failures.map((i) => ({ id: i })),
        3,
        7,
      ),
    );
    expect(a.every((i) => failures.includes(i))).toBe(true);
    const page = await researcher.trajectories.list({ human: "failure", sample: 3, seed: 7 });
    expect(page.total).toBe(3);
    expect(page.sample).toEqual({ size: 3, seed: 7, strata: null, from: 5 });
    // Some other seed draws another sample of the same five.
    const others = await Promise.all([1, 2, 3, 4, 5, 6].map((seed) => listIds({ human: "failure", sample: 3, seed })));
    expect(others.some((o) => JSON.stringify(o) !== JSON.stringify(a))).toBe(true);
  });

  it("stratified by run, each run gives its share", async () => {
    // 7 alpha (T1–T6, T13) and 6 beta (T7–T12): a sample of 4 takes 2 of each.
    const got = await listIds({ sample: 4, seed: 11, strata: "run" });
    const alpha = names("T1", "T2", "T3", "T4", "T5", "T6", "T13");
    expect(got).toHaveLength(4);
    expect(got.filter((i) => alpha.includes(i))).toHaveLength(2);
    expect(await matchingTrajectoryIds(ctx.db, { sample: 4, seed: 11, strata: "run" })).toEqual(got);
  });
});

describe("campaign from a selection or sample", () => {
  it("creates a campaign with exactly the sampled trajectories", async () => {
    const filter = { evaluator: judgeK1, agreement: "agree" as const, sample: 5, seed: 2024 };
    const expected = await listIds(filter);
    expect(expected).toHaveLength(5);
    const preview = await researcher.campaigns.previewSelection({ filter });
    expect(preview.count).toBe(5);
    expect(preview.description).toMatch(/random sample of 5 \(seed 2024\)/);
    const campaign = await researcher.campaigns.create({ name: "From a sample", filter, annotatorsPerItem: 1 });
    const items = sqliteClient(ctx.db)
      .prepare("select trajectory_id as id from campaign_items where campaign_id = ? order by trajectory_id")
      .all(campaign.id) as { id: number }[];
    expect(items.map((r) => r.id)).toEqual(expected);
  });

  it("creates a campaign from hand-picked rows", async () => {
    const campaign = await researcher.campaigns.create({ name: "Hand-picked", filter: { ids: names("T4", "T10") } });
    const items = sqliteClient(ctx.db)
      .prepare("select trajectory_id as id from campaign_items where campaign_id = ? order by trajectory_id")
      .all(campaign.id) as { id: number }[];
    expect(items.map((r) => r.id)).toEqual(names("T4", "T10"));
  });

  it("annotators can neither triage the list nor make a campaign from it", async () => {
    await expect(annotator.trajectories.list({ human: "failure" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(annotator.trajectories.list({ sample: 2, seed: 1 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(annotator.campaigns.create({ name: "Sneaky", filter: { human: "failure", sample: 2, seed: 1 } })).rejects.toMatchObject({ code: "FORBIDDEN" });
    // The annotator labels in an open (not blind) campaign, so the list shows them rows, without triage columns.
    const annotatorId = (await testUser(ctx, "annotator")).userId;
    const open = await insertCampaign(ctx.db, {
      name: "Open to read",
      labelSchema: defaultLabelSchema(),
      annotatorsPerItem: 1,
      blind: false,
      selection: { description: "T13" },
      origin: "import",
    });
    try {
      await insertCampaignItems(ctx.db, open, [id("T13")]);
      await addCampaignAnnotators(ctx.db, open, [annotatorId]);
      const plain = await annotator.trajectories.list({});
      expect(plain.triage).toBe(false);
      expect(plain.rows.map((r) => r.id)).toEqual([id("T13")]);
      for (const row of plain.rows) expect(row).not.toHaveProperty("triage");
      // The same row as a researcher sees it does carry them (what the annotator's would show if the gate broke).
      expect((await researcher.trajectories.list({ ids: [id("T13")] })).rows[0]).toHaveProperty("triage");
    } finally {
      const raw = sqliteClient(ctx.db);
      raw.prepare("delete from campaign_annotators where campaign_id = ?").run(open);
      raw.prepare("delete from campaign_items where campaign_id = ?").run(open);
      raw.prepare("delete from annotation_campaigns where id = ?").run(open);
    }
  });
});

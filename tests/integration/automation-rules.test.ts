/**
 * Automation rules on both engines: an import job queues `rules.apply`, which runs the enabled rules on the new
 * trajectories only; a rule takes a seeded share of what its filter matches and adds it to a campaign or starts a
 * judge batch; every run is logged, refusals with their reason; running again adds nothing twice; annotators can
 * neither read nor write rules.
 */
import fs from "node:fs";
import path from "node:path";
import { TRPCError } from "@trpc/server";
import yazl from "yazl";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { tablesOf } from "../../db/database";
import { campaignItemIds, getCampaign } from "../../db/repositories/annotation/campaigns";
import { getJudgeBatch } from "../../db/repositories/evaluation/verdicts";
import { listRuleRuns, listRules } from "../../db/repositories/automation/rules";
import { inShare, type RuleDraft } from "../../server/domain/automation/rules";
import { BUILT_IN_SCANNERS, definitionHash } from "../../server/domain/evaluation/scanners/definitions";
import { createCampaign, setCampaignAnnotators, updateCampaignSettings } from "../../server/services/annotation";
import {
  applyRules,
  createRule,
  editRule,
  enqueueRulesApply,
  RULES_APPLY_JOB_TYPE,
  rulesApplyJobHandler,
  setRuleEnabled,
} from "../../server/services/automation";
import { createJudgeConfig, deleteJudgeConfig } from "../../server/services/evaluation/judge-configs";
import { startImport } from "../../server/services/imports/jobs";
import { jobsOfGroup } from "../../server/services/jobs/queue";
import { runWorker } from "../../server/services/jobs/worker";
import { seedTrajectories, makeActor } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { LOCAL_JUDGE_SETTINGS } from "../helpers/judge-fixtures";
import { callerAs, callerWithRole, testUser } from "../helpers/trpc";
import { runQueuedImports } from "../helpers/workers";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";
import type { Actor } from "../../server/domain/access/actor";

let ctx: TestContext;
let researcher: Actor;

function rule(over: Partial<RuleDraft> & Pick<RuleDraft, "action">): RuleDraft {
  return { name: "rule", filterText: "", triggers: ["import", "push"], sharePercent: 100, seed: 1, enabled: true, ...over };
}

/** A campaign holding one trajectory of another run, so it exists before the arrivals. */
async function campaign(name: string, opts: { blind?: boolean } = {}) {
  const [first] = await seedTrajectories(ctx.db, 1, { model: `seed-${name}`, agentName: `seed-${name}` });
  return createCampaign(ctx.db, researcher, { name, trajectoryIds: [first!], blind: opts.blind ?? true });
}

async function runQueuedRules() {
  return runWorker({ db: ctx.db, handlers: { [RULES_APPLY_JOB_TYPE]: rulesApplyJobHandler(ctx) }, concurrency: 1, untilIdle: true });
}

async function zipOf(folder: string, file: string) {
  const zip = new yazl.ZipFile();
  for (const rel of fs.readdirSync(folder, { recursive: true }) as string[]) {
    const abs = path.join(folder, rel);
    if (fs.statSync(abs).isFile()) zip.addFile(abs, `results/${rel.split(path.sep).join("/")}`);
  }
  zip.end();
  await new Promise<void>((r) => zip.outputStream.pipe(fs.createWriteStream(file)).on("close", () => r()));
  return file;
}

describeEachBackend("automation rules", (backend) => {
  beforeEach(async () => {
    ctx = await createBackendContext(backend);
    researcher = await makeActor(ctx, "Rhea Researcher", "researcher");
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  it("an import job queues the rules, which add the matching new trajectories to the campaign and log the run", async () => {
    const c = await campaign("Answered");
    const r = await createRule(ctx.db, researcher, rule({ name: "answered ones", filterText: "answer=yes", action: { kind: "campaign", campaignId: c.id } }));
    const src = await writeWebVoyagerFixture(path.join(ctx.dir, "src"), [
      { id: "Rule--1", intent: "One.", url: "https://rule.test/", actions: ["Click [0]", "ANSWER; a"] },
      { id: "Rule--2", intent: "Two.", url: "https://rule.test/", actions: ["Click [0]", "Click [1]"] },
    ]);
    const upload = await zipOf(src, path.join(ctx.dir, "u.zip"));
    const jobId = await startImport(ctx, { kind: "upload", file: upload, name: "results.zip" }, { requestedBy: null });
    await runQueuedImports(ctx);
    // The import has committed; the rules have not run yet: they are a job of their own.
    expect(await campaignItemIds(ctx.db, c.id)).toHaveLength(1);
    const [queued] = await jobsOfGroup(ctx.db, `rules:import:${jobId}`);
    expect(queued).toMatchObject({ type: RULES_APPLY_JOB_TYPE, status: "queued" });
    expect(await runQueuedRules()).toMatchObject({ succeeded: 1, failed: 0 });

    const { trajectories } = tablesOf(ctx.db);
    const answered = await ctx.db.select({ id: trajectories.id }).from(trajectories).where(eq(trajectories.finalAnswer, "a"));
    expect(await campaignItemIds(ctx.db, c.id)).toHaveLength(2);
    const [run] = await listRuleRuns(ctx.db, r.id, 10);
    expect(run).toMatchObject({
      trigger: "import",
      arrival: `import job ${jobId} (results.zip)`,
      arrived: 2,
      matched: 1,
      sampled: 1,
      acted: 1,
      outcome: "acted",
      refusal: null,
      trajectoryIds: [answered[0]!.id],
    });
    // The same zip imported again brings nothing new: no job, nothing added.
    const again = await startImport(ctx, { kind: "upload", file: await zipOf(src, path.join(ctx.dir, "v.zip")), name: "results.zip" }, { requestedBy: null });
    await runQueuedImports(ctx);
    expect(await jobsOfGroup(ctx.db, `rules:import:${again}`)).toEqual([]);
  });

  it("takes a reproducible seeded share of the matches, only of its filter, and never twice", async () => {
    const c = await campaign("Sampled");
    const r = await createRule(
      ctx.db,
      researcher,
      rule({ name: "a fifth of m-a", filterText: "model=m-a", sharePercent: 20, seed: 42, action: { kind: "campaign", campaignId: c.id } }),
    );
    const mine = await seedTrajectories(ctx.db, 60, { model: "m-a", agentName: "a" });
    const others = await seedTrajectories(ctx.db, 20, { model: "m-b", agentName: "b" });
    const expected = mine.filter((id) => inShare(id, 20, 42));
    expect(expected.length).toBeGreaterThan(0);

    const [first] = await applyRules(ctx.db, { trigger: "import", arrival: "import job 1", trajectoryIds: [...mine, ...others] });
    expect(first).toMatchObject({ outcome: "acted", acted: expected.length });
    const items = await campaignItemIds(ctx.db, c.id);
    expect(items).toHaveLength(1 + expected.length);
    const [run1] = await listRuleRuns(ctx.db, r.id, 1);
    expect(run1).toMatchObject({ arrived: 80, matched: 60, sampled: expected.length, acted: expected.length, trajectoryIds: expected });

    // The same arrival again (a retried job): logged, nothing added.
    const [second] = await applyRules(ctx.db, { trigger: "import", arrival: "import job 1", trajectoryIds: [...mine, ...others] });
    expect(second).toMatchObject({ outcome: "nothing", acted: 0 });
    expect(await campaignItemIds(ctx.db, c.id)).toEqual(items);
    expect((await listRuleRuns(ctx.db, r.id, 1))[0]).toMatchObject({ matched: 60, sampled: expected.length, alreadyDone: expected.length, acted: 0 });

    // A trigger the rule does not run on, or a paused rule: no run at all.
    expect(await applyRules(ctx.db, { trigger: "live", arrival: "live run 9", trajectoryIds: mine })).toEqual([]);
    await setRuleEnabled(ctx.db, researcher, r.id, false);
    expect(await applyRules(ctx.db, { trigger: "import", arrival: "import job 2", trajectoryIds: mine })).toEqual([]);
    expect(await listRuleRuns(ctx.db, r.id, 10)).toHaveLength(2);
    // Nothing is queued for an arrival no enabled rule looks at.
    expect(await enqueueRulesApply(ctx.db, { trigger: "import", arrival: "import job 3", key: "import:3", trajectoryIds: mine })).toBe(false);
  });

  it("matches arrivals by a judge's verdict, a rule check's result, a scanner hit and the agent's run", async () => {
    const ids = await seedTrajectories(ctx.db, 6, { model: "m-filters", agentName: "filtered-agent" });
    const other = await seedTrajectories(ctx.db, 2, { model: "m-filters", agentName: "another-agent" });
    const [t0, t1, t2, t3, t4] = ids as [number, number, number, number, number];
    const { evaluatorVerdicts, scannerScans, scannerMatches, trajectories } = tablesOf(ctx.db);
    const verdict = (trajectoryId: number, kind: "judge" | "rule", evaluatorKey: string, v: "success" | "failure", k = "", promptVersion = "") => ({
      trajectoryId,
      kind,
      origin: "verdict" as const,
      evaluatorKey,
      evaluatorName: evaluatorKey,
      k,
      promptVersion,
      verdict: v,
    });
    await ctx.db
      .insert(evaluatorVerdicts)
      .values([
        verdict(t0, "judge", "judge:9", "failure", "1", "v1"),
        verdict(t1, "judge", "judge:9", "success", "1", "v1"),
        verdict(t2, "rule", "rule:vwa", "failure"),
        verdict(t3, "rule", "rule:vwa", "success"),
      ]);
    // A scan by the built-in CAPTCHA scanner as it is defined now (a scan by an older definition would not count).
    const captcha = definitionHash(BUILT_IN_SCANNERS.find((d) => d.key === "captcha")!);
    await ctx.db.insert(scannerScans).values([
      { scannerKey: "captcha", trajectoryId: t4, definitionHash: captcha, matchCount: 1 },
      { scannerKey: "captcha", trajectoryId: t0, definitionHash: captcha, matchCount: 0 },
    ]);
    await ctx.db
      .insert(scannerMatches)
      .values({ scannerKey: "captcha", trajectoryId: t4, stepIndex: 1, ruleIndex: 0, field: "thought", matchedText: "captcha" });
    const [agentRun] = await ctx.db.select({ id: trajectories.runId }).from(trajectories).where(eq(trajectories.id, t0));

    const cases = [
      ["judge failures", "ev=judge%3A9%7C1%7Cv1&verdict=failure", [t0]],
      ["rule check failures", "rule=failure", [t2]],
      ["captcha hits", "search=scanner%3Acaptcha", [t4]],
      ["the agent's run", `run=${agentRun!.id}`, ids],
    ] as const;
    const made = [];
    for (const [name, filterText] of cases) {
      const c = await campaign(`Filter: ${name}`);
      made.push({ c, r: await createRule(ctx.db, researcher, rule({ name, filterText, action: { kind: "campaign", campaignId: c.id } })) });
    }
    const results = await applyRules(ctx.db, { trigger: "import", arrival: "import job 11", trajectoryIds: [...ids, ...other] });
    expect(results).toHaveLength(cases.length);
    for (const [i, [, , expected]] of cases.entries()) {
      const { c, r } = made[i]!;
      const [run] = await listRuleRuns(ctx.db, r.id, 1);
      expect(run, cases[i]![0]).toMatchObject({ arrived: 8, matched: expected.length, acted: expected.length, outcome: "acted" });
      expect(
        [...run!.trajectoryIds].sort((a, b) => a - b),
        cases[i]![0],
      ).toEqual([...expected].sort((a, b) => a - b));
      expect(await campaignItemIds(ctx.db, c.id), cases[i]![0]).toHaveLength(1 + expected.length);
    }
  });

  it("queues one job per arrival however often it is asked", async () => {
    const c = await campaign("Once");
    await createRule(ctx.db, researcher, rule({ name: "all", action: { kind: "campaign", campaignId: c.id } }));
    const ids = await seedTrajectories(ctx.db, 3, { model: "m-once" });
    expect(await enqueueRulesApply(ctx.db, { trigger: "push", arrival: "import job 7", key: "import:7", trajectoryIds: ids })).toBe(true);
    expect(await enqueueRulesApply(ctx.db, { trigger: "push", arrival: "import job 7", key: "import:7", trajectoryIds: ids })).toBe(false);
    expect(await jobsOfGroup(ctx.db, "rules:import:7")).toHaveLength(1);
  });

  it("logs refusals with their reason and acts once the reason is gone", async () => {
    const c = await campaign("Closing");
    const r = await createRule(ctx.db, researcher, rule({ name: "to a closed campaign", action: { kind: "campaign", campaignId: c.id } }));
    const ids = await seedTrajectories(ctx.db, 4, { model: "m-closed" });
    await updateCampaignSettings(ctx.db, researcher, c.id, { status: "closed" });
    const [refused] = await applyRules(ctx.db, { trigger: "import", arrival: "import job 1", trajectoryIds: ids });
    expect(refused).toMatchObject({ outcome: "refused", acted: 0, refusal: "campaign “Closing” is closed; reopen it or point the rule at another campaign" });
    expect(await campaignItemIds(ctx.db, c.id)).toHaveLength(1);
    expect((await listRuleRuns(ctx.db, r.id, 1))[0]).toMatchObject({ outcome: "refused", matched: 4, sampled: 4, trajectoryIds: ids });
    await updateCampaignSettings(ctx.db, researcher, c.id, { status: "active" });
    const [acted] = await applyRules(ctx.db, { trigger: "import", arrival: "import job 1", trajectoryIds: ids });
    expect(acted).toMatchObject({ outcome: "acted", acted: 4 });
    expect(await campaignItemIds(ctx.db, c.id)).toHaveLength(5);
  });

  it("starts a judge batch on the share, and refuses once the configuration is gone", async () => {
    const config = await createJudgeConfig(ctx.db, { name: "rule judge", baseUrl: "http://127.0.0.1:9999/v1", model: "m-1" }, LOCAL_JUDGE_SETTINGS);
    const spare = await createJudgeConfig(ctx.db, { name: "spare judge", baseUrl: "http://127.0.0.1:9999/v1", model: "m-1" }, LOCAL_JUDGE_SETTINGS);
    const r = await createRule(ctx.db, researcher, rule({ name: "judge them", action: { kind: "judge", judgeConfigId: config.id, k: "3" } }));
    const ids = await seedTrajectories(ctx.db, 3, { model: "m-judge" });
    const [run] = await applyRules(ctx.db, { trigger: "push", arrival: "import job 4", trajectoryIds: ids });
    expect(run).toMatchObject({ outcome: "acted", acted: 3 });
    const logged = (await listRuleRuns(ctx.db, r.id, 1))[0]!;
    const batch = await getJudgeBatch(ctx.db, logged.judgeBatchId!);
    expect(batch).toMatchObject({ judgeConfigId: config.id, trajectoryIds: ids, kValues: ["3"], selectionLabel: "rule “judge them”: import job 4" });

    await editRule(ctx.db, researcher, r.id, rule({ name: "judge them", action: { kind: "judge", judgeConfigId: spare.id, k: "3" } }));
    await deleteJudgeConfig(ctx.db, spare.id);
    const more = await seedTrajectories(ctx.db, 2, { model: "m-judge-2", agentName: "j2" });
    const [gone] = await applyRules(ctx.db, { trigger: "push", arrival: "import job 5", trajectoryIds: more });
    expect(gone).toMatchObject({ outcome: "refused", refusal: `judge configuration ${spare.id} is gone` });
  });

  it("refuses a filter on labels or verdicts while the rule's author labels blind", async () => {
    const target = await campaign("Target");
    const r = await createRule(
      ctx.db,
      researcher,
      rule({ name: "rule failures", filterText: "rule=none", action: { kind: "campaign", campaignId: target.id } }),
    );
    const blindCampaign = await campaign("Blind work", { blind: true });
    await setCampaignAnnotators(ctx.db, researcher, blindCampaign.id, { add: [researcher.userId] });
    const ids = await seedTrajectories(ctx.db, 2, { model: "m-blind" });
    const [run] = await applyRules(ctx.db, { trigger: "import", arrival: "import job 6", trajectoryIds: ids });
    expect(run!.outcome).toBe("refused");
    expect(run!.refusal).toMatch(/^blind: the rule filters by labels or verdicts, and its author \(Rhea Researcher\) labels 1 trajectory blind/);
    expect(await campaignItemIds(ctx.db, target.id)).toHaveLength(1);
    expect((await listRuleRuns(ctx.db, r.id, 1))[0]).toMatchObject({ outcome: "refused", matched: 0, trajectoryIds: [] });
  });

  it("annotators can neither read nor write rules through the API; signed-out callers are asked to sign in", async () => {
    const c = await campaign("Guarded");
    const r = await createRule(ctx.db, researcher, rule({ name: "guarded", action: { kind: "campaign", campaignId: c.id } }));
    const annotator = await callerWithRole(ctx, "annotator");
    const input = { ...rule({ name: "sneaky", action: { kind: "campaign" as const, campaignId: c.id } }) };
    const attempts: [string, () => Promise<unknown>][] = [
      ["list", () => annotator.automation.list()],
      ["runs", () => annotator.automation.runs({ id: r.id })],
      ["create", () => annotator.automation.create(input)],
      ["update", () => annotator.automation.update({ ...input, id: r.id })],
      ["setEnabled", () => annotator.automation.setEnabled({ id: r.id, enabled: false })],
      ["remove", () => annotator.automation.remove({ id: r.id })],
    ];
    for (const [name, call] of attempts) {
      const e = await call().then(
        () => null,
        (err: unknown) => err,
      );
      expect(e, name).toBeInstanceOf(TRPCError);
      expect((e as TRPCError).code, name).toBe("FORBIDDEN");
    }
    const anonymous = await callerAs(ctx, null);
    await expect(anonymous.automation.list()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    expect(await listRules(ctx.db)).toMatchObject([{ id: r.id, name: "guarded", enabled: true }]);

    // A researcher reads and writes them, with readable errors.
    const caller = await callerAs(ctx, await testUser(ctx, "researcher"));
    expect((await caller.automation.list()).map((x) => x.name)).toEqual(["guarded"]);
    await expect(caller.automation.create({ ...input, filterText: "colour=red" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/^filter: “colour”/),
    });
    await expect(caller.automation.create({ ...input, name: "guarded" })).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await getCampaign(ctx.db, c.id)).toBeDefined();
  });
});
